// Lab 08's graded tests. They need two GPUs: on a machine with one they are
// not graded, and say so. They run your split pipeline over both GPUs, over
// each GPU alone, and your hand-off from one GPU to the other, on 256 MiB (less
// on a small GPU) in host memory from your allocate_portable, while CUPTI
// records what every GPU did; they grade those records only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "course_side.hpp"
#include "lab08.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/testing.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"
#include "two_gpu_timeline.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using namespace lab08::course;  // kChunks, kStreams, kHandoffChunks: the runs' shape

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

/// Recorded runs of each one-GPU and two-GPU pipeline in the speed test: the median counts.
constexpr int kRepeats = 3;

class Lab08 : public TimelineTest {
protected:
    void SetUp() override {
        SL_STEP(TimelineTest::SetUp());
        SL_REQUIRE_GPUS(2);
        const DeviceFacts second = query_device_facts(1);
        n_ = pipeline_elements(std::min(facts_.total_memory_bytes, second.total_memory_bytes));
        input_.emplace(n_);
        output_.emplace(n_);
        ASSERT_NE(input_->data(), nullptr) << "allocate_portable returned no memory";
        ASSERT_NE(output_->data(), nullptr) << "allocate_portable returned no memory";
        fill_input(input_->data(), n_);
        gpus_.emplace_back(0, n_);
        gpus_.emplace_back(1, n_);
        // A kernel over all the data about as long as its whole copy in, on GPU 0.
        iterations_ = iterations_for_kernel_ms(n_, measure_h2d_ms(n_ * sizeof(float)));
    }

    /// The split job over `devices` (0 and 1: both GPUs; one of them: that GPU alone).
    lab08::SplitJob split_job(const std::vector<int>& devices) const {
        lab08::SplitJob job{input_->data(), output_->data(), n_, iterations_, kChunks, kStreams, {}};
        for (const int device : devices) {
            job.gpus.push_back(gpus_[static_cast<std::size_t>(device)].part());
        }
        return job;
    }

    /// Your run_split over both GPUs once to warm up, then once more, on a poisoned output, while CUPTI records.
    void record_split() {
        const lab08::SplitJob job = split_job({0, 1});
        lab08::run_split(job);
        fill_poison(output_->data(), n_);
        SL_CHECK(cudaSetDevice(0));
        SL_RECORD_TIMELINE(timeline_, "lab08 run_split", [&] { lab08::run_split(job); });
        SL_CHECK(cudaGetDevice(&current_after_));
        work_ = work_by_gpu(timeline_.ops);
    }

    /// `chunks` equal chunks of the output against the CPU reference.
    void expect_results_right(int chunks, const char* hint) {
        const ResultCheck check = check_workload_output(input_->data(), output_->data(), n_, iterations_, chunks);
        if (!check.ok) {
            report_hint(hint);
        }
        EXPECT_TRUE(check.ok) << check.message();
    }

    /// The median makespan, in ms, of kRepeats recorded runs of your run_split on `devices`, into `ms`.
    void median_makespan(const std::vector<int>& devices, double& ms_out) {
        const lab08::SplitJob job = split_job(devices);
        lab08::run_split(job);  // warm-up
        std::vector<double> makespans;
        for (int r = 0; r < kRepeats; ++r) {
            Timeline recorded;
            SL_RECORD_TIMELINE(recorded, "lab08 run_split", [&] { lab08::run_split(job); });
            makespans.push_back(ms(makespan_ns(recorded.ops)));
        }
        ms_out = median(makespans);
    }

    std::size_t n_ = 0;
    std::optional<PortableFloats> input_, output_;
    std::vector<GpuMemory> gpus_;
    int iterations_ = 1;
    Timeline timeline_;
    std::vector<GpuWork> work_;
    int current_after_ = -1;
};

// ---------------------------------------------------------------- Tasks 1 and 2

class TwoGpus : public Lab08 {};

