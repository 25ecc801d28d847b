// Lab 02's graded tests: judges of the record that record_lab02.cpp left. The
// recording ran your kernels once in the NULL stream and once in streams of your
// own while CUPTI recorded the GPU's timeline and the runtime calls; these tests
// grade that record and never run your code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "streamlab/analysis.hpp"
#include "streamlab/answers.hpp"
#include "streamlab/judging.hpp"
#include "streamlab/testing.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;

/// What every real run of record_lab02.cpp leaves: the jobs of Streams::kStreams streams, the set-up's n
/// elements each, sampled as one output in one chunk per stream, with the set-up's kernel iterations.
[[maybe_unused]] const bool kRunsDeclared = judge_records_of({{{"streams", 4, record::setup_elements("n", 4)}}});

/// Four independent kernels, each small enough that all four fit on the GPU at
/// once, each over its own slice of one seeded input: the record's scenarios
/// "null_stream" (run_in_null_stream) and "streams" (run_in_streams with
/// non-blocking streams, recorded right after it).
class Streams : public RecordTest {
protected:
    static constexpr int kStreams = 4;
    static constexpr std::size_t kJobs = kStreams;  ///< One kernel per stream.

    /// The recorded run_in_streams into timeline_.
    void use_streams() {
        SL_STEP(use_scenario("streams", streams_));
        timeline_ = *streams_->timeline;
    }

    /// The recorded run_in_null_stream into null_timeline_.
    void use_null_stream() {
        const record::Scenario* scenario = nullptr;
        SL_STEP(use_scenario("null_stream", scenario));
        null_timeline_ = *scenario->timeline;
    }

    /// One kernel per job, or a failure saying how many ran.
    static ::testing::AssertionResult ran_every_kernel(const Timeline& timeline) {
        const auto kernels = ops_of_kind(timeline.ops, OpKind::Kernel);
        if (kernels.size() == kJobs) {
            return ::testing::AssertionSuccess();
        }
        return ::testing::AssertionFailure() << "expected " << kStreams << " kernels, the GPU ran " << kernels.size();
    }

    const record::Scenario* streams_ = nullptr;
    Timeline timeline_;
    Timeline null_timeline_;
};

TEST_F(Streams, ResultsMatchCpuReference) {
    // The four outputs, filled with NaN before the run, sampled as one array in
    // four chunks (each one's first and last element included); job i's input was
    // slice i of the seeded input, so a kernel given another job's input fails too.
    SL_STEP(use_streams());
    EXPECT_TRUE(output_matches_reference(*streams_));
}

TEST_F(Streams, KernelsRunInDistinctCreatedStreams) {
    SL_STEP(use_streams());
    ASSERT_TRUE(ran_every_kernel(timeline_));
    std::set<std::uint32_t> streams;
    for (const DeviceOp& kernel : ops_of_kind(timeline_.ops, OpKind::Kernel)) {
        EXPECT_EQ(kernel.stream_kind, StreamKind::Created) << "a kernel ran in the NULL stream";
        streams.insert(kernel.stream_id);
    }
    report_measure("distinct streams used by kernels", static_cast<double>(streams.size()), "==", kStreams, "");
    if (streams.size() != kJobs) {
        report_hint("launch job i's kernel in streams[i]: one stream per job");
    }
    EXPECT_EQ(streams.size(), kJobs);
}

TEST_F(Streams, KernelsOverlapWhereTheDeviceAllows) {
    if (!facts_.concurrent_kernels) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name
                                     << " reports concurrentKernels = 0: kernels of different streams cannot overlap";
    }
    SL_STEP(use_null_stream());
    SL_STEP(use_streams());
    ASSERT_TRUE(ran_every_kernel(timeline_));
    ASSERT_TRUE(ran_every_kernel(null_timeline_));
    // Four kernels that fit on the GPU together should take far less than
    // the same four one after another, recorded a moment before on this GPU.
    const double ratio = static_cast<double>(makespan_ns(timeline_.ops)) / makespan_ns(null_timeline_.ops);
    report_measure("streams makespan / NULL-stream makespan", ratio, "<", 0.75, "");
    report_measure("time with two or more kernels running", kernel_overlap_ns(timeline_.ops) / 1e6, ">", 0.0, "ms");
    EXPECT_GT(kernel_overlap_ns(timeline_.ops), 0U) << "no two kernels ran at the same time";
    EXPECT_LT(ratio, 0.75);
}

