#include "activity_recorder.hpp"

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "streamlab/tracer.hpp"

namespace streamlab::detail {
namespace {

// CUPTI writes records into buffers we hand it; it needs them 8-byte aligned.
constexpr std::size_t kBufferBytes = std::size_t{8} << 20;

// The record kinds a timeline needs. CONCURRENT_KERNEL, never KERNEL: KERNEL
// makes the driver run kernels one at a time, which would hide the very
// overlap the labs are about.
constexpr CUpti_ActivityKind kRecordedKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
};

// NVTX ranges come as MARKER records, one when a range opens and one when it
// closes, written by CUPTI on the host when the program calls NVTX: nothing per
// launch. CUPTI only sees NVTX calls when NVTX loads it as its injection
// (NVTX_INJECTION64_PATH; the injection library forwards, see inject.cpp), so
// this kind is optional: a recording without it simply has no ranges.
constexpr CUpti_ActivityKind kRangeKind = CUPTI_ACTIVITY_KIND_MARKER;

// Copies between two GPUs (cudaMemcpyPeerAsync) come as records of a kind of
// their own, MEMCPY2. Optional too: a GPU without peers never makes one.
constexpr CUpti_ActivityKind kPeerCopyKind = CUPTI_ACTIVITY_KIND_MEMCPY2;

/// One activity record, copied out of CUPTI's buffer before the buffer is freed.
struct RawRecord {
    // What the timeline's op takes from the record as it is: the kind, GPU, stream,
    // correlation and graph ids (0 unless a graph launch ran it), bytes, host memory
    // and, for peer copies, the two GPUs. collect() adds its name, label, stream kind and times.
    DeviceOp op;
    std::string kernel_name;  // as CUPTI gives it: mangled
    std::uint32_t context_id = 0;
    std::uint32_t runtime_correlation_id = 0;  // copies only: the runtime call's id
    std::uint64_t start = 0;                   // on CUPTI's clock
    std::uint64_t end = 0;
};

/// One end of an NVTX range, copied out of a MARKER record.
struct RawMarker {
    bool opens = false;    // a range start (push); otherwise its end (pop)
    std::uint32_t id = 0;  // the same for both ends of one range
    std::uint64_t time = 0;
    std::uint32_t thread = 0;
    std::string name;  // opening records only
};

/// A stream as CUPTI names it: stream ids are unique within a context only.
using StreamKey = std::pair<std::uint32_t, std::uint32_t>;  // (context id, stream id)

/// Everything the CUPTI callbacks write into. CUPTI calls them from the
/// application's threads and from its own worker thread, so one mutex guards it.
struct Session {
    std::mutex mutex;
    bool recording = false;
    CUpti_SubscriberHandle subscriber = nullptr;
    bool api_callbacks = false;  // the subscriber's runtime and driver API callbacks are on
    std::vector<RawRecord> records;
    std::vector<RawMarker> markers;
    std::unordered_map<std::uint32_t, std::string> labels;  // correlation id -> label
    std::vector<HostMark> marks;                            // absolute CUPTI times
    std::map<std::string, std::uint64_t> api_calls;         // runtime function -> calls
    std::map<std::uint64_t, std::uint64_t> thread_calls;    // host_thread_id() -> runtime calls
    std::vector<StreamCall> stream_calls;                   // calls that queue or order stream work
    std::set<CUcontext> contexts;                           // the contexts the runtime calls ran in
    std::set<std::uint32_t> devices;                        // and their GPUs
    std::map<CUcontext, std::uint32_t> context_devices;     // each such context's GPU
    // The default streams seen so far. Context ids are unique for the whole
    // process, so these survive from one recording to the next.
    std::set<StreamKey> legacy_null_streams;
    std::set<StreamKey> per_thread_streams;

    /// Forgets what the last recording window collected (the caller holds `mutex`).
    void forget_window() {
        records.clear();
        markers.clear();
        labels.clear();
        marks.clear();
        api_calls.clear();
        thread_calls.clear();
        stream_calls.clear();
        contexts.clear();
        devices.clear();
        context_devices.clear();
    }
};

// Never destroyed: the injection library's at-exit handler may run after
// static objects have been destroyed, and CUPTI may call back until then.
Session& session() {
    static auto* instance = new Session;
    return *instance;
}

// The label of the operations this thread issues (set by OpLabel).
thread_local const std::string* t_label = nullptr;

std::string cupti_error_text(CUptiResult result) {
    const char* text = nullptr;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
        return "CUPTI error " + std::to_string(static_cast<int>(result));
    }
    return text;
}

