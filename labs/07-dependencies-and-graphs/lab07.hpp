/// @file lab07.hpp
/// @brief Lab 07, dependencies, host functions, graphs, priorities: what you implement in dependencies.cu.
#pragma once

#include <cstddef>
#include <functional>

#include <cuda_runtime_api.h>

/// Lab 07: dependencies, host functions, graphs, priorities.
namespace lab07 {

/// The memory and the work of one pipeline run, as in lab 05. The program (or the
/// grader) allocates it.
struct PipelineJob {
    const float* input = nullptr;    ///< Host input, `n` floats, pinned.
    float* output = nullptr;         ///< Host output, `n` floats, pinned.
    float* device_input = nullptr;   ///< Device memory for the input, `n` floats.
    float* device_output = nullptr;  ///< Device memory for the results, `n` floats.
    std::size_t n = 0;               ///< Elements.
    int iterations = 1;              ///< Workload iterations.
};

/// The three streams of the stage design: one per stage.
struct StageStreams {
    cudaStream_t copy_in = nullptr;   ///< Where every chunk's H2D copy goes.
    cudaStream_t compute = nullptr;   ///< Where every chunk's kernel goes.
    cudaStream_t copy_out = nullptr;  ///< Where every chunk's D2H copy goes.
};

/// Task 1. Queues the job, cut into `chunks` chunks (streamlab::chunk_range),
/// in the stage design: chunk by chunk, in order, chunk c's H2D copy in
/// `streams.copy_in`, its workload kernel (job.iterations) in `streams.compute`
/// and its D2H copy in `streams.copy_out`. Each stage of a chunk waits, on the
/// GPU, for the stage before it of the same chunk, and for nothing else. Right
/// after queuing chunk c's D2H copy it calls `after_d2h(c)` when given, which may
/// queue more work in `streams.copy_out`. Returns without waiting for the GPU.
void queue_stages(const PipelineJob& job, int chunks, const StageStreams& streams,
                  const std::function<void(int chunk)>& after_d2h = nullptr);

/// Task 1. Runs the job through three non-blocking streams of its own with
/// queue_stages and returns once every result is in `job.output`.
void run_stage_streams(const PipelineJob& job, int chunks);

/// The host's side of Task 2: what to call once a chunk's results are in `job.output`.
struct Consumer {
    /// Reads the results of chunk `chunk` (0 to chunks - 1) from `job.output`. Course
    /// code: it calls no CUDA function, so a host function may call it.
    std::function<void(int chunk)> consume;
};

/// Task 2. The pipeline of Task 1, in which the host
/// consumes each chunk's results as soon as its D2H copy has ended: the GPU
/// itself calls `consumer.consume(c)` through a host function queued after
/// chunk c's D2H copy. The host thread that calls this function never waits for
/// a chunk. Returns once every chunk has been consumed.
void run_with_host_consumer(const PipelineJob& job, int chunks, const Consumer& consumer);

/// Task 3. Captures the pipeline of Task 1 (its three stage streams forked from
/// an origin stream with an event and joined back into it) into a CUDA graph,
/// instantiates it once and launches it `launches` times in the origin stream,
/// one launch after another. Returns once the last launch has ended; releases
/// the graph, its instance and every stream and event it created. Throws
/// streamlab::CudaError when CUDA refuses the capture.
void run_graph(const PipelineJob& job, int chunks, int launches);

/// What Task 4 runs: a background load that keeps the GPU full, and a small
/// latency-critical kernel. Course code: it sizes both from the device and notes
/// when the urgent kernel was launched, on the timeline's clock.
struct UrgentWork {
    /// Launches the course's background kernel in `stream`: many times more blocks
    /// than the GPU holds at once, each of which keeps its room on an SM for a
    /// while, so that most of its blocks wait in a queue for room. Returns once the
    /// kernel has begun to run. Call it once, first.
    std::function<void(cudaStream_t stream)> fill_gpu;
    /// Launches the small kernel in `stream`. Call it once, after fill_gpu.
    std::function<void(cudaStream_t stream)> launch;
};

/// Task 4. Hands `urgent.fill_gpu` a stream of the least priority the device
/// offers, then hands `urgent.launch` a stream of its own: of the greatest
/// priority when `high_priority`, of the default priority otherwise. Returns once
/// both kernels have ended.
void run_with_urgent_kernel(const UrgentWork& urgent, bool high_priority);

}  // namespace lab07
