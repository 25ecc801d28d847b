// The tracer against operations whose kinds, sizes, streams and order are known.
//
// Every test issues its work inside the recording and nothing else, so it can
// expect exactly the ops it issued. Kernels are launched once before recording
// (in SetUp): the first launch loads the module, which is not part of any test.
#include <cupti.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "streamlab/analysis.hpp"
#include "streamlab/device.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/testing.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"
#include "tracing_switch.hpp"

namespace {

using namespace streamlab;

/// Keeps one GPU thread busy for `cycles` clock cycles: a kernel whose length
/// does not depend on the GPU's size.
__global__ void tracer_test_spin(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {}
}

/// A kernel long enough that the host is certain to get control back before
/// it ends (about 50 ms at 2 GHz).
constexpr long long kLongKernelCycles = 100'000'000;

void launch_spin(cudaStream_t stream, long long cycles = 0) {
    tracer_test_spin<<<1, 1, 0, stream>>>(cycles);
    SL_CHECK_LAUNCH();
}

/// The ops of `kind` that moved or set exactly `bytes` bytes.
std::vector<DeviceOp> ops_with(const Timeline& timeline, OpKind kind, std::uint64_t bytes) {
    std::vector<DeviceOp> found;
    for (const DeviceOp& op : timeline.ops) {
        if (op.kind == kind && op.bytes == bytes) {
            found.push_back(op);
        }
    }
    return found;
}

class TracerGpu : public ::testing::Test {
protected:
    void SetUp() override {
        SL_REQUIRE_GPU();
        // Load both modules before any recording.
        launch_spin(nullptr);
        DeviceBuffer<float> scratch(1);
        launch_workload(scratch.data(), scratch.data(), 1, 1, nullptr);
        SL_CHECK(cudaDeviceSynchronize());
    }
};

TEST_F(TracerGpu, CopiesMemsetAndKernelComeBackWithKindsBytesAndHostMemory) {
    constexpr std::size_t kPinnedBytes = 4 << 20;
    constexpr std::size_t kPageableBytes = 3 << 20;
    constexpr std::size_t kMemsetBytes = 2 << 20;
    constexpr std::size_t kBackBytes = 1 << 20;
    PinnedBuffer<char> pinned(kPinnedBytes);
    std::vector<char> pageable(kPageableBytes, 1);
    DeviceBuffer<char> device(kPinnedBytes);
    const Stream stream(cudaStreamNonBlocking);

    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "tracer test: known ops", [&] {
        SL_CHECK(cudaMemcpyAsync(device.data(), pinned.data(), kPinnedBytes, cudaMemcpyHostToDevice, stream.get()));
        SL_CHECK(cudaMemcpyAsync(device.data(), pageable.data(), kPageableBytes, cudaMemcpyHostToDevice, stream.get()));
        SL_CHECK(cudaMemsetAsync(device.data(), 0, kMemsetBytes, stream.get()));
        launch_spin(stream.get());
        SL_CHECK(cudaMemcpyAsync(pinned.data(), device.data(), kBackBytes, cudaMemcpyDeviceToHost, stream.get()));
    });

    ASSERT_EQ(timeline.ops.size(), 5U) << "issued 2 H2D copies, 1 memset, 1 kernel, 1 D2H copy";
    EXPECT_EQ(timeline.dropped_records, 0U);

    const auto pinned_h2d = ops_with(timeline, OpKind::MemcpyH2D, kPinnedBytes);
    ASSERT_EQ(pinned_h2d.size(), 1U);
    EXPECT_EQ(pinned_h2d[0].host_memory, HostMemory::Pinned);
    EXPECT_EQ(pinned_h2d[0].name, "H2D");

    const auto pageable_h2d = ops_with(timeline, OpKind::MemcpyH2D, kPageableBytes);
    ASSERT_EQ(pageable_h2d.size(), 1U);
    EXPECT_EQ(pageable_h2d[0].host_memory, HostMemory::Pageable);

    const auto memsets = ops_with(timeline, OpKind::Memset, kMemsetBytes);
    ASSERT_EQ(memsets.size(), 1U);
    EXPECT_EQ(memsets[0].name, "memset");