HostMemory host_memory_of(std::uint8_t memory_kind) {
    switch (memory_kind) {
        case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
            return HostMemory::Pageable;
        case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
            return HostMemory::Pinned;
        case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
        case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
            return HostMemory::Managed;
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
        case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
            return HostMemory::Device;
        default:
            return HostMemory::Unknown;
    }
}

bool is_host_side(HostMemory memory) {
    return memory == HostMemory::Pageable || memory == HostMemory::Pinned || memory == HostMemory::Managed;
}

// The copy direction, and the memory kind of its host side: the source of an
// H2D copy, the destination of a D2H copy.
std::pair<OpKind, HostMemory> classify_copy(std::uint8_t copy_kind, std::uint8_t src_kind, std::uint8_t dst_kind) {
    const HostMemory src = host_memory_of(src_kind);
    const HostMemory dst = host_memory_of(dst_kind);
    switch (copy_kind) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
            return {OpKind::MemcpyH2D, src};
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
            return {OpKind::MemcpyD2H, dst};
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
            return {OpKind::MemcpyD2D, HostMemory::Device};
        default:  // host to host, arrays, peers: report the host side, if there is one
            return {OpKind::MemcpyOther, is_host_side(src) ? src : dst};
    }
}

/// The fields every CUPTI record of device work has: where it ran, which call
/// issued it, and when.
template <typename Activity>
RawRecord common_fields(const Activity& activity) {
    RawRecord raw;
    raw.op.device_id = activity.deviceId;
    raw.context_id = activity.contextId;
    raw.op.stream_id = activity.streamId;
    raw.op.correlation_id = activity.correlationId;
    raw.op.graph_id = activity.graphId;
    raw.op.graph_node_id = activity.graphNodeId;
    raw.start = activity.start;
    raw.end = activity.end;
    return raw;
}

// The struct versions below are the ones of the CUPTI headers this is compiled
// with (CUDA 13: Kernel10, Memcpy6, MemcpyPtoP4, Memset4). CUPTI fills records in its own
// latest layout, so the headers and libcupti must come from the same toolkit.
std::optional<RawRecord> copy_record(const CUpti_Activity* record) {
    switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
            RawRecord raw = common_fields(*kernel);
            raw.op.kind = OpKind::Kernel;
            raw.kernel_name = kernel->name != nullptr ? kernel->name : "";
            return raw;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
            RawRecord raw = common_fields(*copy);
            std::tie(raw.op.kind, raw.op.host_memory) = classify_copy(copy->copyKind, copy->srcKind, copy->dstKind);
            raw.runtime_correlation_id = copy->runtimeCorrelationId;
            raw.op.bytes = copy->bytes;
            return raw;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY2: {  // a copy between two GPUs
            const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
            RawRecord raw = common_fields(*copy);
            raw.op.kind = OpKind::MemcpyP2P;
            raw.op.host_memory = HostMemory::Device;
            raw.op.bytes = copy->bytes;
            raw.op.source_device = copy->srcDeviceId;
            raw.op.destination_device = copy->dstDeviceId;
            return raw;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto* set = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
            RawRecord raw = common_fields(*set);
            raw.op.kind = OpKind::Memset;
            raw.op.bytes = set->bytes;
            return raw;
        }
        default:
            return std::nullopt;
    }
}

