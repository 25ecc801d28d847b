/// @file lab09.hpp
/// @brief Lab 09, why streams serialize: what you implement in serialize.cu.
#pragma once

#include <cuda_runtime_api.h>

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

// ---------------------------------------------------------------- Task 2: a late error

/// An input value the course's data never holds (streamlab::fill_input gives
/// values in [-1, -0.25] and [0.25, 1]): the one that trips the faulty kernel.
inline constexpr float kTripwire = 2.0F;

/// The course's side of Task 2 (faulty_workload.cu), not yours: queues a kernel
/// in `stream` that computes what streamlab::launch_workload's does,
/// `out[i] = f(in[i], iterations)`, with a bug. The thread whose input element
/// is kTripwire writes outside any allocation: the kernel fails with
/// cudaErrorIllegalAddress, an error that stays with the process (a sticky
/// error). Which chunk holds that element is not known before the kernel runs.
/// Unlike streamlab::launch_workload, it does not check the launch: call
/// cudaGetLastError() after it.
void launch_faulty_workload(const float* in, float* out, std::size_t n, int iterations, cudaStream_t stream);

/// Where the course planted the tripwire.
struct Tripwire {
    int chunk = -1;         ///< Its chunk (0-based).
    std::size_t index = 0;  ///< Its element.
};

/// The course's (the grader's and the program's), not yours: puts kTripwire at
/// a random element of a random one of `chunks` chunks (streamlab::chunk_range)
/// of `input`, `n` floats, and says where.
Tripwire plant_tripwire(float* input, std::size_t n, int chunks);

/// The course's, not yours: whether a kernel launch returns only once its kernel
/// has run (CUDA_LAUNCH_BLOCKING=1 took effect in this process). Zeroes
/// `device_input` (`n` floats), launches the workload kernel over it into
/// `device_output` in a stream of its own, asks the stream at once whether it
/// is done, and waits for it. Pick `iterations` so that the kernel runs for a
/// millisecond or more: a shorter one may end before the query, as if launches blocked.
bool launches_block(float* device_input, float* device_output, std::size_t n, int iterations);

/// Task 2's data. Every buffer is the caller's, allocated before the call.
struct CheckedJob {
    const float* input = nullptr;    ///< Host input, `n` floats, pinned.
    float* output = nullptr;         ///< Host output, `n` floats, pinned.
    float* device_input = nullptr;   ///< Device memory for the input, `n` floats.
    float* device_output = nullptr;  ///< Device memory for the results, `n` floats.
    std::size_t n = 0;               ///< Elements.
    int iterations = 1;              ///< Workload iterations.
};

/// What went wrong in a pipeline run, as run_checked_pipeline reports it.
struct ChunkError {
    int chunk = -1;                   ///< The failing chunk (0-based), or -1 when no chunk can be named.
    cudaError_t error = cudaSuccess;  ///< The error, or cudaSuccess when nothing went wrong.
};

/// Task 2. Cuts the job into `chunks` chunks (streamlab::chunk_range), one
/// stream per chunk, and queues chunk i's work in stream i: its part of `input`
/// to `device_input` (H2D_i), launch_faulty_workload on it into `device_output`
/// (K_i), its results back into `output` (D2H_i). Finds out about a failed
/// launch right after it, and then queues no more work; waits for every stream
/// it queued work in. Returns {-1, cudaSuccess} when everything worked, the
/// chunk and the error when a chunk's own call reported it, and {-1, error}
/// when the error surfaced only at a wait, where no chunk can be named. Never
/// throws for a CUDA error once its streams exist, and releases them. Works
/// for any `chunks` >= 1.
[[nodiscard]] ChunkError run_checked_pipeline(const CheckedJob& job, int chunks);

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