    const auto d2h = ops_with(timeline, OpKind::MemcpyD2H, kBackBytes);
    ASSERT_EQ(d2h.size(), 1U);
    EXPECT_EQ(d2h[0].host_memory, HostMemory::Pinned);

    const auto kernels = ops_of_kind(timeline.ops, OpKind::Kernel);
    ASSERT_EQ(kernels.size(), 1U);
    EXPECT_EQ(kernels[0].bytes, 0U);
    EXPECT_EQ(kernels[0].host_memory, HostMemory::NotApplicable);

    // One created stream, and the GPU's own order within it.
    for (const DeviceOp& op : timeline.ops) {
        EXPECT_EQ(op.stream_id, timeline.ops.front().stream_id) << op.name;
        EXPECT_EQ(op.stream_kind, StreamKind::Created) << op.name;
        EXPECT_LE(op.start_ns, op.end_ns) << op.name;
        EXPECT_NE(op.correlation_id, 0U) << op.name;
    }
    EXPECT_TRUE(ended_before(pinned_h2d[0], pageable_h2d[0]));
    EXPECT_TRUE(ended_before(memsets[0], kernels[0]));
    EXPECT_TRUE(ended_before(kernels[0], d2h[0]));
}

TEST_F(TracerGpu, KernelNamesAreDemangled) {
    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "tracer test: kernel name", [] { launch_spin(nullptr); });
    ASSERT_EQ(timeline.ops.size(), 1U);
    const std::string& name = timeline.ops[0].name;
    EXPECT_NE(name.find("tracer_test_spin"), std::string::npos) << name;
    EXPECT_NE(name.rfind("_Z", 0), 0U) << "still mangled: " << name;
}

TEST_F(TracerGpu, LegacyNullStreamIsToldApartFromCreatedStreams) {
    const Stream blocking(cudaStreamDefault);
    const Stream non_blocking(cudaStreamNonBlocking);
    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "tracer test: stream kinds", [&] {
        launch_spin(nullptr);
        launch_spin(blocking.get());
        launch_spin(non_blocking.get());
    });
    ASSERT_EQ(timeline.ops.size(), 3U);
    std::vector<DeviceOp> kernels = timeline.ops;
    std::sort(kernels.begin(), kernels.end(),
              [](const DeviceOp& a, const DeviceOp& b) { return a.correlation_id < b.correlation_id; });
    EXPECT_EQ(kernels[0].stream_kind, StreamKind::LegacyNull);
    EXPECT_EQ(kernels[1].stream_kind, StreamKind::Created) << "a blocking stream is still a created stream";
    EXPECT_EQ(kernels[2].stream_kind, StreamKind::Created);
    EXPECT_EQ(distinct_streams(timeline.ops), 3U);
    EXPECT_EQ(null_stream_ops(timeline.ops), 1U);
}

TEST_F(TracerGpu, LabelsNameTheOpsIssuedWhileTheyLive) {
    constexpr std::size_t kBytes = 1 << 20;
    PinnedBuffer<char> host(kBytes);
    DeviceBuffer<char> device(kBytes);
    const Stream stream(cudaStreamNonBlocking);
    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "tracer test: labels", [&] {
        {
            const OpLabel chunk("1");
            SL_CHECK(cudaMemcpyAsync(device.data(), host.data(), kBytes, cudaMemcpyHostToDevice, stream.get()));
            launch_spin(stream.get());
            {
                const OpLabel inner("inner");
                SL_CHECK(cudaMemsetAsync(device.data(), 0, kBytes, stream.get()));
            }
            SL_CHECK(cudaMemcpyAsync(host.data(), device.data(), kBytes, cudaMemcpyDeviceToHost, stream.get()));
        }
        launch_spin(stream.get());  // no label any more
    });
    ASSERT_EQ(timeline.ops.size(), 5U);
    // One stream: start order is issue order.
    const std::array<std::string, 5> expected{"1", "1", "inner", "1", ""};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(timeline.ops[i].label, expected[i]) << "op " << i << " (" << timeline.ops[i].name << ")";
    }
}