// Range ends only: instantaneous markers (nvtxMarkA) and the ranges OpLabel
// pushes in its own domain are left out.
std::optional<RawMarker> copy_marker(const CUpti_Activity* record) {
    if (record->kind != kRangeKind) {
        return std::nullopt;
    }
    const auto* marker = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
    RawMarker raw;
    raw.opens = (marker->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0;
    if (!raw.opens && (marker->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) == 0) {
        return std::nullopt;
    }
    if (marker->domain != nullptr && std::strcmp(marker->domain, kLabelDomain) == 0) {
        return std::nullopt;
    }
    raw.id = marker->id;
    raw.time = marker->timestamp;
    if (marker->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || marker->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        raw.thread = marker->objectId.pt.threadId;
    }
    raw.name = marker->name != nullptr ? marker->name : "";
    return raw;
}

// Pairs the two ends of each range (they may arrive in different buffers, in
// either order). A range still open when the recording ends, or opened before
// it began, is left out.
std::vector<HostRange> pair_markers(const std::vector<RawMarker>& markers, std::uint64_t origin) {
    std::unordered_map<std::uint32_t, const RawMarker*> opening;
    for (const RawMarker& marker : markers) {
        if (marker.opens) {
            opening[marker.id] = &marker;
        }
    }
    std::vector<HostRange> ranges;
    for (const RawMarker& end : markers) {
        const auto begin = end.opens ? opening.end() : opening.find(end.id);
        if (begin == opening.end()) {
            continue;
        }
        const RawMarker& start = *begin->second;
        if (start.time >= origin && end.time >= start.time) {
            ranges.push_back(HostRange{start.name, start.time - origin, end.time - origin, start.thread});
        }
    }
    std::stable_sort(ranges.begin(), ranges.end(),
                     [](const HostRange& a, const HostRange& b) { return a.start_ns < b.start_ns; });
    return ranges;
}

// CUPTI asks for a buffer from the thread that launched the work. calloc hands
// out zeroed pages lazily, so this costs next to nothing there; with
// CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER set (attach_once), CUPTI does
// not clear the buffer itself, which would stall that launch for milliseconds.
void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = static_cast<std::uint8_t*>(std::calloc(1, kBufferBytes));  // aligned for any record
    *size = *buffer != nullptr ? kBufferBytes : 0;
    *max_records = 0;  // as many as fit
}

void CUPTIAPI on_buffer_completed(CUcontext /*context*/, std::uint32_t /*stream_id*/, std::uint8_t* buffer,
                                  std::size_t /*size*/, std::size_t valid_bytes) {
    std::vector<RawRecord> parsed;
    std::vector<RawMarker> markers;
    CUpti_Activity* record = nullptr;
    // Ends with CUPTI_ERROR_MAX_LIMIT_REACHED after the last record.
    while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
        if (std::optional<RawRecord> raw = copy_record(record)) {
            parsed.push_back(std::move(*raw));
        } else if (std::optional<RawMarker> marker = copy_marker(record)) {
            markers.push_back(std::move(*marker));
        }
    }
    std::free(buffer);

    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.recording) {  // a late buffer of a finished recording is not ours any more
        s.records.insert(s.records.end(), std::make_move_iterator(parsed.begin()),
                         std::make_move_iterator(parsed.end()));
        s.markers.insert(s.markers.end(), std::make_move_iterator(markers.begin()),
                         std::make_move_iterator(markers.end()));
    }
}

bool uses_per_thread_default_stream(const char* function_name) {
    // The per-thread default stream variants of runtime and driver calls end in
    // _ptsz (for stream arguments) or _ptds (for calls without one).
    return function_name != nullptr &&
           (std::strstr(function_name, "_ptsz") != nullptr || std::strstr(function_name, "_ptds") != nullptr);
}

// Learns which CUPTI stream ids are the default streams, on the way out of an
// API call: the context exists by then, and the per-thread default stream does
// too when the call used it. Each thread asks once per context.
void note_default_streams(const CUpti_CallbackData& call) {
    if (call.context == nullptr) {
        return;
    }
    thread_local CUcontext t_legacy_known_for = nullptr;
    thread_local CUcontext t_per_thread_known_for = nullptr;
    const bool need_legacy = call.context != t_legacy_known_for;
    const bool need_per_thread =
        call.context != t_per_thread_known_for && uses_per_thread_default_stream(call.functionName);
    if (!need_legacy && !need_per_thread) {
        return;
    }
    std::uint32_t context_id = 0;
    if (cuptiGetContextId(call.context, &context_id) != CUPTI_SUCCESS) {
        return;
    }
    Session& s = session();
    std::uint32_t stream_id = 0;
    if (need_legacy && cuptiGetStreamIdEx(call.context, nullptr, 0, &stream_id) == CUPTI_SUCCESS) {
        const std::lock_guard<std::mutex> lock(s.mutex);
        s.legacy_null_streams.insert({context_id, stream_id});
        t_legacy_known_for = call.context;
    }
    if (need_per_thread && cuptiGetStreamIdEx(call.context, nullptr, 1, &stream_id) == CUPTI_SUCCESS) {
        const std::lock_guard<std::mutex> lock(s.mutex);
        s.per_thread_streams.insert({context_id, stream_id});
        t_per_thread_known_for = call.context;
    }
}

