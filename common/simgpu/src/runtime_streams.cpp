// The runtime's stream, event and synchronization calls on the simulated GPU.
//
// What each call orders is the machine's (machine.cpp: order within a stream, the legacy NULL stream's
// barrier with blocking streams, events as markers in their streams); here are the arguments' checks, the
// documented errors and what the host waits for.
#include <cuda_runtime_api.h>

#include <algorithm>

#include "machine.hpp"
#include "runtime.hpp"

using streamlab::OrderingCall;
using namespace streamlab::simgpu;

namespace {

// The priorities the H200 offers (cudaDeviceGetStreamPriorityRange): 0, the default and least, to -5.
constexpr int kLeastPriority = 0;
constexpr int kGreatestPriority = -5;

cudaError_t create_stream(ApiCall& call, cudaStream_t* pStream, unsigned int flags, int priority) {
    if (pStream == nullptr || (flags & ~static_cast<unsigned int>(cudaStreamNonBlocking)) != 0) {
        return cudaErrorInvalidValue;
    }
    // cudaStreamCreateWithPriority: a priority outside the device's range is clamped into it.
    priority = std::clamp(priority, kGreatestPriority, kLeastPriority);
    *pStream = call.machine().create_stream(flags, priority).handle;
    return cudaSuccess;
}

/// A stream the program created (not a default stream), or null.
Stream* created_stream(Machine& machine, cudaStream_t handle) {
    if (handle == nullptr || handle == cudaStreamLegacy || handle == cudaStreamPerThread) {
        return nullptr;
    }
    return machine.find_stream(handle);
}

cudaError_t create_event(ApiCall& call, cudaEvent_t* event, unsigned int flags) {
    constexpr unsigned int known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (event == nullptr || (flags & ~known) != 0) {
        return cudaErrorInvalidValue;
    }
    // cudaEventInterprocess: "must be specified along with cudaEventDisableTiming".
    if ((flags & cudaEventInterprocess) != 0 && (flags & cudaEventDisableTiming) == 0) {
        return cudaErrorInvalidValue;
    }
    *event = call.machine().create_event(flags).handle;
    return cudaSuccess;
}

cudaError_t record_event(ApiCall& call, cudaEvent_t event, cudaStream_t stream) {
    Machine& machine = call.machine();
    Event* recorded = machine.find_event(event);
    Stream* target = machine.find_stream(stream);
    if (recorded == nullptr || target == nullptr) {
        return cudaErrorInvalidResourceHandle;
    }
    machine.record_event(*recorded, *target);
    return cudaSuccess;
}

}  // namespace

