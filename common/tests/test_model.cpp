// The ideal pipeline model and the pipeline simulation, checked against each other
// and against schedules worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "streamlab/model.hpp"

namespace {

using streamlab::IssueOrder;
using streamlab::LinkSharing;
using streamlab::PipelineEstimate;
using streamlab::SimulatedOp;
using streamlab::Stage;
using streamlab::StageTimes;

// A chunk's share of a stage time (H / N) is rarely exact in a double, so results
// are compared with a tolerance relative to their size.
constexpr double kRelativeTolerance = 1e-9;

void expect_close(double actual, double expected, const std::string& what) {
    EXPECT_NEAR(actual, expected, kRelativeTolerance * std::max(1.0, std::abs(expected))) << what;
}

// The article's name for a simulated op: H2D_1, K_1, D2H_1 (chunks counted from 1).
std::string article_name(const SimulatedOp& op) {
    return std::string(streamlab::to_string(op.stage)) + "_" + std::to_string(op.chunk + 1);
}

double simulate(const StageTimes& whole, int chunks, int streams, int engines, IssueOrder order) {
    return streamlab::simulated_makespan(streamlab::simulate_pipeline(whole, chunks, streams, engines, order));
}

// A few stage-time mixes: balanced, copy-bound, kernel-bound, lopsided copies.
const std::vector<StageTimes> kMixes = {{3, 3, 3}, {6, 2, 5}, {1, 9, 2}, {4, 1, 0.5}, {2, 5, 1}};

// ---------------------------------------------------------------- the model

TEST(PipelineModel, OneChunkIsSerial) {
    for (const StageTimes& whole : kMixes) {
        for (const int engines : {1, 2}) {
            const PipelineEstimate estimate = streamlab::pipeline_model(whole, 1, engines);
            expect_close(estimate.ideal, estimate.serial, "one chunk cannot overlap anything");
            expect_close(estimate.speedup, 1.0, "speedup of one chunk");
        }
    }
}

TEST(PipelineModel, TwoEnginesFollowTheFormula) {
    const StageTimes whole{6, 2, 5};  // per chunk of 2: h = 3, k = 1, d = 2.5
    const PipelineEstimate estimate = streamlab::pipeline_model(whole, 2, 2);
    expect_close(estimate.serial, 13, "serial");
    expect_close(estimate.ideal, 3 + 1 + 2.5 + 1 * 3, "ideal");
    expect_close(estimate.bound, 6, "bound: the H2D engine is the busiest");
    expect_close(estimate.speedup, 13 / 9.5, "speedup");
}

TEST(PipelineModel, OneEngineMakesBothCopiesShareIt) {
    const StageTimes whole{6, 2, 5};
    const PipelineEstimate estimate = streamlab::pipeline_model(whole, 2, 1);
    expect_close(estimate.ideal, 3 + 1 + 2.5 + 1 * (3 + 2.5), "ideal");
    expect_close(estimate.bound, 6 + 5, "bound: the copy engine does H and D");
    // More engines never hurt.
    for (const StageTimes& mix : kMixes) {
        for (int chunks = 1; chunks <= 8; ++chunks) {
            EXPECT_GE(streamlab::pipeline_model(mix, chunks, 1).ideal, streamlab::pipeline_model(mix, chunks, 2).ideal);
        }
    }
}

TEST(PipelineModel, MoreThanTwoEnginesActLikeTwo) {
    for (const StageTimes& whole : kMixes) {
        expect_close(streamlab::pipeline_model(whole, 5, 4).ideal, streamlab::pipeline_model(whole, 5, 2).ideal,
                     "a third engine has no third direction to serve");
    }
}

TEST(PipelineModel, IdealNeverBeatsTheBoundAndApproachesIt) {
    for (const StageTimes& whole : kMixes) {
        for (const int engines : {1, 2}) {
            double previous_gap = std::numeric_limits<double>::infinity();
            for (int chunks = 1; chunks <= 1024; chunks *= 2) {
                const PipelineEstimate estimate = streamlab::pipeline_model(whole, chunks, engines);
                const double gap = estimate.ideal - estimate.bound;
                EXPECT_GE(gap, -kRelativeTolerance * estimate.bound);
                EXPECT_LE(gap, previous_gap);
                previous_gap = gap;
            }
            EXPECT_LT(previous_gap, 0.01 * streamlab::pipeline_model(whole, 1024, engines).bound);
        }
    }
}

TEST(PipelineModel, RejectsArgumentsThatMeanNothing) {
    EXPECT_THROW((void)streamlab::pipeline_model({1, 1, 1}, 0, 2), std::invalid_argument);
    EXPECT_THROW((void)streamlab::pipeline_model({1, 1, 1}, 3, 0), std::invalid_argument);
    EXPECT_THROW((void)streamlab::pipeline_model({-1, 1, 1}, 3, 2), std::invalid_argument);
    EXPECT_THROW((void)streamlab::pipeline_model({1, std::nan(""), 1}, 3, 2), std::invalid_argument);
    EXPECT_THROW((void)streamlab::pipeline_model({1, 1, std::numeric_limits<double>::infinity()}, 3, 2),
                 std::invalid_argument);
}

TEST(PipelineModel, AllZeroTimesGiveSpeedupOne) {
    const PipelineEstimate estimate = streamlab::pipeline_model({0, 0, 0}, 3, 2);
    EXPECT_EQ(estimate.ideal, 0.0);
    EXPECT_EQ(estimate.speedup, 1.0);
}

// ---------------------------------------------------------------- the simulation

TEST(PipelineSimulation, ReproducesTheArticlesFiveSteps) {
    // 3 chunks, 3 streams, 2 copy engines, every stage of a chunk takes 1.
    const std::vector<SimulatedOp> ops = streamlab::simulate_pipeline({3, 3, 3}, 3, 3, 2, IssueOrder::ChunkByChunk);
    ASSERT_EQ(ops.size(), 9U);
    std::map<int, std::set<std::string>> steps;
    for (const SimulatedOp& op : ops) {
        EXPECT_EQ(op.stream, op.chunk) << article_name(op);
        EXPECT_DOUBLE_EQ(op.end - op.start, 1.0) << article_name(op);
        EXPECT_DOUBLE_EQ(op.start, std::floor(op.start)) << article_name(op) << " starts between steps";
        steps[static_cast<int>(op.start) + 1].insert(article_name(op));
    }
    const std::map<int, std::set<std::string>> article = {
        {1, {"H2D_1"}}, {2, {"K_1", "H2D_2"}}, {3, {"D2H_1", "K_2", "H2D_3"}}, {4, {"D2H_2", "K_3"}}, {5, {"D2H_3"}},
    };
    EXPECT_EQ(steps, article);
    expect_close(streamlab::simulated_makespan(ops), streamlab::pipeline_model({3, 3, 3}, 3, 2).ideal,
                 "five steps are the model's ideal");
}

TEST(PipelineSimulation, TwoEnginesOneStreamPerChunkMatchTheModelExactly) {
    for (const StageTimes& whole : kMixes) {
        for (int chunks = 1; chunks <= 12; ++chunks) {
            expect_close(simulate(whole, chunks, chunks, 2, IssueOrder::ChunkByChunk),
                         streamlab::pipeline_model(whole, chunks, 2).ideal, "chunks " + std::to_string(chunks));
        }
    }
}

TEST(PipelineSimulation, OnOneEngineChunkByChunkIssueIsSlowerThanStageByStage) {
    // Equal stages, 3 chunks, 3 streams, one copy engine. Issued chunk by chunk,
    // H2D_2 queues behind D2H_1, which waits for K_1: nothing overlaps at all.
    const StageTimes whole{3, 3, 3};
    const std::vector<SimulatedOp> chunk_by_chunk =
        streamlab::simulate_pipeline(whole, 3, 3, 1, IssueOrder::ChunkByChunk);
    const auto find = [&](int chunk, Stage stage) {
        return *std::find_if(chunk_by_chunk.begin(), chunk_by_chunk.end(),
                             [&](const SimulatedOp& op) { return op.chunk == chunk && op.stage == stage; });
    };
    EXPECT_DOUBLE_EQ(find(1, Stage::H2D).start, find(0, Stage::D2H).end) << "H2D_2 waits behind D2H_1";
    const double serial = streamlab::pipeline_model(whole, 3, 1).serial;
    expect_close(streamlab::simulated_makespan(chunk_by_chunk), serial, "chunk-by-chunk on one engine is serial");

    const double stage_by_stage = simulate(whole, 3, 3, 1, IssueOrder::StageByStage);
    EXPECT_LT(stage_by_stage, streamlab::simulated_makespan(chunk_by_chunk));
    // It still cannot beat the busiest unit.
    EXPECT_GE(stage_by_stage, streamlab::pipeline_model(whole, 3, 1).bound * (1 - kRelativeTolerance));
}

TEST(PipelineSimulation, OnTwoEnginesIssueOrderDoesNotMatter) {
    for (const StageTimes& whole : kMixes) {
        for (int chunks = 1; chunks <= 8; ++chunks) {
            expect_close(simulate(whole, chunks, chunks, 2, IssueOrder::ChunkByChunk),
                         simulate(whole, chunks, chunks, 2, IssueOrder::StageByStage),
                         "chunks " + std::to_string(chunks));
        }
    }
}

TEST(PipelineSimulation, MakespanApproachesTheBoundAsChunksGrow) {
    for (const StageTimes& whole : kMixes) {
        const double bound = streamlab::pipeline_model(whole, 1, 2).bound;
        const double serial = streamlab::pipeline_model(whole, 1, 2).serial;
        double previous = std::numeric_limits<double>::infinity();
        for (int chunks = 1; chunks <= 256; chunks *= 2) {
            const double makespan = simulate(whole, chunks, chunks, 2, IssueOrder::ChunkByChunk);
            EXPECT_LT(makespan, previous + kRelativeTolerance * bound) << "chunks " << chunks;
            EXPECT_GE(makespan, bound * (1 - kRelativeTolerance)) << "chunks " << chunks;
            // What is left above the bound is the fill and drain of one chunk: it shrinks as 1/N.
            EXPECT_LE(makespan - bound, (serial - bound) / chunks + kRelativeTolerance * bound) << "chunks " << chunks;
            previous = makespan;
        }
        EXPECT_LT(previous / bound, 1.01);
    }
}

TEST(PipelineSimulation, RespectsStreamsAndUnits) {
    for (const StageTimes& whole : kMixes) {
        for (const int engines : {1, 2}) {
            for (const IssueOrder order : {IssueOrder::ChunkByChunk, IssueOrder::StageByStage}) {
                const std::vector<SimulatedOp> ops = streamlab::simulate_pipeline(whole, 7, 3, engines, order);
                ASSERT_EQ(ops.size(), 21U);
                for (std::size_t i = 0; i < ops.size(); ++i) {
                    EXPECT_EQ(ops[i].stream, ops[i].chunk % 3);
                    EXPECT_GE(ops[i].start, 0.0);
                    for (std::size_t j = i + 1; j < ops.size(); ++j) {
                        const SimulatedOp& earlier = ops[i];  // issued first
                        const SimulatedOp& later = ops[j];
                        const bool same_stream = earlier.stream == later.stream;
                        const bool copies = earlier.stage != Stage::Kernel && later.stage != Stage::Kernel;
                        const bool same_unit = earlier.stage == later.stage || (engines == 1 && copies);
                        if (same_stream || same_unit) {
                            // In order and one at a time.
                            EXPECT_LE(earlier.end, later.start)
                                << article_name(earlier) << " / " << article_name(later);
                        }
                    }
                }
                const double bound = streamlab::pipeline_model(whole, 7, engines).bound;
                EXPECT_GE(streamlab::simulated_makespan(ops), bound * (1 - kRelativeTolerance));
            }
        }
    }
}

TEST(PipelineSimulation, OneStreamSerializesEverything) {
    for (const StageTimes& whole : kMixes) {
        expect_close(simulate(whole, 5, 1, 2, IssueOrder::ChunkByChunk), whole.h2d + whole.kernel + whole.d2h,
                     "one stream runs its ops one after another");
    }
}

// ---------------------------------------------------------------- copies sharing the link

double simulate_shared(const StageTimes& whole, int chunks, int engines, const LinkSharing& link) {
    return streamlab::simulated_makespan(
        streamlab::simulate_pipeline(whole, chunks, chunks, engines, IssueOrder::ChunkByChunk, link));
}

TEST(PipelineSimulationSharedLink, HalfSpeedCopiesTogetherWorkedByHand) {
    // Copy-bound, 2 chunks: h = d = 1, k = 0. D2H_1 and H2D_2 start together at 1
    // and each runs at half speed, so both end at 3; D2H_2 then runs alone.
    const std::vector<SimulatedOp> ops =
        streamlab::simulate_pipeline({2, 0, 2}, 2, 2, 2, IssueOrder::ChunkByChunk, LinkSharing{0.5, 0.5});
    const auto find = [&](int chunk, Stage stage) {
        return *std::find_if(ops.begin(), ops.end(),
                             [&](const SimulatedOp& op) { return op.chunk == chunk && op.stage == stage; });
    };
    expect_close(find(0, Stage::D2H).start, 1, "D2H_1 starts");
    expect_close(find(0, Stage::D2H).end, 3, "D2H_1 ends");
    expect_close(find(1, Stage::H2D).end, 3, "H2D_2 ends");
    expect_close(find(1, Stage::D2H).start, 3, "D2H_2 starts");
    expect_close(streamlab::simulated_makespan(ops), 4, "makespan");
}

TEST(PipelineSimulationSharedLink, OnlyTheSlowedDirectionLosesTime) {
    // H2D keeps its speed, D2H halves while both run: H2D_2 ends at 2, D2H_1 has
    // done half its work by then and finishes alone at 2.5; D2H_2 ends at 3.5.
    expect_close(simulate_shared({2, 0, 2}, 2, 2, LinkSharing{1.0, 0.5}), 3.5, "makespan");
}

TEST(PipelineSimulationSharedLink, ASlowerLinkNeverMakesThePipelineFaster) {
    for (const StageTimes& whole : kMixes) {
        for (int chunks = 1; chunks <= 8; ++chunks) {
            const double ideal = simulate_shared(whole, chunks, 2, LinkSharing{});
            const double shared = simulate_shared(whole, chunks, 2, LinkSharing{0.8, 0.9});
            const double slower = simulate_shared(whole, chunks, 2, LinkSharing{0.6, 0.7});
            EXPECT_GE(shared, ideal * (1 - kRelativeTolerance)) << "chunks " << chunks;
            EXPECT_GE(slower, shared * (1 - kRelativeTolerance)) << "chunks " << chunks;
            // No copy runs slower than its sharing fraction allows.
            EXPECT_LE(slower, ideal / 0.6 * (1 + kRelativeTolerance)) << "chunks " << chunks;
        }
        expect_close(simulate_shared(whole, 1, 2, LinkSharing{0.5, 0.5}), whole.h2d + whole.kernel + whole.d2h,
                     "one chunk: its copies never run together");
    }
}

TEST(PipelineSimulationSharedLink, OneCopyEngineNeverRunsBothDirections) {
    for (const StageTimes& whole : kMixes) {
        for (int chunks = 1; chunks <= 6; ++chunks) {
            expect_close(simulate_shared(whole, chunks, 1, LinkSharing{0.5, 0.5}),
                         simulate_shared(whole, chunks, 1, LinkSharing{}), "chunks " + std::to_string(chunks));
        }
    }
}

TEST(PipelineSimulationSharedLink, RejectsFractionsOutsideZeroToOne) {
    for (const LinkSharing link :
         {LinkSharing{0, 1}, LinkSharing{1, 1.5}, LinkSharing{std::nan(""), 1}, LinkSharing{1, -0.5}}) {
        EXPECT_THROW((void)streamlab::simulate_pipeline({1, 1, 1}, 3, 3, 2, IssueOrder::ChunkByChunk, link),
                     std::invalid_argument);
    }
}

TEST(PipelineSimulation, RejectsArgumentsThatMeanNothing) {
    EXPECT_THROW((void)streamlab::simulate_pipeline({1, 1, 1}, 0, 1, 2, IssueOrder::ChunkByChunk),
                 std::invalid_argument);
    EXPECT_THROW((void)streamlab::simulate_pipeline({1, 1, 1}, 3, 0, 2, IssueOrder::ChunkByChunk),
                 std::invalid_argument);
    EXPECT_THROW((void)streamlab::simulate_pipeline({1, 1, 1}, 3, 3, 0, IssueOrder::ChunkByChunk),
                 std::invalid_argument);
    EXPECT_THROW((void)streamlab::simulate_pipeline({1, -1, 1}, 3, 3, 2, IssueOrder::ChunkByChunk),
                 std::invalid_argument);
    EXPECT_EQ(streamlab::simulated_makespan({}), 0.0);
}

}  // namespace
