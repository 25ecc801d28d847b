// Lab 01's graded tests: judges of the record that record_lab01.cpp left. The
// recording ran your run_serial and your barrier demo (with each kind of
// stream) once while CUPTI recorded what the GPU did; these tests grade that
// record and never run your code. What you report about yourself is only
// compared with the timeline, never trusted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lab01_record.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/answers.hpp"
#include "streamlab/judging.hpp"
#include "streamlab/testing.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;

using lab01::course::kDemoElements;
using lab01::course::kSerialElements;

/// What every real run of record_lab01.cpp leaves: the serial job's output (kSerialElements floats,
/// bound to the job salt) with the set-up's iterations, and kernel A's of the barrier demo (kDemoElements
/// floats) with the set-up's demo_iterations.
[[maybe_unused]] const bool kRunsDeclared = judge_records_of(
    {{{"serial", 1, record::fixed_elements(kSerialElements, /*salted=*/true)},
      {"barrier_blocking", 1, record::fixed_elements(kDemoElements, /*salted=*/false), {"demo_iterations"}},
      {"barrier_nonblocking", 1, record::fixed_elements(kDemoElements, /*salted=*/false), {"demo_iterations"}}}});

// ---------------------------------------------------------------- task 1

/// The serial run on 64 MiB, with a kernel about as long as one copy: the record's scenario "serial".
class SerialRun : public RecordTest {
protected:
    static constexpr std::size_t kElements = kSerialElements;

    /// The job's bytes in this record: a little fewer than kElements floats, bound to its job salt.
    [[nodiscard]] std::uint64_t job_bytes() const {
        return record::salted_elements(kElements, judged().job_salt) * sizeof(float);
    }

    /// The recorded run_serial into timeline_ and reported_ms_ (what it returned).
    void use_serial() {
        SL_STEP(use_scenario("serial", serial_));
        timeline_ = *serial_->timeline;
        reported_ms_ = serial_->value("returned_ms");
    }

    /// The three ops the task asks for, or a failure saying what is missing.
    ::testing::AssertionResult has_the_three_ops() const {
        const auto h2d = ops_of_kind(timeline_.ops, OpKind::MemcpyH2D);
        const auto kernels = ops_of_kind(timeline_.ops, OpKind::Kernel);
        const auto d2h = ops_of_kind(timeline_.ops, OpKind::MemcpyD2H);
        if (h2d.size() == 1 && kernels.size() == 1 && d2h.size() == 1 && h2d[0].bytes == job_bytes() &&
            d2h[0].bytes == job_bytes()) {
            return ::testing::AssertionSuccess();
        }
        return ::testing::AssertionFailure()
               << "expected one H2D copy of " << job_bytes() << " bytes, one kernel and one D2H copy; the GPU ran "
               << h2d.size() << " H2D, " << kernels.size() << " kernel(s), " << d2h.size() << " D2H";
    }

    const record::Scenario* serial_ = nullptr;
    double reported_ms_ = 0.0;
    Timeline timeline_;
};

TEST_F(SerialRun, ResultMatchesCpuReference) {
    // The output was poisoned before the run; the sample holds about 2048 of its
    // elements, the first and the last among them, recomputed here from the seed.
    SL_STEP(use_serial());
    expect_output_matches_reference(*serial_,
                                    "copy the input in, launch the kernel, and copy the output back into `output`");
}

TEST_F(SerialRun, EveryOpInTheNullStream) {
    SL_STEP(use_serial());
    ASSERT_TRUE(has_the_three_ops());
    for (const DeviceOp& op : timeline_.ops) {
        EXPECT_NE(op.stream_kind, StreamKind::Created) << op.name << " ran in stream " << op.stream_id
                                                       << ", a stream you created; this task uses only the NULL stream";
    }
}

