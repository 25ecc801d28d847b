// Lab 02's graded tests: your kernels run while CUPTI records the GPU's
// timeline and the runtime calls; the grade comes from that record.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "lab02.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/answers.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/testing.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;

/// Four independent kernels, each small enough that all four fit on the GPU at once.
class Streams : public TimelineTest {
protected:
    static constexpr int kStreams = 4;
    static constexpr std::size_t kElements = std::size_t{1} << 20;

    void SetUp() override {
        SL_STEP(TimelineTest::SetUp());
        std::vector<float> host(kElements);
        fill_input(host.data(), kElements);
        input_ = DeviceBuffer<float>(kElements);
        SL_CHECK(cudaMemcpy(input_.data(), host.data(), input_.bytes(), cudaMemcpyHostToDevice));
        const int max_blocks = std::max(1, facts_.sm_count / kStreams);
        const int iterations = iterations_for_kernel_ms(kElements, 2.0, max_blocks);
        for (int i = 0; i < kStreams; ++i) {
            outputs_.emplace_back(kElements);
            jobs_.push_back({input_.data(), outputs_.back().data(), kElements, iterations, max_blocks});
        }
    }

    void record_streams(unsigned int flags) {
        SL_RECORD_TIMELINE(timeline_, "lab02 run_in_streams", [&] { lab02::run_in_streams(jobs_, flags); });
    }

    void record_null_stream() {
        SL_RECORD_TIMELINE(null_timeline_, "lab02 run_in_null_stream", [&] { lab02::run_in_null_stream(jobs_); });
    }

    /// One kernel per job, or a failure saying how many ran.
    ::testing::AssertionResult ran_every_kernel(const Timeline& timeline) const {
        const auto kernels = ops_of_kind(timeline.ops, OpKind::Kernel);
        if (kernels.size() == jobs_.size()) {
            return ::testing::AssertionSuccess();
        }
        return ::testing::AssertionFailure()
               << "expected " << jobs_.size() << " kernels, the GPU ran " << kernels.size();
    }

    /// Every job's output against the CPU reference; the first failure, if any.
    ResultCheck check_outputs() const {
        std::vector<float> in(kElements), out(kElements);
        SL_CHECK(cudaMemcpy(in.data(), input_.data(), input_.bytes(), cudaMemcpyDeviceToHost));
        ResultCheck check;
        for (const auto& job : jobs_) {
            SL_CHECK(cudaMemcpy(out.data(), job.output, kElements * sizeof(float), cudaMemcpyDeviceToHost));
            check = check_workload_output(in.data(), out.data(), kElements, job.iterations);
            if (!check.ok) {
                break;
            }
        }
        return check;
    }

    DeviceBuffer<float> input_;
    std::vector<DeviceBuffer<float>> outputs_;
    std::vector<lab02::KernelJob> jobs_;
    Timeline timeline_;
    Timeline null_timeline_;
};

TEST_F(Streams, ResultsMatchCpuReference) {
    for (auto& output : outputs_) {
        SL_CHECK(cudaMemset(output.data(), 0xFF, output.bytes()));  // NaN poison
    }
    SL_STEP(record_streams(cudaStreamNonBlocking));
    const ResultCheck check = check_outputs();
    EXPECT_TRUE(check.ok) << check.message();
}

TEST_F(Streams, KernelsRunInDistinctCreatedStreams) {
    SL_STEP(record_streams(cudaStreamNonBlocking));
    ASSERT_TRUE(ran_every_kernel(timeline_));
    std::set<std::uint32_t> streams;
    for (const DeviceOp& kernel : ops_of_kind(timeline_.ops, OpKind::Kernel)) {
        EXPECT_EQ(kernel.stream_kind, StreamKind::Created) << "a kernel ran in the NULL stream";
        streams.insert(kernel.stream_id);
    }
    report_measure("distinct streams used by kernels", static_cast<double>(streams.size()), "==", kStreams, "");
    if (streams.size() != jobs_.size()) {
        report_hint("launch job i's kernel in streams[i]: one stream per job");
    }
    EXPECT_EQ(streams.size(), jobs_.size());
}

TEST_F(Streams, KernelsOverlapWhereTheDeviceAllows) {
    if (!facts_.concurrent_kernels) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name
                                     << " reports concurrentKernels = 0: kernels of different streams cannot overlap";
    }
    SL_STEP(record_null_stream());
    record_streams(cudaStreamNonBlocking);
    ASSERT_TRUE(ran_every_kernel(timeline_));
    ASSERT_TRUE(ran_every_kernel(null_timeline_));
    // Four kernels that fit on the GPU together should take far less than
    // the same four one after another, measured a moment ago on this GPU.
    const double ratio = static_cast<double>(makespan_ns(timeline_.ops)) / makespan_ns(null_timeline_.ops);
    report_measure("streams makespan / NULL-stream makespan", ratio, "<", 0.75, "");
    report_measure("time with two or more kernels running", kernel_overlap_ns(timeline_.ops) / 1e6, ">", 0.0, "ms");
    EXPECT_GT(kernel_overlap_ns(timeline_.ops), 0U) << "no two kernels ran at the same time";
    EXPECT_LT(ratio, 0.75);
}

TEST_F(Streams, CallsQueryStreamSyncAndDeviceSync) {
    SL_STEP(record_streams(cudaStreamNonBlocking));
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
    SL_STEP(record_streams(cudaStreamNonBlocking));
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
    SL_STEP(record_streams(cudaStreamNonBlocking));
    const auto created =
        count_api_calls(timeline_, {"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority"});
    const auto destroyed = count_api_calls(timeline_, {"cudaStreamDestroy"});
    report_measure("streams created", static_cast<double>(created), "==", kStreams, "");
    report_measure("streams destroyed", static_cast<double>(destroyed), "==", static_cast<double>(created), "");
    EXPECT_EQ(created, jobs_.size());
    EXPECT_EQ(destroyed, created) << "every stream you create must be destroyed (cudaStreamDestroy)";
}

TEST_F(Streams, NullStreamRunsKernelsOneAfterAnother) {
    SL_STEP(record_null_stream());
    ASSERT_TRUE(ran_every_kernel(null_timeline_));
    EXPECT_EQ(null_stream_ops(null_timeline_.ops), jobs_.size()) << "every kernel belongs in the NULL stream";
    EXPECT_EQ(kernel_overlap_ns(null_timeline_.ops), 0U);
}

}  // namespace
