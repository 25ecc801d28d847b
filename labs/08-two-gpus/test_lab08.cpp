// Lab 08's graded tests: judges of the record that record_lab08.cpp left. The
// lab needs two GPUs: on a machine with one the recording says so and nothing
// else, and every test is not graded, with that reason. The recording ran your
// split pipeline over both GPUs, over each GPU alone, and your hand-off from one
// GPU to the other, on 256 MiB (less on a small GPU) in host memory from your
// allocate_portable, while CUPTI recorded what every GPU did; these tests read
// that record and never run your code.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "course_side.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/judging.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/testing.hpp"
#include "two_gpu_timeline.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using namespace lab08::course;  // kChunks, kStreams, kHandoffChunks, kRepeats: the runs' shape; scenarios

/// What every real run of record_lab08.cpp leaves: the output over the set-up's n, with its kernel
/// iterations, of the split job (kChunks chunks on each GPU) and of the handoff.
[[maybe_unused]] const bool kRunsDeclared =
    judge_records_of({{{scenarios::kSplit, 2 * kChunks}, {scenarios::kHandoff, kHandoffChunks}}});

/// The least share of the less busy GPU's time during which the other GPU
/// worked too. Two GPUs that each stream their half side by side are busy
/// together nearly all the time; a host that waits for one GPU before it queues
/// the other's work makes them take turns (near 0).
constexpr double kMinBusyTogether = 0.7;

/// The same for the copies in alone: each GPU copies its share straight from the
/// host, so both GPUs' copies in can run at once. The test sees the copies' times,
/// not the links: whether the GPUs share a PCIe switch's uplink (`nvidia-smi topo -m`)
/// only shows as slower copies.
constexpr double kMinCopiesInTogether = 0.5;

/// The least share of the model's speedup (two GPUs against one, split_model_speedup)
/// that yours must reach. On two equal GPUs the model's is 2, so this asks for 1.7.
constexpr double kMinModelShare = 0.85;

/// How far two GPUs' clocks, as CUPTI puts them on one time line, may disagree.
constexpr std::uint64_t kClockSlackNs = 5000;

/// 256 MiB (less on a small GPU) through your code on two GPUs: the record's
/// scenarios (record_lab08.cpp, course_side.hpp's scenarios).
class Lab08 : public RecordTest {
protected:
    std::size_t n() const { return whole_number<std::size_t>(setup_value("n"), 0, 1e15); }

    /// Your run_split over both GPUs, recorded after a warm-up on a poisoned output, into timeline_ and work_.
    void use_split() {
        SL_STEP(use_scenario(scenarios::kSplit, recorded_));
        timeline_ = *recorded_->timeline;
        work_ = work_by_gpu(timeline_.ops);
    }

    /// The median makespan, in ms, of the kRepeats recorded runs of your run_split on `gpus`
    /// (scenarios::kGpu0Alone, ...), into `ms_out`.
    void median_makespan(const std::string& gpus, double& ms_out) {
        std::vector<double> makespans;
        for (int repeat = 1; repeat <= kRepeats; ++repeat) {
            const record::Scenario* run = nullptr;
            SL_STEP(use_scenario(scenarios::timed(gpus, repeat), run));
            makespans.push_back(ms(makespan_ns(run->timeline->ops)));
        }
        ms_out = median(makespans);
    }

    const record::Scenario* recorded_ = nullptr;
    Timeline timeline_;
    std::vector<GpuWork> work_;
};

// ---------------------------------------------------------------- Tasks 1 and 2

class TwoGpus : public Lab08 {};

TEST_F(TwoGpus, ResultsMatchCpuReference) {
    SL_STEP(use_split());
    expect_output_matches_reference(
        *recorded_,
        "share g is chunk_range(job.n, job.gpus.size(), g); chunk c of it is chunk_range(share.count, "
        "job.chunks, c), at share.offset + chunk.offset in the host buffers and at chunk.offset in "
        "the GPU's own buffers");
}

