/// @file lab04.hpp
/// @brief Lab 04, asynchronous copies: what you implement in async_copies.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <vector>

/// Lab 04: asynchronous copies.
namespace lab04 {

/// The host buffers of one batch, `n` floats each (see run_batches).
struct Batch {
    const float* input = nullptr;  ///< Host input: pinned memory, or pageable in the pageable variant.
    float* output = nullptr;       ///< Host output, written by the batch's D2H copy.
};

/// How run_batches waits for a batch to finish.
enum class WaitWith {
    Stream,  ///< cudaStreamSynchronize(stream): only the work of your stream.
    Device,  ///< cudaDeviceSynchronize(): all work on the device, in every stream.
};

/// The host's own work, `host_work(b)`: called once per batch, right after
/// batch b's copies and kernel have been queued, while the device runs them.
/// (The lab program prepares batch b + 1's input there; the grader marks the time.)
using HostWork = std::function<void(int batch)>;

/// What your code saw when it regained control after queuing one batch.
struct BatchReport {
    /// cudaStreamQuery(stream) answered cudaErrorNotReady right after the batch's
    /// three operations were queued: the device was still working on them, so
    /// the calls had returned before the work was done.
    bool device_busy_on_return = false;
};

/// Tasks 1 to 3. Runs every batch through one stream of your own: creates a
/// non-blocking stream, allocates device input and output (`n` floats each)
/// with cudaMallocAsync in it; then for each batch b queues the H2D copy
/// (cudaMemcpyAsync), the workload kernel (`iterations`) and the D2H copy
/// (cudaMemcpyAsync) in that stream, records in the report whether the device
/// was still busy, calls `host_work(b)`, and waits for the batch as `wait` says.
/// Finally frees the device memory with cudaFreeAsync and destroys the stream.
/// Returns one report per batch.
std::vector<BatchReport> run_batches(const std::vector<Batch>& batches, std::size_t n, int iterations, WaitWith wait,
                                     const HostWork& host_work);

}  // namespace lab04
