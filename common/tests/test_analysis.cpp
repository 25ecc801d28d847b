// Timeline analysis on synthetic timelines whose answers can be worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "op_builder.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/trace_file.hpp"

namespace {

using streamlab::DeviceOp;
using streamlab::Interval;
using streamlab::OpKind;
using streamlab::StreamKind;
using streamlab::Unit;

DeviceOp make_op(OpKind kind, const std::string& label, std::uint32_t stream, std::uint64_t start, std::uint64_t end,
                 StreamKind stream_kind = StreamKind::Created) {
    return streamlab::testing_ops::OpBuilder(kind)
        .name(kind == OpKind::Kernel ? "workload_kernel" : "copy")
        .label(label)
        .stream(stream, stream_kind)
        .span(start, end);
}

void expect_intervals(const std::vector<Interval>& actual, const std::vector<Interval>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(actual[i].start_ns, expected[i].start_ns) << "interval " << i;
        EXPECT_EQ(actual[i].end_ns, expected[i].end_ns) << "interval " << i;
    }
}

// ---------------------------------------------------------------- intervals

TEST(Intervals, NestedIntervalsMergeIntoTheOuterOne) {
    expect_intervals(streamlab::merge_intervals({{0, 100}, {10, 20}, {30, 90}}), {{0, 100}});
    EXPECT_EQ(streamlab::total_length({{0, 100}, {10, 20}, {30, 90}}), 100U);
}

TEST(Intervals, TouchingIntervalsMerge) {
    expect_intervals(streamlab::merge_intervals({{10, 20}, {0, 10}, {20, 25}}), {{0, 25}});
}

TEST(Intervals, DisjointIntervalsStaySeparateAndSorted) {
    expect_intervals(streamlab::merge_intervals({{50, 60}, {0, 10}, {20, 30}}), {{0, 10}, {20, 30}, {50, 60}});
    EXPECT_EQ(streamlab::total_length({{50, 60}, {0, 10}, {20, 30}}), 30U);
}

TEST(Intervals, PartlyOverlappingIntervalsCountOnce) {
    expect_intervals(streamlab::merge_intervals({{0, 10}, {5, 15}, {14, 30}, {40, 41}}), {{0, 30}, {40, 41}});
    EXPECT_EQ(streamlab::total_length({{0, 10}, {5, 15}, {14, 30}, {40, 41}}), 31U);
}

TEST(Intervals, EmptyIntervalsCoverNothing) {
    EXPECT_TRUE(streamlab::merge_intervals({}).empty());
    EXPECT_TRUE(streamlab::merge_intervals({{5, 5}}).empty());
    EXPECT_EQ(streamlab::total_length({{5, 5}, {7, 7}}), 0U);
}

TEST(Intervals, AnIntervalEndingBeforeItStartsIsRejected) {
    EXPECT_THROW((void)streamlab::merge_intervals({{10, 5}}), std::invalid_argument);
}

TEST(Intervals, IntersectionOfUnions) {
    // a covers [0,10) and [20,30); b covers [5,25): they share [5,10) and [20,25).
    EXPECT_EQ(streamlab::intersection_length({{0, 10}, {20, 30}}, {{5, 15}, {12, 25}}), 10U);
    // Overlaps inside one side are not counted twice.
    EXPECT_EQ(streamlab::intersection_length({{0, 10}, {0, 10}}, {{0, 10}}), 10U);
    // Touching is not sharing.
    EXPECT_EQ(streamlab::intersection_length({{0, 10}}, {{10, 20}}), 0U);
    EXPECT_EQ(streamlab::intersection_length({}, {{0, 10}}), 0U);
    // One long interval against many short ones.
    EXPECT_EQ(streamlab::intersection_length({{0, 100}}, {{10, 20}, {30, 40}, {90, 110}}), 30U);
}

/// `count` random intervals, each starting in [0, max_start] and up to `max_length` long.
std::vector<Interval> random_intervals(std::mt19937& random, int count, std::uint64_t max_start,
                                       std::uint64_t max_length) {
    std::uniform_int_distribution<std::uint64_t> position(0, max_start);
    std::uniform_int_distribution<std::uint64_t> length(0, max_length);
    std::vector<Interval> intervals;
    for (int i = 0; i < count; ++i) {
        const std::uint64_t start = position(random);
        intervals.push_back({start, start + length(random)});
    }
    return intervals;
}