TEST_F(TracerGpu, HostMarksShareTheDeviceClock) {
    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "tracer test: marks", [] {
        host_mark("before launch");
        launch_spin(nullptr, kLongKernelCycles);
        host_mark("launch returned");
        SL_CHECK(cudaDeviceSynchronize());
        host_mark("synchronized");
    });
    ASSERT_EQ(timeline.ops.size(), 1U);
    ASSERT_EQ(timeline.marks.size(), 3U);
    const DeviceOp& kernel = timeline.ops[0];
    EXPECT_EQ(timeline.marks[0].name, "before launch");
    EXPECT_EQ(timeline.marks[1].name, "launch returned");
    EXPECT_EQ(timeline.marks[2].name, "synchronized");
    EXPECT_LE(timeline.marks[0].time_ns, kernel.start_ns) << "a kernel cannot start before it is launched";
    EXPECT_LT(timeline.marks[1].time_ns, kernel.end_ns)
        << "a launch returns long before a long kernel ends: the mark must fall inside the kernel";
    EXPECT_GE(timeline.marks[2].time_ns, kernel.end_ns) << "synchronize returns after the kernel ended";
}

/// The same three chunks, either in three non-blocking streams or all in the NULL stream.
class PipelineGpu : public TracerGpu {
protected:
    static constexpr int kChunks = 3;
    static constexpr std::size_t kElements = std::size_t{12} << 20;

    void SetUp() override {
        SL_STEP(TracerGpu::SetUp());
        input_ = PinnedBuffer<float>(kElements);
        output_ = PinnedBuffer<float>(kElements);
        device_input_ = DeviceBuffer<float>(kElements);
        device_output_ = DeviceBuffer<float>(kElements);
        fill_input(input_.data(), kElements);
        fill_poison(output_.data(), kElements);
        // A kernel about as long as one chunk's copy, so that there is something to overlap.
        const std::size_t chunk = chunk_range(kElements, kChunks, 0).count;
        iterations_ = iterations_for_kernel_ms(chunk, measure_h2d_ms(chunk * sizeof(float)));
    }

    /// Queues H2D_i, K_i, D2H_i for every chunk i, chunk i in streams[i].
    void run(const std::array<cudaStream_t, kChunks>& streams) {
        for (int i = 0; i < kChunks; ++i) {
            const OpLabel label(std::to_string(i));
            const ChunkRange chunk = chunk_range(kElements, kChunks, i);
            const std::size_t bytes = chunk.count * sizeof(float);
            SL_CHECK(cudaMemcpyAsync(device_input_.data() + chunk.offset, input_.data() + chunk.offset, bytes,
                                     cudaMemcpyHostToDevice, streams[i]));
            launch_workload(device_input_.data() + chunk.offset, device_output_.data() + chunk.offset, chunk.count,
                            iterations_, streams[i]);
            SL_CHECK(cudaMemcpyAsync(output_.data() + chunk.offset, device_output_.data() + chunk.offset, bytes,
                                     cudaMemcpyDeviceToHost, streams[i]));
        }
    }

    void expect_correct_result() const {
        const ResultCheck result =
            check_workload_output(input_.data(), output_.data(), kElements, iterations_, kChunks);
        EXPECT_TRUE(result.ok) << result.message();
    }

    PinnedBuffer<float> input_;
    PinnedBuffer<float> output_;
    DeviceBuffer<float> device_input_;
    DeviceBuffer<float> device_output_;
    int iterations_ = 1;
};

