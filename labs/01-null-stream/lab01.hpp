/// @file lab01.hpp
/// @brief Lab 01, the NULL stream: what you implement in null_stream.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

/// Lab 01: the NULL stream.
namespace lab01 {

/// Task 1. Runs the whole job in the NULL stream, one step after another:
/// copy `input` (n floats, host) to the device, run the workload kernel
/// (streamlab::launch_workload with `iterations`), copy the result back into
/// `output` (host). Times the three steps with two CUDA events recorded in the
/// NULL stream and returns the elapsed time in milliseconds.
float run_serial(const float* input, float* output, std::size_t n, int iterations);

/// The device memory and sizes of the barrier demo's three kernels.
struct DemoWork {
    const float* input = nullptr;  ///< Device input, n floats.
    float* outputs[3] = {};        ///< Device outputs of kernels A, B and C, n floats each.
    std::size_t n = 0;             ///< Elements per kernel.
    int iterations = 1;            ///< Workload iterations.
    int max_blocks = 0;            ///< Grid cap: small kernels, so that they could share the GPU.
};

/// Task 2. The legacy NULL stream's implicit barrier. Creates two streams with
/// `stream_flags` (cudaStreamDefault: blocking; cudaStreamNonBlocking), then
/// launches kernel A (writing outputs[0]) in the first stream, kernel B
/// (outputs[1]) in the NULL stream and kernel C (outputs[2]) in the second
/// stream, in that order; waits for the device; destroys both streams.
void run_barrier_demo(unsigned int stream_flags, const DemoWork& work);

}  // namespace lab01
