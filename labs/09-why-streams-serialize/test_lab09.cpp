// Lab 09's graded tests: judges of the record that record_lab09.cpp left. The
// recording ran your code once per scenario while CUPTI recorded what the GPU did
// and which runtime calls your code made, next to the serial run on the same data,
// measured a moment before on the same GPU; the course noted what each wait cost.
// These tests read that record and never run your code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "lab09.hpp"
#include "lab09_record.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/judging.hpp"
#include "streamlab/model.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/testing.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using lab09::kChunks;

/// What every real run of record_lab09.cpp leaves: the output of each run over the set-up's n, with its
/// kernel iterations, at these chunk counts (the waits' long and short jobs in one).
[[maybe_unused]] const bool kRunsDeclared = judge_records_of({{{"pipeline", kChunks},
                                                               {"chunks_1", 1},
                                                               {"chunks_5", 5},
                                                               {"late_error_clean", kChunks},
                                                               {"wait_spin", 1},
                                                               {"wait_yield", 1},
                                                               {"wait_blocking_sync", 1},
                                                               {"wait_auto", 1},
                                                               {"wait_blocking_short", 1},
                                                               {"wait_blocking_long", 1},
                                                               {"wait_polling_short", 1},
                                                               {"wait_polling_long", 1}}});

/// The least efficiency (the model's makespan over yours) that passes. Four
/// chunks whose stages take about as long as each other give the model 6 stage
/// times against the serial run's 12, so a pipeline whose streams wait for each
/// other lands near 0.5 or below; one that overlaps as the model allows lands
/// near 1. The margin covers the stream-ordered allocations and memsets, which
/// the serial reference does not make. On the H200 (2026-12-03) the solution
/// reached 0.905 and the known-wrong catalogue samples 0.461 or less.
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
/// long as the whole H2D copy; the results land in pageable memory. Each run was
/// recorded after a warm-up run (record_lab09.cpp).
class Serialize : public RecordTest {
protected:
    /// The recorded pipeline run `name` into scenario_ and timeline_.
    void use_pipeline(const std::string& name = "pipeline") {
        SL_STEP(use_scenario(name, scenario_));
        timeline_ = *scenario_->timeline;
    }

    /// The serial reference (lab 01's way, on the same data: each stage's time alone), then your pipeline.
    void use_serial_then_pipeline() {
        const record::Scenario* serial = nullptr;
        SL_STEP(use_scenario("serial", serial));
        serial_.timeline = *serial->timeline;
        serial_.stages = stage_times(serial_.timeline.ops);
        use_pipeline();
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

    const record::Scenario* scenario_ = nullptr;
    SerialReference serial_;
    Timeline timeline_;
};

TEST_F(Serialize, ResultsMatchCpuReference) {
    SL_STEP(use_pipeline());
    expect_output_matches_reference(
        *scenario_,
        "each chunk's D2H copy must be complete before its results are copied into job.output, and nothing "
        "may be freed while a stream still uses it");
}

TEST_F(Serialize, EachChunkRunsInItsOwnStream) {
    SL_STEP(use_pipeline());
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
    SL_STEP(use_pipeline());
    // Each may make every stream wait (the Programming Guide's "Implicit Synchronization").
    EXPECT_TRUE(none_while_busy(timeline_, {"cudaMalloc", "cudaFree"}, "calls of cudaMalloc and cudaFree",
                                "a device allocation or free between two streams' work may make them wait for each "
                                "other: allocate and free in the chunk's stream instead (the README's Concepts)"));
}

TEST_F(Serialize, NoPinnedAllocationWhileBusy) {
    SL_STEP(use_pipeline());
    EXPECT_TRUE(none_while_busy(
        timeline_, {"cudaMallocHost", "cudaHostAlloc", "cudaFreeHost", "cudaHostRegister", "cudaHostUnregister"},
        "page-locked host allocations or releases",
        "a page-locked allocation between two streams' work makes them wait for each other: "
        "allocate the staging before the first chunk's work, release it after the last"));
}

TEST_F(Serialize, CopiesOverlapKernels) {
    SL_STEP(use_serial_then_pipeline());
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
    SL_STEP(use_serial_then_pipeline());
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
        SL_STEP(use_pipeline("chunks_" + std::to_string(chunks)));
        EXPECT_TRUE(output_matches_reference(*scenario_));
        const PipelineChunks found = chunks_by_issue_order(without_memsets(timeline_.ops), chunks);
        if (!found.problem.empty()) {
            report_hint("use `chunks`, not lab09::kChunks, everywhere in run_pipeline");
        }
        EXPECT_TRUE(found.problem.empty()) << found.problem;
    }
}

