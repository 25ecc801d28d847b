// Lab 07's graded tests: judges of the record that record_lab07.cpp left. The
// recording ran your stage pipeline, your host consumer and your graph on 256 MiB
// (less on a small GPU), and the course's background and urgent kernels in the
// streams you chose, while CUPTI recorded what the GPU did (and which host thread
// made which runtime call); the course's consumer and urgent kernel timed
// themselves on the same clock. These tests read that record and never run your code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "course_side.hpp"
#include "lab07.hpp"
#include "priority_side.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/judging.hpp"
#include "streamlab/model.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/testing.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using lab07::course::kChunks;
using lab07::course::kLaunches;

/// What every real run of record_lab07.cpp leaves: the output of each run over the set-up's n, with its
/// kernel iterations, in kChunks chunks.
[[maybe_unused]] const bool kRunsDeclared =
    judge_records_of({{{"pipeline", kChunks}, {"graph", kChunks}, {"host_consumer", kChunks}}});

/// The least share of the model's hidden copy time that yours must reach. The
/// model hides about two thirds of the copies behind kernels for 8 equal chunks;
/// a design that runs each chunk's three stages one after another hides none.
constexpr double kMinHiddenShare = 0.5;

/// The most the urgent kernel may wait with the greatest priority, as a share of its
/// wait with the default priority (each wait from the background kernel's start to the
/// urgent kernel's, as a share of the background kernel's run).
/// The background runs in kBackgroundWaves waves of blocks that fill the GPU. With
/// the greatest priority the urgent kernel takes the first room that frees, at the
/// end of the first wave: about 1/8 of the run. With the default priority it waits
/// behind every queued background block, until room frees after the last wave: about
/// the whole run. About 1/8 expected, about 1 where the device ignores the hint: half
/// leaves room for a first wave that lasts longer than its share, or that the
/// urgent launch reaches a little late, without letting "no effect" pass.
constexpr double kMaxPriorityWaitRatio = 0.5;

/// 256 MiB (less on a small GPU), kChunks chunks, a kernel about as long as the
/// whole H2D copy: the record's scenarios (record_lab07.cpp), each recorded after a warm-up run.
class Lab07 : public RecordTest {
protected:
    /// The recorded run of scenario `name` into scenario_ and timeline_.
    void use_run(const char* name) {
        SL_STEP(use_scenario(name, scenario_));
        timeline_ = *scenario_->timeline;
    }

    /// The chunks of the recorded run (the i-th H2D copy, kernel and D2H copy issued
    /// form chunk i), or a failure that says what is missing.
    ::testing::AssertionResult found_chunks() {
        const PipelineChunks found = chunks_by_issue_order(timeline_.ops, kChunks);
        if (!found.problem.empty()) {
            report_hint("every chunk, in order: its H2D copy, its kernel, its D2H copy (Task 1)");
            return ::testing::AssertionFailure() << found.problem;
        }
        chunks_ = found.chunks;
        return ::testing::AssertionSuccess();
    }

    /// The share of copy time the model hides behind kernels for kChunks chunks,
    /// from the stage times of the serial run on the same data, into
    /// `model_hidden_`; skips where that share is too small for this GPU to show anything.
    void measure_model_hidden_share() {
        const record::Scenario* serial = nullptr;
        SL_STEP(use_scenario("serial", serial));
        model_hidden_ = hidden_copy_fraction(modelled_ops(simulate_pipeline(
            stage_times(serial->timeline->ops), kChunks, kChunks, facts_.copy_engines, IssueOrder::ChunkByChunk)));
        if (model_hidden_ < 0.2) {
            SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name << " has " << facts_.copy_engines << " copy engine(s): the "
                                         << "model hides only " << model_hidden_ * 100 << "% of the copies";
        }
    }

    /// Whether the recorded run hid at least kMinHiddenShare of what the model hides.
    void expect_copies_hidden(const char* hint) {
        const double model_hidden = model_hidden_;
        const double hidden = hidden_copy_fraction(timeline_.ops);
        EXPECT_TRUE(share_of_model_reached("copy time hidden behind kernels / the model's", hidden, model_hidden,
                                           kMinHiddenShare, hint))
            << "kernels hid " << hidden * 100 << "% of the copy time; the model hides " << model_hidden * 100 << "%";
    }

    const record::Scenario* scenario_ = nullptr;
    Timeline timeline_;
    std::vector<ChunkOps> chunks_;
    double model_hidden_ = 0;
};

