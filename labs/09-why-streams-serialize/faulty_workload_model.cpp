// Lab 09's faulty_workload_kernel (faulty_workload.cu) on the simulated GPU.
//
// Why this file exists: the simulated build (CMake preset `sim`, common/simgpu) runs each kernel as a model
// on the CPU, and the simulator, part of common/, knows no lab. So the lab brings the model of its own
// kernel, compiled in the simulated build only ("simulated_kernels" in lab.json) into the programs that
// launch it, and registers it before main. On a real GPU this file is never built.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "lab09.hpp"
#include "streamlab/simgpu_kernel_model.hpp"
#include "streamlab/workload.hpp"

namespace lab09 {
namespace {

namespace simgpu = streamlab::simgpu;

/// faulty_workload_kernel(const float* in, float* out, std::size_t n, int iterations, float* wild): the
/// workload, except that the element equal to kTripwire is written through `wild` (address 0, which nothing
/// maps), so the kernel faults with cudaErrorIllegalAddress.
std::string run_faulty_workload(void** args, unsigned int /*grid_blocks*/, unsigned int /*block_threads*/) {
    const auto* in = simgpu::argument<const float*>(args, 0);
    auto* out = simgpu::argument<float*>(args, 1);
    const auto n = simgpu::argument<std::size_t>(args, 2);
    const int iterations = simgpu::argument<int>(args, 3);
    auto* wild = simgpu::argument<float*>(args, 4);
    const std::size_t bytes = n * sizeof(float);
    for (const std::string& why : {simgpu::unreachable("in", in, bytes), simgpu::unreachable("out", out, bytes)}) {
        if (!why.empty()) {
            return why;
        }
    }
    // The first element that trips the bug (the course plants one); its thread writes through `wild`.
    const auto tripped = static_cast<std::size_t>(std::find(in, in + n, kTripwire) - in);
    // Threads run in no set order on a GPU, and a fault stops the kernel at no set point; here every other
    // element is written, one of the outcomes a GPU may give.
    simgpu::compute_workload(in, out, n, iterations, tripped);
    if (tripped == n) {
        return "";
    }
    const std::string why =
        simgpu::unreachable("the target of element " + std::to_string(tripped), wild, sizeof(float));
    if (!why.empty()) {
        return why;
    }
    *wild = streamlab::workload_element(in[tripped], iterations);
    return "";
}

/// As long as the workload kernel over the same elements and iterations (arguments 2 and 3, as its own).
std::uint64_t faulty_workload_ns(void** args, unsigned int grid_blocks, unsigned int block_threads,
                                 const simgpu::GpuModel& model) {
    return simgpu::grid_stride_ns(simgpu::argument<std::size_t>(args, 2), simgpu::argument<int>(args, 3), grid_blocks,
                                  block_threads, model);
}

/// Registered before main, as nvcc registers the kernel itself. The mangled name is the one g++ gives the
/// declaration; nvcc's differs only in how it names the anonymous namespace, which demangles the same.
[[maybe_unused]] const bool kRegistered = [] {
    simgpu::register_kernel("_ZN5lab0912_GLOBAL__N_122faulty_workload_kernelEPKfPfmiS3_",
                            {run_faulty_workload, faulty_workload_ns, simgpu::grid_share});
    return true;
}();

}  // namespace
}  // namespace lab09