TEST_F(SerialRun, OpsRunOneAfterAnother) {
    SL_STEP(use_serial());
    ASSERT_TRUE(has_the_three_ops());
    const auto& ops = timeline_.ops;  // sorted by start
    for (std::size_t i = 0; i + 1 < ops.size(); ++i) {
        EXPECT_TRUE(ended_before(ops[i], ops[i + 1])) << ops[i].name << " and " << ops[i + 1].name << " overlap";
    }
    report_measure("copy/compute overlap", copy_compute_overlap_ns(ops) / 1e6, "==", 0.0, "ms");
    EXPECT_EQ(copy_compute_overlap_ns(ops), 0U);
}

TEST_F(SerialRun, EventTimeMatchesTimeline) {
    SL_STEP(use_serial());
    ASSERT_TRUE(has_the_three_ops());
    // The time must come from the GPU's events, not a host clock: the recorded API
    // calls show whether two events were recorded and their elapsed time read.
    const std::uint64_t records = count_api_calls(timeline_, {"cudaEventRecord", "cudaEventRecordWithFlags"});
    const std::uint64_t readings = count_api_calls(timeline_, {"cudaEventElapsedTime"});
    if (records < 2 || readings < 1) {
        report_hint("time with two CUDA events (cudaEventRecord) and cudaEventElapsedTime, not a host clock");
    }
    ASSERT_GE(records, 2U) << "run_serial recorded " << records << " CUDA event(s); timing needs `start` and `stop`";
    ASSERT_GE(readings, 1U) << "run_serial never called cudaEventElapsedTime";
    // The events bracket the three ops plus the short gaps between them: at least
    // the traced span, and at most what events recorded when the host recorded
    // them can span (event_record_span_ns). On a busy machine the host may record
    // `stop` late after the blocking D2H copy returns: the machine's delay, not a
    // wrong timing.
    const double traced_ms = static_cast<double>(makespan_ns(timeline_.ops)) / 1e6;
    const double ratio = reported_ms_ / traced_ms;
    const double events_ms = static_cast<double>(event_record_span_ns(timeline_)) / 1e6;
    report_measure("event time / traced span", ratio, ">=", 0.9, "");
    report_measure("event time / span the two events could measure", reported_ms_ / events_ms, "<=", 1.1, "");
    if (ratio < 0.9 || reported_ms_ > 1.1 * events_ms) {
        report_hint(
            "record `start` before the H2D copy and `stop` after the D2H copy, and wait for `stop` "
            "before reading the time");
    }
    EXPECT_GE(ratio, 0.9) << "you reported " << reported_ms_ << " ms; the GPU's timeline spans " << traced_ms
                          << " ms from the first op's start to the last op's end";
    EXPECT_LE(reported_ms_, 1.1 * events_ms)
        << "you reported " << reported_ms_ << " ms; your first and last cudaEventRecord calls can only have "
        << "measured " << events_ms << " ms";
}

// ---------------------------------------------------------------- task 2

/// Three small kernels: A in a created stream, B in the NULL stream, C in another
/// created stream; the record's scenarios "barrier_blocking" and "barrier_nonblocking".
class BarrierDemo : public RecordTest {
protected:
    /// The recorded demo with blocking or non-blocking streams; kernels_ gets kernels A, B and C in launch order.
    void use_demo(bool blocking) {
        SL_STEP(use_scenario(blocking ? "barrier_blocking" : "barrier_nonblocking", demo_));
        timeline_ = *demo_->timeline;
        kernels_ = ops_of_kind(timeline_.ops, OpKind::Kernel);
        std::sort(kernels_.begin(), kernels_.end(),
                  [](const DeviceOp& a, const DeviceOp& b) { return a.correlation_id < b.correlation_id; });
    }

    /// A and C in two different created streams, B in the NULL stream.
    static ::testing::AssertionResult shaped_like_the_demo(const std::vector<DeviceOp>& k) {
        if (k.size() != 3) {
            return ::testing::AssertionFailure() << "expected 3 kernels, the GPU ran " << k.size();
        }
        if (k[0].stream_kind != StreamKind::Created || k[2].stream_kind != StreamKind::Created ||
            k[0].stream_id == k[2].stream_id) {
            return ::testing::AssertionFailure()
                   << "kernels A and C must run in the two streams you created "
                   << "(they ran in streams " << k[0].stream_id << " and " << k[2].stream_id << ")";
        }
        if (k[1].stream_kind == StreamKind::Created) {
            return ::testing::AssertionFailure() << "kernel B must run in the NULL stream";
        }
        return ::testing::AssertionSuccess();
    }