// ---------------------------------------------------------------- Task 1

class StageStreams : public Lab07 {
protected:
    /// run_stage_streams(job, kChunks), as recorded.
    void use_stages() { SL_STEP(use_run("pipeline")); }
};

TEST_F(StageStreams, ResultsMatchCpuReference) {
    SL_STEP(use_stages());
    expect_output_matches_reference(
        *scenario_,
        "chunk c is chunk_range(job.n, chunks, c): copy chunk.count * sizeof(float) bytes each way "
        "at chunk.offset, and wait for the copy-out stream before returning");
}

TEST_F(StageStreams, OneStreamPerStage) {
    SL_STEP(use_stages());
    const std::set<std::uint32_t> h2d = streams_of(timeline_.ops, OpKind::MemcpyH2D);
    const std::set<std::uint32_t> kernels = streams_of(timeline_.ops, OpKind::Kernel);
    const std::set<std::uint32_t> d2h = streams_of(timeline_.ops, OpKind::MemcpyD2H);
    report_measure("streams that ran the work", static_cast<double>(distinct_streams(timeline_.ops)), "==", 3, "");
    const bool one_each = h2d.size() == 1 && kernels.size() == 1 && d2h.size() == 1;
    const bool apart = one_each && *h2d.begin() != *kernels.begin() && *kernels.begin() != *d2h.begin() &&
                       *h2d.begin() != *d2h.begin();
    if (!apart || null_stream_ops(timeline_.ops) != 0) {
        report_hint(
            "three non-blocking streams: every H2D copy in one, every kernel in another, every D2H copy in the "
            "third");
    }
    EXPECT_EQ(null_stream_ops(timeline_.ops), 0U) << "nothing belongs in the NULL stream";
    EXPECT_TRUE(one_each) << "the H2D copies ran in " << h2d.size() << " stream(s), the kernels in " << kernels.size()
                          << ", the D2H copies in " << d2h.size() << "; the stage design has one stream per stage";
    EXPECT_TRUE(apart || !one_each) << "two stages shared a stream: each stage has a stream of its own";
}

TEST_F(StageStreams, EachStageWaitsForItsChunk) {
    SL_STEP(use_stages());
    ASSERT_TRUE(found_chunks());
    std::vector<std::string> early;
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
        const ChunkOps& chunk = chunks_[c];
        if (!ended_before(chunk.h2d, chunk.kernel)) {
            early.push_back("K_" + std::to_string(c + 1) + " began before H2D_" + std::to_string(c + 1) + " ended");
        }
        if (!ended_before(chunk.kernel, chunk.d2h)) {
            early.push_back("D2H_" + std::to_string(c + 1) + " began before K_" + std::to_string(c + 1) + " ended");
        }
    }
    EXPECT_TRUE(grading::none_found(early, "stages that began before the stage before them of their chunk ended",
                                    "stage(s) did not wait for their chunk",
                                    "streams do not see each other's work: after each stage, record an event in its "
                                    "stream, and make the next stage's stream wait for that event before you queue "
                                    "the chunk's next stage there"));
}

TEST_F(StageStreams, CopiesOverlapKernels) {
    SL_STEP(measure_model_hidden_share());
    SL_STEP(use_stages());
    expect_copies_hidden(
        "each stage waits for its own chunk only, and the host never waits in between: queue every "
        "chunk first, then wait once");
}

// ---------------------------------------------------------------- Task 2

class HostConsumer : public Lab07 {
protected:
    /// run_with_host_consumer(job, kChunks, the course's consumer), as recorded:
    /// the consumer's calls, and the thread that called run_with_host_consumer.
    void use_consumer() {
        SL_STEP(use_run("host_consumer"));
        calls_ = lab07::course::consumptions_from(scenario_->values);
        caller_thread_ = whole_number<std::uint64_t>(scenario_->value("caller_thread"), 0.0, 1e18);
    }

    std::vector<lab07::course::Consumption> calls_;
    std::uint64_t caller_thread_ = 0;
};

TEST_F(HostConsumer, ResultsMatchCpuReference) {
    SL_STEP(use_consumer());
    expect_output_matches_reference(
        *scenario_,
        "consume(c) reads chunk c from job.output: call it only after chunk c's D2H copy has ended, "
        "once for every chunk");
}

