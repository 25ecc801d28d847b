// The runtime's device and error calls on the simulated GPU: one device, device 0, described by the
// model (model.cpp), and the runtime's last-error state.
#include <cuda_runtime_api.h>

#include <cstring>

#include "machine.hpp"

using namespace streamlab::simgpu;

namespace {

constexpr int kDevice = 0;  // The one simulated GPU.

bool valid_device(int device) {
    return device == kDevice;
}

/// The name and description of each error the simulator returns (and the common others), as
/// cudaGetErrorName and cudaGetErrorString give them.
struct ErrorText {
    cudaError_t error;
    const char* name;
    const char* text;
};

#define STREAMLAB_ERROR(error, text) {error, #error, text}
constexpr ErrorText kErrors[] = {
    STREAMLAB_ERROR(cudaSuccess, "no error"),
    STREAMLAB_ERROR(cudaErrorInvalidValue, "invalid argument"),
    STREAMLAB_ERROR(cudaErrorMemoryAllocation, "out of memory"),
    STREAMLAB_ERROR(cudaErrorInitializationError, "initialization error"),
    STREAMLAB_ERROR(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    STREAMLAB_ERROR(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    STREAMLAB_ERROR(cudaErrorInvalidDevice, "invalid device ordinal"),
    STREAMLAB_ERROR(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    STREAMLAB_ERROR(cudaErrorNotReady, "device not ready"),
    STREAMLAB_ERROR(cudaErrorNotSupported, "operation not supported"),
    STREAMLAB_ERROR(cudaErrorNotPermitted, "operation not permitted"),
    STREAMLAB_ERROR(cudaErrorHostMemoryAlreadyRegistered,
                    "part or all of the requested memory range is already mapped"),
    STREAMLAB_ERROR(cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region"),
    STREAMLAB_ERROR(cudaErrorPeerAccessNotEnabled, "peer access is not enabled"),
    STREAMLAB_ERROR(cudaErrorInvalidDeviceFunction, "invalid device function"),
    STREAMLAB_ERROR(cudaErrorLaunchFailure, "unspecified launch failure"),
    STREAMLAB_ERROR(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    STREAMLAB_ERROR(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    STREAMLAB_ERROR(cudaErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture"),
    STREAMLAB_ERROR(cudaErrorStreamCaptureUnmatched, "capture was not initiated in this stream"),
    STREAMLAB_ERROR(cudaErrorStreamCaptureWrongThread,
                    "attempt to terminate a thread-local capture sequence from another thread"),
    STREAMLAB_ERROR(cudaErrorStreamCaptureUnjoined,
                    "capture sequence contains a fork that was not joined to the primary stream"),
    STREAMLAB_ERROR(cudaErrorIllegalState, "the operation is not permitted in the current state"),
    STREAMLAB_ERROR(cudaErrorUnknown, "unknown error"),
};
#undef STREAMLAB_ERROR

const ErrorText* find_error(cudaError_t error) {
    for (const ErrorText& known : kErrors) {
        if (known.error == error) {
            return &known;
        }
    }
    return nullptr;
}

}  // namespace

extern "C" {

// --- Devices -----------------------------------------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
    ApiCall call("cudaGetDeviceCount");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (count == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    *count = 1;
    return call.result(cudaSuccess);
}

cudaError_t cudaGetDevice(int* device) {
    ApiCall call("cudaGetDevice");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (device == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    *device = kDevice;
    return call.result(cudaSuccess);
}

cudaError_t cudaSetDevice(int device) {
    ApiCall call("cudaSetDevice");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    return call.result(valid_device(device) ? cudaSuccess : cudaErrorInvalidDevice);
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    ApiCall call("cudaSetDeviceFlags");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    // The schedule flag decides how the host spends its waits for the GPU (Machine::scheduled_wait).
    call.machine().set_device_flags(flags);
    return call.result(cudaSuccess);
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
    ApiCall call("cudaGetDeviceFlags");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (flags == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    *flags = call.machine().device_flags();
    return call.result(cudaSuccess);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    ApiCall call("cudaGetDeviceProperties");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (prop == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    if (!valid_device(device)) {
        return call.result(cudaErrorInvalidDevice);
    }
    const GpuModel& model = call.machine().model();
    *prop = cudaDeviceProp{};
    std::strncpy(prop->name, model.name.c_str(), sizeof(prop->name) - 1);
    prop->major = model.compute_capability_major;
    prop->minor = model.compute_capability_minor;
    prop->multiProcessorCount = model.sm_count;
    prop->asyncEngineCount = model.copy_engines;
    prop->totalGlobalMem = model.total_memory_bytes;
    prop->concurrentKernels = 1;
    prop->unifiedAddressing = 1;
    prop->canMapHostMemory = 1;
    // Hopper's figures, the same on every sm_90 GPU (the CUDA C Programming Guide's compute capability table).
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsPerMultiProcessor = 2048;
    prop->maxBlocksPerMultiProcessor = 32;
    prop->regsPerBlock = 65536;
    prop->regsPerMultiprocessor = 65536;
    prop->sharedMemPerBlock = 48 * 1024;
    prop->sharedMemPerBlockOptin = 227 * 1024;
    prop->sharedMemPerMultiprocessor = 228 * 1024;
    prop->maxThreadsDim[0] = 1024;
    prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->streamPrioritiesSupported = 1;
    return call.result(cudaSuccess);
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    ApiCall call("cudaDeviceGetAttribute");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (value == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    if (!valid_device(device)) {
        return call.result(cudaErrorInvalidDevice);
    }
    const GpuModel& model = call.machine().model();
    switch (attr) {
        case cudaDevAttrMultiProcessorCount:
            *value = model.sm_count;
            break;
        case cudaDevAttrAsyncEngineCount:
            *value = model.copy_engines;
            break;
        case cudaDevAttrComputeCapabilityMajor:
            *value = model.compute_capability_major;
            break;
        case cudaDevAttrComputeCapabilityMinor:
            *value = model.compute_capability_minor;
            break;
        case cudaDevAttrConcurrentKernels:
        case cudaDevAttrUnifiedAddressing:
        case cudaDevAttrCanMapHostMemory:
        case cudaDevAttrStreamPrioritiesSupported:
            *value = 1;
            break;
        case cudaDevAttrWarpSize:
            *value = 32;
            break;
        case cudaDevAttrMaxThreadsPerBlock:
            *value = 1024;
            break;
        case cudaDevAttrMaxThreadsPerMultiProcessor:
            *value = 2048;
            break;
        default:
            // An attribute the model does not describe: refused rather than made up.
            return call.result(cudaErrorInvalidValue);
    }
    return call.result(cudaSuccess);
}

cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
    ApiCall call("cudaRuntimeGetVersion");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (runtimeVersion == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    *runtimeVersion = CUDART_VERSION;  // The headers the program was compiled against.
    return call.result(cudaSuccess);
}

cudaError_t cudaDriverGetVersion(int* driverVersion) {
    ApiCall call("cudaDriverGetVersion");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (driverVersion == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    *driverVersion = CUDART_VERSION;  // A driver that supports this runtime.
    return call.result(cudaSuccess);
}

cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
    ApiCall call("cudaDeviceCanAccessPeer");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (canAccessPeer == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    // One simulated GPU: no other GPU to be a peer of.
    if (!valid_device(device) || !valid_device(peerDevice)) {
        return call.result(cudaErrorInvalidDevice);
    }
    *canAccessPeer = 0;
    return call.result(cudaSuccess);
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
    ApiCall call("cudaDeviceEnablePeerAccess");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (flags != 0) {
        return call.result(cudaErrorInvalidValue);
    }
    // A device cannot be its own peer, and the simulated machine has no other.
    (void)peerDevice;
    return call.result(cudaErrorInvalidDevice);
}

// --- Errors ------------------------------------------------------------------------------------------------------

cudaError_t cudaGetLastError(void) {
    ApiCall call("cudaGetLastError");
    const cudaError_t last = thread_last_error();
    thread_last_error() = cudaSuccess;  // "resets it to cudaSuccess".
    // A sticky error is not reset: it is returned again, by this call and every other.
    const cudaError_t sticky = call.sticky_error();
    return sticky != cudaSuccess ? sticky : last;
}

cudaError_t cudaPeekAtLastError(void) {
    ApiCall call("cudaPeekAtLastError");
    const cudaError_t sticky = call.sticky_error();
    return sticky != cudaSuccess ? sticky : thread_last_error();
}

const char* cudaGetErrorName(cudaError_t error) {
    ApiCall call("cudaGetErrorName");
    const ErrorText* known = find_error(error);
    return known != nullptr ? known->name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
    ApiCall call("cudaGetErrorString");
    const ErrorText* known = find_error(error);
    return known != nullptr ? known->text : "unrecognized error code";
}

}  // extern "C"