TEST(Intervals, IntersectionMatchesCountingNanosecondByNanosecond) {
    std::mt19937 random(7);
    for (int trial = 0; trial < 50; ++trial) {
        const std::vector<Interval> a = random_intervals(random, 6, 200, 30);
        const std::vector<Interval> b = random_intervals(random, 6, 200, 30);
        const auto covers = [](const std::vector<Interval>& intervals, std::uint64_t t) {
            return std::any_of(intervals.begin(), intervals.end(),
                               [t](const Interval& i) { return i.start_ns <= t && t < i.end_ns; });
        };
        std::uint64_t in_a = 0;
        std::uint64_t in_both = 0;
        for (std::uint64_t t = 0; t < 260; ++t) {
            if (covers(a, t)) {
                ++in_a;
                if (covers(b, t)) {
                    ++in_both;
                }
            }
        }
        EXPECT_EQ(streamlab::total_length(a), in_a) << "trial " << trial;
        EXPECT_EQ(streamlab::intersection_length(a, b), in_both) << "trial " << trial;
    }
}

// ---------------------------------------------------------------- units and ops

TEST(Units, EachKindMapsToItsUnit) {
    EXPECT_EQ(streamlab::unit_of(OpKind::Kernel), Unit::Compute);
    EXPECT_EQ(streamlab::unit_of(OpKind::MemcpyH2D), Unit::CopyH2D);
    EXPECT_EQ(streamlab::unit_of(OpKind::MemcpyD2H), Unit::CopyD2H);
    EXPECT_EQ(streamlab::unit_of(OpKind::MemcpyD2D), Unit::Other);
    EXPECT_EQ(streamlab::unit_of(OpKind::MemcpyOther), Unit::Other);
    EXPECT_EQ(streamlab::unit_of(OpKind::MemcpyP2P), Unit::Other);
    EXPECT_EQ(streamlab::unit_of(OpKind::Memset), Unit::Other);
}

TEST(Ops, TouchingOpsEndBeforeAndDoNotOverlap) {
    const DeviceOp a = make_op(OpKind::MemcpyH2D, "1", 13, 0, 100);
    const DeviceOp b = make_op(OpKind::Kernel, "1", 13, 100, 200);
    const DeviceOp c = make_op(OpKind::Kernel, "2", 14, 150, 300);
    EXPECT_TRUE(streamlab::ended_before(a, b));
    EXPECT_FALSE(streamlab::overlaps(a, b));
    EXPECT_FALSE(streamlab::ended_before(b, c));
    EXPECT_TRUE(streamlab::overlaps(b, c));
    EXPECT_TRUE(streamlab::overlaps(c, b));
    // A zero-length op inside another one shares no time with it.
    EXPECT_FALSE(streamlab::overlaps(make_op(OpKind::Memset, "", 1, 50, 50), a));
}

TEST(Ops, SelectionsByKindAndStreamAreSortedByStart) {
    const std::vector<DeviceOp> ops = {
        make_op(OpKind::Kernel, "2", 14, 300, 400), make_op(OpKind::MemcpyH2D, "1", 13, 0, 100),
        make_op(OpKind::Kernel, "1", 13, 100, 200), make_op(OpKind::MemcpyH2D, "2", 14, 100, 200),
        make_op(OpKind::MemcpyD2H, "1", 13, 200, 300)};
    const std::vector<DeviceOp> kernels = streamlab::ops_of_kind(ops, OpKind::Kernel);
    ASSERT_EQ(kernels.size(), 2U);
    EXPECT_EQ(kernels[0].label, "1");
    EXPECT_EQ(kernels[1].label, "2");
    const std::vector<DeviceOp> stream13 = streamlab::ops_in_stream(ops, 13);
    ASSERT_EQ(stream13.size(), 3U);
    EXPECT_EQ(stream13[0].kind, OpKind::MemcpyH2D);
    EXPECT_EQ(stream13[1].kind, OpKind::Kernel);
    EXPECT_EQ(stream13[2].kind, OpKind::MemcpyD2H);
    EXPECT_TRUE(streamlab::ops_in_stream(ops, 99).empty());
    EXPECT_EQ(streamlab::streams_of(ops, OpKind::Kernel), (std::set<std::uint32_t>{13, 14}));
    EXPECT_EQ(streamlab::streams_of(ops, OpKind::MemcpyD2H), (std::set<std::uint32_t>{13}));
    EXPECT_TRUE(streamlab::streams_of(ops, OpKind::Memset).empty());
    EXPECT_EQ(streamlab::distinct_streams(ops), 2U);
}

