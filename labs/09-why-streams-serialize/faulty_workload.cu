// Lab 09's course side for Task 2: the workload kernel with a bug that one
// input value triggers, and the check of whether kernel launches block (see
// lab09.hpp). The course's, not the student's.
#include "lab09.hpp"

#include <random>

#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/workload.hpp"

namespace lab09 {
namespace {

/// Where the buggy thread writes. It stands for a wild pointer, and is address
/// 0 on purpose: nothing is ever mapped there, neither in the GPU's address
/// space nor in the host process's (which a GPU can reach on systems with HMM
/// or ATS), so the write always faults and never lands in someone's memory.
/// It reaches the kernel as an argument, so the compiler cannot see that it is
/// null and turn the write into something else (a trap).
float* const kWildPointer = nullptr;

/// streamlab::workload_kernel's work, element by element, except for the
/// thread whose element is kTripwire: it writes through `wild` instead of into
/// `out`, and the kernel fails with cudaErrorIllegalAddress.
__global__ void faulty_workload_kernel(const float* in, float* out, std::size_t n, int iterations, float* wild) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float x = in[i];
        float* const target = x == kTripwire ? wild : out + i;  // the bug
        *target = streamlab::workload_element(x, iterations);
    }
}

}  // namespace

void launch_faulty_workload(const float* in, float* out, std::size_t n, int iterations, cudaStream_t stream) {
    if (n == 0) {
        return;
    }
    faulty_workload_kernel<<<streamlab::workload_blocks(n), streamlab::kWorkloadThreadsPerBlock, 0, stream>>>(
        in, out, n, iterations, kWildPointer);
    // No check here on purpose: run_checked_pipeline asks cudaGetLastError().
}

Tripwire plant_tripwire(float* input, std::size_t n, int chunks) {
    std::random_device seed;
    std::mt19937_64 random(seed());
    Tripwire tripwire;
    tripwire.chunk = std::uniform_int_distribution<int>(0, chunks - 1)(random);
    const streamlab::ChunkRange range = streamlab::chunk_range(n, chunks, tripwire.chunk);
    tripwire.index = range.offset + std::uniform_int_distribution<std::size_t>(0, range.count - 1)(random);
    input[tripwire.index] = kTripwire;
    return tripwire;
}

bool launches_block(float* device_input, float* device_output, std::size_t n, int iterations) {
    const streamlab::Stream stream(cudaStreamNonBlocking);
    SL_CHECK(cudaMemsetAsync(device_input, 0, n * sizeof(float), stream.get()));
    stream.synchronize();
    streamlab::launch_workload(device_input, device_output, n, iterations, stream.get());
    const cudaError_t state = cudaStreamQuery(stream.get());
    stream.synchronize();
    if (state != cudaErrorNotReady) {
        SL_CHECK(state);
    }
    return state == cudaSuccess;
}

}  // namespace lab09
