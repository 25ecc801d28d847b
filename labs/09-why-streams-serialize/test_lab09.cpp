// Lab 09's graded tests. They run your pipeline while CUPTI records what the GPU
// did and which runtime calls your code made, and grade that record against the
// serial run and the pipeline model, both measured a moment before on the same
// GPU and the same data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
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
    EXPECT_TRUE(none_while_busy(
        timeline_, {"cudaMallocHost", "cudaHostAlloc", "cudaFreeHost", "cudaHostRegister", "cudaHostUnregister"},
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

// ---------------------------------------------------------------- Task 2: a late error

/// What a test asks CUDA_LAUNCH_BLOCKING to be.
enum class Launches { Queued, Blocking };

/// run_checked_pipeline on the same data as Serialize's tests: its clean runs
/// are graded from the timeline, its runs with a tripwire from what it reports
/// next to what the grader sees itself. Each test sets CUDA_LAUNCH_BLOCKING
/// before CUDA starts in its process: each graded test runs in a process of its own.
class LateError : public TimelineTest {
protected:
    /// How kernel launches behave in the fixture's tests.
    virtual Launches launches() const { return Launches::Queued; }

    void SetUp() override {
        // CUDA reads the variable when it starts, which TimelineTest::SetUp makes it do.
        setenv("CUDA_LAUNCH_BLOCKING", launches() == Launches::Blocking ? "1" : "0", 1);
        SL_STEP(TimelineTest::SetUp());
        prepared_.emplace(prepare_pipeline(facts_));
        job_ = job_over<lab09::CheckedJob>(memory(), prepared_->iterations);
        if (launches_block() != (launches() == Launches::Blocking)) {
            GTEST_SKIP() << "CUDA_LAUNCH_BLOCKING did not take effect: CUDA had started in this process before the "
                            "test set it; run the test alone: ctest -R 'lab09[.].*[.]"
                         << ::testing::UnitTest::GetInstance()->current_test_info()->name() << "$'";
        }
    }

    PipelineMemory& memory() { return prepared_->memory; }
    std::size_t n() { return memory().size(); }

    /// Whether a kernel launch returns only once its kernel has run: a workload
    /// kernel over all the data (about as long as the whole H2D copy) is
    /// launched, and its stream asked at once whether it is done.
    bool launches_block() {
        const Stream stream(cudaStreamNonBlocking);
        SL_CHECK(cudaMemsetAsync(memory().device_input.data(), 0, memory().device_input.bytes(), stream.get()));
        stream.synchronize();
        launch_workload(memory().device_input.data(), memory().device_output.data(), n(), prepared_->iterations,
                        stream.get());
        const cudaError_t state = cudaStreamQuery(stream.get());
        stream.synchronize();
        if (state != cudaErrorNotReady) {
            SL_CHECK(state);
        }
        return state == cudaSuccess;
    }

    /// Puts lab09::kTripwire at a random element of a random chunk of the input:
    /// a run then fails in that chunk's kernel, and leaves this process's GPU
    /// context unusable. So a test that plants it is skipped when other tests
    /// share its process (they would all fail after it).
    void plant_tripwire() {
        if (::testing::UnitTest::GetInstance()->test_to_run_count() > 1) {
            GTEST_SKIP() << "this test leaves the GPU unusable for the rest of its process: run it alone, "
                            "as ctest does";
        }
        tripwire_ = lab09::plant_tripwire(memory().input.data(), n(), kChunks);
        report_note("tripwire", "planted at element " + std::to_string(tripwire_.index) + ", in chunk " +
                                    std::to_string(tripwire_.chunk) + " (0-based)");
    }

    /// Runs run_checked_pipeline over the data with the tripwire; then checks, by
    /// the grader's own wait, that the faulty kernel really failed. Fails when
    /// the function threw or when the kernel did not fail.
    void run_into_the_tripwire() {
        try {
            report_ = lab09::run_checked_pipeline(job_, kChunks);
        } catch (const std::exception& thrown) {
            report_hint(
                "a wait that throws (Stream::synchronize, SL_CHECK) cannot report: keep the cudaError_t the wait "
                "returns (cudaStreamSynchronize) and put it in the ChunkError you return");
            FAIL() << "run_checked_pipeline threw instead of returning the error: " << thrown.what();
        }
        const cudaError_t seen = cudaDeviceSynchronize();
        ASSERT_EQ(seen, cudaErrorIllegalAddress)
            << "after run_checked_pipeline the grader's cudaDeviceSynchronize() returned " << cudaGetErrorName(seen)
            << ", not the faulty kernel's cudaErrorIllegalAddress: chunk " << tripwire_.chunk
            << "'s kernel, which holds the tripwire, must run";
        report_measure("error reported is cudaErrorIllegalAddress (1 = yes)",
                       report_.error == cudaErrorIllegalAddress ? 1.0 : 0.0, "==", 1.0, "");
        EXPECT_EQ(report_.error, cudaErrorIllegalAddress)
            << "run_checked_pipeline reported " << cudaGetErrorName(report_.error) << " (chunk " << report_.chunk
            << ") for a run whose kernel failed with cudaErrorIllegalAddress";
    }

    std::optional<PreparedPipeline> prepared_;
    lab09::CheckedJob job_;
    lab09::Tripwire tripwire_;
    lab09::ChunkError report_;
    SerialReference serial_;
    Timeline timeline_;
};

/// LateError's tests with CUDA_LAUNCH_BLOCKING=1: every kernel launch returns
/// only once its kernel has run.
class LateErrorLaunchBlocking : public LateError {
protected:
    Launches launches() const override { return Launches::Blocking; }
};

// The tests that leave the context usable come first: run in one process without
// a filter, the binary would otherwise fail every test after a tripwire.

TEST_F(LateError, CleanRunReportsNoError) {
    fill_poison(memory().output.data(), n());
    const lab09::ChunkError report = lab09::run_checked_pipeline(job_, kChunks);
    EXPECT_EQ(report.error, cudaSuccess) << "run_checked_pipeline reported " << cudaGetErrorName(report.error)
                                         << " (chunk " << report.chunk << ") for a run in which nothing failed";
    EXPECT_EQ(report.chunk, -1) << "with no error, the report names no chunk (-1)";
    const ResultCheck check =
        check_workload_output(memory().input.data(), memory().output.data(), n(), prepared_->iterations, kChunks);
    if (!check.ok) {
        report_hint("each chunk's H2D copy, kernel and D2H copy go to its own part of each buffer (chunk.offset)");
    }
    EXPECT_TRUE(check.ok) << check.message();
}

TEST_F(LateError, ChecksKeepThePipelineOverlapped) {
    try {
        serial_ = run_serial_reference(memory(), prepared_->iterations);
    } catch (const TimelineUnavailable& unavailable) {
        SL_SKIP_UNLESS_BROKEN_HERE(tracer_started_before(), unavailable.what());
    }
    lab09::ChunkError report = lab09::run_checked_pipeline(job_, kChunks);  // warm-up
    SL_RECORD_TIMELINE(timeline_, "lab09 run_checked_pipeline",
                       [&] { report = lab09::run_checked_pipeline(job_, kChunks); });
    ASSERT_EQ(report.error, cudaSuccess) << cudaGetErrorName(report.error) << " in a run in which nothing failed";
    const PipelineChunks found = chunks_by_issue_order(timeline_.ops, kChunks);
    ASSERT_TRUE(found.problem.empty()) << found.problem;
    const double model_hidden = hidden_copy_fraction(modelled_ops(
        simulate_pipeline(serial_.stages, kChunks, kChunks, facts_.copy_engines, issue_order(timeline_.ops))));
    if (model_hidden <= 0.0) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name << " has " << facts_.copy_engines
                                     << " copy engine(s): the model has no copy run beside a kernel";
    }
    EXPECT_TRUE(share_of_model_reached(
        "copy time hidden behind kernels, yours / the model's", hidden_copy_fraction(timeline_.ops), model_hidden,
        kMinHiddenShare,
        "a wait in the chunk loop (to catch each kernel's error where it happens) makes every chunk wait for the one "
        "before: check the launch with cudaGetLastError(), which waits for nothing, and wait once, after the loop"));
}

TEST_F(LateError, ReportsTheErrorAtTheWait) {
    SL_STEP(plant_tripwire());
    SL_STEP(run_into_the_tripwire());
    const bool named_right = report_.chunk == -1 || report_.chunk == tripwire_.chunk;
    report_measure("a wrong chunk named (1 = yes)", named_right ? 0.0 : 1.0, "==", 0.0, "");
    if (!named_right) {
        report_hint(
            "an illegal address is a sticky error: once a kernel has hit it, every later call returns it, in any "
            "stream. The call that returned it says nothing about the kernel that failed: an error that shows at a "
            "wait, or at a later chunk's call, names no chunk (-1)");
    }
    EXPECT_TRUE(named_right) << "run_checked_pipeline named chunk " << report_.chunk << "; the tripwire was in chunk "
                             << tripwire_.chunk << ", and an error seen only at a wait names none (-1)";
}

TEST_F(LateErrorLaunchBlocking, NamesTheFailingChunk) {
    SL_STEP(plant_tripwire());
    SL_STEP(run_into_the_tripwire());
    report_measure("chunk named (0-based)", report_.chunk, "==", tripwire_.chunk, "");
    if (report_.chunk != tripwire_.chunk) {
        report_hint(
            "with CUDA_LAUNCH_BLOCKING=1 a launch returns once its kernel has run: cudaGetLastError() right after "
            "the launch returns the kernel's error. Check there, and stop queuing at the first error");
    }
    EXPECT_EQ(report_.chunk, tripwire_.chunk)
        << "the tripwire was in chunk " << tripwire_.chunk << "; run_checked_pipeline named " << report_.chunk;
}

}  // namespace

