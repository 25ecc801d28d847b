// Reading a pipeline off a timeline, without a GPU: stage times, issue order,
// chunks, the comparison with the model, the data size, and the chunk sweep file.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "op_builder.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/chunk_sweep.hpp"
#include "streamlab/pipeline.hpp"

namespace {

using namespace streamlab;

/// A device op in a created stream, times in microseconds, issued as call `correlation`.
DeviceOp op(OpKind kind, std::uint32_t stream, double start_us, double end_us, std::uint32_t correlation) {
    const auto ns = [](double us) { return static_cast<std::uint64_t>(us * 1000); };
    return testing_ops::OpBuilder(kind).stream(stream).span(ns(start_us), ns(end_us)).correlation(correlation);
}

/// A serial run: H2D 3 ms, kernel 3 ms, D2H 3 ms, one after another in the NULL stream.
Timeline serial_timeline() {
    Timeline t;
    t.ops = {op(OpKind::MemcpyH2D, 7, 0, 3000, 1), op(OpKind::Kernel, 7, 3000, 6000, 2),
             op(OpKind::MemcpyD2H, 7, 6000, 9000, 3)};
    for (DeviceOp& o : t.ops) {
        o.stream_kind = StreamKind::LegacyNull;
    }
    return t;
}

/// Three chunks of 1 ms per stage in streams 11, 12, 13, issued chunk by chunk,
/// running exactly as the model says: 5 ms in all.
Timeline ideal_three_chunks() {
    Timeline t;
    std::uint32_t call = 10;
    for (int i = 0; i < 3; ++i) {
        const double s = 1000.0 * i;
        const auto stream = static_cast<std::uint32_t>(11 + i);
        t.ops.push_back(op(OpKind::MemcpyH2D, stream, s, s + 1000, call++));
        t.ops.push_back(op(OpKind::Kernel, stream, s + 1000, s + 2000, call++));
        t.ops.push_back(op(OpKind::MemcpyD2H, stream, s + 2000, s + 3000, call++));
    }
    return t;
}

TEST(PipelineCpu, StageTimesAddEachStagesOps) {
    const StageTimes serial = stage_times(serial_timeline().ops);
    EXPECT_DOUBLE_EQ(serial.h2d, 3.0);
    EXPECT_DOUBLE_EQ(serial.kernel, 3.0);
    EXPECT_DOUBLE_EQ(serial.d2h, 3.0);
    std::vector<DeviceOp> with_memset = ideal_three_chunks().ops;
    with_memset.push_back(op(OpKind::Memset, 11, 0, 500, 99));  // counts for no stage
    const StageTimes chunked = stage_times(with_memset);
    EXPECT_DOUBLE_EQ(chunked.h2d, 3.0);
    EXPECT_DOUBLE_EQ(chunked.kernel, 3.0);
    EXPECT_DOUBLE_EQ(chunked.d2h, 3.0);
}

TEST(PipelineCpu, IssueOrderFollowsCorrelationIds) {
    EXPECT_EQ(issue_order(ideal_three_chunks().ops), IssueOrder::ChunkByChunk);
    // Every H2D issued before the first kernel: stage by stage, whatever the start times.
    std::vector<DeviceOp> ops = {op(OpKind::MemcpyH2D, 1, 0, 1, 5), op(OpKind::MemcpyH2D, 2, 1, 2, 6),
                                 op(OpKind::Kernel, 1, 1, 2, 7), op(OpKind::Kernel, 2, 2, 3, 8)};
    EXPECT_EQ(issue_order(ops), IssueOrder::StageByStage);
    EXPECT_EQ(issue_order(serial_timeline().ops), IssueOrder::ChunkByChunk) << "one copy has no order to speak of";
    EXPECT_EQ(issue_order({}), IssueOrder::ChunkByChunk);
}

TEST(PipelineCpu, FindsChunksInIssueOrder) {
    Timeline t = ideal_three_chunks();
    // Give the streams ids in the opposite order of the chunks: chunks follow issue order, not stream ids.
    for (DeviceOp& o : t.ops) {
        o.stream_id = 100 - o.stream_id;
    }
    const PipelineChunks found = find_chunks(t.ops);
    ASSERT_TRUE(found.problem.empty()) << found.problem;
    ASSERT_EQ(found.chunks.size(), 3U);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(found.chunks[i].h2d.start_ns, 1000000U * i);
        EXPECT_EQ(found.chunks[i].kernel.kind, OpKind::Kernel);
        EXPECT_EQ(found.chunks[i].d2h.stream_id, found.chunks[i].h2d.stream_id);
    }
}