// Counts one call of a runtime function by its plain name: CUPTI may append a
// version ("_v3020") or a per-thread-stream suffix ("_ptsz", "_ptds").
/// Counts a runtime call by name and thread, and notes the GPU whose context it ran in.
void count_api_call(const CUpti_CallbackData& call) {
    if (call.functionName == nullptr) {
        return;
    }
    std::string name(call.functionName);
    for (const char* suffix : {"_ptsz", "_ptds"}) {
        const std::size_t n = std::strlen(suffix);
        if (name.size() > n && name.compare(name.size() - n, n, suffix) == 0) {
            name.resize(name.size() - n);
        }
    }
    const std::size_t version = name.rfind("_v");
    if (version != std::string::npos && version + 2 < name.size() &&
        name.find_first_not_of("0123456789", version + 2) == std::string::npos) {
        name.resize(version);
    }
    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.recording) {
        ++s.api_calls[name];
        ++s.thread_calls[host_thread_id()];
        // Once per context: finishing a recording waits for every GPU it used.
        std::uint32_t device = 0;
        if (call.context != nullptr && s.contexts.insert(call.context).second &&
            cuptiGetDeviceId(call.context, &device) == CUPTI_SUCCESS) {
            s.devices.insert(device);
            s.context_devices[call.context] = device;
        }
    }
}

/// A stream handle as a number: the legacy NULL stream is 0 however it is named,
/// the per-thread default stream is cudaStreamPerThread's value.
std::uint64_t stream_key(cudaStream_t stream, bool per_thread_call) {
    if (stream == nullptr) {
        return per_thread_call ? reinterpret_cast<std::uintptr_t>(cudaStreamPerThread) : 0;
    }
    if (stream == cudaStreamLegacy) {
        return 0;
    }
    return reinterpret_cast<std::uintptr_t>(stream);
}

std::uint64_t event_key(cudaEvent_t event) {
    return reinterpret_cast<std::uintptr_t>(event);
}

/// Whether CUPTI's parameters `Params` of a call name an event (`p->event`).
template <typename Params, typename = void>
constexpr bool has_event = false;
template <typename Params>
constexpr bool has_event<Params, std::void_t<decltype(std::declval<const Params&>().event)>> = true;

/// A call on a stream, with the parameters `Params` (which name the stream) that
/// CUPTI passes for it; `per_thread` for the _ptsz variant. Its event, where it
/// has one, is event_key(p->event).
template <typename Params>
StreamCall call_on_stream(const void* params, OrderingCall kind, const char* name, bool per_thread) {
    const auto* p = static_cast<const Params*>(params);
    std::uint64_t event = 0;
    if constexpr (has_event<Params>) {
        event = event_key(p->event);
    }
    return StreamCall{kind, name, stream_key(p->stream, per_thread), event};
}

// The two case labels of a runtime call that takes a stream, `api` (its legacy
// version `legacy` and its per-thread-default-stream version `ptsz`), and the
// StreamCall it is. The parameters are the same struct for both versions.
#define STREAMLAB_STREAM_CALL(api, legacy, ptsz, kind)                     \
    case CUPTI_RUNTIME_TRACE_CBID_##api##_##legacy:                        \
    case CUPTI_RUNTIME_TRACE_CBID_##api##_ptsz_##ptsz:                     \
        return call_on_stream<api##_##legacy##_params>(params, kind, #api, \
                                                       id == CUPTI_RUNTIME_TRACE_CBID_##api##_ptsz_##ptsz);

