/// @file machine.hpp
/// @brief The simulated GPU's machine: streams, events, memory, engines, the scheduler, the host clock and
/// the log. What the runtime's entry points (runtime_*.cpp) build on; not part of the public header.
///
/// How a call becomes a timeline:
///  1. An entry point opens an ApiCall: it takes the machine's lock, counts the call, gives it a correlation
///     id and moves the simulated host clock by the call's cost when it returns.
///  2. It checks its arguments and does the work on the CPU at once (a copy copies, a kernel runs its CPU
///     reference; a host function alone waits until its stream reaches it: OpRequest::run_at_start), then
///     enqueues an op on a stream: what it is, how long the model says it takes, which engine it needs,
///     and what it waits for (the stream's previous command, the legacy NULL stream's barrier, an event, a
///     graph node).
///  3. The scheduler (a discrete-event simulation) decides when each op starts and ends on the model's
///     engines. It only ever advances to the host's current time: an op the host has not issued yet cannot
///     start before the host issues it, so every decision it takes is final. When the host waits (a
///     synchronous copy, cudaStreamSynchronize), the host clock jumps to the end of what it waits for.
///  4. The tracer reads the ops and calls back through log_since (simgpu.hpp).
///
/// Every stream command is an op, including event records and waits (zero-length "markers" the log does not
/// show), so "the stream's work so far" is always one op: the stream's tail.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "memory.hpp"
#include "scheduler.hpp"
#include "streamlab/simgpu.hpp"
#include "streamlab/timeline.hpp"

namespace streamlab::simgpu {

/// A stream: the program's or one of the runtime's default streams.
struct Stream {
    std::uint32_t id = 0;                   ///< The id CUPTI would give it (DeviceOp::stream_id).
    cudaStream_t handle = nullptr;          ///< The handle the program holds.
    StreamKind kind = StreamKind::Created;  ///< NULL, per-thread default or created.
    /// Whether it synchronizes with the legacy NULL stream (created without cudaStreamNonBlocking).
    bool blocking = true;
    unsigned int flags = cudaStreamDefault;  ///< As created (cudaStreamGetFlags).
    int priority = 0;                        ///< Lower numbers first (cudaStreamGetPriority).
    OpId tail = 0;                           ///< The last op issued to it, or 0.
    std::uint64_t barriers_seen = 0;         ///< The last device barrier its work already waits for.
    /// The capture this stream records into while cudaStreamBeginCapture is in effect (runtime_graphs.cpp
    /// owns what it points to), or null.
    std::shared_ptr<void> capture;
};

/// An event and its last record.
struct Event {
    cudaEvent_t handle = nullptr;  ///< The handle the program holds.
    unsigned int flags = 0;        ///< As created (cudaEventDisableTiming, cudaEventBlockingSync...).
    OpId recorded = 0;             ///< The marker of its last cudaEventRecord, or 0: never recorded.
};

/// How a host thread that waits for the GPU spends the wait (cudaSetDeviceFlags' schedule flags, and
/// cudaEventBlockingSync for one event). The simulated host clock moves to the end of the wait either way;
/// what differs is the CPU time the process uses meanwhile, which a program can measure (getrusage): a thread
/// that spins or yields keeps its core busy for the whole wait, one that blocks leaves it free. So the
/// simulator spins for real where the GPU's runtime would spin, until the thread has used as much CPU time as
/// the wait lasts on the simulated clock, and returns at once where it would block (a thread asleep costs no
/// CPU time; sleeping the wait's length would only make the simulated program slower).
enum class HostWait {
    Spin,   ///< Actively spins (cudaDeviceScheduleSpin).
    Yield,  ///< Spins, yielding its thread between looks (cudaDeviceScheduleYield).
    Block,  ///< Blocks on a synchronization primitive (cudaDeviceScheduleBlockingSync, cudaEventBlockingSync).
};

/// The one simulated GPU of the process. Every member is called with its lock held (through an ApiCall).
class Machine {
public:
    /// The machine of this process, created on first use.
    static Machine& instance();

