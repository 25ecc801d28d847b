#include "machine.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <thread>

#include "host_clocks.hpp"
#include "log.hpp"
#include "runtime_graphs.hpp"

namespace streamlab::simgpu {

namespace {

// CUPTI's id of the legacy NULL stream on the H200 (every H200 record shows it as stream 7), and where its
// ids for the program's streams begin.
constexpr std::uint32_t kLegacyStreamId = 7;
constexpr std::uint32_t kFirstStreamId = 13;

std::uint64_t real_ns(std::chrono::steady_clock::time_point when = real_steady_now()) {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count());
}

thread_local int t_call_depth = 0;  // Runtime calls in progress on this thread (nested: > 1).
thread_local bool t_on_host_function_thread = false;
// On the host-function thread, while a host function runs: where the simulated clock stood when it began,
// and the real time it began.
thread_local std::uint64_t t_host_function_start_ns = 0;
thread_local std::uint64_t t_host_function_real_start_ns = 0;
thread_local const std::string* t_label = nullptr;  // exchange_thread_label.
thread_local cudaError_t t_last_error = cudaSuccess;

/// How long the calling thread has waited, runnable, for a core of the machine running the simulator, ns: the
/// second figure of Linux's /proc/thread-self/schedstat (0 where the kernel does not keep it).
std::uint64_t thread_run_queue_wait_ns() {
    struct StatFile {
        int fd = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
        ~StatFile() {
            if (fd >= 0) {
                ::close(fd);
            }
        }
    };
    thread_local const StatFile file;
    if (file.fd < 0) {
        return 0;
    }
    char text[128];
    const ssize_t read = ::pread(file.fd, text, sizeof text - 1, 0);
    if (read <= 0) {
        return 0;
    }
    text[read] = '\0';
    unsigned long long on_cpu_ns = 0;
    unsigned long long waiting_ns = 0;
    return std::sscanf(text, "%llu %llu", &on_cpu_ns, &waiting_ns) == 2 ? waiting_ns : 0;
}

/// The simulated host clock: the host's real time, less what the simulator spent doing the GPU's work on
/// the CPU, plus what the simulated calls cost the host (their own cost and the waits for the GPU). One
/// clock for the process: a host thread blocked in a call holds the others' clock too, a simplification
/// the course's programs (one thread issuing work) do not notice.
///
/// The host it simulates has its cores to itself: the time a thread of the program spent waiting for a core
/// while other processes had them all is left out too (thread_run_queue_wait_ns, counted as each thread
/// reads the clock). Without that, the program's own work would seem to take longer, and to use less of the
/// CPU in its time, the busier the machine running the simulator is; a program that measures its CPU time
/// against the clock (getrusage) would get a figure of that machine, not of the host it thinks it runs on.
class HostClock {
public:
    HostClock() {
        // Start near the wall clock, as CUPTI's timestamps do (ns since the epoch).
        const auto wall = std::chrono::nanoseconds(real_clock_ns(CLOCK_REALTIME));
        offset_ = static_cast<std::int64_t>(wall.count()) - static_cast<std::int64_t>(host_real_ns());
    }

    [[nodiscard]] std::uint64_t now() const {
        const auto time = static_cast<std::uint64_t>(static_cast<std::int64_t>(host_real_ns()) + offset_.load());
        // Never backwards: a call that ends sets the clock, and another thread may have read past it.
        std::uint64_t last = last_.load();
        while (time > last && !last_.compare_exchange_weak(last, time)) {}
        return std::max(time, last);
    }

    /// Makes now `time_ns` (the end of a call): the real time the call took is left out.
    void set(std::uint64_t time_ns) {
        offset_ = static_cast<std::int64_t>(time_ns) - static_cast<std::int64_t>(host_real_ns());
        std::uint64_t last = last_.load();
        while (time_ns > last && !last_.compare_exchange_weak(last, time_ns)) {}
    }

private:
    /// Real time less the waits for a core that the threads reading the clock have had since their first read.
    [[nodiscard]] std::uint64_t host_real_ns() const {
        thread_local std::uint64_t t_waited_ns = thread_run_queue_wait_ns();  // before this thread's first read
        const std::uint64_t waited_ns = thread_run_queue_wait_ns();
        if (waited_ns > t_waited_ns) {
            not_the_hosts_ns_ += waited_ns - t_waited_ns;
            t_waited_ns = waited_ns;
        }
        return real_ns() - not_the_hosts_ns_.load();
    }