extern "C" {

// --- Streams -----------------------------------------------------------------------------------------------------

cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
    ApiCall call("cudaStreamCreate");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    return call.result(create_stream(call, pStream, cudaStreamDefault, kLeastPriority));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
    ApiCall call("cudaStreamCreateWithFlags");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    return call.result(create_stream(call, pStream, flags, kLeastPriority));
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
    ApiCall call("cudaStreamCreateWithPriority");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    return call.result(create_stream(call, pStream, flags, priority));
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
    ApiCall call("cudaDeviceGetStreamPriorityRange");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    // Either pointer may be null (its documentation): that value is then not returned.
    if (leastPriority != nullptr) {
        *leastPriority = kLeastPriority;
    }
    if (greatestPriority != nullptr) {
        *greatestPriority = kGreatestPriority;
    }
    return call.result(cudaSuccess);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    ApiCall call("cudaStreamDestroy");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    if (created_stream(machine, stream) == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    // "In case the device is still doing work in the stream when cudaStreamDestroy() is called, the
    // function will return immediately": the work still runs, the host does not wait.
    machine.destroy_stream(stream);
    return call.result(cudaSuccess);
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int* flags) {
    ApiCall call("cudaStreamGetFlags");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    const Stream* stream = call.machine().find_stream(hStream);
    if (stream == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    if (flags == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    *flags = stream->flags;
    return call.result(cudaSuccess);
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int* priority) {
    ApiCall call("cudaStreamGetPriority");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    const Stream* stream = call.machine().find_stream(hStream);
    if (stream == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    if (priority == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    *priority = stream->priority;
    return call.result(cudaSuccess);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    ApiCall call("cudaStreamSynchronize");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::StreamSynchronize, "cudaStreamSynchronize", stream_key(stream), 0);
    const Stream* target = machine.find_stream(stream);
    if (target == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    // The host waits for the stream's work so far: its tail is the last op issued to it, which ends after
    // all the others (order within a stream).
    machine.wait_host_for(target->tail);
    return call.result(cudaSuccess);
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    ApiCall call("cudaStreamQuery");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::StreamQuery, "cudaStreamQuery", stream_key(stream), 0);
    const Stream* target = machine.find_stream(stream);
    if (target == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    // cudaSuccess once all the stream's work has completed, cudaErrorNotReady before; the host never waits.
    return call.result(machine.has_ended(target->tail) ? cudaSuccess : cudaErrorNotReady);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    ApiCall call("cudaStreamWaitEvent");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::StreamWaitEvent, "cudaStreamWaitEvent", stream_key(stream), event_key(event));
    if ((flags & ~static_cast<unsigned int>(cudaEventWaitExternal)) != 0) {
        return call.result(cudaErrorInvalidValue);
    }
    Stream* target = machine.find_stream(stream);
    const Event* awaited = machine.find_event(event);
    if (target == nullptr || awaited == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    // The stream's later work waits for the event's last record; the host does not wait.
    machine.wait_event(*target, *awaited);
    return call.result(cudaSuccess);
}

cudaError_t cudaDeviceSynchronize(void) {
    ApiCall call("cudaDeviceSynchronize");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::DeviceSynchronize, "cudaDeviceSynchronize", 0, 0);
    machine.wait_host_for_device();
    return call.result(cudaSuccess);
}

// --- Events ------------------------------------------------------------------------------------------------------

cudaError_t cudaEventCreate(cudaEvent_t* event) {
    ApiCall call("cudaEventCreate");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    return call.result(create_event(call, event, cudaEventDefault));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    ApiCall call("cudaEventCreateWithFlags");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    return call.result(create_event(call, event, flags));
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    ApiCall call("cudaEventDestroy");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    if (machine.find_event(event) == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    // "In case event has been recorded but has not yet been completed ... the function will return
    // immediately": the record still completes; nothing waits.
    machine.destroy_event(event);
    return call.result(cudaSuccess);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    ApiCall call("cudaEventRecord");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    call.machine().log_stream_call(OrderingCall::EventRecord, "cudaEventRecord", stream_key(stream), event_key(event));
    return call.result(record_event(call, event, stream));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
    ApiCall call("cudaEventRecordWithFlags");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    call.machine().log_stream_call(OrderingCall::EventRecord, "cudaEventRecordWithFlags", stream_key(stream),
                                   event_key(event));
    if ((flags & ~static_cast<unsigned int>(cudaEventRecordExternal)) != 0) {
        return call.result(cudaErrorInvalidValue);
    }
    return call.result(record_event(call, event, stream));
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    ApiCall call("cudaEventQuery");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    const Event* queried = machine.find_event(event);
    if (queried == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    // cudaSuccess once the work its last record captured has completed (or where it was never recorded),
    // cudaErrorNotReady before.
    return call.result(machine.has_ended(queried->recorded) ? cudaSuccess : cudaErrorNotReady);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    ApiCall call("cudaEventSynchronize");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::EventSynchronize, "cudaEventSynchronize", 0, event_key(event));
    const Event* awaited = machine.find_event(event);
    if (awaited == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    // The host waits for the event's last record; one never recorded returns at once. "A host thread that
    // uses cudaEventSynchronize() to wait on an event created with [cudaEventBlockingSync] will block until
    // the event actually completes" (the Runtime API on cudaEventCreateWithFlags); without it, the host waits
    // as the device's schedule flag says.
    if ((awaited->flags & cudaEventBlockingSync) != 0) {
        machine.wait_host_for(awaited->recorded, HostWait::Block);
    } else {
        machine.wait_host_for(awaited->recorded);
    }
    return call.result(cudaSuccess);
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    ApiCall call("cudaEventElapsedTime");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    if (ms == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    const Event* first = machine.find_event(start);
    const Event* last = machine.find_event(end);
    if (first == nullptr || last == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    // Its documentation: either event created with cudaEventDisableTiming, or not yet recorded, gives
    // cudaErrorInvalidResourceHandle; either recorded but not yet completed gives cudaErrorNotReady.
    if (((first->flags | last->flags) & cudaEventDisableTiming) != 0 || first->recorded == 0 || last->recorded == 0) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    if (!machine.has_ended(first->recorded) || !machine.has_ended(last->recorded)) {
        return call.result(cudaErrorNotReady);
    }
    const double elapsed_ns =
        static_cast<double>(machine.end_ns(last->recorded)) - static_cast<double>(machine.end_ns(first->recorded));
    *ms = static_cast<float>(elapsed_ns / 1e6);
    return call.result(cudaSuccess);
}

}  // extern "C"