    // --- Streams and events -------------------------------------------------------------------------------

    /// The stream a handle names (0 and cudaStreamLegacy: the legacy NULL stream; cudaStreamPerThread: this
    /// thread's default stream; with `per_thread_default`, as for the `_ptsz` entry points, 0 names this
    /// thread's default stream too), or null where the handle is none of the program's live streams.
    [[nodiscard]] Stream* find_stream(cudaStream_t handle, bool per_thread_default = false);
    /// Creates a stream (cudaStreamCreateWithPriority's flags and priority, already checked).
    Stream& create_stream(unsigned int flags, int priority);
    /// Forgets a stream; its work already issued still runs (cudaStreamDestroy returns at once).
    void destroy_stream(cudaStream_t handle);

    [[nodiscard]] Event* find_event(cudaEvent_t handle);
    Event& create_event(unsigned int flags);
    void destroy_event(cudaEvent_t handle);

    // --- Work -----------------------------------------------------------------------------------------------

    /// Issues `request` on `stream` at the host's current time and returns its op. It waits for what
    /// OpRequest says plus the documented implicit orders (the legacy NULL stream's barrier with blocking
    /// streams, the last device barrier). On a stream being captured it is not run: the capture's recorder
    /// (set_capture_recorder) gets it and 0 is returned.
    OpId enqueue(Stream& stream, OpRequest request);
    /// Records `event` on `stream` (a marker op that ends when the stream's work so far has ended).
    void record_event(Event& event, Stream& stream);
    /// Makes `stream`'s later work wait for `event`'s last record (nothing where it was never recorded).
    void wait_event(Stream& stream, const Event& event);
    /// An implicit device-wide barrier (Programming Guide, "Implicit Synchronization"): work issued from now
    /// on, to any stream, starts after all work issued before.
    void device_barrier();

    /// Runs `function` on the runtime's own host-function thread and waits for it (in real time); returns how
    /// long it ran, in ns. The scheduler calls it when the host function's op starts, at `start_ns`: on that
    /// thread, the simulated host clock reads `start_ns` plus the real time the function has run so far. A
    /// CUDA call from a host function fails (ApiCall).
    std::uint64_t run_host_function(const std::function<void()>& function, std::uint64_t start_ns);

    /// Where a stream being captured sends its ops instead of running them (runtime_graphs.cpp sets it).
    using CaptureRecorder = std::function<void(Stream& stream, OpRequest request)>;
    void set_capture_recorder(CaptureRecorder recorder);

    // --- The host waiting and asking -----------------------------------------------------------------------

    /// Blocks the simulated host until `op` (0: nothing) has ended: the host clock moves to its end. The
    /// host waits as the device's schedule flag says (scheduled_wait), or as `how` says.
    void wait_host_for(OpId op);
    void wait_host_for(OpId op, HostWait how);
    /// Blocks the simulated host until every op issued so far has ended (cudaDeviceSynchronize).
    void wait_host_for_device();

    /// The device's flags (cudaSetDeviceFlags, cudaGetDeviceFlags).
    void set_device_flags(unsigned int flags);
    [[nodiscard]] unsigned int device_flags() const;
    /// How the host waits for the GPU under the device's schedule flag.
    [[nodiscard]] HostWait scheduled_wait() const;
    /// Whether kernel launches return only once their kernel has run (CUDA_LAUNCH_BLOCKING=1, which the
    /// runtime reads when it starts).
    [[nodiscard]] bool launches_block() const;

    /// Makes `op` (a kernel that faulted) end with `error`: from the moment it ends on the simulated GPU,
    /// every later runtime call fails with that error (a sticky error; see ApiCall).
    void fault_when_ended(OpId op, cudaError_t error);
    /// The sticky error in effect at the call's current time (its waits included), or cudaSuccess.
    [[nodiscard]] cudaError_t sticky_error();
    /// Whether `op` (0: nothing) has ended at the host's current time (cudaStreamQuery, cudaEventQuery).
    [[nodiscard]] bool has_ended(OpId op);
    /// The op's end on the host clock (for cudaEventElapsedTime); the op must have ended.
    [[nodiscard]] std::uint64_t end_ns(OpId op) const;