    std::atomic<std::int64_t> offset_{0};
    mutable std::atomic<std::uint64_t> last_{0};
    mutable std::atomic<std::uint64_t> not_the_hosts_ns_{0};  ///< Waits for a core, every thread's.
};

/// The runtime's own thread for host functions (cudaLaunchHostFunc): the CUDA runtime runs them on a
/// thread of its own, not the caller's, one at a time.
class HostFunctionThread {
public:
    /// Runs `function` on the thread, its simulated clock starting at `start_ns`, waits for it and returns
    /// how long it ran, in ns.
    std::uint64_t run(const std::function<void()>& function, std::uint64_t start_ns) {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!thread_.joinable()) {
            thread_ = std::thread([this] { serve(); });
        }
        job_start_ns_ = start_ns;
        job_ = &function;
        cv_.notify_all();
        cv_.wait(lock, [this] { return job_ == nullptr; });
        return last_duration_ns_;
    }

private:
    void serve() {
        t_on_host_function_thread = true;
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            cv_.wait(lock, [this] { return job_ != nullptr; });
            const auto start = real_steady_now();
            t_host_function_start_ns = job_start_ns_;
            t_host_function_real_start_ns = real_ns(start);
            try {
                (*job_)();
            } catch (...) {
                std::fprintf(stderr,
                             "simulated GPU: a host function threw an exception; a host function "
                             "must not throw\n");
                std::terminate();
            }
            last_duration_ns_ = real_ns() - real_ns(start);
            job_ = nullptr;
            cv_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable cv_;
    const std::function<void()>* job_ = nullptr;
    std::uint64_t job_start_ns_ = 0;
    std::uint64_t last_duration_ns_ = 0;
    std::thread thread_;
};

/// CUDA_LAUNCH_BLOCKING=1: "programmers can globally disable asynchronicity of kernel launches for all CUDA
/// applications running on a system by setting the CUDA_LAUNCH_BLOCKING environment variable to 1" (the
/// Programming Guide, "Asynchronous Concurrent Execution"). The runtime reads it when it starts.
bool launch_blocking_from_environment() {
    const char* value = std::getenv("CUDA_LAUNCH_BLOCKING");
    return value != nullptr && std::strcmp(value, "1") == 0;
}

/// The CPU time the calling thread has used, ns.
std::uint64_t thread_cpu_ns() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(now.tv_nsec);
}

/// Keeps the calling thread busy until it has used `duration_ns` of CPU time, as a thread that waits that
/// long for the GPU by spinning does on an idle machine (HostWait); `yield`: giving its core to any other
/// thread that wants it between looks, as cudaDeviceScheduleYield's thread does (with no other thread to
/// run, it is as busy as one that spins). CPU time, not real time: on a machine busy with other processes a
/// thread that spins for a while gets less of the CPU, but a simulated wait's cost must not depend on what
/// else the machine running the simulator does.
void spin_for(std::uint64_t duration_ns, bool yield) {
    const std::uint64_t until = thread_cpu_ns() + duration_ns;
    while (thread_cpu_ns() < until) {
        if (yield) {
            std::this_thread::yield();
        }
    }
}

/// The calls a sticky error spares: they ask about the device or the runtime, or name an error, and do no
/// CUDA work ("any further CUDA work will return the same error": the Runtime API on cudaErrorIllegalAddress).
bool spared_by_sticky_errors(const char* function) {
    static const char* const kSpared[] = {
        "cudaGetErrorName",        "cudaGetErrorString",     "cudaGetDeviceCount",    "cudaGetDevice",
        "cudaGetDeviceProperties", "cudaDeviceGetAttribute", "cudaRuntimeGetVersion", "cudaDriverGetVersion",
    };
    for (const char* spared : kSpared) {
        if (std::strcmp(function, spared) == 0) {
            return true;
        }
    }
    return false;
}