// ---------------------------------------------------------------- Task 2: a late error

/// How kernel launches behaved in the process that recorded a run.
enum class Launches { Queued, Blocking };

/// run_checked_pipeline on the same data as Serialize's tests: its clean runs
/// are graded from the timeline, its runs with a tripwire from what it reported
/// next to what the grader saw itself. The recording ran them last, in processes
/// of their own, started with CUDA_LAUNCH_BLOCKING=0 (LateError) or 1
/// (LateErrorLaunchBlocking): CUDA reads it when it starts, and a tripwire leaves
/// the GPU unusable for the rest of its process.
class LateError : public RecordTest {
protected:
    /// How kernel launches behaved in the fixture's runs.
    virtual Launches launches() const { return Launches::Queued; }

    /// The recorded run `name` into scenario_, and what run_checked_pipeline
    /// reported into report_. Fails when kernel launches did not behave in its
    /// process as the fixture asks (the recording checked: a launch of a long
    /// kernel, and its stream asked at once whether it is done).
    void use_run(const std::string& name) {
        SL_STEP(use_scenario(name, scenario_));
        report_.chunk = whole_number<int>(scenario_->value("chunk"), -1e9, 1e9);
        report_.error = static_cast<cudaError_t>(whole_number<int>(scenario_->value("error"), 0, 10000));
        const bool blocked = scenario_->value("launches_block") != 0.0;
        ASSERT_EQ(blocked, launches() == Launches::Blocking)
            << "CUDA_LAUNCH_BLOCKING did not take effect in the process that recorded " << name;
    }

    /// The run into the tripwire (scenario `name`): kTripwire at a random element of
    /// a random chunk of the input, so that the run fails in that chunk's kernel.
    /// Fails when run_checked_pipeline threw, or when the faulty kernel did not fail
    /// (the grader's own wait after the run says).
    void use_tripwire_run(const std::string& name) {
        const record::Scenario* ran = judged().find(name);
        if (ran != nullptr && ran->outcome == record::Outcome::Failed &&
            ran->message.rfind(lab09::course::kThrewInsteadOfReporting, 0) == 0) {
            report_hint(
                "a wait that throws (Stream::synchronize, SL_CHECK) cannot report: keep the cudaError_t the wait "
                "returns (cudaStreamSynchronize) and put it in the ChunkError you return");
        }
        SL_STEP(use_run(name));
        tripwire_chunk_ = whole_number<int>(scenario_->value("tripwire_chunk"), -1e9, 1e9);
        report_note("tripwire",
                    "planted at element " +
                        std::to_string(whole_number<std::uint64_t>(scenario_->value("tripwire_index"), 0, 1e18)) +
                        ", in chunk " + std::to_string(tripwire_chunk_) + " (0-based)");
        const auto seen = static_cast<cudaError_t>(whole_number<int>(scenario_->value("seen_after"), 0, 10000));
        ASSERT_EQ(seen, cudaErrorIllegalAddress)
            << "after run_checked_pipeline the grader's cudaDeviceSynchronize() returned " << cudaGetErrorName(seen)
            << ", not the faulty kernel's cudaErrorIllegalAddress: chunk " << tripwire_chunk_
            << "'s kernel, which holds the tripwire, must run";
        report_measure("error reported is cudaErrorIllegalAddress (1 = yes)",
                       report_.error == cudaErrorIllegalAddress ? 1.0 : 0.0, "==", 1.0, "");
        EXPECT_EQ(report_.error, cudaErrorIllegalAddress)
            << "run_checked_pipeline reported " << cudaGetErrorName(report_.error) << " (chunk " << report_.chunk
            << ") for a run whose kernel failed with cudaErrorIllegalAddress";
    }

    const record::Scenario* scenario_ = nullptr;
    lab09::ChunkError report_;
    int tripwire_chunk_ = -1;
};

