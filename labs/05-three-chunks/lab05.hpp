/// @file lab05.hpp
/// @brief Lab 05, the three-chunk overlap: what you implement in three_chunks.cu.
#pragma once

#include <cstddef>

/// Lab 05: the three-chunk overlap.
namespace lab05 {

/// The article's example cuts the work into three chunks.
inline constexpr int kChunks = 3;

/// The memory and the work of one pipeline run. The program allocates it.
struct PipelineJob {
    const float* input = nullptr;    ///< Host input, `n` floats, pinned (cudaMallocHost).
    float* output = nullptr;         ///< Host output, `n` floats, pinned.
    float* device_input = nullptr;   ///< Device memory for the input, `n` floats.
    float* device_output = nullptr;  ///< Device memory for the results, `n` floats.
    std::size_t n = 0;               ///< Elements.
    int iterations = 1;              ///< Workload iterations (set so that the kernel takes about as long as a copy).
};

/// Tasks 1 to 3. Cuts the job into `chunks` nearly equal chunks
/// (streamlab::chunk_range's split, or any as even), creates one non-blocking
/// stream per chunk, and queues chunk i's work in stream i: copy its part of
/// `input` to the device (H2D_i, cudaMemcpyAsync), run the workload kernel on it
/// (K_i), copy its results back into `output` (D2H_i). Times the whole pipeline
/// with CUDA events recorded in the streams that do the work, waits for it, and
/// returns the elapsed milliseconds. Works for any `chunks` >= 1: the course's
/// benchmark runs it with up to 64.
float run_pipeline(const PipelineJob& job, int chunks);

}  // namespace lab05
