// The tests' own kernel: a launch whose duration and share of the GPU the test chooses, so that a scheduling
// rule is checked on kernels that could run side by side (or could not) by construction.
#include <algorithm>
#include <cstdint>

#include "simgpu_test.hpp"

namespace streamlab::simgpu::testing {
namespace {

// What nvcc registers this kernel as: extern "C" keeps the name unmangled.
constexpr const char* kBusyKernelName = "simgpu_test_busy_kernel";

// The model reads its duration from the launch's first argument.
std::uint64_t busy_duration_ns(void** args, unsigned int /*grid_blocks*/, unsigned int /*block_threads*/,
                               const GpuModel& /*model*/) {
    return *static_cast<unsigned long long*>(args[0]);
}

// One block to an SM: a grid of half the SMs holds half the GPU.
double busy_share(unsigned int grid_blocks, unsigned int /*block_threads*/, const GpuModel& model) {
    return std::min(1.0, static_cast<double>(grid_blocks) / static_cast<double>(model.sm_count));
}

// The kernel computes nothing, so the CPU has nothing to do.
std::string busy_run(void** /*args*/, unsigned int /*grid_blocks*/, unsigned int /*block_threads*/) {
    return "";
}

}  // namespace
}  // namespace streamlab::simgpu::testing

/// Does nothing on a GPU either: only its time on the model matters to the tests.
extern "C" __global__ void simgpu_test_busy_kernel(unsigned long long duration_ns) {
    (void)duration_ns;
}

namespace streamlab::simgpu::testing {

void register_busy_kernel() {
    register_kernel(kBusyKernelName, KernelModel{busy_run, busy_duration_ns, busy_share});
}

cudaError_t launch_busy(cudaStream_t stream, std::uint64_t duration_ns, unsigned int blocks) {
    simgpu_test_busy_kernel<<<blocks, 32, 0, stream>>>(static_cast<unsigned long long>(duration_ns));
    return cudaGetLastError();
}

unsigned int blocks_for_share(double fraction) {
    const double blocks = fraction * static_cast<double>(gpu_model().sm_count);
    return std::max(1U, static_cast<unsigned int>(blocks));
}

}  // namespace streamlab::simgpu::testing