TEST(Ops, TwoGpusStreamsOfOneIdAreTwoStreams) {
    std::vector<DeviceOp> ops = {make_op(OpKind::Kernel, "", 13, 0, 10, StreamKind::Created),
                                 make_op(OpKind::Kernel, "", 13, 0, 10, StreamKind::Created)};
    EXPECT_EQ(streamlab::distinct_streams(ops), 1U);
    ops[1].device_id = 1;
    EXPECT_EQ(streamlab::distinct_streams(ops), 2U);
}

TEST(Ops, OpsOfEachGpu) {
    using streamlab::testing_ops::OpBuilder;
    const std::vector<DeviceOp> ops = {OpBuilder(OpKind::Kernel).device(1).span(20, 30),
                                       OpBuilder(OpKind::MemcpyH2D).device(0).span(5, 10),
                                       OpBuilder(OpKind::MemcpyH2D).device(1).span(0, 10)};
    EXPECT_EQ(streamlab::devices_of(ops), (std::set<std::uint32_t>{0, 1}));
    EXPECT_TRUE(streamlab::devices_of({}).empty());
    const std::vector<DeviceOp> second = streamlab::ops_on_device(ops, 1);
    ASSERT_EQ(second.size(), 2U);
    EXPECT_EQ(second[0].kind, OpKind::MemcpyH2D);  // sorted by start
    EXPECT_EQ(second[1].kind, OpKind::Kernel);
    EXPECT_EQ(streamlab::ops_on_device(ops, 0).size(), 1U);
    EXPECT_TRUE(streamlab::ops_on_device(ops, 2).empty());
}

TEST(Ops, NullStreamOpsCountBothDefaultStreams) {
    const std::vector<DeviceOp> ops = {make_op(OpKind::Kernel, "", 7, 0, 10, StreamKind::LegacyNull),
                                       make_op(OpKind::Kernel, "", 9, 10, 20, StreamKind::PerThreadDefault),
                                       make_op(OpKind::Kernel, "", 13, 20, 30, StreamKind::Created)};
    EXPECT_EQ(streamlab::null_stream_ops(ops), 2U);
    EXPECT_EQ(streamlab::distinct_streams(ops), 3U);
}

// ---------------------------------------------------------------- kernel overlap

TEST(KernelOverlap, CountsTimeWithAtLeastTwoKernels) {
    // [0,10), [5,15), [8,20): two or more run during [5,15).
    const std::vector<DeviceOp> ops = {make_op(OpKind::Kernel, "a", 1, 0, 10), make_op(OpKind::Kernel, "b", 2, 5, 15),
                                       make_op(OpKind::Kernel, "c", 3, 8, 20)};
    EXPECT_EQ(streamlab::kernel_overlap_ns(ops), 10U);
}

TEST(KernelOverlap, TouchingKernelsAndCopiesDoNotCount) {
    const std::vector<DeviceOp> ops = {make_op(OpKind::Kernel, "a", 1, 0, 10), make_op(OpKind::Kernel, "b", 2, 10, 20),
                                       make_op(OpKind::MemcpyH2D, "c", 3, 0, 20)};
    EXPECT_EQ(streamlab::kernel_overlap_ns(ops), 0U);
    EXPECT_EQ(streamlab::kernel_overlap_ns({}), 0U);
}

TEST(KernelOverlap, NestedKernelCountsItsWholeLength) {
    const std::vector<DeviceOp> ops = {make_op(OpKind::Kernel, "outer", 1, 0, 100),
                                       make_op(OpKind::Kernel, "inner", 2, 30, 45)};
    EXPECT_EQ(streamlab::kernel_overlap_ns(ops), 15U);
}

TEST(KernelOverlap, EqualsTheUnionOfPairwiseIntersections) {
    std::mt19937 random(11);
    for (int trial = 0; trial < 30; ++trial) {
        std::vector<DeviceOp> ops;
        std::uint32_t stream = 0;
        for (const Interval& span : random_intervals(random, 8, 1000, 200)) {
            ops.push_back(make_op(OpKind::Kernel, std::to_string(stream), stream, span.start_ns, span.end_ns));
            ++stream;
        }
        std::vector<Interval> pairwise;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            for (std::size_t j = i + 1; j < ops.size(); ++j) {
                const std::uint64_t start = std::max(ops[i].start_ns, ops[j].start_ns);
                const std::uint64_t end = std::min(ops[i].end_ns, ops[j].end_ns);
                if (start < end) {
                    pairwise.push_back({start, end});
                }
            }
        }
        EXPECT_EQ(streamlab::kernel_overlap_ns(ops), streamlab::total_length(pairwise)) << "trial " << trial;
    }
}