TEST(PipelineCpu, FindChunksSaysWhatIsWrong) {
    EXPECT_EQ(find_chunks({}).problem, "the GPU ran nothing");

    const PipelineChunks serial = find_chunks(serial_timeline().ops);
    EXPECT_TRUE(serial.chunks.empty());
    EXPECT_NE(serial.problem.find("NULL stream"), std::string::npos) << serial.problem;

    Timeline one_stream = ideal_three_chunks();  // every chunk in stream 11
    for (DeviceOp& o : one_stream.ops) {
        o.stream_id = 11;
    }
    const PipelineChunks crowded = find_chunks(one_stream.ops);
    EXPECT_TRUE(crowded.chunks.empty());
    EXPECT_NE(crowded.problem.find("stream 11 ran an H2D copy, a kernel, a D2H copy, an H2D copy"), std::string::npos)
        << crowded.problem;

    Timeline kernel_first = ideal_three_chunks();
    std::swap(kernel_first.ops[0].correlation_id, kernel_first.ops[1].correlation_id);  // K_1 issued before H2D_1
    EXPECT_NE(find_chunks(kernel_first.ops).problem.find("in that order"), std::string::npos);
}

TEST(PipelineCpu, ChunksByIssueOrderIgnoreTheStreamLayout) {
    // One stream per stage (H2D in 21, kernels in 22, D2H in 23, linked by events):
    // find_chunks sees no chunk, but the ops are the same three chunks.
    Timeline per_stage = ideal_three_chunks();
    for (DeviceOp& o : per_stage.ops) {
        o.stream_id = o.kind == OpKind::MemcpyH2D ? 21 : o.kind == OpKind::Kernel ? 22 : 23;
    }
    EXPECT_FALSE(find_chunks(per_stage.ops).problem.empty());
    const PipelineChunks found = chunks_by_issue_order(per_stage.ops, 3);
    ASSERT_TRUE(found.problem.empty()) << found.problem;
    ASSERT_EQ(found.chunks.size(), 3U);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(found.chunks[i].h2d.start_ns, 1000000U * i);
        EXPECT_EQ(found.chunks[i].kernel.start_ns, 1000000U * (i + 1));
        EXPECT_EQ(found.chunks[i].d2h.start_ns, 1000000U * (i + 2));
    }
}

TEST(PipelineCpu, ChunksByIssueOrderCountEachStage) {
    EXPECT_NE(chunks_by_issue_order({}, 3).problem.find("ran 0 H2D copies for 3 chunks"), std::string::npos);
    EXPECT_NE(chunks_by_issue_order(ideal_three_chunks().ops, 5).problem.find("ran 3 H2D copies for 5 chunks"),
              std::string::npos);
    std::vector<DeviceOp> one_kernel_short = ideal_three_chunks().ops;
    one_kernel_short.erase(one_kernel_short.begin() + 4);  // K_2
    EXPECT_NE(chunks_by_issue_order(one_kernel_short, 3).problem.find("ran 2 kernels"), std::string::npos);
    EXPECT_TRUE(chunks_by_issue_order(serial_timeline().ops, 1).problem.empty()) << "one chunk, any stream";
}

