/// @file tracer.hpp
/// @brief Recording what the GPU did, from the GPU's own records (CUPTI's Activity API).
///
/// A Tracer asks CUPTI for one record per kernel (CONCURRENT_KERNEL, never
/// KERNEL, which would serialize kernels), per memcpy and per memset. Each
/// record carries the stream, the start and end the GPU stamped, the bytes and,
/// for copies, whether the host memory was pageable or pinned. The program's NVTX
/// ranges are recorded too (MARKER records, no cost per launch) when NVTX hands its
/// calls to CUPTI (NVTX_INJECTION64_PATH, see common/TRACE_FORMAT.md). `finish()`
/// turns them into a Timeline:
///
/// @code
/// streamlab::Timeline timeline = streamlab::record_timeline("pipeline", [&] {
///     for (int i = 0; i < 3; ++i) {
///         streamlab::OpLabel label(std::to_string(i));  // ops below carry "0", "1", "2"
///         cudaMemcpyAsync(...);  launch_workload(...);  cudaMemcpyAsync(...);
///     }
///     streamlab::host_mark("launches returned");
/// });
/// @endcode
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/grader_words.hpp"
#include "streamlab/timeline.hpp"

namespace streamlab {

/// Recording a timeline is impossible here: no GPU, CUPTI already taken by
/// another tool (Nsight Systems, Nsight Compute, compute-sanitizer, cuda-gdb),
/// or a CUPTI/driver problem. The message reads `timeline unavailable: <why>`
/// (words::kSkipTimelineUnavailable).
/// A test that meets it should skip, never score zero.
class TimelineUnavailable : public std::runtime_error {
public:
    /// Builds the error; `reason` says why, e.g. "no CUDA device found".
    explicit TimelineUnavailable(const std::string& reason)
        : std::runtime_error(words::kSkipTimelineUnavailable + reason) {}
};

namespace detail {
class ActivityRecorder;
}  // namespace detail

/// Records the GPU's timeline from construction until finish().
///
/// Only one Tracer may record at a time in a process (CUPTI has one
/// subscriber). Records are kept in memory; nothing is written to disk.
class Tracer {
public:
    /// Starts recording. `program` names what is recorded (it goes into the trace).
    /// Throws TimelineUnavailable when recording is impossible or the tracer is
    /// off (tracing_off_reason), and
    /// std::logic_error when another Tracer is already recording.
    explicit Tracer(std::string program);
    /// Stops recording (if finish() was not called) and discards what was recorded. Never throws.
    ~Tracer();
    Tracer(const Tracer&) = delete;
    Tracer& operator=(const Tracer&) = delete;
    Tracer(Tracer&&) = delete;
    Tracer& operator=(Tracer&&) = delete;

    /// Records a host mark now, on the same clock as the device operations.
    void mark(const std::string& name);