TEST_F(TwoGpus, ResultsMatchCpuReference) {
    SL_STEP(record_split());
    expect_results_right(2 * kChunks,
                         "share g is chunk_range(job.n, job.gpus.size(), g); chunk c of it is chunk_range(share.count, "
                         "job.chunks, c), at share.offset + chunk.offset in the host buffers and at chunk.offset in "
                         "the GPU's own buffers");
}

TEST_F(TwoGpus, BothGpusRunTheirShare) {
    SL_STEP(record_split());
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
    SL_STEP(record_split());
    std::vector<std::string> uneven;
    for (const std::uint32_t device : {0U, 1U}) {
        const GpuWork work = work_of(work_, device);
        const std::uint64_t share = chunk_range(n_, 2, static_cast<int>(device)).count * sizeof(float);
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
    SL_STEP(record_split());
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
    SL_STEP(record_split());
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
    if (current_after_ != 0) {
        wrong.push_back("run_split returned with device " + std::to_string(current_after_) +
                        " current; it was called with device 0 current");
    }
    EXPECT_TRUE(grading::none_found(wrong, "problems with the streams or the current device",
                                    "problem(s) with the streams or the current device",
                                    "a stream belongs to the device that was current when it was created: make each "
                                    "GPU current, create job.streams non-blocking streams there, and put the "
                                    "caller's device back before you return"));
}

TEST_F(TwoGpus, PinnedMemoryIsPortable) {
    SL_STEP(record_split());
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
    unsigned int flags = 0;
    const cudaError_t asked = cudaHostGetFlags(&flags, input_->data());
    if (asked != cudaSuccess) {
        (void)cudaGetLastError();  // memory CUDA did not allocate: no flags
        wrong.push_back("CUDA does not know allocate_portable's memory as pinned host memory");
    } else if ((flags & cudaHostAllocPortable) == 0) {
        wrong.push_back("allocate_portable's memory was not allocated as portable");
    }
    EXPECT_TRUE(grading::none_found(wrong, "problems with the host memory", "problem(s) with the host memory",
                                    "allocate pinned host memory with the flag that makes every GPU treat it as "
                                    "pinned, and free it with the call that matches"));
}

TEST_F(TwoGpus, FasterThanOneGpu) {
    double alone_first = 0, alone_second = 0, split = 0;
    SL_STEP(median_makespan({0}, alone_first));
    SL_STEP(median_makespan({1}, alone_second));
    SL_STEP(median_makespan({0, 1}, split));
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
    /// Your run_handoff from GPU 0 to GPU 1 once to warm up, then once more, on a poisoned output, while CUPTI records.
    void record_handoff() {
        const lab08::HandoffJob job{input_->data(),  output_->data(), n_, iterations_, kHandoffChunks,
                                    gpus_[0].part(), gpus_[1].part()};
        lab08::run_handoff(job);
        fill_poison(output_->data(), n_);
        SL_CHECK(cudaSetDevice(0));
        SL_RECORD_TIMELINE(timeline_, "lab08 run_handoff", [&] { lab08::run_handoff(job); });
    }
};

TEST_F(Handoff, ResultsMatchCpuReference) {
    SL_STEP(record_handoff());
    expect_results_right(kHandoffChunks,
                         "chunk c is chunk_range(job.n, job.chunks, c), at chunk.offset in every buffer; the kernel "
                         "reads job.to's device_input, which the copy between the GPUs filled");
}

TEST_F(Handoff, CrossDeviceWaitRespected) {
    SL_STEP(record_handoff());
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
    int possible = 0;
    SL_CHECK(cudaDeviceCanAccessPeer(&possible, 1, 0));
    if (possible == 0) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << "GPU 1 cannot reach GPU 0's memory directly on this machine (no peer "
                                        "access): CUDA carries a copy between them through the host";
    }
    SL_STEP(record_handoff());
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
    EXPECT_EQ(bytes, n_ * sizeof(float)) << "the copies between the GPUs moved " << bytes << " bytes of "
                                         << n_ * sizeof(float);
}

}  // namespace
