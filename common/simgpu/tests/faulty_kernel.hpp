/// @file faulty_kernel.hpp
/// @brief A test kernel that faults: it lasts the time the test chooses and then ends with an illegal address,
/// as a kernel that stores through a wild pointer does.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace streamlab::simgpu::testing {

/// Registers the faulting kernel's model (after the simulator is reset, as register_busy_kernel).
void register_faulty_kernel();

/// Queues the faulting kernel in `stream`, lasting `duration_ns` on the model and holding a quarter of the GPU.
/// Returns the launch's error (cudaGetLastError).
cudaError_t launch_faulty(cudaStream_t stream, std::uint64_t duration_ns);

}  // namespace streamlab::simgpu::testing