TEST_F(TwoGpus, BothGpusRunTheirShare) {
    SL_STEP(use_split());
    std::vector<std::string> idle;
    for (const std::uint32_t device : {0U, 1U}) {
        const GpuWork work = work_of(work_, device);
        if (work.h2d == 0 || work.kernels == 0 || work.d2h == 0) {
            idle.push_back("GPU " + std::to_string(device) + " ran " + std::to_string(work.h2d) + " copies in, " +
                           std::to_string(work.kernels) + " kernels and " + std::to_string(work.d2h) + " copies back");
        }
    }
    const double together = busy_together_share(timeline_.ops, 0, 1);
    report_measure("share of the less busy GPU's time the other GPU worked too", together, ">=", kMinBusyTogether, "");
    if (!idle.empty() || together < kMinBusyTogether) {
        report_hint(
            "make each GPU current (cudaSetDevice) before you create its streams and queue its work, and queue "
            "both GPUs' chunks before you wait for either");
    }
    EXPECT_TRUE(idle.empty()) << idle.front();
    EXPECT_GE(together, kMinBusyTogether)
        << "the GPUs worked together for only " << together * 100 << "% of the less busy one's time: they took turns";
}

TEST_F(TwoGpus, WorkSplitEvenly) {
    SL_STEP(use_split());
    std::vector<std::string> uneven;
    for (const std::uint32_t device : {0U, 1U}) {
        const GpuWork work = work_of(work_, device);
        const std::uint64_t share = chunk_range(n(), 2, static_cast<int>(device)).count * sizeof(float);
        const std::string gpu = "GPU " + std::to_string(device);
        if (work.h2d_bytes != share || work.d2h_bytes != share) {
            uneven.push_back(gpu + " copied " + std::to_string(work.h2d_bytes) + " bytes in and " +
                             std::to_string(work.d2h_bytes) + " bytes back; its share is " + std::to_string(share) +
                             " bytes");
        }
        if (work.kernels != static_cast<std::size_t>(kChunks)) {
            uneven.push_back(gpu + " ran " + std::to_string(work.kernels) + " kernels; its share has " +
                             std::to_string(kChunks) + " chunks");
        }
    }
    EXPECT_TRUE(grading::none_found(uneven, "GPUs that did not do their share exactly",
                                    "GPU(s) did more or less than their share",
                                    "GPU g streams share g, chunk_range(job.n, job.gpus.size(), g), and nothing "
                                    "else, in job.chunks chunks"));
}

TEST_F(TwoGpus, BothGpusCopyInFromTheHostAtOnce) {
    SL_STEP(use_split());
    const std::size_t peer = work_of(work_, 0).peer_copies + work_of(work_, 1).peer_copies;
    const double together = copies_in_together_share(timeline_.ops, 0, 1);
    report_measure("share of the shorter copy-in time the other GPU copied in too", together,
                   ">=", kMinCopiesInTogether, "");
    if (peer != 0 || together < kMinCopiesInTogether) {
        report_hint(
            "each GPU copies its own share straight from the host, and the two GPUs' copies in can run at the "
            "same time");
    }
    EXPECT_EQ(peer, 0U) << "the split pipeline copied data between the GPUs; each GPU's share comes from the host";
    EXPECT_GE(together, kMinCopiesInTogether)
        << "the two GPUs copied in at the same time for only " << together * 100 << "% of the shorter copy-in time";
}

