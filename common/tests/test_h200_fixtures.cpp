// The analysis and the model on timelines recorded on an NVIDIA H200 and kept
// as fixtures (common/tests/fixtures/h200_*.json; their metadata names the
// device and the date). They need no GPU: CI checks real timelines with them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "streamlab/analysis.hpp"
#include "streamlab/model.hpp"
#include "streamlab/trace_file.hpp"

namespace {

using namespace streamlab;

Timeline fixture(const std::string& name) {
    return read_trace(std::string(STREAMLAB_FIXTURES) + "/" + name);
}

const std::vector<std::string> kFixtures = {"h200_lab01_serial.json", "h200_lab01_blocking.json",
                                            "h200_lab01_nonblocking.json", "h200_lab02_streams.json",
                                            "h200_three_chunks.json"};

TEST(H200Fixtures, MetadataNamesTheDeviceAndTheDate) {
    for (const std::string& name : kFixtures) {
        const Timeline timeline = fixture(name);
        EXPECT_NE(timeline.device.name.find("H200"), std::string::npos) << name;
        EXPECT_EQ(timeline.date.rfind("2026-", 0), 0U) << name << ": " << timeline.date;
        EXPECT_EQ(timeline.device.copy_engines, 3) << name;
        EXPECT_FALSE(timeline.ops.empty()) << name;
    }
}

TEST(H200Fixtures, SerialNullStreamRunIsAStaircase) {
    const Timeline timeline = fixture("h200_lab01_serial.json");
    const auto& ops = timeline.ops;
    ASSERT_EQ(ops.size(), 3U);
    EXPECT_EQ(ops[0].kind, OpKind::MemcpyH2D);
    EXPECT_EQ(ops[1].kind, OpKind::Kernel);
    EXPECT_EQ(ops[2].kind, OpKind::MemcpyD2H);
    EXPECT_EQ(null_stream_ops(ops), 3U);
    EXPECT_TRUE(ended_before(ops[0], ops[1]));
    EXPECT_TRUE(ended_before(ops[1], ops[2]));
    EXPECT_EQ(copy_compute_overlap_ns(ops), 0U);
    EXPECT_EQ(ops[0].host_memory, HostMemory::Pinned);
}

TEST(H200Fixtures, BarrierDemoSerializesOnlyWithBlockingStreams) {
    const Timeline blocking = fixture("h200_lab01_blocking.json");
    const Timeline non_blocking = fixture("h200_lab01_nonblocking.json");
    ASSERT_EQ(ops_of_kind(blocking.ops, OpKind::Kernel).size(), 3U);
    ASSERT_EQ(ops_of_kind(non_blocking.ops, OpKind::Kernel).size(), 3U);
    EXPECT_EQ(kernel_overlap_ns(blocking.ops), 0U);
    EXPECT_GT(kernel_overlap_ns(non_blocking.ops), 0U);
    EXPECT_LT(makespan_ns(non_blocking.ops), makespan_ns(blocking.ops));
}

TEST(H200Fixtures, KernelsInFourStreamsOverlap) {
    const Timeline timeline = fixture("h200_lab02_streams.json");
    const auto kernels = ops_of_kind(timeline.ops, OpKind::Kernel);
    ASSERT_EQ(kernels.size(), 4U);
    EXPECT_EQ(streams_of(timeline.ops, OpKind::Kernel).size(), 4U);
    EXPECT_EQ(null_stream_ops(timeline.ops), 0U);
    std::uint64_t kernel_time = 0;
    for (const DeviceOp& kernel : kernels) {
        kernel_time += kernel.duration_ns();
    }
    EXPECT_LT(makespan_ns(timeline.ops), kernel_time / 2) << "four kernels at once, not one after another";
}

TEST(H200Fixtures, ThreeChunkPipelineOverlapsAsTheArticleDraws) {
    const Timeline timeline = fixture("h200_three_chunks.json");
    const auto h2d = ops_of_kind(timeline.ops, OpKind::MemcpyH2D);
    const auto kernels = ops_of_kind(timeline.ops, OpKind::Kernel);
    const auto d2h = ops_of_kind(timeline.ops, OpKind::MemcpyD2H);
    ASSERT_EQ(h2d.size(), 3U);
    ASSERT_EQ(kernels.size(), 3U);
    ASSERT_EQ(d2h.size(), 3U);
    EXPECT_EQ(distinct_streams(timeline.ops), 3U);
    EXPECT_GT(copy_compute_overlap_ns(timeline.ops), 0U);
    // The pipeline's shape: chunk i's stages in order; H2D of the next chunk under K_i.
    for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(ended_before(h2d[i], kernels[i])) << "chunk " << i + 1;
        EXPECT_TRUE(ended_before(kernels[i], d2h[i])) << "chunk " << i + 1;
    }
    EXPECT_TRUE(overlaps(h2d[2], kernels[1])) << "H2D_3 under K_2";
}

TEST(H200Fixtures, ModelBoundsTheRecordedPipeline) {
    // Stage times from the recording itself; the pipeline can not beat the
    // busiest unit, and a working pipeline beats running the stages in turn.
    const Timeline timeline = fixture("h200_three_chunks.json");
    const StageTimes whole{static_cast<double>(busy_ns(timeline.ops, Unit::CopyH2D)),
                           static_cast<double>(busy_ns(timeline.ops, Unit::Compute)),
                           static_cast<double>(busy_ns(timeline.ops, Unit::CopyD2H))};
    const PipelineEstimate model = pipeline_model(whole, 3, timeline.device.copy_engines);
    const auto measured = static_cast<double>(makespan_ns(timeline.ops));
    EXPECT_GE(measured, model.bound);
    EXPECT_LT(measured, model.serial);
}

}  // namespace
