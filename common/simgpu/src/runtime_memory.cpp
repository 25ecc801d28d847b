// The runtime's memory calls on the simulated GPU: allocation, copies and memsets.
//
// The rules on when a call blocks the host are those of the CUDA Runtime API's "API synchronization
// behavior" page; the implicit synchronization of allocation and memsets is the Programming Guide's
// ("Implicit Synchronization": between two ops of different streams, a page-locked host allocation, a
// device allocation or a device memset issued by the host keeps them from running at the same time).
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>

#include "machine.hpp"
#include "runtime.hpp"
#include "runtime_graphs.hpp"

using streamlab::HostMemory;
using streamlab::OpKind;
using streamlab::OrderingCall;
using namespace streamlab::simgpu;

namespace {

/// What a copy is, once its pointers are known.
struct CopyPlan {
    OpKind kind = OpKind::MemcpyOther;
    const char* name = "memcpy";
    HostMemory host_memory = HostMemory::NotApplicable;
    Resource resource = Resource::None;
    double gb_per_s = 1.0;
    bool host_side_pageable = false;  ///< The host buffer is pageable (not page-locked).
};

bool is_device(const MemoryRange& range) {
    return range.kind == MemoryKind::Device;
}

HostMemory host_memory_of(const MemoryRange& range) {
    return range.kind == MemoryKind::Pageable ? HostMemory::Pageable : HostMemory::Pinned;
}

/// The copy `kind` asks for between `dst` and `src`, or why it cannot be done: a kind that is no
/// cudaMemcpyKind (cudaErrorInvalidMemcpyDirection), or pointers that do not match it or a device range that
/// does not hold `count` bytes (cudaErrorInvalidValue).
cudaError_t plan_copy(const MemoryRegistry& memory, void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                      CopyPlan& plan) {
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) {
        return cudaErrorInvalidMemcpyDirection;
    }
    if (dst == nullptr || src == nullptr) {
        return cudaErrorInvalidValue;
    }
    const MemoryRange source = memory.find(src);
    const MemoryRange destination = memory.find(dst);
    // cudaMemcpyDefault: the direction the pointers say (unified virtual addressing).
    const bool from_device = is_device(source);
    const bool to_device = is_device(destination);
    const cudaMemcpyKind actual = from_device ? (to_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                                              : (to_device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    if (kind != cudaMemcpyDefault && kind != actual) {
        return cudaErrorInvalidValue;
    }
    if ((from_device && !memory.holds(src, count, MemoryKind::Device)) ||
        (to_device && !memory.holds(dst, count, MemoryKind::Device))) {
        return cudaErrorInvalidValue;
    }
    const GpuModel& model = gpu_model();
    switch (actual) {
        case cudaMemcpyHostToDevice:
            plan = {OpKind::MemcpyH2D,
                    "H2D",
                    host_memory_of(source),
                    Resource::CopyEngineH2D,
                    source.kind == MemoryKind::Pageable ? model.h2d_pageable_gb_per_s : model.h2d_pinned_gb_per_s,
                    source.kind == MemoryKind::Pageable};
            break;
        case cudaMemcpyDeviceToHost:
            plan = {OpKind::MemcpyD2H,
                    "D2H",
                    host_memory_of(destination),
                    Resource::CopyEngineD2H,
                    destination.kind == MemoryKind::Pageable ? model.d2h_pageable_gb_per_s : model.d2h_pinned_gb_per_s,
                    destination.kind == MemoryKind::Pageable};
            break;
        case cudaMemcpyDeviceToDevice:
            plan = {OpKind::MemcpyD2D, "D2D", HostMemory::Device, Resource::CopyEngineAny, model.d2d_gb_per_s, false};
            break;
        default: {
            // Host to host: the CPU copies, at the pace of a pageable copy (the runtime stages nothing).
            const MemoryRange& host_side = source.kind != MemoryKind::Pageable ? source : destination;
            plan = {OpKind::MemcpyOther,
                    "memcpy",
                    host_memory_of(host_side),
                    Resource::None,
                    model.d2h_pageable_gb_per_s,
                    source.kind == MemoryKind::Pageable || destination.kind == MemoryKind::Pageable};
            break;
        }
    }
    return cudaSuccess;
}

/// Copies at once on the CPU and issues the copy's op on `stream`; returns its op.
OpId issue_copy(Machine& machine, Stream& stream, void* dst, const void* src, std::size_t count, const CopyPlan& plan) {
    // In a capture the bytes move at each launch of the graph (runtime_graphs.hpp), otherwise now.
    if (!defer_to_capture(stream, [dst, src, count](OpRequest&) {
            copy_past_the_caches(dst, src, count);
            return std::string();
        })) {
        copy_past_the_caches(dst, src, count);
    }
    OpRequest request;
    request.kind = plan.kind;
    request.name = plan.name;
    request.bytes = count;
    request.host_memory = plan.host_memory;
    request.resource = plan.resource;
    request.duration_ns = transfer_ns(count, plan.gb_per_s);
    return machine.enqueue(stream, std::move(request));
}

/// What cudaMemcpy and cudaMemcpyAsync share: checks, copies, and blocks the host as documented.
cudaError_t copy(ApiCall& call, void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                 cudaStream_t stream_handle, bool asynchronous) {
    Machine& machine = call.machine();
    Stream* stream = machine.find_stream(stream_handle);
    if (stream == nullptr) {
        return cudaErrorInvalidResourceHandle;
    }
    CopyPlan plan;
    if (count == 0) {
        // Nothing to copy; the kind must still be one (a zero-byte copy issues no op).
        return kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault ? cudaErrorInvalidMemcpyDirection : cudaSuccess;
    }
    if (const cudaError_t error = plan_copy(machine.memory(), dst, src, count, kind, plan); error != cudaSuccess) {
        return error;
    }
    const OpId op = issue_copy(machine, *stream, dst, src, count, plan);
    // When the host gets control back ("API synchronization behavior"):
    //  - cudaMemcpy is synchronous, except device to device, which the host does not wait for;
    //  - cudaMemcpyAsync returns at once for pinned host memory and device to device; from pageable host
    //    memory it returns once the data is staged (the staging goes at the pace of the copy, which reads
    //    the staging buffer as the host fills it: the course's H200 measurement, pageable_overlap, saw the
    //    call return as the copy ended), and to pageable host memory only once the copy has completed.
    const bool host_waits = plan.kind != OpKind::MemcpyD2D && (!asynchronous || plan.host_side_pageable);
    if (host_waits) {
        machine.wait_host_for(op);
    }
    return cudaSuccess;
}

/// Charges the host `bytes` x `ns_per_byte` (page-locking costs).
void charge_host(Machine& machine, std::size_t bytes, double ns_per_byte) {
    machine.advance_host_to(machine.host_now_ns() +
                            static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes) * ns_per_byte)));
}

}  // namespace

