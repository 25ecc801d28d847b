/// @file testing.hpp
/// @brief GoogleTest helpers shared by the graded tests: GPU checks and measured values.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "streamlab/check.hpp"
#include "streamlab/device.hpp"
#include "streamlab/grader_words.hpp"
#include "streamlab/tracer.hpp"

/// Helpers for the graded tests: what `course check` shows next to a test's verdict.
///
/// What a test reports besides its verdict (a measured value, a hint, a note) is for display
/// only: points come from whether the test passed. It travels in GoogleTest's XML report
/// (--gtest_output=xml:PATH), which `course check` and the grader read: each value is a
/// property of the test (RecordProperty) under a numbered key, the kKey word of
/// streamlab/grader_words.hpp, a dot and 1, 2, ... in the order reported
/// (`streamlab.measure.1`, `streamlab.measure.2`, `streamlab.hint.1`, ...). Each is also
/// printed on a line of its own that begins with the kLine word, for whoever reads the test's
/// output (ctest's console).
namespace streamlab::grading {

/// Reports a measured value next to its threshold: the property `streamlab.measure.N` holds
/// `{"name": ..., "value": ..., "op": ">=", "threshold": ..., "unit": ...}` (JSON), also
/// printed after `STREAMLAB-MEASURE `.
void report_measure(const std::string& name, double value, const std::string& op, double threshold,
                    const std::string& unit);

/// Reports a hint `course check` shows when the test fails: the property `streamlab.hint.N`
/// holds its text, printed as a JSON string after `STREAMLAB-HINT `.
void report_hint(const std::string& hint);

/// Reports an observation in words that `course check` and the grade report show
/// whatever the verdict, e.g. a prediction next to what the timeline shows: the property
/// `streamlab.note.N` holds `{"name": ..., "text": ...}` (JSON), also printed after
/// `STREAMLAB-NOTE `.
void report_note(const std::string& name, const std::string& text);

/// For a test that lists what went wrong, one sentence each: reports their
/// number as `measure` next to 0 and, when there are any, `hint`; succeeds when
/// `problems` is empty, and otherwise fails with their number, `what` and the
/// first five. `EXPECT_TRUE(none_found(...))`.
[[nodiscard]] ::testing::AssertionResult none_found(const std::vector<std::string>& problems,
                                                    const std::string& measure, const std::string& what,
                                                    const std::string& hint);

/// For a test that holds a measured value against the model's: reports `yours / model`
/// as `measure` next to `min_share` and, when it falls short, `hint`; succeeds when
/// `yours` reaches `min_share * model`, and otherwise fails saying by how much.
/// `EXPECT_TRUE(share_of_model_reached(...)) << what both were`.
[[nodiscard]] ::testing::AssertionResult share_of_model_reached(const std::string& measure, double yours, double model,
                                                                double min_share, const std::string& hint);

/// True once SL_REQUIRE_GPU found a usable GPU in this process: a GPU that is
/// gone later was taken by what ran in between, the code under test.
[[nodiscard]] bool gpu_seen_before() noexcept;

/// Notes that this process found a usable GPU (SL_REQUIRE_GPU does).
void note_gpu_seen() noexcept;

/// Runs the code under test while a timeline records. A TimelineUnavailable it
/// throws did not come from the tracer (which has started by then): it becomes
/// an ordinary failure, never a skip, so that graded code cannot turn a failing
/// test into one that is not graded.
template <typename Work>
void run_code_under_test(Work&& work) {
    try {
        std::forward<Work>(work)();
    } catch (const TimelineUnavailable& thrown) {
        throw std::logic_error(std::string("the code under test threw streamlab::TimelineUnavailable (\"") +
                               thrown.what() + "\"): only the tracer may, before the code runs");
    }
}

}  // namespace streamlab::grading