TEST_F(TwoGpus, EachGpuHasStreamsOfItsOwn) {
    SL_STEP(use_split());
    ASSERT_FALSE(work_.empty()) << "the records show no work";
    std::vector<std::string> wrong;
    for (const GpuWork& work : work_) {  // each GPU that ran anything (whether both did is another test's question)
        const std::string gpu = "GPU " + std::to_string(work.device);
        if (work.null_stream_ops != 0) {
            wrong.push_back(gpu + " ran " + std::to_string(work.null_stream_ops) + " op(s) in a default stream");
        }
        if (work.streams != static_cast<std::size_t>(kStreams)) {
            wrong.push_back(gpu + "'s work ran in " + std::to_string(work.streams) + " stream(s); job.streams is " +
                            std::to_string(kStreams));
        }
    }
    if (const auto current_after = whole_number<int>(recorded_->value("current_device_after"), -1e9, 1e9);
        current_after != 0) {
        wrong.push_back("run_split returned with device " + std::to_string(current_after) +
                        " current; it was called with device 0 current");
    }
    EXPECT_TRUE(grading::none_found(wrong, "problems with the streams or the current device",
                                    "problem(s) with the streams or the current device",
                                    "a stream belongs to the device that was current when it was created: make each "
                                    "GPU current, create job.streams non-blocking streams there, and put the "
                                    "caller's device back before you return"));
}

TEST_F(TwoGpus, PinnedMemoryIsPortable) {
    SL_STEP(use_split());
    std::vector<std::string> wrong;
    std::size_t copies = 0;
    for (const GpuWork& work : work_) {  // each GPU that copied (whether both did is another test's question)
        copies += work.h2d + work.d2h;
        if (work.unpinned_copies != 0) {
            wrong.push_back("GPU " + std::to_string(work.device) + " saw " + std::to_string(work.unpinned_copies) +
                            " of " + std::to_string(work.h2d + work.d2h) + " host copies as not pinned");
        }
    }
    ASSERT_NE(copies, 0U) << "the records show no copy to or from the host";
    // What CUDA said of the input's memory after the run (cudaHostGetFlags, asked by the recording).
    if (recorded_->value("input_pinned") == 0) {
        wrong.push_back("CUDA does not know allocate_portable's memory as pinned host memory");
    } else if (recorded_->value("input_portable") == 0) {
        wrong.push_back("allocate_portable's memory was not allocated as portable");
    }
    EXPECT_TRUE(grading::none_found(wrong, "problems with the host memory", "problem(s) with the host memory",
                                    "allocate pinned host memory with the flag that makes every GPU treat it as "
                                    "pinned, and free it with the call that matches"));
}

TEST_F(TwoGpus, FasterThanOneGpu) {
    double alone_first = 0, alone_second = 0, split = 0;
    SL_STEP(median_makespan(scenarios::kGpu0Alone, alone_first));
    SL_STEP(median_makespan(scenarios::kGpu1Alone, alone_second));
    SL_STEP(median_makespan(scenarios::kBothGpus, split));
    ASSERT_TRUE(alone_first > 0 && alone_second > 0 && split > 0)
        << "the records show no work in some run of run_split (GPU 0 alone: " << alone_first
        << " ms, GPU 1 alone: " << alone_second << " ms, both: " << split << " ms)";
    const double model = split_model_speedup(alone_first, alone_second);
    if (model < 1.2) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << "GPU 1 streams its half of the data no faster than GPU 0 streams all of it ("
                                     << alone_second << " ms for all of it against " << alone_first
                                     << " ms): the model's speedup is only " << model;
    }
    const double speedup = alone_first / split;
    EXPECT_TRUE(share_of_model_reached(
        "two GPUs' speedup over GPU 0 alone / the model's", speedup, model, kMinModelShare,
        "draw your run: ./course run 08; both GPUs should stream their halves side by side from the start, "
        "each through its own pipeline"))
        << "over both GPUs your pipeline took " << split << " ms, on GPU 0 alone " << alone_first
        << " ms (on GPU 1 alone " << alone_second << " ms): a speedup of " << speedup << "; the model's is " << model;
}

// ---------------------------------------------------------------- Task 3

