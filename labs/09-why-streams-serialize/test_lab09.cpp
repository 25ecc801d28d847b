// Lab 09's graded tests. They run your pipeline while CUPTI records what the GPU
// did and which runtime calls your code made, and grade that record against the
// serial run and the pipeline model, both measured a moment before on the same
// GPU and the same data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "lab09.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/model.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/testing.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using lab09::kChunks;

/// The least efficiency (the model's makespan over yours) that passes. Four
/// chunks whose stages take about as long as each other give the model 6 stage
/// times against the serial run's 12, so a pipeline whose streams wait for each
/// other lands near 0.5 or below; one that overlaps as the model allows lands
/// near 1. The margin covers the stream-ordered allocations and memsets, which
/// the serial reference does not make. To be confirmed on the H200.
constexpr double kMinEfficiency = 0.75;

/// The least share of the model's hidden copy time that your timeline must hide
/// too: the time copies run beside kernels, over the time any copy runs, yours
/// divided by the model's. Streams that wait for each other hide nothing (0).
constexpr double kMinHiddenShare = 0.5;

/// Whether the host made no call of the runtime functions `names` (`what`, for
/// the report) while some op of `timeline` ran (implicit_syncs_while_busy): one
/// made before the first chunk's work or after the last chunk's end holds nothing
/// up. Reports the count; `hint` when there were any.
::testing::AssertionResult none_while_busy(const Timeline& timeline, std::initializer_list<std::string> names,
                                           const std::string& what, const std::string& hint) {
    std::uint64_t calls = 0;
    for (const StreamCall& call : implicit_syncs_while_busy(timeline)) {
        calls += static_cast<std::uint64_t>(std::count(names.begin(), names.end(), call.function));
    }
    report_measure(what + " while the GPU was busy", static_cast<double>(calls), "==", 0, "");
    if (calls == 0) {
        return ::testing::AssertionSuccess();
    }
    report_hint(hint);
    return ::testing::AssertionFailure() << "run_pipeline made " << calls << " " << what
                                         << " while earlier chunks' work was running";
}

/// The ops that are not memsets: a chunk's memset, in its own stream, is no part of the pipeline's shape.
std::vector<DeviceOp> without_memsets(const std::vector<DeviceOp>& ops) {
    std::vector<DeviceOp> kept;
    for (const DeviceOp& op : ops) {
        if (op.kind != OpKind::Memset) {
            kept.push_back(op);
        }
    }
    return kept;
}

/// 256 MiB (less on a small GPU) through your pipeline, with a kernel about as
/// long as the whole H2D copy; the results land in pageable memory.
class Serialize : public TimelineTest {
protected:
    void SetUp() override {
        SL_STEP(TimelineTest::SetUp());
        prepared_.emplace(prepare_pipeline(facts_));
        output_.assign(n(), 0.0F);
        job_ = lab09::PipelineJob{memory().input.data(), output_.data(), n(), prepared_->iterations};
    }

    PipelineMemory& memory() { return prepared_->memory; }
    std::size_t n() { return memory().size(); }

    /// The serial run on the same data (lab 01's way): each stage's time alone.
    void record_serial() {
        try {
            serial_ = run_serial_reference(memory(), prepared_->iterations);
        } catch (const TimelineUnavailable& unavailable) {
            SL_SKIP_UNLESS_BROKEN_HERE(tracer_started_before(), unavailable.what());
        }
    }

    /// Runs your pipeline with `chunks` chunks once to warm up, then once more
    /// while CUPTI records, its output poisoned first.
    void record_pipeline(int chunks = kChunks) {
        lab09::run_pipeline(job_, chunks);
        fill_poison(output_.data(), n());
        SL_RECORD_TIMELINE(timeline_, "lab09 run_pipeline", [&] { lab09::run_pipeline(job_, chunks); });
    }

    /// The serial reference, then your pipeline, on the same data.
    void record_serial_then_pipeline() {
        SL_STEP(record_serial());
        record_pipeline();
    }

    /// Whether the timeline holds kChunks chunks, found from the copies and
    /// kernels in the order they were issued, whatever streams they ran in.
    ::testing::AssertionResult found_the_chunks() {
        const PipelineChunks found = chunks_by_issue_order(without_memsets(timeline_.ops), kChunks);
        if (!found.problem.empty()) {
            return ::testing::AssertionFailure() << found.problem;
        }
        return ::testing::AssertionSuccess();
    }

    std::optional<PreparedPipeline> prepared_;
    std::vector<float> output_;
    lab09::PipelineJob job_;
    SerialReference serial_;
    Timeline timeline_;
};

TEST_F(Serialize, ResultsMatchCpuReference) {
    SL_STEP(record_pipeline());
    const ResultCheck check =
        check_workload_output(memory().input.data(), output_.data(), n(), prepared_->iterations, kChunks);
    if (!check.ok) {
        report_hint(
            "each chunk's D2H copy must be complete before its results are copied into job.output, and nothing "
            "may be freed while a stream still uses it");
    }
    EXPECT_TRUE(check.ok) << check.message();
}