/// LateError's tests with CUDA_LAUNCH_BLOCKING=1: every kernel launch returns
/// only once its kernel has run.
class LateErrorLaunchBlocking : public LateError {
protected:
    Launches launches() const override { return Launches::Blocking; }
};

TEST_F(LateError, CleanRunReportsNoError) {
    SL_STEP(use_run("late_error_clean"));
    EXPECT_EQ(report_.error, cudaSuccess) << "run_checked_pipeline reported " << cudaGetErrorName(report_.error)
                                          << " (chunk " << report_.chunk << ") for a run in which nothing failed";
    EXPECT_EQ(report_.chunk, -1) << "with no error, the report names no chunk (-1)";
    expect_output_matches_reference(
        *scenario_, "each chunk's H2D copy, kernel and D2H copy go to its own part of each buffer (chunk.offset)");
}

TEST_F(LateError, ChecksKeepThePipelineOverlapped) {
    const record::Scenario* serial = nullptr;
    SL_STEP(use_scenario("serial", serial));
    SL_STEP(use_run("late_error_overlap"));
    const Timeline& timeline = *scenario_->timeline;
    ASSERT_EQ(report_.error, cudaSuccess) << cudaGetErrorName(report_.error) << " in a run in which nothing failed";
    const PipelineChunks found = chunks_by_issue_order(timeline.ops, kChunks);
    ASSERT_TRUE(found.problem.empty()) << found.problem;
    const double model_hidden = hidden_copy_fraction(modelled_ops(simulate_pipeline(
        stage_times(serial->timeline->ops), kChunks, kChunks, facts_.copy_engines, issue_order(timeline.ops))));
    if (model_hidden <= 0.0) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name << " has " << facts_.copy_engines
                                     << " copy engine(s): the model has no copy run beside a kernel";
    }
    EXPECT_TRUE(share_of_model_reached(
        "copy time hidden behind kernels, yours / the model's", hidden_copy_fraction(timeline.ops), model_hidden,
        kMinHiddenShare,
        "a wait in the chunk loop (to catch each kernel's error where it happens) makes every chunk wait for the one "
        "before: check the launch with cudaGetLastError(), which waits for nothing, and wait once, after the loop"));
}

TEST_F(LateError, ReportsTheErrorAtTheWait) {
    SL_STEP(use_tripwire_run("late_error_tripwire"));
    const bool named_right = report_.chunk == -1 || report_.chunk == tripwire_chunk_;
    report_measure("a wrong chunk named (1 = yes)", named_right ? 0.0 : 1.0, "==", 0.0, "");
    if (!named_right) {
        report_hint(
            "an illegal address is a sticky error: once a kernel has hit it, every later call returns it, in any "
            "stream. The call that returned it says nothing about the kernel that failed: an error that shows at a "
            "wait, or at a later chunk's call, names no chunk (-1)");
    }
    EXPECT_TRUE(named_right) << "run_checked_pipeline named chunk " << report_.chunk << "; the tripwire was in chunk "
                             << tripwire_chunk_ << ", and an error seen only at a wait names none (-1)";
}

TEST_F(LateErrorLaunchBlocking, NamesTheFailingChunk) {
    SL_STEP(use_tripwire_run("late_error_blocking_tripwire"));
    report_measure("chunk named (0-based)", report_.chunk, "==", tripwire_chunk_, "");
    if (report_.chunk != tripwire_chunk_) {
        report_hint(
            "with CUDA_LAUNCH_BLOCKING=1 a launch returns once its kernel has run: cudaGetLastError() right after "
            "the launch returns the kernel's error. Check there, and stop queuing at the first error");
    }
    EXPECT_EQ(report_.chunk, tripwire_chunk_)
        << "the tripwire was in chunk " << tripwire_chunk_ << "; run_checked_pipeline named " << report_.chunk;
}

}  // namespace

// ------------------------------------------------------------ Task 3: the waiting host
// The course queues GPU work in a stream of its own (wait_side.hpp: the pipeline's
// memory in, kernels, the results out) and hands the stream to your wait. Around
// the call it notes the process's CPU time (every thread's) and the time on the
// timeline's clock; the GPU's last op comes from CUPTI's record. Each wait is
// graded with two lengths of work, the second five times as many kernels as the
// first, so that no fixed sleep or fixed count of slices fits both. The record
// holds what the course saw of each wait (lab09_record.hpp: WaitValues).

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "streamlab/answers.hpp"
#include "wait_side.hpp"