// The case label of a runtime call `api` (version `version`) that may make every
// stream wait for the others (OrderingCall::ImplicitSync).
#define STREAMLAB_IMPLICIT_SYNC(api, version)        \
    case CUPTI_RUNTIME_TRACE_CBID_##api##_##version: \
        return StreamCall{C::ImplicitSync, #api, 0, 0};

/// The StreamCall a runtime call `id` with `params` is, if it queues or orders stream work.
std::optional<StreamCall> stream_call_of(CUpti_CallbackId id, const void* params) {
    using C = OrderingCall;
    switch (id) {
        STREAMLAB_STREAM_CALL(cudaMemcpyAsync, v3020, v7000, C::Work)
        STREAMLAB_STREAM_CALL(cudaLaunchKernel, v7000, v7000, C::Work)
        case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000:  // a copy between GPUs; no per-thread version
            return call_on_stream<cudaMemcpyPeerAsync_v4000_params>(params, C::Work, "cudaMemcpyPeerAsync", false);
            STREAMLAB_STREAM_CALL(cudaEventRecord, v3020, v7000, C::EventRecord)
            STREAMLAB_STREAM_CALL(cudaEventRecordWithFlags, v11010, v11010, C::EventRecord)
            STREAMLAB_STREAM_CALL(cudaStreamWaitEvent, v3020, v7000, C::StreamWaitEvent)
            STREAMLAB_STREAM_CALL(cudaStreamSynchronize, v3020, v7000, C::StreamSynchronize)
            STREAMLAB_STREAM_CALL(cudaStreamQuery, v3020, v7000, C::StreamQuery)
        case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020: {
            const auto* p = static_cast<const cudaEventSynchronize_v3020_params*>(params);
            return StreamCall{C::EventSynchronize, "cudaEventSynchronize", 0, event_key(p->event)};
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
            return StreamCall{C::DeviceSynchronize, "cudaDeviceSynchronize", 0, 0};
            STREAMLAB_IMPLICIT_SYNC(cudaMalloc, v3020)
            STREAMLAB_IMPLICIT_SYNC(cudaFree, v3020)
            STREAMLAB_IMPLICIT_SYNC(cudaMallocHost, v3020)
            STREAMLAB_IMPLICIT_SYNC(cudaHostAlloc, v3020)
            STREAMLAB_IMPLICIT_SYNC(cudaFreeHost, v3020)
            STREAMLAB_IMPLICIT_SYNC(cudaHostRegister, v4000)
            STREAMLAB_IMPLICIT_SYNC(cudaHostUnregister, v4000)
            STREAMLAB_IMPLICIT_SYNC(cudaMemset, v3020)
            STREAMLAB_IMPLICIT_SYNC(cudaDeviceSetLimit, v3020)
            STREAMLAB_IMPLICIT_SYNC(cudaDeviceSetCacheConfig, v3020)
        default:
            return std::nullopt;
    }
}
#undef STREAMLAB_STREAM_CALL
#undef STREAMLAB_IMPLICIT_SYNC

/// Notes a runtime call that queues or orders stream work, with the GPU current when it was made
/// (count_api_call, called before, found its context's GPU).
void note_stream_call(CUpti_CallbackId id, const CUpti_CallbackData& made) {
    std::optional<StreamCall> call = stream_call_of(id, made.functionParams);
    if (!call) {
        return;
    }
    cuptiGetTimestamp(&call->time_ns);  // CUPTI's clock; Tracer::finish makes it the timeline's
    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.recording) {
        if (const auto found = s.context_devices.find(made.context); found != s.context_devices.end()) {
            call->device = found->second;
        }
        s.stream_calls.push_back(std::move(*call));
    }
}

// Called by CUPTI at the entry and exit of every runtime and driver API call.
void CUPTIAPI on_api_call(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) {
        return;
    }
    const auto& call = *static_cast<const CUpti_CallbackData*>(data);
    if (call.callbackSite == CUPTI_API_EXIT) {
        note_default_streams(call);
        return;
    }
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        count_api_call(call);
        note_stream_call(id, call);
    }
    // A runtime call and the driver calls it makes have their own correlation
    // ids, and a device record carries one of them. Remembering the label under
    // each id finds it whichever the record carries.
    if (t_label != nullptr) {
        Session& s = session();
        const std::lock_guard<std::mutex> lock(s.mutex);
        s.labels[call.correlationId] = *t_label;
    }
    // cudaDeviceReset destroys the context and whatever CUPTI still buffers for
    // it: collect the completed records first.
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && id == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
        cuptiActivityFlushAll(0);
    }
}

// Undoes what start() did so far; used when a later step of start() fails.
void undo_start(CUpti_SubscriberHandle subscriber) noexcept {
    for (const CUpti_ActivityKind kind : kRecordedKinds) {
        cuptiActivityDisable(kind);
    }
    cuptiActivityDisable(kRangeKind);
    cuptiActivityDisable(kPeerCopyKind);
    if (subscriber != nullptr) {
        cuptiUnsubscribe(subscriber);
    }
}