TEST_F(Serialize, EachChunkRunsInItsOwnStream) {
    SL_STEP(record_pipeline());
    const std::size_t in_null_stream = null_stream_ops(timeline_.ops);
    report_measure("ops in the NULL stream", static_cast<double>(in_null_stream), "==", 0, "");
    if (in_null_stream > 0) {
        report_hint(
            "draw your timeline (./course run 09): find the op in the NULL stream and the call that queued it, "
            "then queue the same work in the chunk's stream");
    }
    EXPECT_EQ(in_null_stream, 0U) << "work in the legacy NULL stream waits for every blocking stream, and they for it";

    const PipelineChunks found = find_chunks(without_memsets(timeline_.ops));
    ASSERT_TRUE(found.problem.empty()) << found.problem;
    ASSERT_EQ(found.chunks.size(), static_cast<std::size_t>(kChunks))
        << "expected " << kChunks << " streams with one chunk each";
    for (const ChunkOps& chunk : found.chunks) {
        EXPECT_EQ(chunk.d2h.host_memory, HostMemory::Pinned)
            << "a D2H copy into pageable memory cannot overlap: copy into the pinned staging";
    }
}

TEST_F(Serialize, NoCudaMallocOrCudaFreeWhileBusy) {
    SL_STEP(record_pipeline());
    // Each may make every stream wait (the Programming Guide's "Implicit Synchronization").
    EXPECT_TRUE(none_while_busy(timeline_, {"cudaMalloc", "cudaFree"}, "calls of cudaMalloc and cudaFree",
                                "a device allocation or free between two streams' work may make them wait for each "
                                "other: allocate and free in the chunk's stream instead (the README's Concepts)"));
}

TEST_F(Serialize, NoPinnedAllocationWhileBusy) {
    SL_STEP(record_pipeline());
    EXPECT_TRUE(none_while_busy(timeline_,
                                {"cudaMallocHost", "cudaHostAlloc", "cudaFreeHost", "cudaHostRegister",
                                 "cudaHostUnregister"},
                                "page-locked host allocations or releases",
                                "a page-locked allocation between two streams' work makes them wait for each other: "
                                "allocate the staging before the first chunk's work, release it after the last"));
}

TEST_F(Serialize, CopiesOverlapKernels) {
    SL_STEP(record_serial_then_pipeline());
    ASSERT_TRUE(found_the_chunks());
    const std::vector<DeviceOp> modelled = modelled_ops(
        simulate_pipeline(serial_.stages, kChunks, kChunks, facts_.copy_engines, issue_order(timeline_.ops)));
    const double model_hidden = hidden_copy_fraction(modelled);
    if (model_hidden <= 0.0) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name << " has " << facts_.copy_engines
                                     << " copy engine(s): the model has no copy run beside a kernel";
    }
    const double yours = hidden_copy_fraction(timeline_.ops);
    const double share = yours / model_hidden;
    report_measure("copy time hidden behind kernels, yours / the model's", share, ">=", kMinHiddenShare, "");
    if (share < kMinHiddenShare) {
        report_hint(
            "no copy ran beside a kernel: something between two chunks makes the streams wait for each other; "
            "look at what the chunk loop calls besides the copies and the kernel");
    }
    EXPECT_GE(share, kMinHiddenShare) << "your copies ran beside kernels " << 100.0 * yours
                                      << "% of their time; the model's, " << 100.0 * model_hidden << "%";
}

TEST_F(Serialize, MakespanNearTheModel) {
    SL_STEP(record_serial_then_pipeline());
    ASSERT_TRUE(found_the_chunks());
    const PipelineComparison c = compare_with_model(serial_.timeline, timeline_, kChunks, facts_.copy_engines);
    report_measure("efficiency: the model's makespan / yours", c.efficiency(), ">=", kMinEfficiency, "");
    if (c.efficiency() < kMinEfficiency) {
        report_hint(
            "draw your timeline with the model beneath it: ./course plot build/traces/lab09-yours.json --model; "
            "a gap between one chunk's end and the next chunk's start is a call that made the streams wait");
    }
    EXPECT_GE(c.efficiency(), kMinEfficiency)
        << "your pipeline took " << c.pipelined_ms
        << " ms; from the stage times measured a moment ago the model allows " << c.model_ms << " ms\n"
        << describe(c);
}

TEST_F(Serialize, AnyChunkCountWorks) {
    // lab09.hpp promises any `chunks` >= 1. One chunk is the serial run in a
    // stream; five cut the data unevenly when n is not a multiple of five.
    for (const int chunks : {1, 5}) {
        SCOPED_TRACE("run_pipeline(job, " + std::to_string(chunks) + ")");
        SL_STEP(record_pipeline(chunks));
        const ResultCheck check =
            check_workload_output(memory().input.data(), output_.data(), n(), prepared_->iterations, chunks);
        EXPECT_TRUE(check.ok) << check.message();
        const PipelineChunks found = chunks_by_issue_order(without_memsets(timeline_.ops), chunks);
        if (!found.problem.empty()) {
            report_hint("use `chunks`, not lab09::kChunks, everywhere in run_pipeline");
        }
        EXPECT_TRUE(found.problem.empty()) << found.problem;
    }
}

}  // namespace