TEST_F(Streams, CallsQueryStreamSyncAndDeviceSync) {
    SL_STEP(use_streams());
    EXPECT_GE(count_api_calls(timeline_, {"cudaStreamQuery"}), 1U) << "poll a stream with cudaStreamQuery";
    EXPECT_GE(count_api_calls(timeline_, {"cudaStreamSynchronize"}), 1U)
        << "wait for one stream with cudaStreamSynchronize";
    EXPECT_GE(count_api_calls(timeline_, {"cudaDeviceSynchronize"}), 1U) << "wait for all with cudaDeviceSynchronize";
}

// ---------------------------------------------------------------- the prediction

/// Your prediction in prediction.txt (read by the test, never by your code) of the
/// two WaitReport answers, scored against what was recorded: the time of each poll
/// (cudaStreamQuery, on CUPTI's clock) against the end of that stream's kernel. Your
/// own WaitReport is not what is scored: the grader sees for itself.
TEST_F(Streams, YourPredictionMatchesTheTimeline) {
    const answers::AnswerFile file = answers::read_answer_file("prediction.txt");
    SL_STEP(use_streams());
    ASSERT_TRUE(ran_every_kernel(timeline_));
    std::vector<DeviceOp> kernels = ops_of_kind(timeline_.ops, OpKind::Kernel);
    std::sort(kernels.begin(), kernels.end(), [](const DeviceOp& a, const DeviceOp& b) {
        return a.correlation_id < b.correlation_id;
    });  // launch order
    // The first poll (of the last stream), and the first poll after waiting for a stream (of the first).
    const StreamCall* poll_last = nullptr;
    const StreamCall* poll_after_sync = nullptr;
    bool waited = false;
    for (const StreamCall& call : timeline_.stream_calls) {
        waited = waited || call.call == OrderingCall::StreamSynchronize;
        if (call.call == OrderingCall::StreamQuery && poll_last == nullptr) {
            poll_last = &call;
        } else if (call.call == OrderingCall::StreamQuery && waited && poll_after_sync == nullptr) {
            poll_after_sync = &call;
        }
    }
    if (poll_last == nullptr || poll_after_sync == nullptr) {
        report_hint("finish Task 1's step 3 first: your prediction is scored against its two polls");
    }
    ASSERT_TRUE(poll_last != nullptr && poll_after_sync != nullptr)
        << "expected a cudaStreamQuery right after launching, and another after cudaStreamSynchronize";
    struct Question {
        const char* key;
        const DeviceOp& kernel;
        const StreamCall& poll;
    };
    for (const Question& question : {Question{"last_stream_idle_when_polled", kernels.back(), *poll_last},
                                     Question{"first_stream_idle_after_sync", kernels.front(), *poll_after_sync}}) {
        const bool idle = question.kernel.end_ns <= question.poll.time_ns;
        std::string why;
        const std::string said = file.answer(question.key, why);
        report_note(std::string("your prediction, ") + question.key,
                    (said.empty() ? std::string("none") : said) + "; the timeline: " + (idle ? "yes" : "no"));
        if (said.empty()) {
            ADD_FAILURE() << why;
        } else if (said != "yes" && said != "no") {
            ADD_FAILURE() << file.path << ", `" << question.key << ":` answer yes or no, not `" << said << "`";
        } else {
            EXPECT_EQ(said == "yes", idle) << question.key << ": the kernel " << (idle ? "had" : "had not")
                                           << " ended when your code polled its stream";
        }
    }
}

TEST_F(Streams, EveryCreatedStreamIsDestroyed) {
    SL_STEP(use_streams());
    const auto created =
        count_api_calls(timeline_, {"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority"});
    const auto destroyed = count_api_calls(timeline_, {"cudaStreamDestroy"});
    report_measure("streams created", static_cast<double>(created), "==", kStreams, "");
    report_measure("streams destroyed", static_cast<double>(destroyed), "==", static_cast<double>(created), "");
    EXPECT_EQ(created, kJobs);
    EXPECT_EQ(destroyed, created) << "every stream you create must be destroyed (cudaStreamDestroy)";
}

TEST_F(Streams, NullStreamRunsKernelsOneAfterAnother) {
    SL_STEP(use_null_stream());
    ASSERT_TRUE(ran_every_kernel(null_timeline_));
    EXPECT_EQ(null_stream_ops(null_timeline_.ops), kJobs) << "every kernel belongs in the NULL stream";
    EXPECT_EQ(kernel_overlap_ns(null_timeline_.ops), 0U);
}

}  // namespace
