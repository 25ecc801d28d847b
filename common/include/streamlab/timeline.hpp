/// @file timeline.hpp
/// @brief What the GPU did, as recorded: operations, host marks, and the trace they form.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "streamlab/device.hpp"

namespace streamlab {

/// The kind of work a device operation did.
enum class OpKind { Kernel, MemcpyH2D, MemcpyD2H, MemcpyD2D, MemcpyP2P, MemcpyOther, Memset };

/// Where the host side of a copy lived. Pinned memory is what lets a copy overlap.
enum class HostMemory { NotApplicable, Pageable, Pinned, Managed, Device, Unknown };

/// Which stream an operation went to.
enum class StreamKind {
    Created,           ///< A stream the program created.
    LegacyNull,        ///< The legacy NULL stream (stream 0 without per-thread default streams).
    PerThreadDefault,  ///< The per-thread default stream (`--default-stream per-thread`).
};

/// One operation the GPU ran, with the GPU's own timestamps.
struct DeviceOp {
    OpKind kind = OpKind::Kernel;                        ///< What it did.
    std::string name;                                    ///< Kernel name (demangled) or "H2D", "D2H", ...
    std::string label;                                   ///< The lab's name for it (e.g. chunk "1"), or empty.
    std::uint32_t stream_id = 0;                         ///< CUPTI's stream id.
    StreamKind stream_kind = StreamKind::Created;        ///< NULL, per-thread default or created.
    std::uint64_t start_ns = 0;                          ///< Start, ns, on the trace's clock.
    std::uint64_t end_ns = 0;                            ///< End, ns, on the trace's clock.
    std::uint64_t bytes = 0;                             ///< Bytes moved or set (0 for kernels).
    HostMemory host_memory = HostMemory::NotApplicable;  ///< For copies: the host buffer's kind.
    std::uint32_t correlation_id = 0;                    ///< Ties the op to the API call that issued it.
    /// The CUDA graph whose launch ran the op (CUPTI's graph id), or 0 when no graph launch did.
    std::uint32_t graph_id = 0;
    /// The graph node that ran the op (CUPTI's id, the same in every launch of one
    /// instantiated graph), or 0 when no graph launch did.
    std::uint64_t graph_node_id = 0;
    /// The GPU that ran it (CUPTI's device id: the CUDA device ordinal). Stream ids
    /// are the GPU's own, so two GPUs' streams are told apart by this too.
    std::uint32_t device_id = 0;
    /// For a copy between two GPUs (MemcpyP2P): the GPU it copied from and the GPU
    /// it copied to (device_id is the one whose engine ran it). 0 for every other op.
    std::uint32_t source_device = 0;
    std::uint32_t destination_device = 0;  ///< See source_device.