    const record::Scenario* demo_ = nullptr;
    Timeline timeline_;
    std::vector<DeviceOp> kernels_;
};

TEST_F(BarrierDemo, BlockingStreamsAreSerializedByTheNullStream) {
    SL_STEP(use_demo(/*blocking=*/true));
    const auto& k = kernels_;
    ASSERT_TRUE(shaped_like_the_demo(k));
    EXPECT_TRUE(ended_before(k[0], k[1])) << "B (NULL stream) must wait for A (blocking stream)";
    EXPECT_TRUE(ended_before(k[1], k[2])) << "C (blocking stream) must wait for B (NULL stream)";
    report_measure("kernel overlap, blocking streams", kernel_overlap_ns(k) / 1e6, "==", 0.0, "ms");
}

TEST_F(BarrierDemo, NonBlockingStreamsAreNotSeparated) {
    if (!facts_.concurrent_kernels) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name << " cannot run kernels of different streams at the same time";
    }
    SL_STEP(use_demo(/*blocking=*/false));
    const auto& k = kernels_;
    ASSERT_TRUE(shaped_like_the_demo(k));
    const double overlap_ms = kernel_overlap_ns(k) / 1e6;
    report_measure("kernel overlap, non-blocking streams", overlap_ms, ">", 0.0, "ms");
    EXPECT_LT(k[2].start_ns, k[1].end_ns) << "C started only after B ended: was it held back by the NULL stream?";
    EXPECT_GT(kernel_overlap_ns(k), 0U) << "no two kernels ran at the same time";
    // The three kernels read the same input: A's output, sampled, is recomputed
    // from the seed; B's and C's were compared with A's element by element.
    EXPECT_TRUE(output_matches_reference(*demo_)) << "kernel A";
    EXPECT_EQ(demo_->value("b_elements_unlike_a"), 0.0) << "kernel B's output differs from kernel A's";
    EXPECT_EQ(demo_->value("c_elements_unlike_a"), 0.0) << "kernel C's output differs from kernel A's";
}

// ---------------------------------------------------------------- the prediction

/// Your prediction in prediction.txt (read by the test, never by your code), scored
/// against the order the GPU ran kernels A, B and C in, with each kind of stream.
TEST_F(BarrierDemo, YourPredictionMatchesTheTimeline) {
    const answers::AnswerFile file = answers::read_answer_file("prediction.txt");
    struct Variant {
        const char* key;
        bool blocking;
    };
    for (const Variant variant : {Variant{"blocking", true}, Variant{"nonblocking", false}}) {
        SCOPED_TRACE(std::string(variant.key) + " streams");
        SL_STEP(use_demo(variant.blocking));
        if (!shaped_like_the_demo(kernels_)) {
            report_hint("finish Task 2 first: your prediction is scored against your demo's timeline");
        }
        ASSERT_TRUE(shaped_like_the_demo(kernels_));
        std::string why;
        const std::string said = file.answer(variant.key, why);
        const std::string measured = answers::measured_order(kernels_, "ABC");
        report_note(std::string("your prediction, ") + variant.key + " streams",
                    (said.empty() ? std::string("none") : said) + "; the timeline: " + measured);
        if (said.empty()) {
            ADD_FAILURE() << why;
            continue;
        }
        const answers::PredictedOrder predicted = answers::parse_order(said, "ABC");
        if (!predicted.problem.empty()) {
            ADD_FAILURE() << file.path << ", `" << variant.key << ":` " << predicted.problem;
            continue;
        }
        std::string mismatch;
        // Kernels the host launched too late to overlap (a busy machine) are not held against you.
        const std::vector<std::uint64_t> launched = answers::launch_times(timeline_.stream_calls, kernels_);
        EXPECT_TRUE(answers::order_matches(predicted, kernels_, "ABC", mismatch, launched)) << mismatch;
    }
}

}  // namespace