TEST_F(PipelineGpu, ThreeStreamsOverlapCopiesWithKernels) {
    const std::array<Stream, kChunks> streams{Stream(cudaStreamNonBlocking), Stream(cudaStreamNonBlocking),
                                              Stream(cudaStreamNonBlocking)};
    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "tracer test: three streams",
                       [&] { run({streams[0].get(), streams[1].get(), streams[2].get()}); });
    expect_correct_result();
    ASSERT_EQ(timeline.ops.size(), 9U);
    EXPECT_EQ(distinct_streams(timeline.ops), 3U);
    EXPECT_EQ(null_stream_ops(timeline.ops), 0U);
    const std::uint64_t overlap = copy_compute_overlap_ns(timeline.ops);
    grading::report_measure("copy/compute overlap", static_cast<double>(overlap) / 1e6, ">", 0.0, "ms");
    EXPECT_GT(overlap, 0U) << "with three streams, a chunk's copy should run while another chunk's kernel runs";
    // Each chunk's three ops carry its label, and run in its stream in order.
    for (int i = 0; i < kChunks; ++i) {
        std::vector<DeviceOp> chunk;
        for (const DeviceOp& op : timeline.ops) {
            if (op.label == std::to_string(i)) {
                chunk.push_back(op);
            }
        }
        ASSERT_EQ(chunk.size(), 3U) << "chunk " << i;
        EXPECT_EQ(chunk[0].kind, OpKind::MemcpyH2D);
        EXPECT_EQ(chunk[1].kind, OpKind::Kernel);
        EXPECT_EQ(chunk[2].kind, OpKind::MemcpyD2H);
        EXPECT_EQ(chunk[0].stream_id, chunk[2].stream_id);
    }
}

TEST_F(PipelineGpu, NullStreamRunsEverythingInOrder) {
    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "tracer test: NULL stream", [&] { run({nullptr, nullptr, nullptr}); });
    expect_correct_result();
    ASSERT_EQ(timeline.ops.size(), 9U);
    EXPECT_EQ(distinct_streams(timeline.ops), 1U);
    EXPECT_EQ(null_stream_ops(timeline.ops), 9U);
    EXPECT_EQ(copy_compute_overlap_ns(timeline.ops), 0U);
    EXPECT_EQ(kernel_overlap_ns(timeline.ops), 0U);
    for (std::size_t i = 1; i < timeline.ops.size(); ++i) {
        EXPECT_TRUE(ended_before(timeline.ops[i - 1], timeline.ops[i])) << "op " << i;
    }
}

TEST_F(TracerGpu, EveryIssuedOpIsFlushed) {
    constexpr int kStreams = 3;
    constexpr int kRoundsPerStream = 10;
    constexpr std::size_t kBytes = 256 << 10;
    PinnedBuffer<char> host(kBytes * kStreams);
    DeviceBuffer<char> device(kBytes * kStreams);
    const std::array<Stream, kStreams> streams{Stream(cudaStreamNonBlocking), Stream(cudaStreamNonBlocking),
                                               Stream(cudaStreamNonBlocking)};
    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "tracer test: flush", [&] {
        for (int round = 0; round < kRoundsPerStream; ++round) {
            for (int s = 0; s < kStreams; ++s) {
                char* h = host.data() + s * kBytes;
                char* d = device.data() + s * kBytes;
                SL_CHECK(cudaMemcpyAsync(d, h, kBytes, cudaMemcpyHostToDevice, streams[s].get()));
                launch_spin(streams[s].get(), 10'000);
                SL_CHECK(cudaMemcpyAsync(h, d, kBytes, cudaMemcpyDeviceToHost, streams[s].get()));
            }
        }
        // No synchronize here: finish() must wait for the work and flush every record.
    });
    constexpr std::size_t kIssued = std::size_t{kStreams} * kRoundsPerStream * 3;
    EXPECT_EQ(timeline.ops.size(), kIssued);
    EXPECT_EQ(timeline.dropped_records, 0U);
    EXPECT_EQ(ops_of_kind(timeline.ops, OpKind::Kernel).size(), kIssued / 3);
    EXPECT_TRUE(std::is_sorted(timeline.ops.begin(), timeline.ops.end(),
                               [](const DeviceOp& a, const DeviceOp& b) { return a.start_ns < b.start_ns; }));
    std::vector<std::uint32_t> ids;
    for (const DeviceOp& op : timeline.ops) {
        ids.push_back(op.correlation_id);
    }
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "every op has its own correlation id";
}