    /// Duration in ns.
    [[nodiscard]] std::uint64_t duration_ns() const { return end_ns - start_ns; }
};

/// An instant the host recorded on the same clock as the device operations.
struct HostMark {
    std::string name;           ///< What happened, e.g. "launches returned".
    std::uint64_t time_ns = 0;  ///< When, ns, on the trace's clock.
};

/// A stretch of host time the program named with an NVTX range (nvtxRangePushA /
/// nvtxRangePop, or nvtxRangeStartA / nvtxRangeEnd), on the same clock as the
/// device operations. Ranges nest; the plots cut a timeline into phases at the
/// outermost ones.
struct HostRange {
    std::string name;            ///< The range's message, e.g. "version 1".
    std::uint64_t start_ns = 0;  ///< Start, ns, on the trace's clock.
    std::uint64_t end_ns = 0;    ///< End, ns, on the trace's clock.
    std::uint32_t thread = 0;    ///< The host thread that opened it (the OS thread id), or 0.
};

/// What a runtime call that queues or orders stream work does (see StreamCall).
enum class OrderingCall {
    Work,               ///< Queues work: cudaMemcpyAsync, cudaLaunchKernel (a <<<...>>> launch).
    EventRecord,        ///< cudaEventRecord, cudaEventRecordWithFlags.
    StreamWaitEvent,    ///< cudaStreamWaitEvent: the stream waits for the event's last record.
    StreamSynchronize,  ///< The host waits for a stream.
    EventSynchronize,   ///< The host waits for an event.
    DeviceSynchronize,  ///< The host waits for the whole device.
    StreamQuery,        ///< The host asks whether a stream's work is done (cudaStreamQuery), without waiting.
    /// A call that may make every stream wait for the others, the Programming Guide's
    /// implicit synchronization: device allocation and release (cudaMalloc, cudaFree),
    /// page-locked host memory (cudaMallocHost, cudaHostAlloc, cudaFreeHost,
    /// cudaHostRegister, cudaHostUnregister), cudaMemset, device-wide settings
    /// (cudaDeviceSetLimit, cudaDeviceSetCacheConfig). `stream` and `event` are 0.
    ImplicitSync,
};

/// One runtime call that queues or orders work in streams, as the host made it.
/// Streams and events are named by their handles' values (the legacy NULL
/// stream is 0, the per-thread default stream 2, as cudaStreamPerThread).
struct StreamCall {
    OrderingCall call = OrderingCall::Work;  ///< What the call does.
    std::string function;                    ///< e.g. "cudaMemcpyAsync", without version suffix.
    std::uint64_t stream = 0;                ///< The stream it names (0 for event and device synchronizations).
    std::uint64_t event = 0;                 ///< The event it names (0 for work and stream or device synchronizations).
    std::uint64_t time_ns = 0;               ///< When the host made the call, on the timeline's clock.
    /// The GPU current on the calling thread when the call was made (the device of
    /// the context it ran in; 0 when none was current yet). Where several GPUs
    /// work, it tells their calls apart: an event recorded while GPU 0 was current
    /// and waited for by a stream while GPU 1 was is a wait across GPUs.
    std::uint32_t device = 0;
};

/// A recorded timeline: everything a grader or a plot needs.
struct Timeline {
    std::vector<DeviceOp> ops;          ///< Device operations, sorted by start.
    std::vector<HostMark> marks;        ///< Host marks, sorted by time.
    std::vector<HostRange> ranges;      ///< The program's NVTX ranges, sorted by start (may be none).
    DeviceFacts device;                 ///< The device it ran on.
    std::string program;                ///< What was recorded.
    std::string date;                   ///< UTC ISO 8601 time of recording.
    std::uint64_t origin_ns = 0;        ///< Clock value that times are relative to.
    std::uint64_t dropped_records = 0;  ///< Records dropped for zero timestamps.
    /// How often each CUDA runtime function was called while recording, by
    /// name without version suffix ("cudaStreamCreateWithFlags": 4), as CUPTI's
    /// callbacks saw the calls.
    std::map<std::string, std::uint64_t> api_calls;
    /// How many runtime calls each host thread made while recording, by
    /// streamlab::host_thread_id(). Kept in memory for graders (a host function,
    /// which runs on a thread of CUDA's own, must make none); trace files do not carry them.
    std::map<std::uint64_t, std::uint64_t> api_calls_by_thread;
    /// The runtime calls that queued or ordered stream work while recording, in
    /// the order they were made (see StreamCall). Kept in memory for graders;
    /// trace files do not carry them.
    std::vector<StreamCall> stream_calls;
    /// Why nothing was recorded (the tracer was off, see tracing_off_reason);
    /// empty for a recorded timeline.
    std::string not_recorded;

    /// False when the work ran without the tracer: then `ops` says nothing.
    [[nodiscard]] bool recorded() const { return not_recorded.empty(); }
};

/// `ns` nanoseconds (the timeline's unit) in milliseconds.
[[nodiscard]] constexpr double ms(std::uint64_t ns) {
    return static_cast<double>(ns) / 1e6;
}

/// What a viewer calls an op of `kind` before its label: "H2D", "D2H", "D2D",
/// "memcpy", "memset"; "kernel" for kernels, which are shown by their own name.
[[nodiscard]] const char* op_base_name(OpKind kind);
/// Short name of an op kind as the trace file spells it ("kernel", "memcpy_h2d", ...).
[[nodiscard]] const char* to_string(OpKind kind);
/// Host memory kind as the trace file spells it ("pinned", "pageable", ...).
[[nodiscard]] const char* to_string(HostMemory memory);
/// Stream kind as the trace file spells it ("created", "legacy_null", "per_thread_default").
[[nodiscard]] const char* to_string(StreamKind kind);

/// The op kind a trace file spelling names (the inverse of to_string).
/// Throws streamlab::TraceFormatError (trace_format_error.hpp) for an unknown spelling.
[[nodiscard]] OpKind op_kind_from_string(const std::string& text);
/// The host memory kind a trace file spelling names (the inverse of to_string).
/// Throws streamlab::TraceFormatError (trace_format_error.hpp) for an unknown spelling.
[[nodiscard]] HostMemory host_memory_from_string(const std::string& text);
/// The stream kind a trace file spelling names (the inverse of to_string).
/// Throws streamlab::TraceFormatError (trace_format_error.hpp) for an unknown spelling.
[[nodiscard]] StreamKind stream_kind_from_string(const std::string& text);

/// How many calls of any of the runtime functions `names` the timeline saw.
[[nodiscard]] inline std::uint64_t count_api_calls(const Timeline& timeline, std::initializer_list<const char*> names) {
    std::uint64_t total = 0;
    for (const char* name : names) {
        const auto found = timeline.api_calls.find(name);
        total += found == timeline.api_calls.end() ? 0 : found->second;
    }
    return total;
}

}  // namespace streamlab