TEST_F(HostConsumer, EachChunkConsumedAsItsCopyEnds) {
    SL_STEP(use_consumer());
    ASSERT_TRUE(found_chunks());
    std::map<int, lab07::course::Consumption> by_chunk;
    for (const auto& call : calls_) {
        by_chunk.emplace(call.chunk, call);
    }
    ASSERT_EQ(calls_.size(), static_cast<std::size_t>(kChunks)) << "consume must be called once per chunk";
    ASSERT_EQ(by_chunk.size(), static_cast<std::size_t>(kChunks)) << "a chunk was consumed twice, another never";
    std::uint64_t last_copy_end = 0;
    for (const ChunkOps& chunk : chunks_) {
        last_copy_end = std::max(last_copy_end, chunk.d2h.end_ns);
    }
    std::vector<std::string> wrong;
    for (int c = 0; c < kChunks; ++c) {
        const std::uint64_t copy_end = chunks_[static_cast<std::size_t>(c)].d2h.end_ns;
        const std::uint64_t began = by_chunk[c].start_ns;
        const std::string chunk = "chunk " + std::to_string(c + 1);
        if (began < copy_end) {
            wrong.push_back(chunk + " was consumed " + std::to_string(ms(copy_end - began)) +
                            " ms before its D2H copy ended");
        } else if (c + 1 < kChunks && began >= last_copy_end) {
            wrong.push_back(chunk + " was consumed only after the last D2H copy ended");
        }
    }
    EXPECT_TRUE(grading::none_found(wrong, "chunks consumed before their copy ended, or only after the last copy",
                                    "chunk(s) consumed at the wrong time",
                                    "queue a host function right after each chunk's D2H copy, in the same stream: "
                                    "the GPU runs it the moment that copy ends, while later chunks are still on "
                                    "their way"));
}

TEST_F(HostConsumer, ConsumedInHostFunctionsThatCallNoCuda) {
    SL_STEP(use_consumer());
    ASSERT_FALSE(calls_.empty()) << "consume was never called";
    const std::uint64_t yours = caller_thread_;
    std::set<std::uint64_t> threads;
    for (const auto& call : calls_) {
        threads.insert(call.thread);
    }
    std::uint64_t calls_there = 0;
    for (const std::uint64_t thread : threads) {
        const auto found = timeline_.api_calls_by_thread.find(thread);
        calls_there += thread != yours && found != timeline_.api_calls_by_thread.end() ? found->second : 0;
    }
    report_measure("CUDA runtime calls made on the threads that ran consume", static_cast<double>(calls_there), "==", 0,
                   "");
    if (threads.count(yours) != 0) {
        report_hint("let the GPU call consume: queue it with cudaLaunchHostFunc after each chunk's D2H copy");
    } else if (calls_there != 0) {
        report_hint(
            "a host function may not call CUDA (CUDA refuses, or hangs): the stream order already guarantees "
            "that the copy before it has ended");
    }
    EXPECT_EQ(threads.count(yours), 0U) << "consume ran on the thread that called run_with_host_consumer, which then "
                                           "waited for the chunk; a host function runs on a thread of CUDA's own";
    EXPECT_EQ(calls_there, 0U) << "the code around consume made " << calls_there
                               << " CUDA runtime call(s) on CUDA's own thread";
}

// ---------------------------------------------------------------- Task 3

class Graph : public Lab07 {
protected:
    /// run_graph(job, kChunks, kLaunches), as recorded.
    void use_graph() { SL_STEP(use_run("graph")); }
};

TEST_F(Graph, ResultsMatchCpuReference) {
    SL_STEP(use_graph());
    expect_output_matches_reference(
        *scenario_,
        "capture the whole pipeline of Task 1 between the fork and the join, and wait for the last "
        "launch before returning");
}