TEST(PipelineCpu, ComparisonAgainstTheModel) {
    const PipelineComparison ideal = compare_with_model(serial_timeline(), ideal_three_chunks(), 3, 2);
    EXPECT_DOUBLE_EQ(ideal.serial_ms, 9.0);
    EXPECT_DOUBLE_EQ(ideal.pipelined_ms, 5.0);
    EXPECT_DOUBLE_EQ(ideal.model_ms, 5.0);  // h + k + d + 2 max(h, k, d) with 1 ms each
    EXPECT_DOUBLE_EQ(ideal.bound_ms, 3.0);
    EXPECT_DOUBLE_EQ(ideal.speedup(), 9.0 / 5.0);
    EXPECT_DOUBLE_EQ(ideal.model_speedup(), 9.0 / 5.0);
    EXPECT_DOUBLE_EQ(ideal.efficiency(), 1.0);

    // Twice as slow as the model: half the efficiency.
    Timeline slow = ideal_three_chunks();
    for (DeviceOp& o : slow.ops) {
        o.start_ns *= 2;
        o.end_ns *= 2;
    }
    EXPECT_DOUBLE_EQ(compare_with_model(serial_timeline(), slow, 3, 2).efficiency(), 0.5);

    // One copy engine, chunk by chunk: H2D_2 queues behind D2H_1 on the shared
    // engine, and the model allows no overlap at all: the serial time.
    const PipelineComparison one_engine = compare_with_model(serial_timeline(), ideal_three_chunks(), 3, 1);
    EXPECT_DOUBLE_EQ(one_engine.model_ms, 9.0);
    EXPECT_DOUBLE_EQ(one_engine.bound_ms, 6.0);  // H2D + D2H on the one engine

    EXPECT_THROW((void)compare_with_model(serial_timeline(), ideal_three_chunks(), 0, 2), std::invalid_argument);
}

TEST(PipelineCpu, DescribeNamesTheNumbers) {
    const std::string text = describe(compare_with_model(serial_timeline(), ideal_three_chunks(), 3, 2));
    for (const char* expected :
         {"H2D 3.000 ms", "serial (NULL stream): 9.000 ms", "3 chunks in 3 streams: 5.000 ms", "speedup 1.80x",
          "5.000 ms with 2 copy engines, issued chunk by chunk", "efficiency against the model: 100.0%",
          "bound 3.000 ms (the busiest engine's total"}) {
        EXPECT_NE(text.find(expected), std::string::npos) << "missing '" << expected << "' in:\n" << text;
    }
}

TEST(PipelineCpu, DescribeCountsTheStreamsThatRanTheWork) {
    // The same three chunks, not one stream each: copies in one stream, kernels in another.
    Timeline two_streams = ideal_three_chunks();
    for (DeviceOp& o : two_streams.ops) {
        o.stream_id = o.kind == OpKind::Kernel ? 22 : 21;
    }
    const PipelineComparison c = compare_with_model(serial_timeline(), two_streams, 3, 2);
    EXPECT_EQ(c.streams, 2);
    EXPECT_NE(describe(c).find("3 chunks in 2 streams"), std::string::npos) << describe(c);
    Timeline one_stream = ideal_three_chunks();
    for (DeviceOp& o : one_stream.ops) {
        o.stream_id = 7;
    }
    const std::string described = describe(compare_with_model(serial_timeline(), one_stream, 3, 2));
    EXPECT_NE(described.find("3 chunks in 1 stream:"), std::string::npos) << described;
}

TEST(PipelineCpu, DataSizeFollowsDeviceMemory) {
    constexpr std::size_t kMiB = std::size_t{1} << 20;
    EXPECT_EQ(pipeline_elements(80 * 1024 * kMiB), 256 * kMiB / sizeof(float));  // room: 256 MiB
    EXPECT_EQ(pipeline_elements(2048 * kMiB), 256 * kMiB / sizeof(float));       // an eighth is exactly 256 MiB
    EXPECT_EQ(pipeline_elements(1024 * kMiB), 128 * kMiB / sizeof(float));       // an eighth of a small GPU
    EXPECT_EQ(pipeline_elements(1000 * kMiB), 125 * kMiB / sizeof(float));       // whole MiB
    EXPECT_EQ(pipeline_elements(0), kMiB / sizeof(float));                       // never below 1 MiB
}

