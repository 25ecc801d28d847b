// The batch helpers on the CPU: pageable buffers, the host work and its
// marks, and finding batches in synthetic timelines worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "op_builder.hpp"
#include "streamlab/batches.hpp"

namespace {

using streamlab::DeviceOp;
using streamlab::HostMark;
using streamlab::OpKind;
using streamlab::Timeline;

constexpr std::uint64_t kBytes = 4096;

DeviceOp op(OpKind kind, std::uint64_t start, std::uint64_t end, std::string label = "") {
    return streamlab::testing_ops::OpBuilder(kind)
        .span(start, end)
        .bytes(kind == OpKind::Kernel ? 0 : kBytes)
        .label(std::move(label));
}

/// Batch b: H2D [100b, 100b+10), kernel [100b+10, 100b+60), D2H [100b+60, 100b+70);
/// the host regains control at 100b+5 and works until 100b+`host_end`.
Timeline two_batches(std::uint64_t host_end) {
    Timeline timeline;
    for (int b = 0; b < 2; ++b) {
        const std::uint64_t t = 100U * static_cast<std::uint64_t>(b);
        timeline.ops.push_back(op(OpKind::MemcpyH2D, t, t + 10));
        timeline.ops.push_back(op(OpKind::Kernel, t + 10, t + 60));
        timeline.ops.push_back(op(OpKind::MemcpyD2H, t + 60, t + 70));
        timeline.marks.push_back({streamlab::batch_queued_mark(b), t + 5});
        timeline.marks.push_back({streamlab::host_work_done_mark(b), t + host_end});
    }
    timeline.ops.push_back(op(OpKind::Kernel, 0, 500, streamlab::kBackgroundLabel));  // the grader's
    return timeline;
}

TEST(BatchBuffers, PageableBuffersStartWithPreparedInputsAndPoisonedOutputs) {
    streamlab::BatchBuffers buffers(3, 64, /*pinned=*/false);
    EXPECT_EQ(buffers.count(), 3);
    EXPECT_EQ(buffers.size(), 64U);
    EXPECT_FALSE(buffers.pinned());
    EXPECT_TRUE(std::isnan(buffers.output(2)[0]));
    EXPECT_FALSE(std::isnan(buffers.input(2)[0]));
    EXPECT_NE(buffers.input(0)[0], buffers.input(1)[0]) << "every batch has its own input";
    buffers.reset(/*prepare_all=*/false);
    EXPECT_FALSE(std::isnan(buffers.input(0)[0]));
    EXPECT_TRUE(std::isnan(buffers.input(1)[0]));
    EXPECT_FALSE(buffers.check(0, 1).ok) << "a poisoned output must fail the check";
    for (std::size_t i = 0; i < 64; ++i) {
        buffers.output(0)[i] = streamlab::workload_reference(buffers.input(0)[i], 1);
    }
    EXPECT_TRUE(buffers.check(0, 1).ok);
}

TEST(BatchBuffers, InputsAreConsecutiveSlicesOfOneSeededInput) {
    constexpr std::uint32_t kSeed = 1234567;
    streamlab::BatchBuffers buffers(3, 64, /*pinned=*/false, kSeed);
    EXPECT_EQ(buffers.seed(), kSeed);
    for (int b = 0; b < buffers.count(); ++b) {
        for (std::size_t i : {std::size_t{0}, std::size_t{63}}) {
            EXPECT_EQ(buffers.input(b)[i], streamlab::input_element(static_cast<std::size_t>(b) * 64 + i, kSeed))
                << "batch " << b << ", element " << i;
        }
    }
}

TEST(BatchBuffers, OneOutputSampleCoversEveryBatch) {
    constexpr std::uint32_t kSeed = 99;
    constexpr int kIterations = 2;
    streamlab::BatchBuffers buffers(3, 64, /*pinned=*/false, kSeed);
    for (int b = 0; b < buffers.count(); ++b) {
        for (std::size_t i = 0; i < buffers.size(); ++i) {
            buffers.output(b)[i] = streamlab::workload_reference(buffers.input(b)[i], kIterations);
        }
    }
    const streamlab::record::OutputSample sample = buffers.sample_outputs(kIterations);
    EXPECT_EQ(sample.n, 3U * 64U);
    EXPECT_EQ(sample.chunks, 3);
    EXPECT_EQ(sample.seed, kSeed);
    EXPECT_TRUE(streamlab::record::check_output_sample(sample).ok);
    buffers.output(1)[63] = 0.0F;  // the last element of the middle batch: always sampled
    EXPECT_FALSE(streamlab::record::check_output_sample(buffers.sample_outputs(kIterations)).ok);
}

TEST(BatchBuffers, HostWorkPreparesTheNextBatchOnly) {
    streamlab::BatchBuffers buffers(2, 16, /*pinned=*/false);
    buffers.reset(/*prepare_all=*/false);
    const auto work = streamlab::marked_host_work(buffers, /*prepare_next=*/true);
    work(0);
    EXPECT_FALSE(std::isnan(buffers.input(1)[0]));
    work(1);  // the last batch has no next one: nothing happens
    EXPECT_EQ(streamlab::batch_queued_mark(1), "batch 1 queued");
    EXPECT_EQ(streamlab::host_work_done_mark(1), "host work 1 done");
}

TEST(FindBatches, PairsOpsAndMarksBatchByBatch) {
    const auto found = streamlab::find_batches(two_batches(40), 2, kBytes);
    ASSERT_EQ(found.problem, "");
    ASSERT_EQ(found.batches.size(), 2U);
    const auto& second = found.batches[1];
    EXPECT_EQ(second.h2d.start_ns, 100U);
    EXPECT_EQ(second.kernel.start_ns, 110U);
    EXPECT_EQ(second.queued_ns, 105U);
    EXPECT_TRUE(second.device_busy_on_return());
    EXPECT_EQ(second.host_work_ns(), 35U);
    EXPECT_EQ(second.device_span_ns(), 70U);
    EXPECT_EQ(second.host_device_overlap_ns(), 35U);  // [105, 140) inside [100, 170)
}

TEST(FindBatches, SeesAHostThatWasBlocked) {
    Timeline timeline = two_batches(90);
    for (HostMark& mark : timeline.marks) {
        if (mark.name == streamlab::batch_queued_mark(0)) {
            mark.time_ns = 70;  // back only when D2H ended
        }
    }
    const auto found = streamlab::find_batches(timeline, 2, kBytes);
    ASSERT_EQ(found.problem, "");
    EXPECT_FALSE(found.batches[0].device_busy_on_return());
    EXPECT_EQ(found.batches[0].host_device_overlap_ns(), 0U);
}

TEST(FindBatches, SaysWhatIsMissing) {
    Timeline timeline = two_batches(40);
    EXPECT_NE(streamlab::find_batches(timeline, 3, kBytes).problem.find("expected 3 H2D"), std::string::npos);
    EXPECT_NE(streamlab::find_batches(timeline, 2, 2 * kBytes).problem.find("must move"), std::string::npos);
    timeline.marks.pop_back();
    EXPECT_NE(streamlab::find_batches(timeline, 2, kBytes).problem.find("host_work(1)"), std::string::npos);
}

TEST(FindBatches, LeavesLabelledOpsOut) {
    const auto mine = streamlab::unlabelled_ops(two_batches(40).ops);
    EXPECT_EQ(mine.size(), 6U);
}

}  // namespace
