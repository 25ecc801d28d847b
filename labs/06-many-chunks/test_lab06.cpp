// Lab 06's graded tests: judges of the record that record_lab06.cpp left. The
// recording streamed 256 MiB (less on a small GPU) through your run_stream once
// per scenario (graded_jobs.hpp) while CUPTI recorded what the GPU did and the
// course's produce and consume timed every write and read of a ring buffer on the
// same clock; these tests read those records and never run your code: the
// results, every buffer's reuse, the overlap, the makespan against the model,
// and your sweep's best chunk count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "graded_jobs.hpp"
#include "ring_timeline.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/judging.hpp"
#include "streamlab/model.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/testing.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using namespace lab06::course;

/// What every real run of record_lab06.cpp leaves: run_stream's output over the set-up's n in its
/// shape's chunks, with the kernel iterations each scenario calibrated for itself.
[[maybe_unused]] const bool kRunsDeclared =
    judge_records_of({{{scenarios::kResults, kResultsShape.chunks, record::setup_elements("n"),
                        record::scenario_iterations("iterations")},
                       {scenarios::kSlowHost, kSlowHostShape.chunks, record::setup_elements("n"),
                        record::scenario_iterations("iterations")}}});

/// The least efficiency (the model's makespan over yours) that passes. The model
/// counts the host's fills and drains alone and the GPU's stages alone; while
/// they run together they share the host's memory, which the model does not
/// count. A stream that waits for each chunk before the next lands near 0.5.
constexpr double kMinEfficiency = 0.7;

/// The least share of the model's hidden copy time that yours must reach.
constexpr double kMinHiddenShare = 0.4;

/// How far (relative) the time your sweep reports for a run may be from its
/// recorded makespan (first fill to last drain), and how much slower than the
/// fastest recorded run your best N's run may be.
constexpr double kSweepTolerance = 0.1;
constexpr double kBestTolerance = 0.05;

class ManyChunks : public RecordTest {
protected:
    std::size_t n() const { return whole_number<std::size_t>(setup_value("n"), 0, 1e15); }

    /// The recorded scenario `name`, a run of a job of `shape`: its timeline and the host's fills and drains.
    void use_run(const char* name, const RingShape& shape) {
        SL_STEP(use_scenario(name, scenario_));
        shape_ = shape;
        timeline_ = *scenario_->timeline;
        HostUses uses = host_uses_of(scenario_->values);
        ASSERT_TRUE(uses.problem.empty()) << "scenario " << name << ": " << uses.problem;
        fills_ = std::move(uses.fills);
        drains_ = std::move(uses.drains);
    }

    /// The recorded run chunk by chunk, or a failure that says what is missing.
    ::testing::AssertionResult found_chunks() {
        run_ = pair_chunks(fills_, drains_, timeline_.ops, n(), shape_.chunks);
        if (!run_.problem.empty()) {
            report_hint("every chunk, in order: produce, H2D, kernel, D2H, consume (Tasks 2 and 3)");
            return ::testing::AssertionFailure() << run_.problem;
        }
        return ::testing::AssertionSuccess();
    }

    /// The model test's run: your stream recorded and its chunks found, with the
    /// GPU's stages alone and the host's fills and drains alone, measured a moment before.
    void use_run_against_the_model() {
        SL_STEP(use_run(scenarios::kPipeline, kModelShape));
        serial_stages_ = {scenario_->value("gpu_h2d_ms"), scenario_->value("gpu_kernel_ms"),
                          scenario_->value("gpu_d2h_ms")};
        link_ = {scenario_->value("link_h2d"), scenario_->value("link_d2h")};
        host_alone_ = {scenario_->value("fill_alone_ms"), scenario_->value("drain_alone_ms")};
        ASSERT_TRUE(found_chunks());
    }

    /// The hazards run against the model: there the GPU is four times slower than
    /// the host, which fills every buffer long before the GPU needs it, so what the
    /// GPU overlaps depends on your waits alone, not on how fast the host happened
    /// to be (in the balanced pipeline run a host slowed by a busy machine leaves the
    /// GPU waiting, and nothing could overlap then). The copies move the same bytes
    /// as in the pipeline run and the kernel differs only in its iterations, so the
    /// GPU's stages alone are the pipeline run's, the kernel's scaled by them.
    void use_hazards_run_against_the_model() {
        SL_STEP(use_scenario(scenarios::kPipeline, scenario_));
        const double pipeline_iterations = scenario_->value("iterations");
        const StageTimes pipeline_stages{scenario_->value("gpu_h2d_ms"), scenario_->value("gpu_kernel_ms"),
                                         scenario_->value("gpu_d2h_ms")};
        link_ = {scenario_->value("link_h2d"), scenario_->value("link_d2h")};
        SL_STEP(use_run(scenarios::kHazards, kHazardShape));
        const double iterations = scenario_->value("iterations");
        ASSERT_GE(pipeline_iterations, 1.0) << "the record's pipeline run names no kernel iterations";
        ASSERT_GE(iterations, 1.0) << "the record's hazards run names no kernel iterations";
        serial_stages_ = {pipeline_stages.h2d, pipeline_stages.kernel * iterations / pipeline_iterations,
                          pipeline_stages.d2h};
        ASSERT_TRUE(found_chunks());
    }