// ------------------------------------------------------------ Task 3: the waiting host
// The course queues GPU work in a stream of its own (wait_side.hpp: the pipeline's
// memory in, kernels, the results out) and hands the stream to your wait. Around
// the call it notes the process's CPU time (every thread's) and the time on the
// timeline's clock; the GPU's last op comes from CUPTI's record. Each wait is
// graded with two lengths of work, the second five times as many kernels as the
// first, so that no fixed sleep or fixed count of slices fits both.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "streamlab/answers.hpp"
#include "wait_side.hpp"

namespace {  // the same namespace as Task 1's tests, with its using-directives

using lab09::course::HostWork;
using lab09::course::kLongJobKernels;
using lab09::course::kShortJobKernels;
using lab09::course::ObservedWait;
using lab09::course::WaitJob;

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

/// The course's job and the length of the host's slice, both from the GPU at hand;
/// each test records your waits with record_wait.
class WaitingHost : public TimelineTest {
protected:
    void SetUp() override {
        SL_STEP(TimelineTest::SetUp());
        job_.emplace(facts_);
        slice_ns_ = job_->host_slice_ns();
    }

    /// Runs `wait` once unrecorded (its first call pays one-time costs), then
    /// queues the job with `kernels` kernels while CUPTI records, observes the
    /// wait for it, and reads the results the moment it returns.
    /// `work`, when given, forgets the warm-up's slices.
    void record_wait(int kernels, const std::function<void(cudaStream_t)>& wait, HostWork* work = nullptr) {
        job_->warm_up(wait);
        if (work != nullptr) {
            work->reset();
        }
        SL_RECORD_TIMELINE(timeline_, "lab09 wait", [&] { wait_ = job_->queue_and_wait(kernels, wait); });
        delay_ns_ = lab09::course::wake_up_delay_ns(timeline_, wait_.cost.returned_ns);
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

    std::optional<WaitJob> job_;
    std::uint64_t slice_ns_ = 0;
    Timeline timeline_;
    ObservedWait wait_;
    std::int64_t delay_ns_ = 0;
};

/// Process-wide state a wait must leave alone: the device's schedule flags.
unsigned int device_flags() {
    unsigned int flags = 0;
    SL_CHECK(cudaGetDeviceFlags(&flags));
    return flags;
}

/// The events created and destroyed in `timeline`'s recording, as its runtime calls counted them.
std::int64_t events_left(const Timeline& timeline) {
    return static_cast<std::int64_t>(count_api_calls(timeline, {"cudaEventCreate", "cudaEventCreateWithFlags"})) -
           static_cast<std::int64_t>(count_api_calls(timeline, {"cudaEventDestroy"}));
}

TEST_F(WaitingHost, BlockingWaitLeavesTheCpuFree) {
    const unsigned int flags_before = device_flags();
    for (const int kernels : {kShortJobKernels, kLongJobKernels}) {
        const std::string what = "wait_blocking, " + job_name(kernels);
        SCOPED_TRACE(what);
        SL_STEP(record_wait(kernels, [](cudaStream_t stream) { lab09::wait_blocking(stream); }));
        EXPECT_TRUE(returned_after_the_work(what));

        const double share = wait_.cost.cpu_share();
        report_measure(what + ": CPU time / wall time", share, "<=", kMaxBlockingCpuShare, "");
        if (share > kMaxBlockingCpuShare) {
            report_hint(
                "a thread that waits in cudaStreamSynchronize spins under the default schedule: wait for an event "
                "made to block (the README's Concepts)");
        }
        EXPECT_LE(share, kMaxBlockingCpuShare) << "the process used " << ms(wait_.cost.cpu_ns)
                                               << " ms of CPU time in a " << ms(wait_.cost.wall_ns()) << " ms wait";

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
    }
    const unsigned int flags_after = device_flags();
    if (flags_after != flags_before) {
        report_hint("the device's flags are the whole process's: leave them alone and choose how to wait per wait");
    }
    EXPECT_EQ(flags_after, flags_before) << "wait_blocking changed the device's flags (cudaGetDeviceFlags)";
}

TEST_F(WaitingHost, WaitsReturnOnlyWhenTheWorkIsDone) {
    HostWork work(slice_ns_);
    const std::function<void(cudaStream_t)> waits[] = {
        [](cudaStream_t stream) { lab09::wait_blocking(stream); },
        [&](cudaStream_t stream) { lab09::wait_polling(stream, work.as_function()); },
    };
    const char* names[] = {"wait_blocking", "wait_polling"};
    for (int i = 0; i < 2; ++i) {
        SCOPED_TRACE(names[i]);
        SL_STEP(record_wait(kShortJobKernels, waits[i]));
        EXPECT_TRUE(returned_after_the_work(names[i]));
        EXPECT_TRUE(wait_.results.ok) << names[i]
                                      << ": the results read the moment it returned: " << wait_.results.message();
    }
}

TEST_F(WaitingHost, PollingDoesHostWork) {
    for (const int kernels : {kShortJobKernels, kLongJobKernels}) {
        const std::string what = "wait_polling, " + job_name(kernels);
        SCOPED_TRACE(what);
        HostWork work(slice_ns_);
        SL_STEP(
            record_wait(kernels, [&](cudaStream_t stream) { lab09::wait_polling(stream, work.as_function()); }, &work));
        EXPECT_TRUE(returned_after_the_work(what));

        const double share = static_cast<double>(work.busy_ns()) / static_cast<double>(wait_.cost.wall_ns());
        report_measure(what + ": time in host_work / wall time", share, ">=", kMinHostWorkShare, "");
        if (share < kMinHostWorkShare) {
            report_hint("call host_work again and again while cudaStreamQuery says the stream is not ready");
        }
        EXPECT_GE(share, kMinHostWorkShare) << work.slices() << " slices took " << ms(work.busy_ns()) << " ms of a "
                                            << ms(wait_.cost.wall_ns()) << " ms wait";

        const double slice_ns = static_cast<double>(work.mean_slice_ns());
        const double wake_slices = static_cast<double>(delay_ns_) / slice_ns;
        report_measure(what + ": wake-up delay, in slices of host work", wake_slices, "<=", kMaxPollingWakeSlices, "");
        if (wake_slices > kMaxPollingWakeSlices) {
            report_hint("ask the stream before every slice, and return as soon as it says it is done");
        }
        EXPECT_LE(wake_slices, kMaxPollingWakeSlices)
            << "returned " << static_cast<double>(delay_ns_) / 1e3 << " us after the GPU's last op ended; a slice took "
            << slice_ns / 1e3 << " us";

        report_measure(what + ": slices on another thread", work.slices_elsewhere(), "==", 0, "");
        if (work.slices_elsewhere() > 0) {
            report_hint("the host's work is the waiting thread's own: call host_work on the thread that called you");
        }
        EXPECT_EQ(work.slices_elsewhere(), 0) << "host_work ran on a thread other than the one that waited";
    }
}

// ------------------------------------------------------------ Task 3: your choice

/// How far the CPU share you quote in choice.txt (lab09_wait_modes' CPU/wall for
/// your wait) may be from the one the grader measures for it: the two runs are
/// different processes, on different jobs maybe, but a wait that sleeps and one
/// that keeps a core busy lie near 0 and near 1.
constexpr double kQuotedCpuShareSlack = 0.2;

/// The ways to wait that choice.txt may name: lab09_wait_modes' rows.
struct WaitWay {
    const char* name;       ///< As the program's table and choice.txt write it.
    unsigned int schedule;  ///< The device's schedule flag it waits under (cudaDeviceScheduleAuto: left alone).
};

constexpr WaitWay kWaitWays[] = {
    {"spin", cudaDeviceScheduleSpin},
    {"yield", cudaDeviceScheduleYield},
    {"blocking-sync", cudaDeviceScheduleBlockingSync},
    {"auto", cudaDeviceScheduleAuto},
    {"event", cudaDeviceScheduleAuto},
    {"polling", cudaDeviceScheduleAuto},
};

/// The way `name` names, or nullptr.
const WaitWay* wait_way(const std::string& name) {
    for (const WaitWay& way : kWaitWays) {
        if (name == way.name) {
            return &way;
        }
    }
    return nullptr;
}

/// Task 3's choice (choice.txt, read by the test, never by your code): the way
/// you would wait in a host that has work of its own to do. The grader waits for
/// the long job that way itself, under the schedule flag it needs, which it sets
/// before CUDA starts in this process, as lab09_wait_modes does.
class WaitChoice : public WaitingHost {
protected:
    void SetUp() override {
        file_ = answers::read_answer_file("choice.txt");
        std::string why;
        said_ = file_.answer("wait", why);
        way_ = wait_way(said_);
        problem_ = said_.empty() ? why
                   : way_ == nullptr
                       ? file_.path +
                             ", `wait:` must be one of spin, yield, blocking-sync, auto, event or polling, "
                             "not `" +
                             said_ + "`"
                       : "";
        SL_REQUIRE_GPU();
        if (way_ != nullptr && way_->schedule != cudaDeviceScheduleAuto) {
            SL_CHECK(cudaSetDeviceFlags(way_->schedule));  // before the job's memory and stream start CUDA's context
        }
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
    HostWork work(slice_ns_);
    std::function<void(cudaStream_t)> wait = [](cudaStream_t stream) { SL_CHECK(cudaStreamSynchronize(stream)); };
    if (std::string(way_->name) == "event") {
        wait = [](cudaStream_t stream) { lab09::wait_blocking(stream); };
    } else if (std::string(way_->name) == "polling") {
        wait = [&](cudaStream_t stream) { lab09::wait_polling(stream, work.as_function()); };
    }
    SL_STEP(record_wait(kLongJobKernels, wait, &work));
    EXPECT_TRUE(returned_after_the_work(way_->name));

    // A host with work of its own needs the wait to leave it that work: a thread
    // asleep leaves its core to the others, a poll does the work between questions.
    const double cpu_share = wait_.cost.cpu_share();
    const double work_share = static_cast<double>(work.busy_ns()) / static_cast<double>(wait_.cost.wall_ns());
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
