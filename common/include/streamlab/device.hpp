/// @file device.hpp
/// @brief What the GPU at hand can do: the facts every threshold is derived from.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace streamlab {

/// The facts about one CUDA device that the labs and the grader depend on.
struct DeviceFacts {
    int ordinal = 0;                     ///< CUDA device number.
    std::string name;                    ///< Marketing name, e.g. "NVIDIA H200".
    int cc_major = 0;                    ///< Compute capability, major part.
    int cc_minor = 0;                    ///< Compute capability, minor part.
    int sm_count = 0;                    ///< Streaming multiprocessors.
    int copy_engines = 0;                ///< `asyncEngineCount`: 1 means H2D and D2H share one engine.
    bool concurrent_kernels = false;     ///< Kernels of different streams may run at the same time.
    std::size_t total_memory_bytes = 0;  ///< Global memory.
    int driver_version = 0;              ///< As `cudaDriverGetVersion` reports it (13000 = 13.0).
    int runtime_version = 0;             ///< As `cudaRuntimeGetVersion` reports it.

    /// "9.0" style compute capability.
    [[nodiscard]] std::string compute_capability() const;
};

/// Formats a CUDA version number (13000) as "13.0".
[[nodiscard]] std::string format_cuda_version(int version);

/// Whether a CUDA device can be used, and if not, why.
struct GpuPresence {
    bool available = false;  ///< True when at least one device answered.
    int device_count = 0;    ///< Devices the runtime sees.
    std::string reason;      ///< Why none is usable (empty when available).
};

/// Asks the runtime whether a GPU is usable. Never throws and never aborts:
/// no driver, no device and a broken installation all come back as a reason.
[[nodiscard]] GpuPresence query_gpu_presence() noexcept;

/// Reads the facts of device `ordinal`. Throws streamlab::CudaError on failure.
[[nodiscard]] DeviceFacts query_device_facts(int ordinal = 0);

/// Why work that needs `needed` GPUs at once is not graded on a machine with
/// `present`: `not graded: needs two GPUs (this machine has 1)`. The grader
/// counts that skip (words::kSkipNeedsGpus) neither for nor against.
[[nodiscard]] std::string needs_gpus_reason(int needed, int present);

}  // namespace streamlab
