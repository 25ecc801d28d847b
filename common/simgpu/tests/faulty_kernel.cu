// The tests' faulting kernel (faulty_kernel.hpp): its model runs for the duration the launch names and reports
// a fault, as the simulator's model of a kernel that stores through a pointer nothing maps does.
#include <string>

#include "faulty_kernel.hpp"
#include "simgpu_test.hpp"

namespace streamlab::simgpu::testing {
namespace {

// What nvcc registers this kernel as: extern "C" keeps the name unmangled.
constexpr const char* kFaultyKernelName = "simgpu_test_faulty_kernel";

std::uint64_t faulty_duration_ns(void** args, unsigned int /*grid_blocks*/, unsigned int /*block_threads*/,
                                 const GpuModel& /*model*/) {
    return *static_cast<unsigned long long*>(args[0]);
}

double faulty_share(unsigned int /*grid_blocks*/, unsigned int /*block_threads*/, const GpuModel& /*model*/) {
    return 0.25;
}

// A model that returns a reason has faulted.
std::string faulty_run(void** /*args*/, unsigned int /*grid_blocks*/, unsigned int /*block_threads*/) {
    return "a store through a pointer nothing maps (the tests' faulting kernel)";
}

}  // namespace
}  // namespace streamlab::simgpu::testing

/// Would store through a null pointer on a GPU; only its model runs in the tests.
extern "C" __global__ void simgpu_test_faulty_kernel(unsigned long long duration_ns) {
    (void)duration_ns;
}

namespace streamlab::simgpu::testing {

void register_faulty_kernel() {
    register_kernel(kFaultyKernelName, KernelModel{faulty_run, faulty_duration_ns, faulty_share});
}

cudaError_t launch_faulty(cudaStream_t stream, std::uint64_t duration_ns) {
    simgpu_test_faulty_kernel<<<1, 32, 0, stream>>>(static_cast<unsigned long long>(duration_ns));
    return cudaGetLastError();
}

}  // namespace streamlab::simgpu::testing