TEST_F(Graph, OneInstantiationLaunchedManyTimes) {
    SL_STEP(use_graph());
    const std::vector<DeviceOp> kernels = ops_of_kind(timeline_.ops, OpKind::Kernel);
    std::set<std::uint32_t> graphs;
    std::map<std::uint64_t, int> runs_per_node;
    std::size_t outside = 0;
    for (const DeviceOp& kernel : kernels) {
        if (kernel.graph_id == 0) {
            ++outside;
            continue;
        }
        graphs.insert(kernel.graph_id);
        ++runs_per_node[kernel.graph_node_id];
    }
    const std::uint64_t instantiations = count_api_calls(
        timeline_, {"cudaGraphInstantiate", "cudaGraphInstantiateWithFlags", "cudaGraphInstantiateWithParams"});
    const std::uint64_t launches = count_api_calls(timeline_, {"cudaGraphLaunch"});
    report_measure("kernels run by a graph launch", static_cast<double>(kernels.size() - outside),
                   "==", kLaunches * kChunks, "");
    report_measure("graph instantiations", static_cast<double>(instantiations), "==", 1, "");
    if (outside != 0 || graphs.size() != 1 || instantiations != 1 || launches != kLaunches) {
        report_hint(
            "capture once, instantiate once, then launch the one instance `launches` times; no kernel runs "
            "outside the graph");
    }
    EXPECT_EQ(outside, 0U) << "kernels ran outside any graph launch";
    EXPECT_EQ(graphs.size(), 1U) << "the kernels came from " << graphs.size() << " graphs";
    EXPECT_EQ(instantiations, 1U) << "instantiate the graph once, however often you launch it";
    EXPECT_EQ(launches, static_cast<std::uint64_t>(kLaunches)) << "one cudaGraphLaunch per launch asked for";
    EXPECT_EQ(kernels.size() - outside, static_cast<std::size_t>(kLaunches * kChunks))
        << kLaunches << " launches of a graph with " << kChunks << " kernels";
    for (const auto& [node, runs] : runs_per_node) {
        EXPECT_EQ(runs, kLaunches) << "graph node " << node << " ran " << runs << " times";
    }
}

TEST_F(Graph, ChunksOverlapInsideEachLaunch) {
    SL_STEP(measure_model_hidden_share());
    SL_STEP(use_graph());
    expect_copies_hidden(
        "capture the stage streams themselves, forked from the origin stream: a graph keeps the "
        "dependencies the capture saw, and work captured in one stream runs one op at a time");
}

// ---------------------------------------------------------------- Task 4

class Priorities : public RecordTest {
protected:
    /// Your run_with_urgent_kernel, as recorded after a warm-up run, into
    /// `waits_[high_priority]`: the urgent kernel's wait on the timeline, given
    /// when the course's urgent.launch launched it.
    void use_wait(bool high_priority) {
        const record::Scenario* scenario = nullptr;
        SL_STEP(use_scenario(high_priority ? "priority_greatest" : "priority_default", scenario));
        const auto launched_ns = whole_number<std::uint64_t>(scenario->value("launched_ns"), 0.0, 1e18);
        waits_[high_priority ? 1 : 0] = lab07::course::urgent_wait(*scenario->timeline, launched_ns);
    }

    lab07::course::UrgentWait waits_[2];
};

TEST_F(Priorities, UrgentKernelWaitsLessWithGreatestPriority) {
    // cudaDeviceGetStreamPriorityRange, asked by the recording.
    const double least = setup_value("least_priority");
    const double greatest = setup_value("greatest_priority");
    ASSERT_FALSE(HasFailure());
    if (least == greatest) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name << " offers a single stream priority (" << least
                                     << "): a priority has nothing to change";
    }
    SL_STEP(use_wait(false));
    SL_STEP(use_wait(true));
    const lab07::course::UrgentWait& plain = waits_[0];
    const lab07::course::UrgentWait& urgent = waits_[1];
    for (const auto* run : {&plain, &urgent}) {
        if (!run->problem.empty()) {
            report_hint(
                "in run_with_urgent_kernel: urgent.fill_gpu(a stream of the least priority), then "
                "urgent.launch(a stream of your own), then wait for both");
        }
        ASSERT_TRUE(run->problem.empty())
            << (run == &urgent ? "greatest priority: " : "default priority: ") << run->problem;
    }
    // Without any wait at the default priority there is nothing a priority could shorten.
    const double ratio = plain.wait_ns == 0 ? 1.0 : urgent.share() / plain.share();
    report_measure("urgent kernel's start after the background's, greatest priority / default (shares of its run)",
                   ratio, "<", kMaxPriorityWaitRatio, "");
    if (ratio >= kMaxPriorityWaitRatio) {
        report_hint(
            "the urgent kernel's stream: the greatest priority (the smaller number "
            "cudaDeviceGetStreamPriorityRange gives) when high_priority, a plain stream otherwise; the "
            "background's stream: the least priority");
    }
    EXPECT_LT(ratio, kMaxPriorityWaitRatio)
        << "the urgent kernel began " << ms(urgent.wait_ns) << " ms (" << urgent.share() * 100
        << "% of the background's run) after the background kernel with the greatest priority and " << ms(plain.wait_ns)
        << " ms (" << plain.share() * 100 << "%) with the default priority";
}

}  // namespace