TEST_F(TracerGpu, ConsecutiveRecordingsDoNotMix) {
    Timeline first;
    SL_RECORD_TIMELINE(first, "tracer test: first", [] { launch_spin(nullptr); });
    launch_spin(nullptr);  // between recordings: in neither
    SL_CHECK(cudaDeviceSynchronize());
    Timeline second;
    SL_RECORD_TIMELINE(second, "tracer test: second", [] {
        launch_spin(nullptr);
        launch_spin(nullptr);
    });
    EXPECT_EQ(first.ops.size(), 1U);
    EXPECT_EQ(second.ops.size(), 2U);
    EXPECT_EQ(second.program, "tracer test: second");
    EXPECT_FALSE(second.date.empty());
    EXPECT_FALSE(second.device.name.empty());
}

TEST_F(TracerGpu, OnlyOneTracerRecordsAtATime) {
    try {
        Tracer first("tracer test: first");
        EXPECT_THROW(Tracer second("tracer test: second"), std::logic_error);
        const Timeline timeline = first.finish();
        EXPECT_TRUE(timeline.ops.empty());
        EXPECT_THROW((void)first.finish(), std::logic_error) << "finish() twice";
    } catch (const TimelineUnavailable& unavailable) {
        GTEST_SKIP() << unavailable.what();
    }
}