// ---------------------------------------------------------------- whole timelines

// The serial program's shape: H2D, kernel, D2H, twice, all in the legacy NULL stream, each
// starting a little after the previous one ended.
std::vector<DeviceOp> null_stream_staircase() {
    std::vector<DeviceOp> ops;
    std::uint64_t t = 1000;
    for (int round = 0; round < 2; ++round) {
        for (const auto& [kind, length] : {std::pair{OpKind::MemcpyH2D, 3000ULL}, std::pair{OpKind::Kernel, 2000ULL},
                                           std::pair{OpKind::MemcpyD2H, 3000ULL}}) {
            ops.push_back(make_op(kind, "", 7, t, t + length, StreamKind::LegacyNull));
            t += length + 50;
        }
    }
    return ops;
}

TEST(Timelines, NullStreamStaircaseHasNoOverlapAtAll) {
    const std::vector<DeviceOp> ops = null_stream_staircase();
    for (std::size_t i = 0; i + 1 < ops.size(); ++i) {
        EXPECT_TRUE(streamlab::ended_before(ops[i], ops[i + 1])) << "op " << i;
        for (std::size_t j = i + 1; j < ops.size(); ++j) {
            EXPECT_FALSE(streamlab::overlaps(ops[i], ops[j])) << "ops " << i << " and " << j;
        }
    }
    const streamlab::TimelineSummary summary = streamlab::summarize(ops);
    EXPECT_EQ(summary.copy_compute_overlap_ns, 0U);
    EXPECT_EQ(summary.h2d_d2h_overlap_ns, 0U);
    EXPECT_EQ(summary.kernel_overlap_ns, 0U);
    EXPECT_EQ(summary.hidden_copy_fraction, 0.0);
    EXPECT_EQ(summary.busy_h2d_ns, 2 * 3000U);
    EXPECT_EQ(summary.busy_compute_ns, 2 * 2000U);
    EXPECT_EQ(summary.busy_d2h_ns, 2 * 3000U);
    // Serial: the makespan is the busy time plus the five 50 ns gaps.
    EXPECT_EQ(summary.makespan_ns, summary.busy_h2d_ns + summary.busy_compute_ns + summary.busy_d2h_ns + 5 * 50);
    EXPECT_EQ(summary.distinct_streams, 1U);
    EXPECT_EQ(summary.null_stream_ops, ops.size());
    EXPECT_EQ(summary.op_count, ops.size());
}

// The article's three-chunk pipeline with every stage 1000 ns, chunk i in stream 12 + i:
// step 1 H2D_1; step 2 K_1 + H2D_2; step 3 D2H_1 + K_2 + H2D_3; step 4 D2H_2 + K_3; step 5 D2H_3.
std::vector<DeviceOp> three_chunk_pipeline() {
    std::vector<DeviceOp> ops;
    for (std::uint64_t chunk = 1; chunk <= 3; ++chunk) {
        const auto stream = static_cast<std::uint32_t>(12 + chunk);
        const std::string label = std::to_string(chunk);
        const std::uint64_t h2d_start = (chunk - 1) * 1000;
        ops.push_back(make_op(OpKind::MemcpyH2D, label, stream, h2d_start, h2d_start + 1000));
        ops.push_back(make_op(OpKind::Kernel, label, stream, h2d_start + 1000, h2d_start + 2000));
        ops.push_back(make_op(OpKind::MemcpyD2H, label, stream, h2d_start + 2000, h2d_start + 3000));
    }
    return ops;
}

