/// @file wait_side.hpp
/// @brief Lab 09's course side for Task 3: the GPU work the waits wait for, the
/// host's work in slices, and what a wait cost, all observed by the course
/// itself. The program and the tests hand the stream and the slices to your code;
/// your code only waits and calls `host_work`.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "streamlab/device.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/timeline.hpp"
#include "streamlab/workload.hpp"

namespace lab09::course {

/// The kernels in the two jobs the waits are graded with: the long one runs
/// about three times as long as the short one.
inline constexpr int kShortJobKernels = 2;
inline constexpr int kLongJobKernels = 10;  ///< See kShortJobKernels.

/// The host's slice of work is the short job's GPU time over this many.
inline constexpr int kSlicesPerShortJob = 100;

/// The process's CPU time so far, user and system, every thread's (getrusage,
/// RUSAGE_SELF), in ns: work handed to another thread still counts.
[[nodiscard]] std::uint64_t process_cpu_ns();

/// What one wait cost, as the course saw it from outside.
struct WaitCost {
    std::uint64_t called_ns = 0;    ///< When the wait was called, on the timeline's clock (streamlab::trace_clock_ns).
    std::uint64_t returned_ns = 0;  ///< When it returned, on the same clock.
    std::uint64_t cpu_ns = 0;       ///< The process's CPU time (every thread) between the two.

    /// How long the wait took, ns.
    [[nodiscard]] std::uint64_t wall_ns() const { return returned_ns - called_ns; }
    /// CPU time over wall time: near 1 for a thread that spins, near 0 for one asleep.
    [[nodiscard]] double cpu_share() const;
};

/// Runs `wait` and notes its CPU time and when it was called and returned.
[[nodiscard]] WaitCost observe_wait(const std::function<void()>& wait);

/// One wait for a job, as the course saw it.
struct ObservedWait {
    WaitCost cost;                   ///< What the wait cost.
    streamlab::ResultCheck results;  ///< The results, read the moment the wait returned.
};

/// From the end of the timeline's last op to the host's return (`returned_ns`,
/// on the clock of streamlab::trace_clock_ns, before the origin is subtracted),
/// in ns: negative when the host returned before the GPU was done. 0 for a
/// timeline without ops.
[[nodiscard]] std::int64_t wake_up_delay_ns(const streamlab::Timeline& timeline, std::uint64_t returned_ns);

/// The GPU work the waits wait for: the pipeline's memory on the GPU at hand
/// (streamlab::prepare_pipeline: a kernel about as long as the whole H2D copy)
/// through a stream of its own: the input in, `kernels` workload kernels, the
/// results out. Long enough to measure on any GPU, and its length grows with
/// `kernels`.
class WaitJob {
public:
    /// Allocates and fills the memory, sizes the kernel, creates the stream. Needs a GPU.
    explicit WaitJob(const streamlab::DeviceFacts& facts);
    /// The job over `prepared` (its input filled, its kernel sized); creates the stream. Needs a GPU.
    explicit WaitJob(streamlab::PreparedPipeline prepared);
    /// The job over memory of its own, n floats, its input streamlab::fill_input's of `seed`,
    /// its kernel `iterations` long (a recording's set-up); creates the stream. Needs a GPU.
    WaitJob(std::size_t n, int iterations, std::uint32_t seed);

    /// The stream the work goes to (non-blocking: nothing else in the process waits for it).
    [[nodiscard]] cudaStream_t stream() const { return stream_.get(); }

    /// Poisons the results, then queues the work with `kernels` kernels (at least 1)
    /// in stream() and returns at once.
    void queue(int kernels);

    /// The results in host memory, `prepared`'s output: right only once the work is done.
    [[nodiscard]] const float* output() const { return prepared_.memory.output.data(); }

    /// The results, read now, against the CPU reference: right only once the work is done.
    [[nodiscard]] streamlab::ResultCheck check() const;

    /// Queues the work with `kernels` kernels, observes `wait(stream())`, and reads
    /// the results the moment it returns (results still on their way are NaN).
    [[nodiscard]] ObservedWait queue_and_wait(int kernels, const std::function<void(cudaStream_t)>& wait);

    /// Waits with `wait` once for the short job, then for whatever is left: a first
    /// call pays one-time costs, which no observed wait should.
    void warm_up(const std::function<void(cudaStream_t)>& wait);

    /// How long the work with `kernels` kernels runs on the GPU, ns, timed with events
    /// around it (queued, waited for, and then timed again: the first run pays one-time costs).
    [[nodiscard]] std::uint64_t measure_ns(int kernels);

    /// The length of one slice of the host's work: the short job's GPU time, measured
    /// now, over kSlicesPerShortJob.
    [[nodiscard]] std::uint64_t host_slice_ns();

private:
    streamlab::PreparedPipeline prepared_;
    streamlab::Stream stream_;
};

/// A wait as the lab's programs show it, and the timeline recorded around it.
struct RecordedWait {
    ObservedWait observed;         ///< What the wait cost, and the results read the moment it returned.
    streamlab::Timeline timeline;  ///< The job's ops; not recorded while the tracer is off.
};

class HostWork;

/// `job.warm_up(wait)`, then queue_and_wait(kernels, wait) while the tracer records
/// (streamlab::record_timeline: with the tracer off, the wait runs unrecorded).
/// `work`, when given, forgets the warm-up's slices. Throws TimelineUnavailable when
/// the tracer cannot start.
[[nodiscard]] RecordedWait record_wait(WaitJob& job, int kernels, const std::function<void(cudaStream_t)>& wait,
                                       HostWork* work = nullptr);

/// The host's own work, in slices: each call of slice() keeps the calling thread
/// busy for about `slice_ns`, and the course notes how long each slice took and
/// on which thread it ran.
class HostWork {
public:
    /// Slices of `slice_ns` each; the thread that creates it is the waiting thread.
    explicit HostWork(std::uint64_t slice_ns);

    /// One slice of work.
    void slice();
    /// slice(), as the `host_work` that wait_polling takes (this object must outlive it).
    [[nodiscard]] std::function<void()> as_function();

    /// Forgets the slices done so far.
    void reset();

    /// Time spent in slices so far, ns, on any thread.
    [[nodiscard]] std::uint64_t busy_ns() const { return busy_ns_; }
    /// Slices done so far.
    [[nodiscard]] int slices() const { return slices_; }
    /// Slices that ran on a thread other than the one that created this object.
    [[nodiscard]] int slices_elsewhere() const { return slices_elsewhere_; }
    /// The slices' mean length, ns, or the length asked for while none has run.
    [[nodiscard]] std::uint64_t mean_slice_ns() const;

private:
    std::uint64_t slice_ns_;
    std::uint64_t thread_;
    // Atomic: code that hands the slices to other threads, several at once, must
    // still be counted right.
    std::atomic<std::uint64_t> busy_ns_{0};
    std::atomic<int> slices_{0};
    std::atomic<int> slices_elsewhere_{0};
};

}  // namespace lab09::course