CUpti_SubscriberHandle subscribe() {
    char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "streamlab";
    params.oldSubscriberName = holder;
    params.oldSubscriberSize = sizeof(holder);

    CUpti_SubscriberHandle subscriber = nullptr;
    const CUptiResult result = cuptiSubscribe_v2(&subscriber, on_api_call, nullptr, &params);
    if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        const std::string who = holder[0] != '\0' ? std::string(" (") + holder + ")" : std::string();
        throw TimelineUnavailable("another CUPTI tool is already recording this process" + who +
                                  "; Nsight Systems, Nsight Compute, compute-sanitizer and cuda-gdb "
                                  "all use CUPTI, so run without them to record a timeline, or run the program with "
                                  "--no-trace (a test executable with STREAMLAB_NO_TRACE=1) to let them watch it");
    }
    if (result != CUPTI_SUCCESS) {
        throw TimelineUnavailable("CUPTI could not start (" + cupti_error_text(result) +
                                  "); is there a GPU, and a driver as new as the CUDA toolkit?");
    }
    return subscriber;
}

void check_start_step(CUptiResult result, const char* step, CUpti_SubscriberHandle subscriber) {
    if (result != CUPTI_SUCCESS) {
        undo_start(subscriber);
        throw TimelineUnavailable(std::string("CUPTI refused ") + step + ": " + cupti_error_text(result));
    }
}

}  // namespace

namespace {
// Subscribes to CUPTI and enables the activity kinds, once per process.
//
// Recording stays enabled from then on, between recordings too: enabling it
// makes the next kernel launch of the process pay for CUPTI's set-up (several
// ms on an H200), which would show as a gap at the start of every recording.
// Kept enabled, that cost is paid once, by the first recording's first launch.
// The subscription comes first: it is what finds another CUPTI tool holding the
// process. Its API callbacks are enabled separately (enable_api_callbacks_once),
// so that CUPTI's activity records can be measured alone (enable_activity_records_only).
void attach_activity_once(Session& s) {
    if (s.subscriber != nullptr) {
        return;
    }
    CUpti_SubscriberHandle subscriber = subscribe();
    std::uint8_t zeroed = 1;
    std::size_t zeroed_size = sizeof zeroed;
    check_start_step(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroed_size, &zeroed),
                     "zeroed activity buffers", subscriber);
    check_start_step(cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed), "activity buffers",
                     subscriber);
    for (const CUpti_ActivityKind kind : kRecordedKinds) {
        const CUptiResult result = cuptiActivityEnable(kind);
        if (result != CUPTI_SUCCESS) {
            undo_start(subscriber);
            throw TimelineUnavailable("CUPTI refused to record activity kind " +
                                      std::to_string(static_cast<int>(kind)) + ": " + cupti_error_text(result));
        }
    }
    cuptiActivityEnable(kRangeKind);     // optional: without it, no ranges (see kRangeKind)
    cuptiActivityEnable(kPeerCopyKind);  // optional: without it, no peer copies (see kPeerCopyKind)
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.subscriber = subscriber;
}