// The recording's cost three ways (measure_tracer_overheads): CUPTI's activity
// records alone come before any recording, without the recorder's API callbacks,
// and a recording after them still has those callbacks (its runtime calls are
// counted). Once a recording has started its callbacks stay on, so CUPTI alone
// cannot be measured again in this process (each test runs in a process of its own).
TEST_F(TracerGpu, RecordingCostIsMeasuredAgainstCuptiAloneThenRecordsAsUsual) {
    const std::function<double()> run = [] {
        const auto started = std::chrono::steady_clock::now();
        for (int i = 0; i < 8; ++i) {
            launch_spin(nullptr, 100'000);
        }
        SL_CHECK(cudaDeviceSynchronize());
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    };
    std::vector<TracerOverhead> overheads;
    try {
        overheads = measure_tracer_overheads("tracer test: cost", 3, {run});
    } catch (const TimelineUnavailable& unavailable) {
        GTEST_SKIP() << unavailable.what();
    }
    ASSERT_EQ(overheads.size(), 1U);
    EXPECT_GT(overheads[0].untraced_ms, 0.0);
    EXPECT_GT(overheads[0].cupti_only_ms, 0.0);
    EXPECT_GT(overheads[0].traced_ms, 0.0);
    const Timeline timeline = record_timeline("tracer test: after the cost", [] { launch_spin(nullptr); });
    EXPECT_EQ(count_api_calls(timeline, {"cudaLaunchKernel"}), 1U) << "the recorder's API callbacks are on";
    EXPECT_EQ(ops_of_kind(timeline.ops, OpKind::Kernel).size(), 1U);
    EXPECT_THROW((void)measure_tracer_overheads("tracer test: again", 1, {run}), std::logic_error);
}

// With the tracer off (--no-trace), the work still runs, the timeline says why it
// was not recorded, and CUPTI was never touched: another tool (here this test
// itself, as compute-sanitizer would) can still subscribe to it.
TEST_F(TracerGpu, TracerOffRunsTheWorkAndLeavesCuptiFree) {
    detail::turn_tracing_off("--no-trace");
    DeviceBuffer<float> device(1);
    const float input = 1.0F;
    float host = 0.0F;
    const Timeline timeline = record_timeline("tracer test: off", [&] {
        SL_CHECK(cudaMemcpy(device.data(), &input, sizeof(float), cudaMemcpyHostToDevice));
        launch_workload(device.data(), device.data(), 1, 1, nullptr);
        SL_CHECK(cudaMemcpy(&host, device.data(), sizeof(float), cudaMemcpyDeviceToHost));
    });
    EXPECT_FALSE(timeline.recorded());
    EXPECT_NE(timeline.not_recorded.find("--no-trace"), std::string::npos) << timeline.not_recorded;
    EXPECT_TRUE(timeline.ops.empty());
    EXPECT_EQ(host, workload_reference(input, 1)) << "the work ran";
    EXPECT_THROW(Tracer tracer("tracer test: off"), TimelineUnavailable);

    CUpti_SubscriberHandle subscriber = nullptr;
    const CUptiResult subscribed =
        cuptiSubscribe(&subscriber, [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}, nullptr);
    EXPECT_EQ(subscribed, CUPTI_SUCCESS) << "CUPTI already had a subscriber: the tracer attached while off";
    if (subscribed == CUPTI_SUCCESS) {
        cuptiUnsubscribe(subscriber);
    }
}

// ---------------------------------------------------------------- copies sharing the link

/// Three chunks in three streams over a PipelineMemory: the shape of the three-chunk pipeline.
void three_chunks(PipelineMemory& memory, int iterations) {
    const std::array<Stream, 3> streams{Stream(cudaStreamNonBlocking), Stream(cudaStreamNonBlocking),
                                        Stream(cudaStreamNonBlocking)};
    for (int i = 0; i < 3; ++i) {
        const ChunkRange chunk = chunk_range(memory.size(), 3, i);
        const std::size_t bytes = chunk.count * sizeof(float);
        SL_CHECK(cudaMemcpyAsync(memory.device_input.data() + chunk.offset, memory.input.data() + chunk.offset, bytes,
                                 cudaMemcpyHostToDevice, streams[i].get()));
        launch_workload(memory.device_input.data() + chunk.offset, memory.device_output.data() + chunk.offset,
                        chunk.count, iterations, streams[i].get());
        SL_CHECK(cudaMemcpyAsync(memory.output.data() + chunk.offset, memory.device_output.data() + chunk.offset, bytes,
                                 cudaMemcpyDeviceToHost, streams[i].get()));
    }
    SL_CHECK(cudaDeviceSynchronize());
}

// A copy-bound pipeline, where copies in both directions run together most. The
// ideal model lets the two directions run side by side at full speed, the
// shared-link model slows both for as long as they overlap at the speeds measured
// when they run together. The GPU's run must land between the two: no faster than
// the ideal one, no slower than the shared one (with room for noise each way).
// How far between depends on how long the copies overlapped in this run, so which
// model lands nearer is not asked.
TEST_F(TracerGpu, SharedLinkModelBoundsACopyBoundPipelineFromAbove) {
    constexpr double kNoise = 0.1;  // relative
    PipelineRun run;
    try {
        run = record_pipeline_run(3, three_chunks, /*kernel_to_copy=*/0.25);
    } catch (const TimelineUnavailable& unavailable) {
        GTEST_SKIP() << unavailable.what();
    }
    ASSERT_TRUE(run.result.ok) << run.result.message();
    const PipelineComparison& c = run.comparison;
    grading::report_measure("H2D speed kept beside a D2H copy", c.link.h2d, "<=", 1.0, "");
    grading::report_measure("D2H speed kept beside an H2D copy", c.link.d2h, "<=", 1.0, "");
    for (const double kept : {c.link.h2d, c.link.d2h}) {
        EXPECT_GT(kept, 0.0);
        EXPECT_LE(kept, 1.0);
    }
    EXPECT_GE(c.link_model_ms, c.model_ms * (1 - 1e-9)) << "a shared link cannot make the pipeline faster";
    if (query_device_facts(0).copy_engines < 2) {
        EXPECT_EQ(c.link_model_ms, c.model_ms) << "with one copy engine the directions never run together";
        return;
    }
    grading::report_measure("measured / ideal model", c.pipelined_ms / c.model_ms, ">=", 1 - kNoise, "");
    grading::report_measure("measured / shared-link model", c.pipelined_ms / c.link_model_ms, "<=", 1 + kNoise, "");
    const std::string models = "ideal model " + std::to_string(c.model_ms) + " ms, shared-link model " +
                               std::to_string(c.link_model_ms) + " ms, measured " + std::to_string(c.pipelined_ms) +
                               " ms";
    EXPECT_GE(c.pipelined_ms, c.model_ms * (1 - kNoise)) << "faster than copies that never slow each other: " << models;
    EXPECT_LE(c.pipelined_ms, c.link_model_ms * (1 + kNoise))
        << "slower than copies that share the link whenever they overlap: " << models;
}

}  // namespace
