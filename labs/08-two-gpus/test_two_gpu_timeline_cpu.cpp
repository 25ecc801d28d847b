// Lab 08's grader questions (two_gpu_timeline.hpp) on made-up timelines: no GPU needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "op_builder.hpp"
#include "two_gpu_timeline.hpp"

namespace {

using namespace lab08::course;
using streamlab::DeviceOp;
using streamlab::HostMemory;
using streamlab::OpKind;
using streamlab::testing_ops::OpBuilder;

std::uint32_t next_correlation = 1;

/// An op that GPU `device` ran; copies to and from the host use pinned memory.
DeviceOp op(OpKind kind, std::uint32_t device, std::uint64_t start, std::uint64_t end, std::uint32_t stream = 13,
            std::uint64_t bytes = 0) {
    const bool host_copy = kind == OpKind::MemcpyH2D || kind == OpKind::MemcpyD2H;
    return OpBuilder(kind)
        .device(device)
        .span(start, end)
        .stream(stream)
        .bytes(bytes)
        .host(host_copy ? HostMemory::Pinned : HostMemory::NotApplicable)
        .correlation(next_correlation++);
}

DeviceOp peer(std::uint32_t source, std::uint32_t destination, std::uint64_t start, std::uint64_t end) {
    DeviceOp made = op(OpKind::MemcpyP2P, destination, start, end);
    made.source_device = source;
    made.destination_device = destination;
    return made;
}

TEST(WorkByGpu, CountsEachGpusOpsBytesStreamsAndBusyTime) {
    std::vector<DeviceOp> ops = {op(OpKind::MemcpyH2D, 0, 0, 10, 13, 400), op(OpKind::Kernel, 0, 10, 30, 14),
                                 op(OpKind::MemcpyD2H, 0, 30, 40, 14, 400), op(OpKind::MemcpyH2D, 1, 5, 15, 13, 800),
                                 op(OpKind::Kernel, 1, 50, 60, 13)};
    ops[3].host_memory = HostMemory::Pageable;
    const std::vector<GpuWork> work = work_by_gpu(ops);
    ASSERT_EQ(work.size(), 2U);
    EXPECT_EQ(work[0].device, 0U);
    EXPECT_EQ(work[0].h2d, 1U);
    EXPECT_EQ(work[0].kernels, 1U);
    EXPECT_EQ(work[0].d2h, 1U);
    EXPECT_EQ(work[0].h2d_bytes, 400U);
    EXPECT_EQ(work[0].d2h_bytes, 400U);
    EXPECT_EQ(work[0].streams, 2U);
    EXPECT_EQ(work[0].unpinned_copies, 0U);
    EXPECT_EQ(work[0].busy_ns, 40U);
    EXPECT_EQ(work[1].h2d_bytes, 800U);
    EXPECT_EQ(work[1].unpinned_copies, 1U);
    EXPECT_EQ(work[1].busy_ns, 20U);
    EXPECT_EQ(work[1].first_start_ns, 5U);
    EXPECT_EQ(work[1].last_end_ns, 60U);
    EXPECT_EQ(work_of(work, 1).kernels, 1U);
    EXPECT_EQ(work_of(work, 3).kernels, 0U);  // a GPU that ran nothing
    EXPECT_EQ(work_of(work, 3).device, 3U);
}

TEST(Together, SharesOfTheLessBusyGpusTime) {
    // GPU 0 busy 0-100; GPU 1 busy 50-150: half of either's time together.
    const std::vector<DeviceOp> side_by_side = {op(OpKind::MemcpyH2D, 0, 0, 100), op(OpKind::MemcpyH2D, 1, 50, 150)};
    EXPECT_DOUBLE_EQ(busy_together_share(side_by_side, 0, 1), 0.5);
    EXPECT_DOUBLE_EQ(copies_in_together_share(side_by_side, 0, 1), 0.5);
    // Taking turns: nothing together.
    const std::vector<DeviceOp> turns = {op(OpKind::Kernel, 0, 0, 100), op(OpKind::Kernel, 1, 100, 200)};
    EXPECT_DOUBLE_EQ(busy_together_share(turns, 0, 1), 0.0);
    // One GPU idle: nothing together.
    EXPECT_DOUBLE_EQ(busy_together_share({op(OpKind::Kernel, 0, 0, 100)}, 0, 1), 0.0);
    // Kernels together but copies in one after the other.
    const std::vector<DeviceOp> kernels_only = {op(OpKind::MemcpyH2D, 0, 0, 10), op(OpKind::Kernel, 0, 10, 100),
                                                op(OpKind::MemcpyH2D, 1, 10, 20), op(OpKind::Kernel, 1, 20, 100)};
    EXPECT_GT(busy_together_share(kernels_only, 0, 1), 0.8);
    EXPECT_DOUBLE_EQ(copies_in_together_share(kernels_only, 0, 1), 0.0);
}

/// A hand-off of two chunks from GPU 0 to GPU 1 in which every wait holds.
std::vector<DeviceOp> good_handoff() {
    return {op(OpKind::MemcpyH2D, 0, 0, 10),  peer(0, 1, 10, 12),
            op(OpKind::Kernel, 1, 12, 30),    op(OpKind::MemcpyD2H, 1, 30, 40),
            op(OpKind::MemcpyH2D, 0, 10, 20), peer(0, 1, 20, 22),
            op(OpKind::Kernel, 1, 30, 50),    op(OpKind::MemcpyD2H, 1, 50, 60)};
}

TEST(Handoff, FindsTheChunksInIssueOrder) {
    const HandoffRun run = find_handoff(good_handoff(), 0, 1, 2);
    ASSERT_EQ(run.problem, "");
    ASSERT_EQ(run.chunks.size(), 2U);
    EXPECT_TRUE(run.peer_copies);
    EXPECT_EQ(run.chunks[1].h2d.start_ns, 10U);
    EXPECT_EQ(run.chunks[1].peer.start_ns, 20U);
    EXPECT_TRUE(handoff_wait_problems(run, 0).empty());
}

TEST(Handoff, SaysWhatIsMissing) {
    std::vector<DeviceOp> ops = good_handoff();
    EXPECT_NE(find_handoff(ops, 0, 1, 3).problem.find("2 copies in on GPU 0"), std::string::npos);
    ops.erase(ops.begin() + 5);  // one copy between the GPUs fewer
    EXPECT_NE(find_handoff(ops, 0, 1, 2).problem.find("1 copies between the GPUs"), std::string::npos);
    // The kernels on the wrong GPU.
    std::vector<DeviceOp> wrong_gpu = good_handoff();
    wrong_gpu[2].device_id = 0;
    EXPECT_NE(find_handoff(wrong_gpu, 0, 1, 2).problem.find("kernels on GPU 1"), std::string::npos);
    // A copy the wrong way round.
    std::vector<DeviceOp> backwards = good_handoff();
    backwards[1].source_device = 1;
    backwards[1].destination_device = 0;
    EXPECT_NE(find_handoff(backwards, 0, 1, 2).problem.find("from GPU 1 to GPU 0"), std::string::npos);
}

TEST(Handoff, WithoutPeerCopiesTheKernelWaitsForTheCopyIn) {
    std::vector<DeviceOp> ops;
    for (const DeviceOp& one : good_handoff()) {
        if (one.kind != OpKind::MemcpyP2P) {
            ops.push_back(one);
        }
    }
    const HandoffRun run = find_handoff(ops, 0, 1, 2);
    ASSERT_EQ(run.problem, "");
    EXPECT_FALSE(run.peer_copies);
    EXPECT_TRUE(handoff_wait_problems(run, 0).empty());
    ops[1].start_ns = 5;  // K_1 before H2D_1 ended
    const std::vector<std::string> problems = handoff_wait_problems(find_handoff(ops, 0, 1, 2), 0);
    ASSERT_EQ(problems.size(), 1U);
    EXPECT_EQ(problems[0], "K_1 began before H2D_1 on GPU 0 ended");
}

TEST(Handoff, ABrokenCrossGpuWaitIsNamedUnlessWithinTheClockSlack) {
    std::vector<DeviceOp> ops = good_handoff();
    ops[5].start_ns = 15;  // chunk 2's copy between the GPUs began 5 ns before H2D_2 ended
    ops[5].end_ns = 17;
    const HandoffRun run = find_handoff(ops, 0, 1, 2);
    ASSERT_EQ(run.problem, "");
    const std::vector<std::string> problems = handoff_wait_problems(run, 0);
    ASSERT_EQ(problems.size(), 1U);
    EXPECT_EQ(problems[0], "the copy between the GPUs of chunk 2 began before H2D_2 on GPU 0 ended");
    EXPECT_TRUE(handoff_wait_problems(run, 5).empty());  // two clocks that disagree by 5 ns
    ops[2].start_ns = 11;                                // K_1 before its copy between the GPUs ended
    EXPECT_EQ(handoff_wait_problems(find_handoff(ops, 0, 1, 2), 0).size(), 2U);
}

TEST(SplitModel, HalfTheSlowerGpusTime) {
    EXPECT_DOUBLE_EQ(split_model_speedup(10, 10), 2.0);
    EXPECT_DOUBLE_EQ(split_model_speedup(10, 20), 1.0);  // the second GPU's half takes as long as it all on the first
    EXPECT_DOUBLE_EQ(split_model_speedup(20, 10), 2.0);  // the first GPU's half is the slower one
    EXPECT_THROW((void)split_model_speedup(0, 10), std::invalid_argument);
}

}  // namespace
