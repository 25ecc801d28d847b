// The CUPTI machinery behind streamlab::Tracer and the injection library
// (libstreamlab_inject.so). Internal: not installed, not part of the public API.
//
// It never calls the CUDA runtime, so the injection library can use it while
// the driver is still initializing. Everything that needs the runtime
// (synchronizing, device facts) is the caller's job.
//
// Two files implement it: activity_recorder.cpp with CUPTI, and, in the
// simulated build (STREAMLAB_SIMULATED_GPU), activity_recorder_sim.cpp from the
// simulated GPU's log. What both share (the date, the thread id) is in
// recording_host.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "streamlab/timeline.hpp"

namespace streamlab::detail {

/// One CUPTI recording: collects what the GPU does from construction to
/// stop(). The first recorder of a process subscribes to CUPTI and enables the
/// activity kinds, which then stay enabled (see attach_once in the .cpp).
/// At most one recorder is active at a time in a process.
class ActivityRecorder {
public:
    /// Subscribes to CUPTI and starts recording. Throws TimelineUnavailable when
    /// CUPTI refuses (another tool holds it, no driver...), std::logic_error when
    /// another recorder is active.
    ActivityRecorder();
    /// Stops recording. Never throws.
    ~ActivityRecorder();
    ActivityRecorder(const ActivityRecorder&) = delete;
    ActivityRecorder& operator=(const ActivityRecorder&) = delete;

    /// Asks CUPTI for every buffered record, complete or not (a forced flush).
    /// Synchronize the device first, or records of unfinished work come back
    /// without timestamps.
    void flush();

    /// Starts the recording afresh from now: what was recorded so far, and
    /// every record of work that ended before now, is left out.
    void restart_window();

    /// Flushes and ends this recording. Safe to call twice.
    void stop() noexcept;

    /// How often each runtime function was called since recording began.
    [[nodiscard]] std::map<std::string, std::uint64_t> api_calls() const;

    /// How many runtime calls each host thread (host_thread_id()) made since recording began.
    [[nodiscard]] std::map<std::uint64_t, std::uint64_t> api_calls_by_thread() const;

    /// The GPUs (CUDA device ordinals) whose contexts the runtime calls since recording began ran in.
    [[nodiscard]] std::vector<std::uint32_t> devices() const;
    /// The calls that queued or ordered stream work since recording began, in call order.
    [[nodiscard]] std::vector<StreamCall> stream_calls() const;

    /// The records collected so far, as the one Timeline both the Tracer and the
    /// injection library start from: ops sorted by start, marks by time, the
    /// program's NVTX ranges, origin_ns (times are relative to it) and the records
    /// dropped for want of timestamps. The caller fills in the rest (program,
    /// date, device, and api_calls and stream_calls where it wants them).
    [[nodiscard]] Timeline collect() const;

private:
    std::uint64_t origin_ns_ = 0;
    bool stopped_ = false;
};

/// The NVTX domain of the ranges streamlab::OpLabel pushes. They name the ops
/// for Nsight; the recorder leaves them out of `ranges` (the labels already say it).
inline constexpr const char* kLabelDomain = "streamlab labels";

/// Turns on CUPTI's activity records as a recording has them (the same kinds and
/// buffers) but none of the runtime and driver API callbacks a recording adds: what
/// CUPTI costs alone, which measure_tracer_overheads sets the recorder against.
/// They stay on for the life of the process; their records are dropped while no
/// recorder is active. Throws TimelineUnavailable as ActivityRecorder does, and
/// std::logic_error once a recorder has started (its callbacks are on for good).
void enable_activity_records_only();

/// Now, on the clock the recorder stamps its records with (CUPTI's, or the
/// simulated host clock): what streamlab::trace_clock_ns reads while tracing.
/// Throws std::runtime_error where the clock cannot be read.
[[nodiscard]] std::uint64_t recorder_clock_ns();

/// Hands over every record still buffered, complete or not (what
/// ActivityRecorder::flush does, without a recorder and without failing).
void flush_activity_records() noexcept;

/// Who recorded a timeline, as a program's report names it: "CUPTI", or the
/// simulated GPU in the simulated build.
[[nodiscard]] const char* recorder_name() noexcept;

/// Launches a tiny kernel in a stream of its own and waits for it (needs the
/// CUDA runtime, so the Tracer uses it and the injection library does not).
void warm_up_recording();

/// The current UTC time as ISO 8601, e.g. "2026-11-30T12:00:00Z".
[[nodiscard]] std::string utc_now_iso8601();

/// Refuses a recorder while another is active (std::logic_error, naming what to do).
[[noreturn]] void throw_already_recording();

/// Sorts a recording's ops as every recorder gives them: by start, then end,
/// then correlation id (the order the host issued ops that start together).
void sort_ops(std::vector<DeviceOp>& ops);

/// `marks` on the clock of a recording that began at `origin_ns` (a mark taken
/// before it at 0), sorted by time.
[[nodiscard]] std::vector<HostMark> relative_marks(std::vector<HostMark> marks, std::uint64_t origin_ns);

/// A kernel's name as its source spells it ("streamlab::workload_kernel(...)")
/// from the mangled name a record carries; an unmangled name as it is.
[[nodiscard]] std::string demangle(const std::string& name);

/// Records a host mark in the active recording; does nothing without one.
void mark_now(const std::string& name);

/// Makes `label` (may be null) the label of the operations this thread issues;
/// returns the one it replaces. The pointee must outlive its use as the label.
const std::string* exchange_thread_label(const std::string* label) noexcept;

}  // namespace streamlab::detail