TEST(Timelines, ThreeChunkPipelineOverlapsCopiesWithKernels) {
    const std::vector<DeviceOp> ops = three_chunk_pipeline();
    const std::vector<DeviceOp> h2d = streamlab::ops_of_kind(ops, OpKind::MemcpyH2D);
    const std::vector<DeviceOp> kernels = streamlab::ops_of_kind(ops, OpKind::Kernel);
    const std::vector<DeviceOp> d2h = streamlab::ops_of_kind(ops, OpKind::MemcpyD2H);
    for (std::size_t i = 0; i + 1 < 3; ++i) {
        EXPECT_TRUE(streamlab::overlaps(h2d[i + 1], kernels[i])) << "H2D_" << i + 2 << " with K_" << i + 1;
        EXPECT_TRUE(streamlab::overlaps(kernels[i + 1], d2h[i])) << "K_" << i + 2 << " with D2H_" << i + 1;
    }
    const streamlab::TimelineSummary summary = streamlab::summarize(ops);
    EXPECT_EQ(summary.makespan_ns, 5000U);
    EXPECT_EQ(summary.busy_h2d_ns, 3000U);      // [0, 3000)
    EXPECT_EQ(summary.busy_compute_ns, 3000U);  // [1000, 4000)
    EXPECT_EQ(summary.busy_d2h_ns, 3000U);      // [2000, 5000)
    // Copies cover [0, 5000), kernels [1000, 4000): every kernel ns has a copy beside it.
    EXPECT_EQ(summary.copy_compute_overlap_ns, 3000U);
    EXPECT_EQ(summary.h2d_d2h_overlap_ns, 1000U);  // step 3: D2H_1 with H2D_3
    EXPECT_EQ(summary.kernel_overlap_ns, 0U);
    EXPECT_DOUBLE_EQ(summary.hidden_copy_fraction, 3000.0 / 5000.0);
    EXPECT_EQ(summary.distinct_streams, 3U);
    EXPECT_EQ(summary.null_stream_ops, 0U);
    EXPECT_EQ(summary.op_count, 9U);
}

TEST(Timelines, HiddenCopyFractionIsOneWhenEveryCopyRunsBesideAKernel) {
    const std::vector<DeviceOp> ops = {make_op(OpKind::Kernel, "", 1, 0, 1000),
                                       make_op(OpKind::MemcpyH2D, "", 2, 100, 300),
                                       make_op(OpKind::MemcpyD2H, "", 3, 500, 900)};
    EXPECT_DOUBLE_EQ(streamlab::hidden_copy_fraction(ops), 1.0);
    EXPECT_EQ(streamlab::hidden_copy_fraction({make_op(OpKind::Kernel, "", 1, 0, 10)}), 0.0);
}

TEST(Timelines, OtherOpsCountOnlyTowardsMakespan) {
    const std::vector<DeviceOp> ops = {make_op(OpKind::Memset, "", 1, 0, 500), make_op(OpKind::Kernel, "", 1, 500, 600),
                                       make_op(OpKind::MemcpyD2D, "", 2, 550, 700)};
    EXPECT_EQ(streamlab::busy_ns(ops, Unit::Other), 650U);  // [0, 500) and [550, 700)
    EXPECT_EQ(streamlab::copy_compute_overlap_ns(ops), 0U);
    EXPECT_EQ(streamlab::makespan_ns(ops), 700U);
    EXPECT_EQ(streamlab::makespan_ns({}), 0U);
}

// Two events recorded at the host's first and last cudaEventRecord calls span at
// most from the first call to the later of the last call and the last op's end.
TEST(Timelines, EventRecordSpanRunsFromTheFirstRecordCallToTheLaterOfTheLastAndTheLastOp) {
    using streamlab::OrderingCall;
    streamlab::Timeline timeline;
    timeline.ops = {make_op(OpKind::MemcpyH2D, "", 0, 100, 400), make_op(OpKind::MemcpyD2H, "", 0, 500, 800)};
    EXPECT_EQ(streamlab::event_record_span_ns(timeline), 700U);  // no events: the makespan
    timeline.stream_calls = {{OrderingCall::EventRecord, "cudaEventRecord", 0, 1, 90},
                             {OrderingCall::Work, "cudaMemcpyAsync", 0, 0, 95},
                             {OrderingCall::EventRecord, "cudaEventRecord", 0, 2, 700}};
    EXPECT_EQ(streamlab::event_record_span_ns(timeline), 710U);  // stop queued behind the D2H: its end
    timeline.stream_calls.back().time_ns = 1300;                 // the host recorded stop late
    EXPECT_EQ(streamlab::event_record_span_ns(timeline), 1210U);
}