void drop_duplicates(std::vector<OpId>& ids) {
    ids.erase(std::remove(ids.begin(), ids.end(), OpId{0}), ids.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

}  // namespace

struct Machine::State {
    explicit State(const GpuModel& model) : scheduler(model.copy_engines) {
        legacy.id = kLegacyStreamId;
        legacy.handle = nullptr;
        legacy.kind = StreamKind::LegacyNull;
    }

    Scheduler scheduler;
    HostClock clock;
    CallLog calls;
    HostFunctionThread host_functions;
    CaptureRecorder capture_recorder;

    Stream legacy;                                                ///< The legacy NULL stream.
    std::map<std::uint64_t, std::unique_ptr<Stream>> per_thread;  ///< By host thread.
    std::map<cudaStream_t, std::unique_ptr<Stream>> streams;      ///< The program's.
    std::map<cudaEvent_t, std::unique_ptr<Event>> events;
    // Handles are never reused, so a destroyed stream's or event's handle stays invalid.
    std::uintptr_t next_handle = 0x5100000;
    std::uint32_t next_stream_id = kFirstStreamId;

    OpId barrier = 0;  ///< The last device barrier's marker.
    std::uint64_t barrier_generation = 0;

    unsigned int device_flags = 0;  ///< cudaSetDeviceFlags: cudaDeviceScheduleAuto until set.
    bool launch_blocking = launch_blocking_from_environment();
    OpId fault = 0;                         ///< The first kernel that faulted, or 0.
    cudaError_t fault_error = cudaSuccess;  ///< Its error, sticky once it has ended.

    std::uint64_t call_entry_ns = 0;  ///< When the call in progress began (host clock).
    std::uint64_t call_host_ns = 0;   ///< Its "now": its entry plus its cost so far (waits included).
    std::uint32_t next_correlation_id = 0;

    std::uintptr_t new_handle() {
        next_handle += 0x10;
        return next_handle;
    }

    /// Every stream that synchronizes with the legacy NULL stream.
    std::vector<Stream*> blocking_streams() {
        std::vector<Stream*> found;
        for (auto& [handle, stream] : streams) {
            if (stream->blocking) {
                found.push_back(stream.get());
            }
        }
        for (auto& [thread, stream] : per_thread) {
            found.push_back(stream.get());
        }
        return found;
    }
};

Machine& Machine::instance() {
    // Never destroyed: a program's static objects may still call the runtime while the process exits.
    static Machine* const machine = new Machine();
    return *machine;
}

Machine::Machine() : state_(std::make_unique<State>(gpu_model())) {}

Machine::~Machine() = default;

// --- Streams and events ------------------------------------------------------------------------------------

Stream* Machine::find_stream(cudaStream_t handle, bool per_thread_default) {
    const bool names_per_thread = handle == cudaStreamPerThread || (handle == nullptr && per_thread_default);
    if (names_per_thread) {
        // The per-thread default stream (CUDA's "per-thread default stream" section): one per host thread,
        // created on first use; it synchronizes with the legacy NULL stream like a blocking stream.
        auto& stream = state_->per_thread[this_thread_id()];
        if (!stream) {
            stream = std::make_unique<Stream>();
            stream->id = state_->next_stream_id++;
            stream->handle = cudaStreamPerThread;
            stream->kind = StreamKind::PerThreadDefault;
        }
        return stream.get();
    }
    if (handle == nullptr || handle == cudaStreamLegacy) {
        return &state_->legacy;
    }
    const auto found = state_->streams.find(handle);
    return found == state_->streams.end() ? nullptr : found->second.get();
}

Stream& Machine::create_stream(unsigned int flags, int priority) {
    auto stream = std::make_unique<Stream>();
    stream->id = state_->next_stream_id++;
    stream->handle = reinterpret_cast<cudaStream_t>(state_->new_handle());
    stream->kind = StreamKind::Created;
    // cudaStreamNonBlocking: "work running in the created stream may run concurrently with work in
    // stream 0 (the NULL stream), and the created stream should perform no implicit synchronization with
    // stream 0" (the runtime API's cudaStreamCreateWithFlags).
    stream->blocking = (flags & cudaStreamNonBlocking) == 0;
    stream->flags = flags;
    stream->priority = priority;
    Stream& created = *stream;
    state_->streams[created.handle] = std::move(stream);
    return created;
}

void Machine::destroy_stream(cudaStream_t handle) {
    // cudaStreamDestroy: work already issued still completes; the call does not wait for it. Its ops stay
    // in the scheduler, which runs them as before.
    state_->streams.erase(handle);
}

Event* Machine::find_event(cudaEvent_t handle) {
    const auto found = state_->events.find(handle);
    return found == state_->events.end() ? nullptr : found->second.get();
}

Event& Machine::create_event(unsigned int flags) {
    auto event = std::make_unique<Event>();
    event->handle = reinterpret_cast<cudaEvent_t>(state_->new_handle());
    event->flags = flags;
    Event& created = *event;
    state_->events[created.handle] = std::move(event);
    return created;
}

void Machine::destroy_event(cudaEvent_t handle) {
    // cudaEventDestroy: an event destroyed before its record completes still completes; nothing waits.
    state_->events.erase(handle);
}

// --- Work ----------------------------------------------------------------------------------------------------

OpId Machine::enqueue(Stream& stream, OpRequest request) {
    if (stream.capture && state_->capture_recorder) {
        // A stream being captured records its work into a graph instead of running it (cudaStreamBeginCapture).
        state_->capture_recorder(stream, std::move(request));
        return 0;
    }
    Op op;
    op.shown.kind = request.kind;
    op.shown.name = request.name;
    op.shown.label = t_label != nullptr ? *t_label : std::string();
    op.shown.stream_id = stream.id;
    op.shown.stream_kind = stream.kind;
    op.shown.bytes = request.bytes;
    op.shown.host_memory = request.host_memory;
    op.shown.correlation_id = correlation_id_;
    op.shown.graph_id = request.graph_id;
    op.shown.graph_node_id = request.graph_node_id;
    op.priority = stream.priority;
    op.dependencies = request.extra_dependencies;
    if (request.follows_stream) {
        // Order within a stream: an op starts after the stream's previous op has ended.
        op.dependencies.push_back(stream.tail);
        if (stream.kind == StreamKind::LegacyNull) {
            // The legacy NULL stream waits for all work issued before to every blocking stream...
            for (const Stream* blocking : state_->blocking_streams()) {
                op.dependencies.push_back(blocking->tail);
            }
        } else if (stream.blocking) {
            // ...and a blocking stream's work waits for all work issued before to the legacy NULL stream
            // (the Programming Guide's "Default Stream"); a non-blocking stream does neither.
            op.dependencies.push_back(state_->legacy.tail);
        }
        if (stream.barriers_seen < state_->barrier_generation) {
            op.dependencies.push_back(state_->barrier);
            stream.barriers_seen = state_->barrier_generation;
        }
    }
    drop_duplicates(op.dependencies);
    // The GPU sees work only some time after the call that issues it starts (a call that costs the host
    // long, as cudaMemset does, may return after its work started: see model.cpp).
    op.earliest_start_ns = state_->call_entry_ns + model().launch_latency_ns;
    op.request = std::move(request);
    const bool becomes_tail = op.request.becomes_tail;
    const OpId id = state_->scheduler.add(std::move(op));
    if (becomes_tail) {
        stream.tail = id;
    }
    return id;
}

void Machine::record_event(Event& event, Stream& stream) {
    OpRequest marker;
    marker.marker = Marker::EventRecord;
    marker.event = &event;
    const OpId id = enqueue(stream, std::move(marker));
    if (id != 0) {
        event.recorded = id;
    }
}

void Machine::wait_event(Stream& stream, const Event& event) {
    // Cross-stream capture: a stream that waits for an event recorded in a capture joins the capture
    // (runtime_graphs.hpp).
    if (capture_stream_wait(stream, event)) {
        return;
    }
    // cudaStreamWaitEvent on an event never recorded waits for nothing (its documentation: the call then
    // acts as if the record had already completed).
    if (event.recorded == 0 && !stream.capture) {
        return;
    }
    OpRequest marker;
    marker.marker = Marker::EventWait;
    marker.event = &event;
    marker.extra_dependencies = {event.recorded};
    enqueue(stream, std::move(marker));
}

void Machine::device_barrier() {
    // Everything not yet ended, on any stream (destroyed streams' work included), ends before the barrier.
    state_->scheduler.advance_to(state_->call_host_ns);
    Op marker;
    marker.request.marker = Marker::Join;
    marker.dependencies = state_->scheduler.unfinished();
    marker.earliest_start_ns = state_->call_host_ns;
    state_->barrier = state_->scheduler.add(std::move(marker));
    ++state_->barrier_generation;
}

std::uint64_t Machine::run_host_function(const std::function<void()>& function, std::uint64_t start_ns) {
    return state_->host_functions.run(function, start_ns);
}

void Machine::set_capture_recorder(CaptureRecorder recorder) {
    state_->capture_recorder = std::move(recorder);
}

// --- The host waiting and asking -----------------------------------------------------------------------------

void Machine::wait_host_for(OpId op) {
    wait_host_for(op, scheduled_wait());
}

void Machine::wait_host_for(OpId op, HostWait how) {
    if (op == 0) {
        return;
    }
    // The host is blocked: nothing new is issued until the op ends, so the simulation may run ahead to it.
    const std::uint64_t end = state_->scheduler.run_until_ended(op);
    hold_host_until(end, how);
}

void Machine::wait_host_for_device() {
    hold_host_until(state_->scheduler.run_until_idle(), scheduled_wait());
}

void Machine::hold_host_until(std::uint64_t end_ns, HostWait how) {
    const std::uint64_t now = host_now_ns();
    if (end_ns > now && how != HostWait::Block) {
        // The CPU time a spinning wait costs is real: spend it (HostWait). The real time it takes is left out
        // of the simulated clock, as all real time inside a call is (end_call), so the wait lasts end_ns - now
        // on the simulated clock whether it spins or not.
        spin_for(end_ns - now, how == HostWait::Yield);
    }
    advance_host_to(end_ns);
}

// --- The device's flags, launches, sticky errors --------------------------------------------------------------

void Machine::set_device_flags(unsigned int flags) {
    state_->device_flags = flags;
}

unsigned int Machine::device_flags() const {
    return state_->device_flags;
}

HostWait Machine::scheduled_wait() const {
    switch (state_->device_flags & cudaDeviceScheduleMask) {
        case cudaDeviceScheduleSpin:
            return HostWait::Spin;
        case cudaDeviceScheduleYield:
            return HostWait::Yield;
        case cudaDeviceScheduleBlockingSync:
            return HostWait::Block;
        default: {
            // cudaDeviceScheduleAuto, the default: "uses a heuristic based on the number of active CUDA
            // contexts in the process C and the number of logical processors in the system P. If C > P, then
            // CUDA will yield [...], otherwise CUDA will not yield while waiting for results and actively
            // spin on the processor" (the Runtime API on cudaSetDeviceFlags). The process has one context.
            constexpr unsigned int kContexts = 1;
            return kContexts > std::max(1U, std::thread::hardware_concurrency()) ? HostWait::Yield : HostWait::Spin;
        }
    }
}

bool Machine::launches_block() const {
    return state_->launch_blocking;
}

void Machine::fault_when_ended(OpId op, cudaError_t error) {
    if (state_->fault == 0) {  // the first fault is the one every later call reports
        state_->fault = op;
        state_->fault_error = error;
    }
}

cudaError_t Machine::sticky_error() {
    if (state_->fault == 0) {
        return cudaSuccess;
    }
    // A fault is the GPU's: the host learns of it once the faulting kernel has ended on the simulated GPU, not
    // when the simulator ran its CPU model at launch.
    state_->scheduler.advance_to(host_now_ns());
    const Op& faulted = state_->scheduler.op(state_->fault);
    return faulted.ended && faulted.shown.end_ns <= host_now_ns() ? state_->fault_error : cudaSuccess;
}

bool Machine::has_ended(OpId op) {
    state_->scheduler.advance_to(host_now_ns());
    return op == 0 || state_->scheduler.op(op).ended;
}

std::uint64_t Machine::end_ns(OpId op) const {
    return state_->scheduler.op(op).shown.end_ns;
}

// --- The clock and the log ------------------------------------------------------------------------------------

std::uint64_t Machine::host_now_ns() const {
    if (t_on_host_function_thread) {
        // A host function runs when its stream reaches it on the simulated GPU, which is when its clock
        // starts (HostFunctionThread::run), not when the simulator happens to run it.
        return t_host_function_start_ns + (real_ns() - t_host_function_real_start_ns);
    }
    return t_call_depth > 0 ? state_->call_host_ns : state_->clock.now();
}

void Machine::advance_host_to(std::uint64_t time_ns) {
    if (t_call_depth > 0) {
        state_->call_host_ns = std::max(state_->call_host_ns, time_ns);
    } else {
        state_->clock.set(std::max(state_->clock.now(), time_ns));
    }
}

void Machine::log_stream_call(OrderingCall call, const char* function, std::uint64_t stream, std::uint64_t event) {
    StreamCall logged;
    logged.call = call;
    logged.function = function;
    logged.stream = stream;
    logged.event = event;
    // CUPTI's callback fires as the call begins.
    logged.time_ns = state_->call_entry_ns;
    state_->calls.add_stream_call(logged);
}

Log Machine::log_since(std::uint64_t since_ns) {
    const std::lock_guard<std::recursive_mutex> lock(mutex_);
    state_->scheduler.advance_to(host_now_ns());
    Log log;
    for (const Op& op : state_->scheduler.ops()) {
        if (op.request.visible() && op.started && op.shown.end_ns >= since_ns) {
            log.ops.push_back(op.shown);
        }
    }
    std::stable_sort(log.ops.begin(), log.ops.end(),
                     [](const DeviceOp& a, const DeviceOp& b) { return a.start_ns < b.start_ns; });
    state_->calls.fill(log, since_ns);
    return log;
}

void Machine::reset() {
    const std::lock_guard<std::recursive_mutex> lock(mutex_);
    state_->scheduler.clear();
    state_->streams.clear();
    state_->events.clear();
    state_->per_thread.clear();
    state_->legacy.tail = 0;
    state_->legacy.barriers_seen = 0;
    state_->legacy.capture.reset();
    state_->barrier = 0;
    state_->barrier_generation = 0;
    state_->calls.clear();
    state_->capture_recorder = nullptr;
    state_->device_flags = 0;
    state_->launch_blocking = launch_blocking_from_environment();
    state_->fault = 0;
    state_->fault_error = cudaSuccess;
    memory_.clear();
    t_last_error = cudaSuccess;
}

void Machine::begin_call(const char* function) {
    if (t_call_depth++ > 0) {
        return;  // A call made by another call is part of it.
    }
    State& s = *state_;
    s.call_entry_ns = s.clock.now();
    s.call_host_ns = s.call_entry_ns + model().call_cost_ns(function);
    correlation_id_ = ++s.next_correlation_id;
    s.calls.count(function, this_thread_id(), s.call_entry_ns);
    s.scheduler.advance_to(s.call_entry_ns);
}

void Machine::end_call() {
    if (--t_call_depth > 0) {
        return;
    }
    // The real time the call took (the simulator doing the GPU's work) is left out of the host clock.
    state_->clock.set(state_->call_host_ns);
}

// --- ApiCall --------------------------------------------------------------------------------------------------

ApiCall::ApiCall(const char* function) : function_(function) {
    Machine& machine = Machine::instance();
    if (t_on_host_function_thread) {
        // cudaLaunchHostFunc's documentation: a host function must not make CUDA API calls. The call is
        // counted (the graders look for such calls) and refused, without the machine's lock, which the
        // call that runs the host function holds.
        machine.state_->calls.count(function, this_thread_id(), machine.host_now_ns());
        permitted_ = false;
        return;
    }
    guard_ = std::unique_lock<std::recursive_mutex>(machine.mutex_);
    machine.begin_call(function);
    sticky_at_entry_ = sticky_error() != cudaSuccess;
}

ApiCall::~ApiCall() {
    if (permitted_) {
        Machine::instance().end_call();
    }
}

cudaError_t ApiCall::sticky_error() {
    // A call from a host function holds no lock and is refused anyway; a call that does no CUDA work is spared.
    if (!permitted_ || spared_by_sticky_errors(function_)) {
        return cudaSuccess;
    }
    return Machine::instance().sticky_error();
}

cudaError_t ApiCall::result(cudaError_t error) {
    // A sticky error: "This leaves the process in an inconsistent state and any further CUDA work will return
    // the same error. To continue using CUDA, the process must be terminated and relaunched" (the Runtime API
    // on cudaErrorIllegalAddress). Every call after the fault returns it, whatever it did or refused to do,
    // a wait that outlasted the faulting kernel included.
    const cudaError_t sticky = sticky_error();
    if (sticky != cudaSuccess) {
        error = sticky;
    }
    // cudaErrorNotReady is an answer (cudaStreamQuery, cudaEventQuery), not an error the runtime keeps.
    if (error != cudaSuccess && error != cudaErrorNotReady) {
        t_last_error = error;
    }
    return error;
}

cudaError_t& thread_last_error() {
    return t_last_error;
}

// --- The public header's functions ------------------------------------------------------------------------

std::uint64_t host_now_ns() {
    return Machine::instance().host_now_ns();
}

Log log_since(std::uint64_t since_ns) {
    return Machine::instance().log_since(since_ns);
}

const std::string* exchange_thread_label(const std::string* label) noexcept {
    const std::string* previous = t_label;
    t_label = label;
    return previous;
}

void reset_for_tests() {
    Machine::instance().reset();
}

}  // namespace streamlab::simgpu