// Turns on the runtime and driver API callbacks (call counts, stream calls,
// labels) on the subscription, once per process; they too stay on.
void enable_api_callbacks_once(Session& s) {
    if (s.api_callbacks) {
        return;
    }
    CUptiResult result = cuptiEnableDomain(1, s.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    if (result == CUPTI_SUCCESS) {
        result = cuptiEnableDomain(1, s.subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
    }
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (result != CUPTI_SUCCESS) {  // undone whole: the next recording starts from the subscription again
        undo_start(s.subscriber);
        s.subscriber = nullptr;
        throw TimelineUnavailable(std::string("CUPTI refused the runtime and driver API callbacks: ") +
                                  cupti_error_text(result));
    }
    s.api_callbacks = true;
}

void attach_once(Session& s) {
    attach_activity_once(s);
    enable_api_callbacks_once(s);
}
}  // namespace

void enable_activity_records_only() {
    Session& s = session();
    if (s.api_callbacks) {
        throw std::logic_error(
            "streamlab: CUPTI's activity records cannot be measured alone once a recording has started in this "
            "process (its API callbacks stay on); measure before anything records");
    }
    attach_activity_once(s);
}

ActivityRecorder::ActivityRecorder() {
    Session& s = session();
    {
        const std::lock_guard<std::mutex> lock(s.mutex);
        if (s.recording) {
            throw_already_recording();
        }
    }
    attach_once(s);
    // Records of earlier work still in CUPTI's buffers arrive now, while no
    // recording is active, and are dropped.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    restart_window();
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.recording = true;
}

ActivityRecorder::~ActivityRecorder() {
    stop();
}

void ActivityRecorder::flush() {
    const CUptiResult result = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (result != CUPTI_SUCCESS) {
        throw TimelineUnavailable("CUPTI could not flush its records: " + cupti_error_text(result));
    }
}

void ActivityRecorder::stop() noexcept {
    if (stopped_) {
        return;
    }
    stopped_ = true;
    Session& s = session();
    // Deliver what is still buffered while it is ours; CUPTI itself stays attached (see attach_once).
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.recording = false;
}

void ActivityRecorder::restart_window() {
    const CUptiResult result = cuptiGetTimestamp(&origin_ns_);
    if (result != CUPTI_SUCCESS) {
        throw TimelineUnavailable(std::string("CUPTI refused a timestamp: ") + cupti_error_text(result));
    }
    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.forget_window();
}

std::map<std::string, std::uint64_t> ActivityRecorder::api_calls() const {
    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    return s.api_calls;
}

std::map<std::uint64_t, std::uint64_t> ActivityRecorder::api_calls_by_thread() const {
    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    return s.thread_calls;
}

std::vector<std::uint32_t> ActivityRecorder::devices() const {
    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    return {s.devices.begin(), s.devices.end()};
}

std::vector<StreamCall> ActivityRecorder::stream_calls() const {
    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    return s.stream_calls;
}

Timeline ActivityRecorder::collect() const {
    Session& s = session();
    std::vector<RawRecord> records;
    std::vector<RawMarker> markers;
    std::unordered_map<std::uint32_t, std::string> labels;
    std::set<StreamKey> legacy_null_streams;
    std::set<StreamKey> per_thread_streams;
    Timeline recording;
    {
        const std::lock_guard<std::mutex> lock(s.mutex);
        records = s.records;
        markers = s.markers;
        labels = s.labels;
        legacy_null_streams = s.legacy_null_streams;
        per_thread_streams = s.per_thread_streams;
        recording.marks = s.marks;
    }

    recording.origin_ns = origin_ns_;
    // Work issued after the origin starts after it; the clamp only guards
    // against a record stamped a hair early by clock conversion.
    const auto relative = [this](std::uint64_t t) { return t > origin_ns_ ? t - origin_ns_ : 0; };
    for (const RawRecord& raw : records) {
        // CUPTI leaves timestamps at zero when it could not collect them.
        if (raw.start == 0 || raw.end == 0 || raw.end < raw.start) {
            ++recording.dropped_records;
            continue;
        }
        if (raw.end < origin_ns_) {
            continue;  // finished before this recording began (see restart_window)
        }
        DeviceOp op = raw.op;  // what the record gives as it is; the rest follows
        op.name = op.kind == OpKind::Kernel ? demangle(raw.kernel_name) : op_base_name(op.kind);
        auto label = labels.find(op.correlation_id);
        if (label == labels.end() && raw.runtime_correlation_id != 0) {
            label = labels.find(raw.runtime_correlation_id);
        }
        if (label != labels.end()) {
            op.label = label->second;
        }
        const StreamKey stream{raw.context_id, op.stream_id};
        if (legacy_null_streams.count(stream) != 0) {
            op.stream_kind = StreamKind::LegacyNull;
        } else if (per_thread_streams.count(stream) != 0) {
            op.stream_kind = StreamKind::PerThreadDefault;
        } else {
            op.stream_kind = StreamKind::Created;
        }
        op.start_ns = relative(raw.start);
        op.end_ns = relative(raw.end);
        recording.ops.push_back(std::move(op));
    }
    sort_ops(recording.ops);
    recording.ranges = pair_markers(markers, origin_ns_);
    recording.marks = relative_marks(std::move(recording.marks), origin_ns_);
    return recording;
}

void mark_now(const std::string& name) {
    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    std::uint64_t now = 0;
    if (s.recording && cuptiGetTimestamp(&now) == CUPTI_SUCCESS) {
        s.marks.push_back(HostMark{name, now});
    }
}

const std::string* exchange_thread_label(const std::string* label) noexcept {
    return std::exchange(t_label, label);
}

const char* recorder_name() noexcept {
    return "CUPTI";
}

std::uint64_t recorder_clock_ns() {
    std::uint64_t now = 0;
    if (cuptiGetTimestamp(&now) != CUPTI_SUCCESS) {
        throw std::runtime_error("cuptiGetTimestamp failed: no clock to time the host's work on");
    }
    return now;
}

void flush_activity_records() noexcept {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

}  // namespace streamlab::detail