TEST(ChunkSweepFile, TracerCostAgainstCuptisOwnAtEveryChunkCount) {
    ChunkSweep sweep;
    testing::internal::CaptureStdout();
    // untraced, CUPTI's records alone, the course's recorder
    note_tracer_overheads(sweep, {3, 64, 256}, {{8.0, 8.0, 8.08}, {6.0, 6.3, 6.3}, {7.0, 8.0, 7.6}});
    const std::string printed = testing::internal::GetCapturedStdout();
    EXPECT_NE(printed.find("(+5.0%, +1.56 us per op)"), std::string::npos) << printed;  // CUPTI: 0.3 ms over 192 ops
    EXPECT_NE(printed.find("(+1.0%; beyond CUPTI +1.0%, +8.89 us per op)"), std::string::npos) << printed;
    // The closing line: both costs per op at the most chunks (768 ops: CUPTI 1 ms, the recorder 0.4 ms below it).
    EXPECT_NE(printed.find("per op at 256 chunks: CUPTI's own timestamping +1.30 us, the course's recorder -0.52 us"),
              std::string::npos)
        << printed;
    EXPECT_NEAR(sweep.summary.at("cupti_overhead_64_chunks"), 0.05, 1e-12);
    EXPECT_NEAR(sweep.summary.at("tracer_overhead_64_chunks"), 0.05, 1e-12);
    EXPECT_NEAR(sweep.summary.at("tracer_beyond_cupti_64_chunks"), 0.0, 1e-12);
    EXPECT_NEAR(sweep.summary.at("tracer_beyond_cupti_256_chunks"), -0.05, 1e-12);
    EXPECT_NEAR(sweep.summary.at("cupti_us_per_op_64_chunks"), 1000.0 * 0.3 / 192, 1e-9);
    EXPECT_NEAR(sweep.summary.at("tracer_beyond_cupti_us_per_op_3_chunks"), 1000.0 * 0.08 / 9, 1e-9);
    EXPECT_NEAR(sweep.summary.at("tracer_overhead_worst"), 0.0857142857142857, 1e-12);  // 256: 7.6 against 7.0
    EXPECT_NEAR(sweep.summary.at("tracer_beyond_cupti_worst"), 0.01, 1e-12);
}

TEST(ChunkSweepFile, HoldsMetadataPointsAndSummary) {
    ChunkSweep sweep;
    sweep.program = "lab05_bench";
    sweep.date = "2026-11-30T12:00:00Z";
    sweep.device.name = "NVIDIA H200";
    sweep.device.copy_engines = 3;
    sweep.device.driver_version = 13000;
    // chunks, intensity, makespan, serial, model, shared-link model, bound, H2D, kernel, D2H
    sweep.points = {{3, "balanced", 8.15, 14.04, 7.92, 8.05, 4.86, 4.85, 4.34, 4.86},
                    {32, "copy-bound", 5.75, 11.0, 5.1, 5.6, 4.86, 4.85, 1.2, 4.86}};
    sweep.summary = {{"tracer_overhead", 0.012}};
    const auto json = nlohmann::json::parse(chunk_sweep_to_json_string(sweep));

    EXPECT_EQ(json["otherData"]["format"], "streamlab-chunks");
    EXPECT_EQ(json["otherData"]["version"], 1);
    EXPECT_EQ(json["otherData"]["program"], "lab05_bench");
    EXPECT_EQ(json["otherData"]["date"], "2026-11-30T12:00:00Z");
    EXPECT_EQ(json["otherData"]["device"]["name"], "NVIDIA H200");
    EXPECT_EQ(json["otherData"]["device"]["copy_engines"], 3);
    EXPECT_EQ(json["otherData"]["device"]["driver_version"], "13.0");
    EXPECT_DOUBLE_EQ(json["summary"]["tracer_overhead"].get<double>(), 0.012);
    ASSERT_EQ(json["points"].size(), 2U);
    const auto& first = json["points"][0];
    EXPECT_EQ(first["chunks"], 3);
    EXPECT_EQ(first["intensity"], "balanced");
    for (const auto& [key, value] : std::vector<std::pair<std::string, double>>{{"makespan_ms", 8.15},
                                                                                {"serial_ms", 14.04},
                                                                                {"model_ms", 7.92},
                                                                                {"link_model_ms", 8.05},
                                                                                {"bound_ms", 4.86},
                                                                                {"h2d_ms", 4.85},
                                                                                {"kernel_ms", 4.34},
                                                                                {"d2h_ms", 4.86}}) {
        EXPECT_DOUBLE_EQ(first[key].get<double>(), value) << key;
    }
    EXPECT_EQ(json["points"][1]["intensity"], "copy-bound");
}

