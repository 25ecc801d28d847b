// Lab 07's background_kernel (priority_side.cu) on the simulated GPU.
//
// Why this file exists: the simulated build (CMake preset `sim`, common/simgpu) runs each kernel as a model
// on the CPU, and the simulator, part of common/, knows no lab. So the lab brings the model of its own
// kernel, compiled in the simulated build only ("simulated_kernels" in lab.json) into the programs that
// launch it, and registers it before main. On a real GPU this file is never built.
#include <algorithm>
#include <cstdint>
#include <string>

#include "streamlab/simgpu_kernel_model.hpp"

namespace lab07::course {
namespace {

namespace simgpu = streamlab::simgpu;

/// background_kernel(std::uint64_t block_ns, unsigned int* started): every block holds its room on an SM for
/// block_ns; the first block sets *started = 1 (page-locked host memory the host polls).
std::string run_background(void** args, unsigned int /*grid_blocks*/, unsigned int /*block_threads*/) {
    auto* started = simgpu::argument<unsigned int*>(args, 1);
    const std::string why = simgpu::unreachable("started", started, sizeof *started);
    if (!why.empty()) {
        return why;
    }
    *started = 1;
    return "";
}

/// As many waves of block_ns as it takes for every block to get its room.
std::uint64_t background_ns(void** args, unsigned int grid_blocks, unsigned int block_threads,
                            const simgpu::GpuModel& model) {
    const auto block_ns = simgpu::argument<std::uint64_t>(args, 0);
    const std::uint64_t resident = static_cast<std::uint64_t>(std::max(model.sm_count, 1)) *
                                   std::max(simgpu::resident_blocks_per_sm(block_threads), 1);
    const std::uint64_t waves = (grid_blocks + resident - 1) / resident;
    return std::max(simgpu::kShortestKernelNs, waves * block_ns);
}

/// Registered before main, as nvcc registers the kernel itself. The mangled name is the one g++ gives the
/// declaration; nvcc's differs only in how it names the anonymous namespace, which demangles the same.
[[maybe_unused]] const bool kRegistered = [] {
    simgpu::register_kernel("_ZN5lab076course12_GLOBAL__N_117background_kernelEmPj",
                            {run_background, background_ns, simgpu::grid_share});
    return true;
}();

}  // namespace
}  // namespace lab07::course
