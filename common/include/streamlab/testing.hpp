/// @file testing.hpp
/// @brief GoogleTest helpers shared by the graded tests: GPU checks and measured values.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "streamlab/device.hpp"
#include "streamlab/tracer.hpp"

/// Helpers for the graded tests: what `course check` shows next to a test's verdict.
namespace streamlab::grading {

/// Prints a measured value next to its threshold in a form `course check` reads:
/// `STREAMLAB-MEASURE {"name": ..., "value": ..., "threshold": ..., "op": ">=", "unit": ...}`.
/// It is for display only; points come from whether the test passed.
void report_measure(const std::string& name, double value, const std::string& op, double threshold,
                    const std::string& unit);

/// Prints a hint `course check` shows when the test fails.
void report_hint(const std::string& hint);

}  // namespace streamlab::grading

/// Skips the current test, with the reason, when no CUDA device is usable.
#define SL_REQUIRE_GPU()                                                             \
    do {                                                                             \
        const ::streamlab::GpuPresence sl_presence = ::streamlab::query_gpu_presence(); \
        if (!sl_presence.available) {                                                \
            GTEST_SKIP() << "no GPU: " << sl_presence.reason;                        \
        }                                                                            \
    } while (false)

/// Records the GPU's timeline while the lambda (`...`) runs and assigns it to
/// `timeline_var` (an existing streamlab::Timeline). Skips the current test,
/// with the reason, when there is no GPU or the timeline cannot be recorded
/// (under Nsight Systems or compute-sanitizer, say): never a zero score.
/// With the tracer off (STREAMLAB_NO_TRACE=1) the lambda still runs, so that
/// compute-sanitizer sees the code under test, and then the test is skipped.
/// Like GTEST_SKIP(), it returns from the function it is used in. The lambda is
/// taken as `...` so that commas in its body (`std::array<int, 3>`) are harmless.
#define SL_RECORD_TIMELINE(timeline_var, program, ...)                                 \
    do {                                                                               \
        SL_REQUIRE_GPU();                                                              \
        try {                                                                          \
            (timeline_var) = ::streamlab::record_timeline((program), __VA_ARGS__);     \
        } catch (const ::streamlab::TimelineUnavailable& sl_unavailable) {             \
            GTEST_SKIP() << sl_unavailable.what();                                     \
        }                                                                              \
        if (!(timeline_var).recorded()) {                                              \
            GTEST_SKIP() << "timeline unavailable: " << (timeline_var).not_recorded;   \
        }                                                                              \
    } while (false)