TEST(ChunkSweepFile, LeavesOutASecondModelThatIsNotThere) {
    ChunkSweep sweep;
    // chunks, intensity, makespan, serial, model, no second model, bound, H2D, kernel, D2H
    sweep.points = {{16, "2 streams", 70.0, 100.0, 68.0, 0.0, 66.0, 4.9, 4.9, 4.9}};
    const auto json = nlohmann::json::parse(chunk_sweep_to_json_string(sweep));
    EXPECT_FALSE(json["points"][0].contains("link_model_ms"));
    EXPECT_DOUBLE_EQ(json["points"][0]["model_ms"].get<double>(), 68.0);
}

TEST(ChunkSweepFile, WritesIntoNewFolders) {
    const std::string folder = ::testing::TempDir() + "chunk_sweep_test/a/b";
    ChunkSweep sweep;
    sweep.program = "test";
    sweep.points = {{1, "balanced", 1, 1, 1, 1, 0.3, 0.4, 0.3}};
    write_chunk_sweep(folder + "/chunks.json", sweep);
    std::ifstream in(folder + "/chunks.json");
    EXPECT_EQ(nlohmann::json::parse(in)["points"][0]["chunks"], 1);
    EXPECT_THROW(write_chunk_sweep("/proc/streamlab-cannot-write/chunks.json", sweep), std::runtime_error);
}

TEST(PipelineCpu, MedianRunKeepsTheMiddleMakespan) {
    const auto run_lasting = [](double end_us) {
        Timeline t;
        t.ops = {op(OpKind::Kernel, 1, 0, end_us, 1)};
        return t;
    };
    const Timeline median = median_run({run_lasting(300), run_lasting(100), run_lasting(200)});
    EXPECT_EQ(makespan_ns(median.ops), 200'000U);
    EXPECT_THROW((void)median_run({}), std::invalid_argument);
}

TEST(PipelineCpu, SharedLinkModelIsTheIdealOneUntilTheLinkIsShared) {
    const Timeline serial = serial_timeline();
    const Timeline pipelined = ideal_three_chunks();
    const PipelineComparison ideal = compare_with_model(serial, pipelined, 3, 2);
    EXPECT_DOUBLE_EQ(ideal.link_model_ms, ideal.model_ms) << "no link given: the same model";
    const PipelineComparison shared = compare_with_model(serial, pipelined, 3, 2, LinkSharing{0.8, 0.8});
    EXPECT_GT(shared.link_model_ms, shared.model_ms) << "copies that slow each other down take longer";
    EXPECT_LT(shared.link_efficiency(), 1.0 / 0.8 * shared.efficiency() + 1e-9);
    EXPECT_GT(shared.link_efficiency(), shared.efficiency());
    EXPECT_NE(describe(shared).find("each slows the other"), std::string::npos) << describe(shared);
    EXPECT_EQ(describe(ideal).find("each slows the other"), std::string::npos) << describe(ideal);
}

}  // namespace
