#include "streamlab/device.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "streamlab/check.hpp"
#include "streamlab/grader_words.hpp"

namespace streamlab {

std::string DeviceFacts::compute_capability() const {
    return std::to_string(cc_major) + "." + std::to_string(cc_minor);
}

std::string format_cuda_version(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

GpuPresence query_gpu_presence() noexcept {
    GpuPresence presence;
    // cudaGetDeviceCount is the one runtime call that is safe without a driver:
    // it returns an error code (insufficient driver, no device) instead of failing.
    const cudaError_t status = cudaGetDeviceCount(&presence.device_count);
    if (status != cudaSuccess) {
        presence.device_count = 0;
        const std::string detail = std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
        if (status == cudaErrorNoDevice) {
            presence.reason = "no CUDA device found: " + detail;
        } else if (status == cudaErrorInsufficientDriver) {
            presence.reason = "no NVIDIA driver, or one older than this CUDA runtime: " + detail;
        } else {
            presence.reason = "no usable CUDA device: " + detail;
        }
        cudaGetLastError();  // clear the sticky-free error so later checks start clean
        return presence;
    }
    if (presence.device_count == 0) {
        presence.reason = "no CUDA device found";
        return presence;
    }
    presence.available = true;
    return presence;
}

DeviceFacts query_device_facts(int ordinal) {
    cudaDeviceProp prop{};
    SL_CHECK(cudaGetDeviceProperties(&prop, ordinal));
    DeviceFacts facts;
    facts.ordinal = ordinal;
    facts.name = prop.name;
    facts.cc_major = prop.major;
    facts.cc_minor = prop.minor;
    facts.sm_count = prop.multiProcessorCount;
    facts.copy_engines = prop.asyncEngineCount;
    facts.concurrent_kernels = prop.concurrentKernels != 0;
    facts.total_memory_bytes = prop.totalGlobalMem;
    SL_CHECK(cudaDriverGetVersion(&facts.driver_version));
    SL_CHECK(cudaRuntimeGetVersion(&facts.runtime_version));
    return facts;
}

std::string needs_gpus_reason(int needed, int present) {
    static const char* const kWords[] = {"no", "one", "two", "three", "four", "five", "six", "seven", "eight"};
    const std::string count = needed >= 0 && needed <= 8 ? kWords[needed] : std::to_string(needed);
    return words::kSkipNeedsGpus + count + (needed == 1 ? " GPU" : " GPUs") + " (this machine has " +
           std::to_string(present) + ")";
}

}  // namespace streamlab