    /// What your sweep_chunks returned, as the recording kept it: one point per
    /// count of kSweepCounts (call it once "points" is their number; a time that
    /// was not a finite number reads as NaN) and the best N.
    lab06::Sweep reported_sweep() const {
        // Whole numbers your code returned as ints; clamped, since the record is read as untrusted.
        const auto whole = [&](const std::string& key) { return whole_number<int>(scenario_->value(key), -1.0, 1e9); };
        lab06::Sweep sweep;
        sweep.best_chunks = whole("best_chunks");
        for (std::size_t i = 0; i < kSweepCounts.size(); ++i) {
            const std::string point = "point_" + std::to_string(i) + "_";
            const auto ms = scenario_->values.find(point + "ms");
            sweep.points.push_back({whole(point + "chunks"), ms == scenario_->values.end()
                                                                 ? std::numeric_limits<double>::quiet_NaN()
                                                                 : ms->second});
        }
        return sweep;
    }

    /// The model's makespan for this job's shape, in ms (ring_timeline.hpp).
    double model_ms() const {
        return streaming_model_ms(serial_stages_, host_alone_.fill, host_alone_.drain, shape_.chunks,
                                  shape_.device_sets, facts_.copy_engines, issue_order(timeline_.ops), link_);
    }

    const record::Scenario* scenario_ = nullptr;
    RingShape shape_;
    Timeline timeline_;
    std::vector<HostUse> fills_, drains_;
    RecordedRun run_;
    StageTimes serial_stages_;
    LinkSharing link_;
    HostStream::AloneMs host_alone_;
};

TEST_F(ManyChunks, ResultsMatchCpuReference) {
    SL_STEP(use_scenario(scenarios::kResults, scenario_));  // its output alone
    expect_output_matches_reference(
        *scenario_,
        "produce chunk c with chunk_range(job.n, job.chunks, c), copy chunk.count * sizeof(float) "
        "bytes each way, give the kernel chunk.count elements, and consume every chunk");
}

TEST_F(ManyChunks, ResultsRightWithASlowHost) {
    // A host that takes longer over each fill and drain than the GPU over any of
    // a chunk's steps: the GPU waits for the host now, not the other way round
    // (the recording slowed its host down by kSlowHostFactor, graded_jobs.hpp).
    SL_STEP(use_scenario(scenarios::kSlowHost, scenario_));  // its output alone
    expect_output_matches_reference(
        *scenario_,
        "with one results buffer, each chunk's results must be consumed before the next D2H copy "
        "overwrites them; with a slow host no chunk may be skipped or taken twice");
}

TEST_F(ManyChunks, NoBufferReusedBeforeItsLastUseEnded) {
    // The GPU is four times slower than the host here: the host reaches every
    // buffer as early as your waits allow, so every missing wait shows.
    SL_STEP(use_run(scenarios::kHazards, kHazardShape));
    const std::uint64_t allocations =
        count_api_calls(timeline_, {"cudaMalloc", "cudaMallocAsync", "cudaMallocFromPoolAsync", "cudaMallocHost",
                                    "cudaHostAlloc", "cudaMallocManaged", "cudaMallocPitch", "cudaHostRegister"});
    EXPECT_EQ(allocations, 0U) << "run_stream allocated memory: the rings are the job's, and reuse is only judged "
                                  "against them";
    ASSERT_TRUE(found_chunks());
    EXPECT_TRUE(grading::none_found(reuse_hazards(run_.chunks, shape_.device_sets),
                                    "buffer uses that began before the previous use ended",
                                    "buffer use(s) began before the previous use ended",
                                    "before the host writes a staging buffer, wait for the event recorded after the "
                                    "H2D copy that last read it; before it reads a results buffer, for the one after "
                                    "its D2H copy"));
}

TEST_F(ManyChunks, WorkRunsInOneStreamPerDeviceSet) {
    SL_STEP(use_run(scenarios::kPipeline, kModelShape));
    ASSERT_TRUE(found_chunks());
    const std::size_t streams = distinct_streams(timeline_.ops);
    report_measure("streams that ran the work", static_cast<double>(streams), "==", shape_.device_sets, "");
    if (streams != static_cast<std::size_t>(shape_.device_sets) || null_stream_ops(timeline_.ops) != 0) {
        report_hint("create job.device.size() non-blocking streams and give chunk c the stream of its device set");
    }
    EXPECT_EQ(null_stream_ops(timeline_.ops), 0U) << "nothing belongs in the NULL stream";
    EXPECT_EQ(streams, static_cast<std::size_t>(shape_.device_sets)) << "one stream per device set";
}

