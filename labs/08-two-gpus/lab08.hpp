/// @file lab08.hpp
/// @brief Lab 08, two GPUs: what you implement in two_gpus.cu.
#pragma once

#include <cstddef>
#include <vector>

/// Lab 08: two GPUs.
namespace lab08 {

/// Task 1. Allocates `n` floats of pinned host memory that every GPU of the
/// machine treats as pinned, whichever GPU was current when it was allocated.
/// Throws streamlab::CudaError when CUDA refuses.
[[nodiscard]] float* allocate_portable(std::size_t n);

/// Task 1. Releases memory from allocate_portable (nothing for a null pointer).
void free_portable(float* data);

/// One GPU of a split job and the device memory the program (or the grader)
/// allocated on it. Your code allocates none.
struct GpuPart {
    int device = 0;                  ///< The CUDA device ordinal of this GPU.
    float* device_input = nullptr;   ///< On `device`: room for this GPU's whole share of the input.
    float* device_output = nullptr;  ///< On `device`: room for this GPU's whole share of the results.
};

/// The pipeline of lab 06 over one GPU or several: the data is cut into one
/// share per GPU (share g is streamlab::chunk_range(n, gpus.size(), g)), and each
/// GPU streams its share through its own streams in chunks.
struct SplitJob {
    const float* input = nullptr;  ///< Host input, `n` floats, from allocate_portable.
    float* output = nullptr;       ///< Host output, `n` floats, from allocate_portable.
    std::size_t n = 0;             ///< Elements in all.
    int iterations = 1;            ///< The workload kernel's iterations.
    int chunks = 1;                ///< Each GPU's share is cut into this many chunks (streamlab::chunk_range).
    int streams = 1;               ///< Streams per GPU: chunk c of a share goes to that GPU's stream c % streams.
    std::vector<GpuPart> gpus;     ///< The GPUs, one share each, in the order of the shares.
};

/// Task 2. Runs the job on all its GPUs at once: on each GPU, `job.streams`
/// non-blocking streams of that GPU carry its share's chunks, each chunk copied
/// in, processed by the workload kernel (job.iterations) and copied back at its
/// own place in job.output. The host queues every GPU's work before it waits
/// for any of it. Returns once every result is in job.output, with the same
/// device current as when it was called; releases every stream it created.
void run_split(const SplitJob& job);

/// The memory of Task 3's hand-off: the input comes in on one GPU and is
/// processed on the other.
struct HandoffJob {
    const float* input = nullptr;  ///< Host input, `n` floats, pinned (allocate_portable).
    float* output = nullptr;       ///< Host output, `n` floats, pinned (allocate_portable).
    std::size_t n = 0;             ///< Elements.
    int iterations = 1;            ///< The workload kernel's iterations.
    int chunks = 1;                ///< The data is cut into this many chunks (streamlab::chunk_range).
    GpuPart from;                  ///< The GPU the input is copied to (its device_output is unused).
    GpuPart to;                    ///< The GPU that runs the kernels and whose results are copied back.
};

/// Task 3. Chunk by chunk: copies the chunk from job.input to `from`'s
/// device_input, copies it from there to `to`'s device_input (GPU to GPU), runs
/// the workload kernel on `to` into its device_output and copies the results to
/// job.output. Each GPU has a non-blocking stream of its own; work on one GPU
/// that needs the other's waits for it on the GPUs (an event of one GPU waited
/// for by the other's stream), never on the host. Lets the two GPUs reach each
/// other's memory directly where they can. Returns once every result is in
/// job.output, with the same device current as when it was called.
void run_handoff(const HandoffJob& job);

}  // namespace lab08
