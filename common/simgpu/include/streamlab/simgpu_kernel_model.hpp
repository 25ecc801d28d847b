/// @file simgpu_kernel_model.hpp
/// @brief What a model of a kernel (simgpu.hpp's KernelModel) is written with: the launch's arguments, whether
/// the GPU can reach an address, the course's workload done on the CPU, and the grid's timing on the model GPU.
///
/// The simulator models the kernels of common/ itself (kernels.cpp). A kernel that lives elsewhere in the
/// course has its model beside it, in a source the simulated build alone compiles, registered with
/// register_kernel before main; this header is all such a model needs of the simulator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "streamlab/simgpu.hpp"

namespace streamlab::simgpu {

/// The shortest a kernel lasts on the GPU's clock however little it does: launching its blocks and waiting
/// for the last to retire. An estimate (a few microseconds, what CUPTI shows for the smallest kernels on
/// recent GPUs), not yet measured by the course; the fidelity table (issue 55) is where it will be.
inline constexpr std::uint64_t kShortestKernelNs = 2'000;

/// The argument `index` of a launch, as the kernel's parameter type (`args` holds a pointer to each).
template <typename T>
[[nodiscard]] T argument(void** args, int index) {
    return *static_cast<T*>(args[index]);
}

/// Why a kernel that touches `bytes` bytes from `address` (`what`, as the message names it) faults: "" where
/// the GPU can reach them all (device memory, or page-locked host memory, which unified virtual addressing
/// maps into the GPU's address space) or `bytes` is 0. Called from a model's `run`, during the launch.
[[nodiscard]] std::string unreachable(const std::string& what, const void* address, std::size_t bytes);

/// The workload kernel's results on the CPU: out[i] = workload_element(in[i], iterations) for i < n
/// (streamlab/workload.hpp), bit for bit, except at index `skipped` (n for none), which is left as it is.
void compute_workload(const float* in, float* out, std::size_t n, int iterations, std::size_t skipped);

/// The blocks of `block_threads` threads one SM holds at once for the course's kernels, which use few
/// registers and no shared memory, so that threads are what limits them (what
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor answers); 0 for a block no SM can hold.
[[nodiscard]] int resident_blocks_per_sm(unsigned int block_threads);

/// The share of the model GPU's SMs a grid holds: its blocks over what all SMs hold at once (1 at most).
/// KernelModel::share for every course kernel.
[[nodiscard]] double grid_share(unsigned int grid_blocks, unsigned int block_threads, const GpuModel& model);

/// How long a grid-stride loop over `n` elements of `iterations` workload steps each lasts on `model`
/// (the workload kernel's time, and that of any kernel that does its work), kShortestKernelNs at least.
[[nodiscard]] std::uint64_t grid_stride_ns(std::size_t n, int iterations, unsigned int grid_blocks,
                                           unsigned int block_threads, const GpuModel& model);

}  // namespace streamlab::simgpu