TEST_F(ManyChunks, CopiesOverlapKernels) {
    SL_STEP(use_hazards_run_against_the_model());
    // The model's share of copy time hidden behind kernels, for this GPU, this
    // shape and your issue order, from the stage times measured alone (scaled).
    const double model_hidden = hidden_copy_fraction(modelled_ops(simulate_pipeline(
        serial_stages_, shape_.chunks, shape_.device_sets, facts_.copy_engines, issue_order(timeline_.ops), link_)));
    if (model_hidden < 0.2) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name << " has " << facts_.copy_engines << " copy engine(s): for your "
                                     << "issue order the model hides only " << model_hidden * 100 << "% of the copies";
    }
    const double hidden = hidden_copy_fraction(timeline_.ops);
    EXPECT_TRUE(share_of_model_reached(
        "copy time hidden behind kernels / the model's", hidden, model_hidden, kMinHiddenShare,
        "the host waits only for the buffer it needs next, never for the whole GPU: queue chunk c + 1's "
        "copy while chunk c's kernel runs"))
        << "kernels hid " << hidden * 100 << "% of the copy time; the model hides " << model_hidden * 100 << "%";
}

TEST_F(ManyChunks, MakespanNearTheModel) {
    SL_STEP(use_run_against_the_model());
    const std::vector<RunSpan> spans = run_spans(fills_, drains_);
    ASSERT_EQ(spans.size(), 1U);
    const double yours = spans.front().ms();
    const double model = model_ms();
    report_measure("efficiency: the model's makespan / yours", model / yours, ">=", kMinEfficiency, "");
    if (model / yours < kMinEfficiency) {
        report_hint(
            "draw your run: ./course run 06; wherever the host waits while a buffer it could use is free, "
            "or the GPU idles while the host could have fed it, time is lost");
    }
    EXPECT_GE(model / yours, kMinEfficiency)
        << "from the first fill to the last drain your stream took " << yours << " ms; the model allows " << model
        << " ms (host alone: fills " << host_alone_.fill << " ms, drains " << host_alone_.drain
        << " ms; GPU alone: H2D " << serial_stages_.h2d << ", kernel " << serial_stages_.kernel << ", D2H "
        << serial_stages_.d2h << " ms; copies in both directions keep " << link_.h2d * 100 << "% and "
        << link_.d2h * 100 << "% of their speed)";
}

TEST_F(ManyChunks, SweepReportsTheBestChunkCount) {
    SL_STEP(use_run(scenarios::kSweep, kModelShape));
    const std::vector<RunSpan> spans = run_spans(fills_, drains_);
    report_measure("runs recorded", static_cast<double>(spans.size()), "==", static_cast<double>(kSweepCounts.size()),
                   "");
    ASSERT_EQ(spans.size(), kSweepCounts.size()) << "sweep_chunks must run the stream once per chunk count";
    ASSERT_EQ(scenario_->value("points"), static_cast<double>(kSweepCounts.size())) << "one point per chunk count";
    const lab06::Sweep sweep = reported_sweep();
    std::size_t fastest = 0, yours = kSweepCounts.size();
    for (std::size_t i = 0; i < spans.size(); ++i) {
        ASSERT_EQ(spans[i].fills, static_cast<std::size_t>(kSweepCounts[i])) << "run " << i + 1 << " of the sweep";
        ASSERT_EQ(sweep.points[i].chunks, kSweepCounts[i]) << "point " << i + 1 << " of your sweep";
        const double reported = sweep.points[i].ms / spans[i].ms();
        EXPECT_NEAR(reported, 1.0, kSweepTolerance)
            << kSweepCounts[i] << " chunks: you measured " << sweep.points[i].ms << " ms, the records show "
            << spans[i].ms() << " ms from the first fill to the last drain";
        if (spans[i].ms() < spans[fastest].ms()) {
            fastest = i;
        }
        if (kSweepCounts[i] == sweep.best_chunks) {
            yours = i;
        }
    }
    ASSERT_LT(yours, kSweepCounts.size()) << "best_chunks is " << sweep.best_chunks << ", none of the counts swept";
    const double slower = spans[yours].ms() / spans[fastest].ms();
    report_measure("your best N's recorded makespan / the fastest's", slower, "<=", 1 + kBestTolerance, "");
    if (slower > 1 + kBestTolerance) {
        report_hint("time each run from before run_stream to after it returns");
    }
    EXPECT_LE(slower, 1 + kBestTolerance) << "you report " << sweep.best_chunks << " chunks as the best; the records "
                                          << "show " << kSweepCounts[fastest] << " chunks fastest ("
                                          << spans[fastest].ms() << " ms against " << spans[yours].ms() << " ms)";
}

}  // namespace