namespace {  // the same namespace as Task 1's tests, with its using-directives

using lab09::course::job_scenario;
using lab09::course::kLongJobKernels;
using lab09::course::kShortJobKernels;
using lab09::course::WaitValues;
using lab09::course::WaitWay;

/// The most CPU time a blocking wait may use, as a share of its wall time. A
/// thread that spins uses about 1; one asleep, next to nothing.
constexpr double kMaxBlockingCpuShare = 0.2;

/// The latest a blocking wait may return after the GPU's last op ended, as a
/// share of the GPU work's span (its first op's start to its last op's end).
/// Waking a sleeping thread takes tens of microseconds; the work, milliseconds.
constexpr double kMaxBlockingWakeShare = 0.05;

/// The least share of wait_polling's wall time that the host's slices must fill.
constexpr double kMinHostWorkShare = 0.8;

/// The latest wait_polling may return after the GPU's last op ended, in slices
/// (their mean length in the same run): the slice under way when the work ended,
/// and room to spare.
constexpr double kMaxPollingWakeSlices = 3.0;

/// How far the host's and the GPU's clocks may read apart for the same instant
/// (CUPTI puts the GPU's timestamps on the host's clock): a wait that returns
/// less than this before the GPU's last op ended is taken to return after it.
constexpr std::int64_t kClockSlackNs = 10000;

/// Your waits for the course's job, as the recording observed them (each called
/// once to warm up before the recorded call); each test reads one with use_wait.
class WaitingHost : public RecordTest {
protected:
    /// The recorded wait `name` into wait_, timeline_ and delay_ns_.
    void use_wait(const std::string& name) {
        SL_STEP(use_scenario(name, scenario_));
        timeline_ = *scenario_->timeline;
        wait_ = lab09::course::wait_of(*scenario_);
        delay_ns_ = lab09::course::delay_after_last_op_ns(timeline_, wait_.returned_ns);
    }

    /// What a job is called in the reports.
    static std::string job_name(int kernels) { return kernels == kShortJobKernels ? "the short job" : "the long job"; }

    /// Reports the wake-up delay and whether the wait returned after the GPU's last op.
    ::testing::AssertionResult returned_after_the_work(const std::string& what) const {
        report_measure(what + ": from the GPU's last op to the return", static_cast<double>(delay_ns_) / 1e3,
                       ">=", -static_cast<double>(kClockSlackNs) / 1e3, "us");
        if (delay_ns_ >= -kClockSlackNs) {
            return ::testing::AssertionSuccess();
        }
        report_hint("a wait returns only once every op queued in the stream has finished");
        return ::testing::AssertionFailure()
               << what << " returned " << static_cast<double>(-delay_ns_) / 1e3 << " us before the GPU's last op ended";
    }