    // --- Memory, the model, the log ----------------------------------------------------------------------

    [[nodiscard]] MemoryRegistry& memory() { return memory_; }
    [[nodiscard]] const GpuModel& model() const { return gpu_model(); }

    /// The simulated host clock now (the lock held or not; see host_now_ns in simgpu.hpp).
    [[nodiscard]] std::uint64_t host_now_ns() const;
    /// Moves the host clock forward to at least `time_ns` (a wait, a call's cost).
    void advance_host_to(std::uint64_t time_ns);

    /// Logs a call that queues or orders stream work (Timeline::stream_calls) at the host's current time.
    void log_stream_call(OrderingCall call, const char* function, std::uint64_t stream, std::uint64_t event);
    /// What log_since (simgpu.hpp) returns.
    [[nodiscard]] Log log_since(std::uint64_t since_ns);

    /// The correlation id of the call in progress (ops it issues carry it).
    [[nodiscard]] std::uint32_t current_correlation_id() const { return correlation_id_; }

    /// See reset_for_tests in simgpu.hpp.
    void reset();

    /// The machine's lock: an ApiCall holds it for the whole call.
    [[nodiscard]] std::recursive_mutex& lock() { return mutex_; }

private:
    friend class ApiCall;
    Machine();
    ~Machine();
    /// Where a call begins and ends on the host clock (ApiCall).
    void begin_call(const char* function);
    void end_call();
    /// The host, blocked, waits until `end_ns` on the simulated clock, spending the wait as `how` says.
    void hold_host_until(std::uint64_t end_ns, HostWait how);

    struct State;  // Streams, events, the scheduler, the clock, the log: machine.cpp.
    std::unique_ptr<State> state_;
    MemoryRegistry memory_;
    std::recursive_mutex mutex_;
    std::uint32_t correlation_id_ = 0;
};

/// One runtime call in progress: holds the machine's lock, counts the call in the log (by name and
/// thread), gives it a correlation id and charges its cost to the simulated host clock; on return it
/// keeps the call's result as the thread's last error where it is one (cudaGetLastError).
///
///     cudaError_t cudaStreamSynchronize(cudaStream_t handle) {
///         ApiCall call("cudaStreamSynchronize");
///         if (!call.permitted()) return call.result(cudaErrorNotPermitted);
///         ...
///         return call.result(cudaSuccess);
///     }
class ApiCall {
public:
    explicit ApiCall(const char* function);
    ~ApiCall();
    ApiCall(const ApiCall&) = delete;
    ApiCall& operator=(const ApiCall&) = delete;

    /// False where the call must return at once: it came from a host function (cudaLaunchHostFunc's
    /// documentation: a host function must not make CUDA calls), and must return cudaErrorNotPermitted; or a
    /// sticky error was in effect when it began, and result() returns that error whatever it is given.
    [[nodiscard]] bool permitted() const { return permitted_ && !sticky_at_entry_; }
    [[nodiscard]] Machine& machine() { return Machine::instance(); }
    /// Returns `error`, kept as the thread's last error where it is not cudaSuccess or cudaErrorNotReady. Where
    /// a sticky error is in effect by the call's end (a kernel faulted before it, or while it waited), that
    /// error is returned instead, except by the calls that only ask about the device or the runtime.
    cudaError_t result(cudaError_t error);
    /// The sticky error in effect now, for this call (cudaSuccess for the calls it spares).
    [[nodiscard]] cudaError_t sticky_error();

private:
    const char* function_;
    bool permitted_ = true;
    bool sticky_at_entry_ = false;
    std::unique_lock<std::recursive_mutex> guard_;
};

/// The thread's last error (cudaGetLastError returns and clears it, cudaPeekAtLastError returns it).
cudaError_t& thread_last_error();

}  // namespace streamlab::simgpu