/// The skips the grader accepts as "not graded" on a machine with a GPU start
/// with one of the kSkip words of streamlab/grader_words.hpp: no GPU, no
/// timeline before the code under test ran, fewer GPUs than the lab needs, or a
/// device that cannot show what the test measures (its facts or the test's own
/// reference runs say so): this one.
#define SL_SKIP_DEVICE_CANNOT_SHOW() GTEST_SKIP() << ::streamlab::words::kSkipDeviceCannotShow

/// Skips the current test with `message`, the machine's reason, unless what
/// is missing (the GPU, the tracer) `worked_before` in this process: then the
/// code under test, which ran in between, broke it, and the test fails.
#define SL_SKIP_UNLESS_BROKEN_HERE(worked_before, message)                                   \
    do {                                                                                     \
        if (worked_before) {                                                                 \
            GTEST_FAIL() << "no longer usable after the code under test ran: " << (message); \
        }                                                                                    \
        GTEST_SKIP() << (message);                                                           \
    } while (false)

/// Skips the current test, with the reason, when no CUDA device is usable.
#define SL_REQUIRE_GPU()                                                                     \
    do {                                                                                     \
        const ::streamlab::GpuPresence sl_presence = ::streamlab::query_gpu_presence();      \
        if (!sl_presence.available) {                                                        \
            SL_SKIP_UNLESS_BROKEN_HERE(::streamlab::grading::gpu_seen_before(),              \
                                       ::streamlab::words::kSkipNoGpu + sl_presence.reason); \
        }                                                                                    \
        ::streamlab::grading::note_gpu_seen();                                               \
    } while (false)

/// Records the GPU's timeline while the lambda (`...`) runs and assigns it to
/// `timeline_var` (an existing streamlab::Timeline). Skips the current test,
/// with the reason, when there is no GPU or the tracer cannot start (under
/// Nsight Systems or compute-sanitizer, say): never a zero score. Only the
/// tracer's start is guarded: whatever the lambda throws is a failure.
/// With the tracer off (STREAMLAB_NO_TRACE=1, read from the environment the
/// process started with) the lambda still runs, so that compute-sanitizer sees
/// the code under test, and then the test is skipped.
/// Like GTEST_SKIP(), it returns from the function it is used in. The lambda is
/// taken as `...` so that commas in its body (`std::array<int, 3>`) are harmless.
#define SL_RECORD_TIMELINE(timeline_var, program, ...)                                                   \
    do {                                                                                                 \
        SL_REQUIRE_GPU();                                                                                \
        const ::std::string sl_tracing_off = ::streamlab::tracing_off_reason();                          \
        ::std::optional<::streamlab::Tracer> sl_tracer;                                                  \
        if (sl_tracing_off.empty()) {                                                                    \
            try {                                                                                        \
                sl_tracer.emplace(program);                                                              \
            } catch (const ::streamlab::TimelineUnavailable& sl_unavailable) {                           \
                SL_SKIP_UNLESS_BROKEN_HERE(::streamlab::tracer_started_before(), sl_unavailable.what()); \
            }                                                                                            \
        }                                                                                                \
        ::streamlab::grading::run_code_under_test(__VA_ARGS__);                                          \
        if (!sl_tracer) {                                                                                \
            SL_CHECK(cudaDeviceSynchronize());                                                           \
            GTEST_SKIP() << ::streamlab::words::kSkipTimelineUnavailable << sl_tracing_off;              \
        }                                                                                                \
        (timeline_var) = sl_tracer->finish();                                                            \
    } while (false)

/// Runs one step of a test (a recording, a SetUp of the base fixture, a helper)
/// and ends the current function there when the step skipped the test (no GPU,
/// no tracer: the reason is already printed) or failed it fatally. GoogleTest's
/// GTEST_SKIP and ASSERT_* return only from the function they are written in;
/// this carries that return up to the test.
#define SL_STEP(...)                            \
    do {                                        \
        __VA_ARGS__;                            \
        if (IsSkipped() || HasFatalFailure()) { \
            return;                             \
        }                                       \
    } while (false)
