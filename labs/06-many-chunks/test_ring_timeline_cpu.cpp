// Lab 06's reading of the records (ring_timeline.hpp), on made-up timelines: a
// correct run shows no hazard, each kind of early reuse is found, and the host's
// fills and drains travel in a record's values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ring_timeline.hpp"
#include "streamlab/workload.hpp"

namespace {

using lab06::course::HostUse;
using lab06::course::RecordedChunk;
using streamlab::DeviceOp;
using streamlab::OpKind;

constexpr std::size_t kN = 4000;
constexpr int kChunks = 4;
constexpr std::uint64_t kUs = 1000;  // one microsecond in ns

/// A correct run of 4 chunks over 2 device sets (stream c % 2), 2 staging and 2
/// results buffers, times in us: each step 100 us, the host fills and drains in 50.
struct MadeUpRun {
    std::vector<HostUse> fills, drains;
    std::vector<DeviceOp> ops;

    MadeUpRun() {
        std::uint32_t correlation = 1;
        for (int c = 0; c < kChunks; ++c) {
            const streamlab::ChunkRange range = streamlab::chunk_range(kN, kChunks, c);
            const std::uint64_t t = 150 * static_cast<std::uint64_t>(c);  // the host's pace
            fills.push_back({range.offset, range.count, c % 2, t * kUs, (t + 50) * kUs});
            const std::uint64_t h2d = std::max<std::uint64_t>(t + 50, c >= 2 ? ops[ops.size() - 4].end_ns / kUs : 0);
            ops.push_back(op(OpKind::MemcpyH2D, c, h2d, correlation++));
            ops.push_back(op(OpKind::Kernel, c, h2d + 100, correlation++));
            ops.push_back(op(OpKind::MemcpyD2H, c, h2d + 200, correlation++));
            drains.push_back({range.offset, range.count, c % 2, (h2d + 300) * kUs, (h2d + 350) * kUs});
        }
    }

    static DeviceOp op(OpKind kind, int chunk, std::uint64_t start_us, std::uint32_t correlation) {
        DeviceOp op;
        op.kind = kind;
        op.stream_id = static_cast<std::uint32_t>(10 + chunk % 2);
        op.start_ns = start_us * kUs;
        op.end_ns = (start_us + 100) * kUs;
        op.correlation_id = correlation;
        op.host_memory = kind == OpKind::Kernel ? streamlab::HostMemory::NotApplicable : streamlab::HostMemory::Pinned;
        return op;
    }

    /// The op of `kind` of chunk `chunk`.
    DeviceOp& find(OpKind kind, int chunk) {
        int seen = 0;
        for (DeviceOp& op : ops) {
            if (op.kind == kind && seen++ == chunk) {
                return op;
            }
        }
        throw std::logic_error("no such op");
    }

