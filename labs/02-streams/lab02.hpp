/// @file lab02.hpp
/// @brief Lab 02, creating streams: what you implement in streams.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

/// Lab 02: creating streams.
namespace lab02 {

/// One independent kernel: the workload over `n` elements of `input` into `output` (device memory).
struct KernelJob {
    const float* input = nullptr;  ///< Device input.
    float* output = nullptr;       ///< Device output.
    std::size_t n = 0;             ///< Elements.
    int iterations = 1;            ///< Workload iterations.
    int max_blocks = 0;            ///< Grid cap, small enough that several kernels fit on the GPU together.
};

/// What your code saw while it waited; printed by the lab program (the grader reads the timeline).
struct WaitReport {
    bool first_stream_idle_after_sync = false;  ///< cudaStreamQuery(first) after cudaStreamSynchronize(first).
    bool last_stream_idle_when_polled = false;  ///< cudaStreamQuery(last), asked right after launching.
};

/// Task 1. Creates one stream per job with `flags` (cudaStreamCreateWithFlags),
/// launches job i's kernel in stream i, polls the last stream once with
/// cudaStreamQuery, waits for the first stream with cudaStreamSynchronize,
/// then for everything with cudaDeviceSynchronize, and destroys every stream.
WaitReport run_in_streams(const std::vector<KernelJob>& jobs, unsigned int flags);

/// Task 2. The same kernels, one after another, in the NULL stream.
void run_in_null_stream(const std::vector<KernelJob>& jobs);

}  // namespace lab02