class Handoff : public Lab08 {
protected:
    /// Your run_handoff from GPU 0 to GPU 1, recorded after a warm-up on a poisoned output, into timeline_.
    void use_handoff() {
        SL_STEP(use_scenario(scenarios::kHandoff, recorded_));
        timeline_ = *recorded_->timeline;
    }
};

TEST_F(Handoff, ResultsMatchCpuReference) {
    SL_STEP(use_handoff());
    expect_output_matches_reference(
        *recorded_,
        "chunk c is chunk_range(job.n, job.chunks, c), at chunk.offset in every buffer; the kernel "
        "reads job.to's device_input, which the copy between the GPUs filled");
}

TEST_F(Handoff, CrossDeviceWaitRespected) {
    SL_STEP(use_handoff());
    const HandoffRun run = find_handoff(timeline_.ops, 0, 1, kHandoffChunks);
    ASSERT_EQ(run.problem, "") << "the records do not show the hand-off's chunks: " << run.problem;
    // The host never waits while it queues: no synchronization before the last work it queued.
    std::size_t last_work = 0;
    for (std::size_t i = 0; i < timeline_.stream_calls.size(); ++i) {
        last_work = timeline_.stream_calls[i].call == OrderingCall::Work ? i : last_work;
    }
    std::size_t host_waits = 0;
    for (std::size_t i = 0; i < last_work; ++i) {
        const OrderingCall call = timeline_.stream_calls[i].call;
        host_waits += call == OrderingCall::StreamSynchronize || call == OrderingCall::EventSynchronize ||
                              call == OrderingCall::DeviceSynchronize
                          ? 1
                          : 0;
    }
    report_measure("times the host waited before it had queued every chunk", static_cast<double>(host_waits), "==", 0,
                   "");
    EXPECT_TRUE(grading::none_found(handoff_wait_problems(run, kClockSlackNs),
                                    "ops on GPU 1 that began before what they needed ended",
                                    "op(s) did not wait for the chunk they needed",
                                    "a stream waits only for its own earlier work: record an event after each copy "
                                    "in on job.from and make job.to's stream wait for it before the chunk's copy "
                                    "between the GPUs"));
    if (host_waits != 0) {
        report_hint("let the GPUs wait for each other (an event of one GPU, waited for by the other's stream)");
    }
    EXPECT_EQ(host_waits, 0U) << "the host waited " << host_waits << " time(s) before it had queued every chunk";
}

TEST_F(Handoff, PeerCopyRecorded) {
    // Whether GPU 1 can reach GPU 0's memory (cudaDeviceCanAccessPeer, asked by the recording's set-up).
    if (setup_value("peer_access") == 0) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << "GPU 1 cannot reach GPU 0's memory directly on this machine (no peer "
                                        "access): CUDA carries a copy between them through the host";
    }
    SL_STEP(use_handoff());
    const std::vector<DeviceOp> peer = ops_of_kind(timeline_.ops, OpKind::MemcpyP2P);
    std::uint64_t bytes = 0;
    std::size_t wrong_way = 0;
    for (const DeviceOp& op : peer) {
        bytes += op.bytes;
        wrong_way += op.source_device != 0 || op.destination_device != 1 ? 1 : 0;
    }
    report_measure("copies from GPU 0 to GPU 1", static_cast<double>(peer.size() - wrong_way), "==", kHandoffChunks,
                   "");
    if (peer.size() != static_cast<std::size_t>(kHandoffChunks) || wrong_way != 0) {
        report_hint(
            "copy each chunk from job.from's device_input to job.to's with the copy that names both GPUs, "
            "not through the host");
    }
    EXPECT_EQ(peer.size(), static_cast<std::size_t>(kHandoffChunks)) << "one copy between the GPUs per chunk";
    EXPECT_EQ(wrong_way, 0U) << "copies between the GPUs went the wrong way";
    EXPECT_EQ(bytes, n() * sizeof(float))
        << "the copies between the GPUs moved " << bytes << " bytes of " << n() * sizeof(float);
}

}  // namespace
