// Lab 06's graded tests. They stream 256 MiB (less on a small GPU) through your
// run_stream while CUPTI records what the GPU did and the course's produce and
// consume time every write and read of a ring buffer on the same clock, and
// grade those records: the results, every buffer's reuse, the overlap, the
// makespan against the model, and your sweep's best chunk count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host_side.hpp"
#include "lab06.hpp"
#include "ring_timeline.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/model.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/testing.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using lab06::course::HostStream;
using lab06::course::Rings;
using lab06::course::RingShape;

/// Chunks, staging buffers, results buffers, device sets of each test's job.
/// The rings differ in size so that one ring's waits never stand in for another's.
constexpr RingShape kResultsShape{16, 2, 3, 3};
constexpr RingShape kSlowHostShape{7, 2, 1, 2};  // 7 chunks do not divide the data evenly
constexpr RingShape kHazardShape{16, 2, 4, 2};
constexpr RingShape kModelShape{16, 3, 3, 3};

/// The kernel's total time over the longer of the whole H2D copy and the host's
/// fills and drains alone: at 1 the GPU's compute and the host are about equally
/// busy; at 4 the GPU is far slower than the host, which then runs ahead and
/// reaches every buffer as early as your waits let it.
constexpr double kBalanced = 1.0;
constexpr double kHostRunsAhead = 4.0;

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

/// The chunk counts the sweep test hands your sweep_chunks.
const std::vector<int> kSweepCounts{2, 4, 8, 16, 32, 64};

class ManyChunks : public TimelineTest {
protected:
    void SetUp() override {
        SL_STEP(TimelineTest::SetUp());
        host_.emplace(pipeline_elements(facts_.total_memory_bytes));
        h2d_ms_ = measure_h2d_ms(n() * sizeof(float));
    }

    std::size_t n() const { return host_->input.size(); }

    /// Allocates the rings of `shape` (each buffer holds the largest chunk of any
    /// of `counts`), times the host's fills and drains alone, and sizes the kernel
    /// `weight` times as long as the longer of the whole H2D copy and those.
    void prepare(const RingShape& shape, double weight, const std::vector<int>& counts = {}) {
        shape_ = shape;
        std::vector<int> all = counts;
        all.push_back(shape.chunks);
        rings_.emplace(lab06::course::capacity_for(n(), all), shape);
        host_alone_ = host_->measure_alone(*rings_, shape.chunks);
        iterations_ = iterations_for_kernel_ms(n(), weight * std::max(h2d_ms_, host_alone_.fill + host_alone_.drain));
        job_ = host_->job(*rings_, shape.chunks, iterations_);
    }

    /// Your run_stream once to warm up, then once more while CUPTI records.
    void record_stream() {
        lab06::run_stream(job_);
        host_->reset();
        SL_RECORD_TIMELINE(timeline_, "lab06 run_stream", [&] { lab06::run_stream(job_); });
        fills_ = host_->fills(timeline_.origin_ns);
        drains_ = host_->drains(timeline_.origin_ns);
    }

    /// The recorded run chunk by chunk, or a failure that says what is missing.
    ::testing::AssertionResult found_chunks() {
        run_ = lab06::course::pair_chunks(fills_, drains_, timeline_.ops, n(), shape_.chunks);
        if (!run_.problem.empty()) {
            report_hint("every chunk, in order: produce, H2D, kernel, D2H, consume (Tasks 2 and 3)");
            return ::testing::AssertionFailure() << run_.problem;
        }
        return ::testing::AssertionSuccess();
    }

    /// The results against the CPU reference.
    void expect_results_right(const char* hint) {
        const ResultCheck check =
            check_workload_output(host_->input.data(), host_->output.data(), n(), iterations_, shape_.chunks);
        if (!check.ok) {
            report_hint(hint);
        }
        EXPECT_TRUE(check.ok) << check.message();
    }

    /// The serial reference (its stage times) and the interference between directions, measured on the same GPU a
    /// moment before.
    void measure_gpu_alone() {
        PipelineMemory memory(n());
        std::copy(host_->input.begin(), host_->input.end(), memory.input.data());
        try {
            serial_ = run_serial_reference(memory, iterations_);
            link_ = measure_link_sharing(memory);
        } catch (const TimelineUnavailable& unavailable) {
            SL_SKIP_UNLESS_BROKEN_HERE(tracer_started_before(), unavailable.what());
        }
    }

    /// The model test's shape: the GPU's stages alone, then your stream recorded and its chunks found.
    void record_against_the_model() {
        prepare(kModelShape, kBalanced);
        SL_STEP(measure_gpu_alone());
        SL_STEP(record_stream());
        ASSERT_TRUE(found_chunks());
    }

    /// The model's makespan for this job's shape, in ms (ring_timeline.hpp).
    double model_ms() const {
        return lab06::course::streaming_model_ms(serial_.stages, host_alone_.fill, host_alone_.drain, shape_.chunks,
                                                 shape_.device_sets, facts_.copy_engines, issue_order(timeline_.ops),
                                                 link_);
    }