    /// Waits for the device (cudaDeviceSynchronize), collects every record,
    /// stops recording and returns the timeline: ops sorted by start, times in ns
    /// relative to the moment recording started, device facts, program and date.
    /// Records without timestamps are dropped and counted in `dropped_records`.
    /// May be called once; throws std::logic_error after that.
    [[nodiscard]] Timeline finish();

private:
    std::string program_;
    std::string date_;
    std::unique_ptr<detail::ActivityRecorder> recorder_;
};

/// True once a Tracer has started recording in this process. From then on,
/// a Tracer that cannot start was stopped by something that ran in between,
/// not by the machine (the graded tests fail then, never skip).
[[nodiscard]] bool tracer_started_before() noexcept;

/// Records a host mark on the active Tracer's clock (as Tracer::mark does).
/// Does nothing when no Tracer is recording, so code can mark unconditionally.
void host_mark(const std::string& name);

/// Now on the clock of recorded timelines (CUPTI's), in ns before a timeline's
/// origin is subtracted: for host marks that course code takes itself and sets
/// against recorded ops (subtract Timeline::origin_ns). With the tracer off
/// (tracing_off_reason), the host's steady clock. Throws std::runtime_error when
/// CUPTI refuses a timestamp.
[[nodiscard]] std::uint64_t trace_clock_ns();

/// The calling host thread's id, as the operating system numbers it (Linux's
/// thread id): the key of Timeline::api_calls_by_thread. A host function
/// (cudaLaunchHostFunc) runs on a thread of CUDA's own, whose id differs from
/// the thread that queued it.
[[nodiscard]] std::uint64_t host_thread_id() noexcept;

/// Why the tracer is off, or "" while it records. It is off when the program
/// was started with `--no-trace` (run_lab_program) or with the environment
/// variable STREAMLAB_NO_TRACE set to anything but "" or "0" (how a test
/// executable is run without it). While it is off, CUPTI is never touched, so
/// that compute-sanitizer, Nsight and other tools that need CUPTI can watch the
/// program; record_timeline runs its work unrecorded.
[[nodiscard]] std::string tracing_off_reason();

/// The timeline of work that ran while the tracer was off: no ops, the device's
/// facts, `program`, the date, and `not_recorded` set to `why`. Waits for the
/// device first, as Tracer::finish() does, so the work has ended on return.
[[nodiscard]] Timeline unrecorded_timeline(const std::string& program, const std::string& why);

/// Runs `work()` while a Tracer records and returns the timeline.
/// Throws TimelineUnavailable when recording is impossible (before running `work`).
/// While the tracer is off (tracing_off_reason), runs `work()` all the same and
/// returns an unrecorded timeline: check `timeline.recorded()` before reading it.
template <typename Work>
[[nodiscard]] Timeline record_timeline(const std::string& program, Work&& work) {
    if (std::string off = tracing_off_reason(); !off.empty()) {
        std::forward<Work>(work)();
        return unrecorded_timeline(program, off);
    }
    Tracer tracer(program);
    std::forward<Work>(work)();
    return tracer.finish();
}

/// Host-clock time of some work three ways: with nothing recorded, with CUPTI's
/// activity records alone, and inside a Tracer's recording. Timing every kernel and
/// copy is CUPTI's own cost, which any tracer built on its activity records pays
/// (about a microsecond or two per op on an H200); what the Tracer adds beyond it
/// (its API callbacks: call counts, stream calls, labels) is traced_ms over cupti_only_ms.
struct TracerOverhead {
    double untraced_ms = 0;    ///< Median of the runs with nothing recorded.
    double cupti_only_ms = 0;  ///< Median of the runs with CUPTI's activity records on and no Tracer callbacks.
    double traced_ms = 0;      ///< Median of the runs inside a Tracer's recording.
};

/// Measures what recording costs `run`, which does some work and returns its
/// host-clock time in ms: the medians of `repeats` runs with nothing recorded, then
/// of `repeats` runs with CUPTI's activity records alone (the kinds and buffers a
/// Tracer uses, none of its API callbacks; the records are dropped), then of
/// `repeats` runs each recorded as `program`. In that order, and it must come before
/// anything else records in this process: once CUPTI is attached to a process it
/// stays attached, so no later run is one without it. A first run (module load,
/// first touch of memory) and the first run of each recorded way (CUPTI's one-time
/// set-up) are left out. Throws TimelineUnavailable when the tracer is off
/// (tracing_off_reason) or cannot record, and std::logic_error when something has
/// recorded in this process before.
[[nodiscard]] TracerOverhead measure_tracer_overhead(const std::string& program, int repeats,
                                                     const std::function<double()>& run);

/// measure_tracer_overhead for several pieces of work (the same pipeline at
/// several chunk counts, say), one result each, in the order given: every run of
/// one way, for every piece, comes before the next way, for the reason above.
[[nodiscard]] std::vector<TracerOverhead> measure_tracer_overheads(const std::string& program, int repeats,
                                                                   const std::vector<std::function<double()>>& runs);

/// Names the operations this thread issues while the label lives.
///
/// Every kernel, copy and memset that this thread queues between construction
/// and destruction carries `label` in the trace (e.g. chunk "1" shows as H2D_1,
/// K_1, D2H_1). Labels nest: the innermost one wins. The label is also pushed as
/// an NVTX range (in the domain "streamlab labels"), so Nsight Systems shows it;
/// without a Tracer that is all it does. The trace leaves these ranges out of its
/// NVTX ranges: the ops' labels already say it.
class OpLabel {
public:
    /// Starts labelling this thread's operations with `label`.
    explicit OpLabel(std::string label);
    /// Restores the label that was active before (if any).
    ~OpLabel();
    OpLabel(const OpLabel&) = delete;
    OpLabel& operator=(const OpLabel&) = delete;
    OpLabel(OpLabel&&) = delete;
    OpLabel& operator=(OpLabel&&) = delete;

    /// The label this object sets.
    [[nodiscard]] const std::string& label() const noexcept { return label_; }

private:
    std::string label_;
    const std::string* previous_;
};

}  // namespace streamlab