// A call that may serialize streams counts only while some op runs: before the
// first op starts, in a gap between ops, or after the last has ended it holds nothing up.
TEST(Timelines, ImplicitSyncsCountOnlyWhileAnOpRuns) {
    using streamlab::OrderingCall;
    streamlab::Timeline timeline;
    timeline.ops = {make_op(OpKind::MemcpyH2D, "", 1, 100, 400), make_op(OpKind::Kernel, "k", 2, 600, 900)};
    const auto sync_at = [](const char* function, std::uint64_t time_ns) {
        return streamlab::StreamCall{OrderingCall::ImplicitSync, function, 0, 0, time_ns};
    };
    timeline.stream_calls = {sync_at("cudaMallocHost", 50),  // before any op
                             {OrderingCall::Work, "cudaMemcpyAsync", 1, 0, 60},
                             sync_at("cudaMalloc", 100),  // as the copy starts
                             sync_at("cudaFree", 500),    // between the copy and the kernel
                             sync_at("cudaMemset", 899),  // the kernel's last nanosecond
                             {OrderingCall::StreamSynchronize, "cudaStreamSynchronize", 2, 0, 650},
                             sync_at("cudaFreeHost", 900)};  // once the kernel has ended
    const std::vector<streamlab::StreamCall> busy = streamlab::implicit_syncs_while_busy(timeline);
    ASSERT_EQ(busy.size(), 2U);
    EXPECT_EQ(busy[0].function, "cudaMalloc");
    EXPECT_EQ(busy[1].function, "cudaMemset");
}

TEST(Summary, JsonHasExactlyTheSummaryKeysAndValues) {
    const streamlab::TimelineSummary summary = streamlab::summarize(three_chunk_pipeline());
    const nlohmann::json object = nlohmann::json::parse(streamlab::summary_to_json(summary));
    ASSERT_TRUE(object.is_object());
    std::set<std::string> keys;
    for (const auto& item : object.items()) {
        keys.insert(item.key());
    }
    // The keys every summary has, in C++ and in Python (tools/tests/test_analysis.py reads the same file).
    std::ifstream listed(std::string(STREAMLAB_FIXTURES) + "/summary_keys.txt");
    std::set<std::string> expected;
    for (std::string key; listed >> key;) {
        expected.insert(key);
    }
    ASSERT_FALSE(expected.empty()) << "no keys in fixtures/summary_keys.txt";
    EXPECT_EQ(keys, expected);
    EXPECT_EQ(object["makespan_ns"].get<std::uint64_t>(), summary.makespan_ns);
    EXPECT_EQ(object["copy_compute_overlap_ns"].get<std::uint64_t>(), summary.copy_compute_overlap_ns);
    EXPECT_EQ(object["h2d_d2h_overlap_ns"].get<std::uint64_t>(), summary.h2d_d2h_overlap_ns);
    EXPECT_DOUBLE_EQ(object["hidden_copy_fraction"].get<double>(), summary.hidden_copy_fraction);
    EXPECT_EQ(object["op_count"].get<std::size_t>(), summary.op_count);
}

TEST(Summary, HandMadeFixtureFileGivesTheHandComputedNumbers) {
    // fixtures/three_chunk_pipeline.json: H2D [0, 6000), kernels [2100, 8100),
    // D2H [4200, 10200), in three streams; see the file for each op.
    const streamlab::Timeline timeline =
        streamlab::read_trace(std::string(STREAMLAB_FIXTURES) + "/three_chunk_pipeline.json");
    const streamlab::TimelineSummary summary = streamlab::summarize(timeline.ops);
    EXPECT_EQ(summary.makespan_ns, 10200U);
    EXPECT_EQ(summary.busy_h2d_ns, 6000U);
    EXPECT_EQ(summary.busy_compute_ns, 6000U);
    EXPECT_EQ(summary.busy_d2h_ns, 6000U);
    EXPECT_EQ(summary.copy_compute_overlap_ns, 6000U);
    EXPECT_EQ(summary.h2d_d2h_overlap_ns, 1800U);  // D2H_1 starts at 4200, H2D_3 ends at 6000
    EXPECT_EQ(summary.kernel_overlap_ns, 0U);
    EXPECT_DOUBLE_EQ(summary.hidden_copy_fraction, 6000.0 / 10200.0);
    EXPECT_EQ(summary.distinct_streams, 3U);
    EXPECT_EQ(summary.null_stream_ops, 0U);
    EXPECT_EQ(summary.op_count, 9U);
}

}  // namespace