    const record::Scenario* scenario_ = nullptr;
    Timeline timeline_;
    WaitValues wait_;
    std::int64_t delay_ns_ = 0;
};

/// The events created and destroyed in `timeline`'s recording, as its runtime calls counted them.
std::int64_t events_left(const Timeline& timeline) {
    return static_cast<std::int64_t>(count_api_calls(timeline, {"cudaEventCreate", "cudaEventCreateWithFlags"})) -
           static_cast<std::int64_t>(count_api_calls(timeline, {"cudaEventDestroy"}));
}

TEST_F(WaitingHost, BlockingWaitLeavesTheCpuFree) {
    bool flags_changed = false;
    for (const int kernels : {kShortJobKernels, kLongJobKernels}) {
        const std::string what = "wait_blocking, " + job_name(kernels);
        SCOPED_TRACE(what);
        SL_STEP(use_wait(job_scenario("wait_blocking", kernels)));
        EXPECT_TRUE(returned_after_the_work(what));

        const double share = wait_.cpu_share();
        report_measure(what + ": CPU time / wall time", share, "<=", kMaxBlockingCpuShare, "");
        if (share > kMaxBlockingCpuShare) {
            report_hint(
                "a thread that waits in cudaStreamSynchronize spins under the default schedule: wait for an event "
                "made to block (the README's Concepts)");
        }
        EXPECT_LE(share, kMaxBlockingCpuShare)
            << "the process used " << ms(wait_.cpu_ns) << " ms of CPU time in a " << ms(wait_.wall_ns()) << " ms wait";

        const double span_ns = static_cast<double>(makespan_ns(timeline_.ops));
        const double most_delay_ns = kMaxBlockingWakeShare * span_ns;
        report_measure(what + ": wake-up delay", static_cast<double>(delay_ns_) / 1e3, "<=", most_delay_ns / 1e3, "us");
        if (static_cast<double>(delay_ns_) > most_delay_ns) {
            report_hint("sleep until the work is done, not for a time of your choosing: let CUDA wake the thread");
        }
        EXPECT_LE(static_cast<double>(delay_ns_), most_delay_ns)
            << "returned " << static_cast<double>(delay_ns_) / 1e3 << " us after the GPU's last op ended, in "
            << span_ns / 1e6 << " ms of GPU work";

        const std::int64_t left = events_left(timeline_);
        report_measure(what + ": events left behind", static_cast<double>(left), "==", 0, "");
        EXPECT_EQ(left, 0) << "every event wait_blocking creates it must destroy";
        flags_changed = flags_changed || wait_.device_flags_after != wait_.device_flags_before;
    }
    if (flags_changed) {
        report_hint("the device's flags are the whole process's: leave them alone and choose how to wait per wait");
    }
    EXPECT_FALSE(flags_changed) << "wait_blocking changed the device's flags (cudaGetDeviceFlags)";
}

TEST_F(WaitingHost, WaitsReturnOnlyWhenTheWorkIsDone) {
    for (const char* name : {"wait_blocking", "wait_polling"}) {
        SCOPED_TRACE(name);
        SL_STEP(use_wait(job_scenario(name, kShortJobKernels)));
        EXPECT_TRUE(returned_after_the_work(name));
        EXPECT_TRUE(output_matches_reference(*scenario_)) << name << ": the results read the moment it returned";
    }
}

TEST_F(WaitingHost, PollingDoesHostWork) {
    for (const int kernels : {kShortJobKernels, kLongJobKernels}) {
        const std::string what = "wait_polling, " + job_name(kernels);
        SCOPED_TRACE(what);
        SL_STEP(use_wait(job_scenario("wait_polling", kernels)));
        EXPECT_TRUE(returned_after_the_work(what));

        const double share = wait_.work_share();
        report_measure(what + ": time in host_work / wall time", share, ">=", kMinHostWorkShare, "");
        if (share < kMinHostWorkShare) {
            report_hint("call host_work again and again while cudaStreamQuery says the stream is not ready");
        }
        EXPECT_GE(share, kMinHostWorkShare)
            << wait_.slices << " slices took " << ms(wait_.work_ns) << " ms of a " << ms(wait_.wall_ns()) << " ms wait";

        const double slice_ns = static_cast<double>(wait_.mean_slice_ns);
        const double wake_slices = static_cast<double>(delay_ns_) / slice_ns;
        report_measure(what + ": wake-up delay, in slices of host work", wake_slices, "<=", kMaxPollingWakeSlices, "");
        if (wake_slices > kMaxPollingWakeSlices) {
            report_hint("ask the stream before every slice, and return as soon as it says it is done");
        }
        EXPECT_LE(wake_slices, kMaxPollingWakeSlices)
            << "returned " << static_cast<double>(delay_ns_) / 1e3 << " us after the GPU's last op ended; a slice took "
            << slice_ns / 1e3 << " us";

        report_measure(what + ": slices on another thread", wait_.slices_elsewhere, "==", 0, "");
        if (wait_.slices_elsewhere > 0) {
            report_hint("the host's work is the waiting thread's own: call host_work on the thread that called you");
        }
        EXPECT_EQ(wait_.slices_elsewhere, 0) << "host_work ran on a thread other than the one that waited";
    }
}

// ------------------------------------------------------------ Task 3: your choice

/// How far the CPU share you quote in choice.txt (lab09_wait_modes' CPU/wall for
/// your wait) may be from the one the grader measures for it: the two runs are
/// different processes, on different jobs maybe, but a wait that sleeps and one
/// that keeps a core busy lie near 0 and near 1.
constexpr double kQuotedCpuShareSlack = 0.2;

/// Task 3's choice (choice.txt, read by the test, never by your code): the way
/// you would wait in a host that has work of its own to do. The recording waited
/// for the long job each way (lab09_record.hpp: kWaitWays), under the schedule
/// flag it needs, set before CUDA started in a process of its own, as
/// lab09_wait_modes does; the test reads the wait you named.
class WaitChoice : public WaitingHost {
protected:
    void SetUp() override {
        file_ = answers::read_answer_file("choice.txt");
        std::string why;
        said_ = file_.answer("wait", why);
        way_ = lab09::course::wait_way(said_);
        problem_ = said_.empty() ? why
                   : way_ == nullptr
                       ? file_.path +
                             ", `wait:` must be one of spin, yield, blocking-sync, auto, event or polling, "
                             "not `" +
                             said_ + "`"
                       : "";
        SL_STEP(WaitingHost::SetUp());
    }