    std::vector<std::string> hazards(int sets = 2) const {
        const lab06::course::RecordedRun run = lab06::course::pair_chunks(fills, drains, ops, kN, kChunks);
        EXPECT_EQ(run.problem, "");
        return lab06::course::reuse_hazards(run.chunks, sets);
    }
};

/// Whether any of `hazards` contains `words`.
bool mentions(const std::vector<std::string>& hazards, const std::string& words) {
    for (const std::string& hazard : hazards) {
        if (hazard.find(words) != std::string::npos) {
            return true;
        }
    }
    return false;
}

TEST(lab06RingTimeline, CorrectRunHasNoHazard) {
    const std::vector<std::string> hazards = MadeUpRun().hazards();
    EXPECT_TRUE(hazards.empty()) << hazards.front();
}

TEST(lab06RingTimeline, FindsAStagingBufferWrittenWhileItsCopyRuns) {
    MadeUpRun run;
    // Chunk 3 goes into staging buffer 0 while H2D_1 still reads it.
    const std::uint64_t h2d_1_end = run.find(OpKind::MemcpyH2D, 0).end_ns;
    run.fills[2].start_ns = h2d_1_end - 30 * kUs;
    run.fills[2].end_ns = h2d_1_end + 20 * kUs;
    const std::vector<std::string> hazards = run.hazards();
    ASSERT_EQ(hazards.size(), 1U);
    EXPECT_TRUE(mentions(hazards, "writing chunk 3 into staging buffer 0")) << hazards.front();
}

TEST(lab06RingTimeline, FindsResultsReadBeforeTheirCopyEnded) {
    MadeUpRun run;
    run.drains[1].start_ns = run.find(OpKind::MemcpyD2H, 1).end_ns - 40 * kUs;
    EXPECT_TRUE(mentions(run.hazards(), "read chunk 2's results")) << run.hazards().size();
}

TEST(lab06RingTimeline, FindsAResultsBufferOverwrittenBeforeItWasRead) {
    MadeUpRun run;
    // The host reads chunk 1 from results buffer 0 after D2H_3 began writing it.
    run.drains[0].end_ns = run.find(OpKind::MemcpyD2H, 2).start_ns + 40 * kUs;
    EXPECT_TRUE(mentions(run.hazards(), "D2H_3 began writing results buffer 0"));
}

TEST(lab06RingTimeline, FindsMoreChunksOnTheDeviceThanSets) {
    // With one device set, chunk 2's copy arrives while chunk 1's kernel still reads the set.
    const std::vector<std::string> hazards = MadeUpRun().hazards(1);
    EXPECT_TRUE(mentions(hazards, "still held a device input buffer")) << hazards.size();
}

TEST(lab06RingTimeline, ClocksWithinTheSlackAreNoHazard) {
    MadeUpRun run;
    // The host's read stamped a few microseconds before the D2H copy's end: the clocks, not a hazard.
    run.drains[1].start_ns = run.find(OpKind::MemcpyD2H, 1).end_ns - lab06::course::kClockSlackNs / 2;
    EXPECT_TRUE(run.hazards().empty());
}

TEST(lab06RingTimeline, FindsAKernelBeforeItsCopy) {
    MadeUpRun run;
    DeviceOp& kernel = run.find(OpKind::Kernel, 3);
    kernel.start_ns -= 50 * kUs;
    EXPECT_TRUE(mentions(run.hazards(), "K_4 began"));
}

TEST(lab06RingTimeline, FindsABufferThatIsNotTheRings) {
    MadeUpRun run;
    run.fills[1].slot = -1;
    EXPECT_TRUE(mentions(run.hazards(), "not one of job.staging"));
}

TEST(lab06RingTimeline, OutOfOrderChunksAreAProblem) {
    MadeUpRun run;
    std::swap(run.fills[1], run.fills[2]);
    const lab06::course::RecordedRun paired = lab06::course::pair_chunks(run.fills, run.drains, run.ops, kN, kChunks);
    EXPECT_NE(paired.problem.find("not chunk 2's"), std::string::npos) << paired.problem;
    EXPECT_TRUE(paired.chunks.empty());
}

TEST(lab06RingTimeline, RunSpansStartAtEachFirstChunk) {
    MadeUpRun first, second;
    for (std::vector<HostUse>* use : {&second.fills, &second.drains}) {
        for (HostUse& x : *use) {
            x.start_ns += 10000 * kUs;
            x.end_ns += 10000 * kUs;
        }
    }
    std::vector<HostUse> fills = first.fills, drains = first.drains;
    fills.insert(fills.end(), second.fills.begin(), second.fills.end());
    drains.insert(drains.end(), second.drains.begin(), second.drains.end());
    const std::vector<lab06::course::RunSpan> spans = lab06::course::run_spans(fills, drains);
    ASSERT_EQ(spans.size(), 2U);
    EXPECT_EQ(spans[0].fills, 4U);
    EXPECT_EQ(spans[0].start_ns, 0U);
    EXPECT_EQ(spans[0].end_ns, first.drains.back().end_ns);
    EXPECT_EQ(spans[1].start_ns, 10000 * kUs);
}

TEST(lab06RingTimeline, ModelIsTheGpuWhenTheHostIsFreeAndTheHostWhenItIsBusy) {
    const streamlab::StageTimes gpu{4.0, 4.0, 4.0};
    const double gpu_only =
        streamlab::simulated_makespan(streamlab::simulate_pipeline(gpu, 8, 2, 2, streamlab::IssueOrder::ChunkByChunk));
    EXPECT_DOUBLE_EQ(lab06::course::streaming_model_ms(gpu, 0, 0, 8, 2, 2, streamlab::IssueOrder::ChunkByChunk),
                     gpu_only);
    // A host that needs 20 ms for the fills and as long for the drains is the bound.
    EXPECT_DOUBLE_EQ(lab06::course::streaming_model_ms(gpu, 20, 20, 8, 2, 2, streamlab::IssueOrder::ChunkByChunk),
                     40.0);
    // A little host time adds a fill before the GPU starts and a drain after it ends.
    EXPECT_NEAR(lab06::course::streaming_model_ms(gpu, 0.8, 0.8, 8, 2, 2, streamlab::IssueOrder::ChunkByChunk),
                gpu_only + 0.2, 1e-9);
}

TEST(lab06RingTimeline, HostBusyTimeIsTheSumOfItsUses) {
    const MadeUpRun run;  // 4 fills and 4 drains of 50 us each
    EXPECT_DOUBLE_EQ(lab06::course::host_busy_ms(run.fills), 0.2);
    EXPECT_DOUBLE_EQ(lab06::course::host_busy_ms(run.drains), 0.2);
    EXPECT_DOUBLE_EQ(lab06::course::host_busy_ms({}), 0.0);
}

TEST(lab06RingTimeline, BoundIsTheBusiestUnitWithTheHostsFillsAndDrainsAsOne) {
    const streamlab::StageTimes gpu{4.0, 5.0, 3.0};
    // The host's fills and drains are one thread's work: 3 + 3 ms is busier than the kernel's 5.
    EXPECT_DOUBLE_EQ(lab06::course::streaming_bound_ms(gpu, 3.0 + 3.0, 2), 6.0);
    // A fast host: the kernel is the busiest unit.
    EXPECT_DOUBLE_EQ(lab06::course::streaming_bound_ms(gpu, 1.0 + 1.0, 2), 5.0);
    // One copy engine carries both directions: 4 + 3 ms.
    EXPECT_DOUBLE_EQ(lab06::course::streaming_bound_ms(gpu, 1.0 + 1.0, 1), 7.0);
    // No model of the same stages is faster than the bound.
    EXPECT_GE(lab06::course::streaming_model_ms(gpu, 3.0, 3.0, 64, 4, 2, streamlab::IssueOrder::ChunkByChunk), 6.0);
}

TEST(lab06RingTimeline, HostUsesTravelInARecordsValues) {
    MadeUpRun run;
    run.fills[1].slot = -1;  // a buffer that is not the ring's travels too
    std::map<std::string, double> values{{"iterations", 40}};
    lab06::course::put_host_uses(values, run.fills, run.drains);
    const lab06::course::HostUses read = lab06::course::host_uses_of(values);
    ASSERT_EQ(read.problem, "");
    const auto same = [](const std::vector<HostUse>& a, const std::vector<HostUse>& b) {
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].offset, b[i].offset);
            EXPECT_EQ(a[i].count, b[i].count);
            EXPECT_EQ(a[i].slot, b[i].slot);
            EXPECT_EQ(a[i].start_ns, b[i].start_ns);
            EXPECT_EQ(a[i].end_ns, b[i].end_ns);
        }
    };
    same(read.fills, run.fills);
    same(read.drains, run.drains);
}

TEST(lab06RingTimeline, HostUsesTheCourseDidNotRecordAreAProblem) {
    const MadeUpRun run;
    const auto problem_with = [&](const std::string& key, double value) {
        std::map<std::string, double> values;
        lab06::course::put_host_uses(values, run.fills, run.drains);
        if (std::isnan(value)) {
            values.erase(key);
        } else {
            values[key] = value;
        }
        return lab06::course::host_uses_of(values).problem;
    };
    const double missing = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(problem_with("points", 3), "") << "other values are left alone";
    EXPECT_NE(problem_with("fills", missing), "");
    EXPECT_NE(problem_with("drains", 5), "") << "a drain without its values";
    EXPECT_NE(problem_with("fills", 1e12), "") << "more uses than any run";
    EXPECT_NE(problem_with("fill_1_offset", -1), "");
    EXPECT_NE(problem_with("fill_1_count", 0.5), "");
    EXPECT_NE(problem_with("drain_2_slot", missing), "");
    EXPECT_NE(problem_with("drain_0_end_ns", 0), "") << "a use that ends before it begins";
}

}  // namespace
