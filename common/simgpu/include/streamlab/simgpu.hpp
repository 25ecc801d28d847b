/// @file simgpu.hpp
/// @brief The simulated GPU (issue 55): a stand-in for the CUDA runtime on machines without an NVIDIA GPU.
///
/// A program built in the course's simulated build (CMake preset `sim`) links `streamlab_simgpu` in place of
/// the CUDA runtime (`CUDA::cudart`). Its `cuda...` functions are the runtime's own declarations
/// (cuda_runtime_api.h), so a student's code compiles and links unchanged. Each call:
///  - checks its arguments and the state they name as NVIDIA's runtime documents, returning the documented
///    error (an invalid handle, a copy kind that does not match its pointers, freeing twice, ...);
///  - does the work on the CPU at once (copies as copies, the course's kernels as their CPU references), so
///    results can be checked;
///  - places the work on a model of a named GPU (an H200 unless STREAMLAB_SIM_GPU says otherwise): copy
///    engines, link and kernel rates from the course's committed measurements (common/reference/), with the
///    documented ordering rules (order within a stream, the legacy NULL stream's barrier with blocking streams,
///    events, host blocking for synchronous and pageable copies, implicit synchronization of allocation);
///  - keeps a log of the device ops and the runtime calls, on the simulated host clock, that the course's
///    tracer reads in the simulated build instead of CUPTI's records.
///
/// Doing the work at once, in the order the host issued it, gives the results a real GPU gives for every
/// program without a data race between the host and the device; the times are the model's, not the CPU's.
///
/// This header is what the course's own code (the tracer, the tests) asks of the simulator beyond the CUDA
/// runtime's functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "streamlab/timeline.hpp"

namespace streamlab::simgpu {

/// The GPU a simulated run is modelled on, and where each of its figures comes from.
struct GpuModel {
    std::string name;                  ///< As cudaGetDeviceProperties names it, e.g. "NVIDIA H200".
    int compute_capability_major = 0;  ///< e.g. 9.
    int compute_capability_minor = 0;  ///< e.g. 0.
    int sm_count = 0;                  ///< Streaming multiprocessors.
    int copy_engines = 0;              ///< cudaDevAttrAsyncEngineCount.
    std::uint64_t total_memory_bytes = 0;
    double h2d_pinned_gb_per_s = 0;    ///< A copy from pinned host memory to the device, GB/s (1e9 bytes).
    double d2h_pinned_gb_per_s = 0;    ///< From the device to pinned host memory.
    double h2d_pageable_gb_per_s = 0;  ///< From pageable host memory (staged through a pinned buffer).
    double d2h_pageable_gb_per_s = 0;  ///< To pageable host memory.
    double d2d_gb_per_s = 0;           ///< Within the device's memory.
    double memset_gb_per_s = 0;        ///< cudaMemset(Async).
    /// The course's workload kernel (streamlab::workload_kernel): element-iterations per ns with the whole
    /// GPU, so a kernel over n elements with i iterations takes n * i / rate ns.
    double workload_element_iterations_per_ns = 0;
    /// What page-locking host memory costs the host, ns per byte: allocating it (cudaMallocHost,
    /// cudaHostAlloc) and releasing it (cudaFreeHost), registering memory the program has (cudaHostRegister)
    /// and unregistering it (cudaHostUnregister).
    double pinned_alloc_ns_per_byte = 0;
    double pinned_free_ns_per_byte = 0;
    double host_register_ns_per_byte = 0;
    double host_unregister_ns_per_byte = 0;
    std::uint64_t launch_latency_ns = 0;  ///< From the start of the call that issues work to the earliest it can start.
    std::uint64_t api_call_ns = 0;        ///< What a runtime call costs the host, unless call_ns names it.
    std::map<std::string, std::uint64_t> call_ns;  ///< What a call of the functions measured costs the host.
    std::string source;                            ///< Where the figures come from (files, device, date).

    /// What one call of `function` costs the host, in ns.
    [[nodiscard]] std::uint64_t call_cost_ns(const char* function) const {
        const auto measured = call_ns.find(function);
        return measured == call_ns.end() ? api_call_ns : measured->second;
    }
};

/// The GPU this process simulates (STREAMLAB_SIM_GPU names another model, where the course has one).
[[nodiscard]] const GpuModel& gpu_model();

/// Now, on the simulated host clock, in ns: the host's own time outside the simulator (real time spent in
/// the program's code) plus what the simulated calls cost it (waits for the simulated GPU included), never
/// the CPU time the simulator spends doing the GPU's work. The tracer's clock in the simulated build.
[[nodiscard]] std::uint64_t host_now_ns();

/// Everything the simulated GPU ran and the runtime calls the program made, from a moment on: what the
/// course's tracer (activity_recorder_sim.cpp) turns into a Timeline.
struct Log {
    /// Ops that ended at or after the moment, sorted by start, with times on the host clock (not yet
    /// relative to any origin), labels (set_thread_label), stream ids and kinds, host memory kinds, bytes,
    /// correlation ids, graph ids and device ids filled as CUPTI fills them.
    std::vector<DeviceOp> ops;
    std::map<std::string, std::uint64_t> api_calls;              ///< By function name, as Timeline::api_calls.
    std::map<std::uint64_t, std::uint64_t> api_calls_by_thread;  ///< As Timeline::api_calls_by_thread.
    std::vector<StreamCall> stream_calls;  ///< As Timeline::stream_calls, times on the host clock.
    std::vector<std::uint32_t> devices;    ///< Devices the calls ran in.
};

/// What the simulator logged from `since_ns` (host clock) on: calls made at or after it, ops that ended
/// at or after it.
[[nodiscard]] Log log_since(std::uint64_t since_ns);

/// Makes `label` (may be null) the label of the ops this thread issues from now on; returns the one it
/// replaces (streamlab::OpLabel, through the tracer). The pointee must outlive its use.
const std::string* exchange_thread_label(const std::string* label) noexcept;

/// A kernel the simulator can run: the device function a `<<<...>>>` launch or cudaLaunchKernel names
/// (by its mangled name, as nvcc registers it), its work on the CPU and its duration on the model.
struct KernelModel {
    /// Does the kernel's work on the CPU from the launch's arguments (cudaLaunchKernel's `args`: a pointer
    /// to each argument) and grid; returns "" or why it cannot (an argument that is no device memory...).
    std::string (*run)(void** args, unsigned int grid_blocks, unsigned int block_threads) = nullptr;
    /// Its duration in ns on `model`, from the same arguments and grid.
    std::uint64_t (*duration_ns)(void** args, unsigned int grid_blocks, unsigned int block_threads,
                                 const GpuModel& model) = nullptr;
    /// The share of the GPU's SMs it holds while it runs (1.0: the whole GPU; kernels whose shares add
    /// up to at most 1 run at the same time).
    double (*share)(unsigned int grid_blocks, unsigned int block_threads, const GpuModel& model) = nullptr;
};

/// Registers the kernel whose device function nvcc registers as `mangled_name` (the course's kernels
/// register themselves; a launch of a kernel no model is registered for fails with cudaErrorNotSupported
/// and a message naming it).
void register_kernel(const std::string& mangled_name, const KernelModel& model);

/// Forgets every stream, event, allocation and op, as if the process started again (the simulator's own
/// tests, between cases). Not a runtime call: the program's handles become invalid.
void reset_for_tests();

}  // namespace streamlab::simgpu