extern "C" {

// --- Device memory ---------------------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** devPtr, size_t size) {
    ApiCall call("cudaMalloc");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::ImplicitSync, "cudaMalloc", 0, 0);
    if (devPtr == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    if (size == 0) {
        // Nothing to allocate: the real runtime returns success and a null pointer.
        *devPtr = nullptr;
        return call.result(cudaSuccess);
    }
    if (size > machine.model().total_memory_bytes - machine.memory().device_bytes_in_use()) {
        return call.result(cudaErrorMemoryAllocation);
    }
    *devPtr = machine.memory().allocate(size, MemoryKind::Device);
    if (*devPtr == nullptr) {
        return call.result(cudaErrorMemoryAllocation);
    }
    machine.device_barrier();
    return call.result(cudaSuccess);
}

cudaError_t cudaFree(void* devPtr) {
    ApiCall call("cudaFree");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::ImplicitSync, "cudaFree", 0, 0);
    if (devPtr == nullptr) {
        return call.result(cudaSuccess);  // cudaFree(0) does nothing (its documentation).
    }
    // cudaFree waits for the device before it releases memory work may still use: the host blocks until
    // every op issued so far has ended, and the ops issued later start after.
    machine.wait_host_for_device();
    if (!machine.memory().release(devPtr, MemoryKind::Device)) {
        return call.result(cudaErrorInvalidValue);  // Never allocated, or freed already.
    }
    machine.device_barrier();
    return call.result(cudaSuccess);
}

cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
    ApiCall call("cudaMallocAsync");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    if (devPtr == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    if (machine.find_stream(hStream) == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    if (size == 0) {
        *devPtr = nullptr;
        return call.result(cudaSuccess);
    }
    // Stream-ordered: no implicit synchronization (its point). The memory exists at once; the program may
    // use it only in work ordered after this call, which the simulator runs after it anyway.
    *devPtr = machine.memory().allocate(size, MemoryKind::Device);
    return call.result(*devPtr == nullptr ? cudaErrorMemoryAllocation : cudaSuccess);
}

cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
    ApiCall call("cudaFreeAsync");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    if (machine.find_stream(hStream) == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    if (devPtr == nullptr) {
        return call.result(cudaSuccess);
    }
    // The work issued before has already done its part on the CPU, so the memory can go now.
    return call.result(machine.memory().release(devPtr, MemoryKind::Device) ? cudaSuccess : cudaErrorInvalidValue);
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
    ApiCall call("cudaMemGetInfo");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (free == nullptr || total == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    Machine& machine = call.machine();
    *total = machine.model().total_memory_bytes;
    *free = *total - machine.memory().device_bytes_in_use();
    return call.result(cudaSuccess);
}

// --- Page-locked host memory -----------------------------------------------------------------------------------

cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
    ApiCall call("cudaHostAlloc");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::ImplicitSync, "cudaHostAlloc", 0, 0);
    constexpr unsigned int known = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
    if (pHost == nullptr || (flags & ~known) != 0) {
        return call.result(cudaErrorInvalidValue);
    }
    if (size == 0) {
        *pHost = nullptr;
        return call.result(cudaSuccess);
    }
    *pHost = machine.memory().allocate(size, MemoryKind::PinnedHost, flags);
    if (*pHost == nullptr) {
        return call.result(cudaErrorMemoryAllocation);
    }
    charge_host(machine, size, machine.model().pinned_alloc_ns_per_byte);
    machine.device_barrier();
    return call.result(cudaSuccess);
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
    ApiCall call("cudaMallocHost");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::ImplicitSync, "cudaMallocHost", 0, 0);
    if (ptr == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    if (size == 0) {
        *ptr = nullptr;
        return call.result(cudaSuccess);
    }
    *ptr = machine.memory().allocate(size, MemoryKind::PinnedHost, cudaHostAllocDefault);
    if (*ptr == nullptr) {
        return call.result(cudaErrorMemoryAllocation);
    }
    charge_host(machine, size, machine.model().pinned_alloc_ns_per_byte);
    machine.device_barrier();
    return call.result(cudaSuccess);
}

cudaError_t cudaFreeHost(void* ptr) {
    ApiCall call("cudaFreeHost");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::ImplicitSync, "cudaFreeHost", 0, 0);
    if (ptr == nullptr) {
        return call.result(cudaSuccess);
    }
    // Like cudaFree: no copy may still be reading or writing the memory when it goes.
    machine.wait_host_for_device();
    const std::size_t bytes = machine.memory().find(ptr).bytes;
    if (!machine.memory().release(ptr, MemoryKind::PinnedHost)) {
        return call.result(cudaErrorInvalidValue);
    }
    charge_host(machine, bytes, machine.model().pinned_free_ns_per_byte);
    machine.device_barrier();
    return call.result(cudaSuccess);
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
    ApiCall call("cudaHostRegister");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::ImplicitSync, "cudaHostRegister", 0, 0);
    constexpr unsigned int known =
        cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
    if (ptr == nullptr || size == 0 || (flags & ~known) != 0) {
        return call.result(cudaErrorInvalidValue);
    }
    if (machine.memory().find(ptr).kind != MemoryKind::Pageable) {
        return call.result(cudaErrorHostMemoryAlreadyRegistered);
    }
    if (!machine.memory().register_host(ptr, size, flags)) {
        return call.result(cudaErrorHostMemoryAlreadyRegistered);  // It overlaps memory already registered.
    }
    charge_host(machine, size, machine.model().host_register_ns_per_byte);
    machine.device_barrier();
    return call.result(cudaSuccess);
}

cudaError_t cudaHostUnregister(void* ptr) {
    ApiCall call("cudaHostUnregister");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::ImplicitSync, "cudaHostUnregister", 0, 0);
    const MemoryRange range = machine.memory().find(ptr);
    if (ptr == nullptr || range.kind != MemoryKind::RegisteredHost ||
        range.begin != reinterpret_cast<std::uintptr_t>(ptr)) {
        return call.result(cudaErrorHostMemoryNotRegistered);
    }
    machine.wait_host_for_device();
    machine.memory().unregister_host(ptr);
    charge_host(machine, range.bytes, machine.model().host_unregister_ns_per_byte);
    machine.device_barrier();
    return call.result(cudaSuccess);
}