    answers::AnswerFile file_;
    std::string said_;              ///< Your `wait:` answer.
    const WaitWay* way_ = nullptr;  ///< The way it names, or nullptr.
    std::string problem_;           ///< Why no way can be waited, or empty.
};

TEST_F(WaitChoice, SuitsAHostWithOtherWork) {
    report_note("your choice", said_.empty() ? std::string("none") : said_);
    ASSERT_NE(way_, nullptr) << problem_;
    SL_STEP(use_wait(way_->scenario));
    if (way_->schedule != cudaDeviceScheduleAuto) {
        ASSERT_EQ(wait_.device_flags_after & cudaDeviceScheduleMask, way_->schedule)
            << "the recording's wait for " << way_->name << " ran under another schedule flag (cudaGetDeviceFlags "
            << wait_.device_flags_after << ")";
    }
    EXPECT_TRUE(returned_after_the_work(way_->name));

    // A host with work of its own needs the wait to leave it that work: a thread
    // asleep leaves its core to the others, a poll does the work between questions.
    const double cpu_share = wait_.cpu_share();
    const double work_share = wait_.work_share();
    const bool sleeps = cpu_share <= kMaxBlockingCpuShare;
    const bool works = work_share >= kMinHostWorkShare;
    const std::string what = std::string("your choice, ") + way_->name;
    report_measure(what + ": CPU time / wall time", cpu_share, "<=", kMaxBlockingCpuShare, "");
    report_measure(what + ": time in host_work / wall time", work_share, ">=", kMinHostWorkShare, "");
    if (!sleeps && !works) {
        report_hint(
            "a host with work to do needs a wait that lets the core go (it sleeps) or does the work itself "
            "(it polls): compare the CPU/wall and work/wall columns of lab09_wait_modes");
    }
    EXPECT_TRUE(sleeps || works) << way_->name << " kept a core busy for " << cpu_share
                                 << " of the wait and did none of the host's work in it (" << work_share << ")";

    std::string why;
    const std::string quoted = file_.answer("cpu", why);
    char* end = nullptr;
    const double quoted_share = std::strtod(quoted.c_str(), &end);
    const bool number = !quoted.empty() && end != quoted.c_str() && *end == '\0';
    report_note("your measured CPU share, quoted",
                (quoted.empty() ? std::string("none") : quoted) + "; the grader's: " + std::to_string(cpu_share));
    EXPECT_TRUE(number) << (quoted.empty()
                                ? why
                                : file_.path + ", `cpu:` must be a number from 0 to 1, not `" + quoted + "`");
    if (number) {
        if (std::abs(quoted_share - cpu_share) > kQuotedCpuShareSlack) {
            report_hint("quote the CPU/wall that lab09_wait_modes printed for your choice on your GPU");
        }
        EXPECT_LE(std::abs(quoted_share - cpu_share), kQuotedCpuShareSlack)
            << "you quote a CPU share of " << quoted << "; the grader measured " << cpu_share;
    }

    const std::string reason = file_.answer("why", why);
    report_note("why you chose it", reason.empty() ? std::string("none") : reason);
    EXPECT_FALSE(reason.empty()) << why;
}

}  // namespace