    std::optional<HostStream> host_;
    double h2d_ms_ = 0;
    RingShape shape_;
    std::optional<Rings> rings_;
    HostStream::AloneMs host_alone_;
    int iterations_ = 1;
    lab06::StreamingJob job_;
    Timeline timeline_;
    std::vector<lab06::course::HostUse> fills_, drains_;
    lab06::course::RecordedRun run_;
    SerialReference serial_;
    LinkSharing link_;
};

TEST_F(ManyChunks, ResultsMatchCpuReference) {
    prepare(kResultsShape, kBalanced);
    SL_STEP(record_stream());
    expect_results_right(
        "produce chunk c with chunk_range(job.n, job.chunks, c), copy chunk.count * sizeof(float) "
        "bytes each way, give the kernel chunk.count elements, and consume every chunk");
}

TEST_F(ManyChunks, ResultsRightWithASlowHost) {
    // A host that takes longer over each fill and drain than the GPU over any of
    // a chunk's steps: the GPU waits for the host now, not the other way round.
    prepare(kSlowHostShape, kBalanced);
    // A chunk's longest GPU step is its kernel, sized by prepare() to this share of the whole.
    const double longest_step_ms = std::max(h2d_ms_, host_alone_.fill + host_alone_.drain) / kSlowHostShape.chunks;
    host_->slow_down(static_cast<std::uint64_t>(1.5e6 * longest_step_ms));
    SL_STEP(record_stream());
    expect_results_right(
        "with one results buffer, each chunk's results must be consumed before the next D2H copy "
        "overwrites them; with a slow host no chunk may be skipped or taken twice");
}

TEST_F(ManyChunks, NoBufferReusedBeforeItsLastUseEnded) {
    // The GPU is four times slower than the host here: the host reaches every
    // buffer as early as your waits allow, so every missing wait shows.
    prepare(kHazardShape, kHostRunsAhead);
    SL_STEP(record_stream());
    const std::uint64_t allocations =
        count_api_calls(timeline_, {"cudaMalloc", "cudaMallocAsync", "cudaMallocFromPoolAsync", "cudaMallocHost",
                                    "cudaHostAlloc", "cudaMallocManaged", "cudaMallocPitch", "cudaHostRegister"});
    EXPECT_EQ(allocations, 0U) << "run_stream allocated memory: the rings are the job's, and reuse is only judged "
                                  "against them";
    ASSERT_TRUE(found_chunks());
    EXPECT_TRUE(grading::none_found(lab06::course::reuse_hazards(run_.chunks, shape_.device_sets),
                                    "buffer uses that began before the previous use ended",
                                    "buffer use(s) began before the previous use ended",
                                    "before the host writes a staging buffer, wait for the event recorded after the "
                                    "H2D copy that last read it; before it reads a results buffer, for the one after "
                                    "its D2H copy"));
}

TEST_F(ManyChunks, WorkRunsInOneStreamPerDeviceSet) {
    prepare(kModelShape, kBalanced);
    SL_STEP(record_stream());
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
    SL_STEP(record_against_the_model());
    // The model's share of copy time hidden behind kernels, for this GPU, this
    // shape and your issue order, from the stage times measured alone.
    const double model_hidden = hidden_copy_fraction(modelled_ops(simulate_pipeline(
        serial_.stages, shape_.chunks, shape_.device_sets, facts_.copy_engines, issue_order(timeline_.ops), link_)));
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
    SL_STEP(record_against_the_model());
    const std::vector<lab06::course::RunSpan> spans = lab06::course::run_spans(fills_, drains_);
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
        << " ms; GPU alone: H2D " << serial_.stages.h2d << ", kernel " << serial_.stages.kernel << ", D2H "
        << serial_.stages.d2h << " ms; copies in both directions keep " << link_.h2d * 100 << "% and "
        << link_.d2h * 100 << "% of their speed)";
}

TEST_F(ManyChunks, SweepReportsTheBestChunkCount) {
    prepare(kModelShape, kBalanced, kSweepCounts);
    lab06::run_stream(job_);  // warm-up
    host_->reset();
    lab06::Sweep sweep;
    SL_RECORD_TIMELINE(timeline_, "lab06 sweep_chunks", [&] { sweep = lab06::sweep_chunks(job_, kSweepCounts); });
    const std::vector<lab06::course::RunSpan> spans =
        lab06::course::run_spans(host_->fills(timeline_.origin_ns), host_->drains(timeline_.origin_ns));
    report_measure("runs recorded", static_cast<double>(spans.size()), "==", static_cast<double>(kSweepCounts.size()),
                   "");
    ASSERT_EQ(spans.size(), kSweepCounts.size()) << "sweep_chunks must run the stream once per chunk count";
    ASSERT_EQ(sweep.points.size(), kSweepCounts.size()) << "one point per chunk count";
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
