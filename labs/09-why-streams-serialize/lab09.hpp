/// @file lab09.hpp
/// @brief Lab 09, why streams serialize: what you implement in serialize.cu.
#pragma once

#include <cstddef>

/// Lab 09: why streams serialize.
namespace lab09 {

/// The pipeline cuts the work into this many chunks, one stream each.
inline constexpr int kChunks = 4;

/// The data and the work of one pipeline run. The caller owns both buffers; the
/// pipeline allocates whatever device memory and staging it needs itself.
struct PipelineJob {
    const float* input = nullptr;  ///< Host input, `n` floats, pinned (cudaMallocHost).
    float* output = nullptr;       ///< Host output, `n` floats, ordinary (pageable) memory.
    std::size_t n = 0;             ///< Elements.
    int iterations = 1;            ///< Workload iterations (set so that the kernel takes about as long as a copy).
};

/// Task 1. Cuts the job into `chunks` nearly equal chunks (streamlab::chunk_range),
/// one stream per chunk, and queues chunk i's work in stream i: device memory for
/// its input and its results, its part of `input` to the device (H2D_i), the
/// workload kernel on it (K_i), its results back to the host (D2H_i) into pinned
/// staging memory, since `output` is pageable. Waits for every stream, then copies
/// the staged results into `output` and releases everything it allocated.
/// No call between the first chunk's work and the last chunk's may make the
/// streams wait for each other. Works for any `chunks` >= 1.
void run_pipeline(const PipelineJob& job, int chunks);

}  // namespace lab09

// ------------------------------------------------------------ Task 3: the waiting host

#include <cuda_runtime_api.h>

#include <functional>

namespace lab09 {

/// Task 3. Returns once all the work queued in `stream` so far has finished,
/// with the calling thread asleep meanwhile: it uses next to no CPU time while
/// it waits, whatever the device's schedule flags, and changes none of them.
/// Leaves nothing behind. Throws streamlab::CudaError when a CUDA call fails.
void wait_blocking(cudaStream_t stream);

/// Task 3. Returns once all the work queued in `stream` so far has finished,
/// doing the host's own work meanwhile: calls `host_work` (one short slice of
/// work per call) on the calling thread for as long as the stream has work
/// left, asks the stream between two slices without waiting for it, and
/// returns within a slice or so of the stream's last work ending. Throws
/// streamlab::CudaError when a CUDA call fails (the stream's work included).
void wait_polling(cudaStream_t stream, const std::function<void()>& host_work);

}  // namespace lab09