cudaError_t cudaHostGetFlags(unsigned int* pFlags, void* pHost) {
    ApiCall call("cudaHostGetFlags");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    const MemoryRange range = call.machine().memory().find(pHost);
    if (pFlags == nullptr || (range.kind != MemoryKind::PinnedHost && range.kind != MemoryKind::RegisteredHost)) {
        return call.result(cudaErrorInvalidValue);
    }
    *pFlags = range.flags;
    return call.result(cudaSuccess);
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
    ApiCall call("cudaPointerGetAttributes");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (attributes == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    const MemoryRange range = call.machine().memory().find(ptr);
    *attributes = cudaPointerAttributes{};
    attributes->device = 0;
    switch (range.kind) {
        case MemoryKind::Device:
            attributes->type = cudaMemoryTypeDevice;
            attributes->devicePointer = const_cast<void*>(ptr);
            break;
        case MemoryKind::PinnedHost:
        case MemoryKind::RegisteredHost:
            attributes->type = cudaMemoryTypeHost;
            attributes->hostPointer = const_cast<void*>(ptr);
            attributes->devicePointer = const_cast<void*>(ptr);  // Unified addressing: the same address.
            break;
        case MemoryKind::Pageable:
            attributes->type = cudaMemoryTypeUnregistered;
            attributes->device = -2;  // What the runtime reports for memory it does not know.
            break;
    }
    return call.result(cudaSuccess);
}

// --- Copies ------------------------------------------------------------------------------------------------------

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    ApiCall call("cudaMemcpy");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    // cudaMemcpy issues its copy to the legacy NULL stream.
    return call.result(copy(call, dst, src, count, kind, nullptr, false));
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
    ApiCall call("cudaMemcpyAsync");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    call.machine().log_stream_call(OrderingCall::Work, "cudaMemcpyAsync", stream_key(stream), 0);
    return call.result(copy(call, dst, src, count, kind, stream, true));
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                                cudaStream_t stream) {
    ApiCall call("cudaMemcpyPeerAsync");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    call.machine().log_stream_call(OrderingCall::Work, "cudaMemcpyPeerAsync", stream_key(stream), 0);
    // The simulated machine has one GPU, device 0: a copy "between" it and itself is a device-to-device copy.
    if (dstDevice != 0 || srcDevice != 0) {
        return call.result(cudaErrorInvalidDevice);
    }
    return call.result(copy(call, dst, src, count, cudaMemcpyDeviceToDevice, stream, true));
}

// --- Memsets -----------------------------------------------------------------------------------------------------

namespace {

cudaError_t set_memory(ApiCall& call, void* devPtr, int value, size_t count, Stream& stream) {
    Machine& machine = call.machine();
    if (count == 0) {
        return cudaSuccess;
    }
    const MemoryRange range = machine.memory().find(devPtr);
    if (devPtr == nullptr || range.kind == MemoryKind::Pageable || !machine.memory().holds(devPtr, count, range.kind)) {
        return cudaErrorInvalidValue;
    }
    // In a capture the bytes are set at each launch of the graph (runtime_graphs.hpp), otherwise now.
    if (!defer_to_capture(stream, [devPtr, value, count](OpRequest&) {
            std::memset(devPtr, value, count);
            return std::string();
        })) {
        std::memset(devPtr, value, count);
    }
    OpRequest request;
    request.kind = OpKind::Memset;
    request.name = "memset";
    request.bytes = count;
    request.duration_ns = transfer_ns(count, machine.model().memset_gb_per_s);
    const OpId op = machine.enqueue(stream, std::move(request));
    // "asynchronous with respect to the host unless devPtr refers to pinned host memory".
    if (range.kind != MemoryKind::Device) {
        machine.wait_host_for(op);
    }
    return cudaSuccess;
}

}  // namespace

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
    ApiCall call("cudaMemset");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    machine.log_stream_call(OrderingCall::ImplicitSync, "cudaMemset", 0, 0);
    // cudaMemset issues its memset to the legacy NULL stream, and a device memset is one of the Programming
    // Guide's implicit synchronizations: work issued after it, on any stream, starts after it and after all
    // work issued before.
    const cudaError_t error = set_memory(call, devPtr, value, count, *machine.find_stream(nullptr));
    if (error == cudaSuccess && count != 0) {
        machine.device_barrier();
    }
    return call.result(error);
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
    ApiCall call("cudaMemsetAsync");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Stream* target = call.machine().find_stream(stream);
    if (target == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    return call.result(set_memory(call, devPtr, value, count, *target));
}

}  // extern "C"
