/// @file workload.hpp
/// @brief The kernel every lab runs, its CPU reference, and result checks.
///
/// The kernel rotates the point (x, 0) by a fixed angle `iterations` times and
/// writes the sum of its coordinates. The result is proportional to the input,
/// element by element, so a chunk that was never copied or an offset that is
/// wrong shows up; and `iterations` sets the arithmetic per element, so kernel
/// time can be made comparable to copy time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace streamlab {

/// Threads per block of the workload kernel's launches.
inline constexpr unsigned int kWorkloadThreadsPerBlock = 256;

/// Blocks of kWorkloadThreadsPerBlock threads that cover `n` elements, at most
/// `max_blocks` (0 = no cap): the grid launch_workload uses (at least 1).
[[nodiscard]] unsigned int workload_blocks(std::size_t n, int max_blocks = 0);

/// What the workload kernel computes for one element, on the device and on the
/// host (workload_reference is this function): the point (x, 0) rotated by
/// ~0.1 rad `iterations` times, its coordinates summed. For a course kernel that
/// does the workload's work with something of its own around it.
__host__ __device__ inline float workload_element(float x, int iterations) {
    // The kernel and the CPU reference use these exact single-precision
    // constants, so they agree to rounding.
    constexpr float kCos = 0.99500417F;
    constexpr float kSin = 0.09983342F;
    float a = x;
    float b = 0.0F;
    for (int i = 0; i < iterations; ++i) {
        const float next_a = a * kCos - b * kSin;
        const float next_b = a * kSin + b * kCos;
        a = next_a;
        b = next_b;
    }
    return a + b;
}

#ifdef __CUDACC__
/// The workload kernel itself, for a launch of your own:
/// `streamlab::workload_kernel<<<grid, block, 0, stream>>>(in, out, n, iterations)`.
/// Any grid covers the whole array (a grid-stride loop).
__global__ void workload_kernel(const float* in, float* out, std::size_t n, int iterations);
#endif

/// Queues the workload kernel: `out[i] = f(in[i], iterations)` for i < n, in `stream`.
/// `max_blocks` (0 = enough for the whole array) caps the grid, so a kernel can
/// leave room on the GPU for kernels of other streams. Throws CudaError if the launch fails.
void launch_workload(const float* in, float* out, std::size_t n, int iterations, cudaStream_t stream,
                     int max_blocks = 0);

/// The CPU reference: what the kernel computes for one element.
[[nodiscard]] float workload_reference(float x, int iterations);

/// Fills `data` with values in [-1, -0.25] and [0.25, 1], different for every
/// element and every seed: never zeros. Element i is input_element(first + i, seed):
/// with `first`, several buffers hold consecutive slices of one seeded input, so
/// one output sample (record.hpp) covers jobs that each had a buffer of their own.
void fill_input(float* data, std::size_t n, std::uint32_t seed = 1, std::size_t first = 0);

/// Element `i` of fill_input's data for `seed`, computed alone: what lets a
/// judge recompute any output element from the seed without the input array.
[[nodiscard]] float input_element(std::size_t i, std::uint32_t seed);

/// Fills `data` with a NaN poison, so an element nobody wrote fails every check.
void fill_poison(float* data, std::size_t n);

/// The outcome of comparing kernel output with the CPU reference.
struct ResultCheck {
    bool ok = true;              ///< All compared elements matched.
    std::size_t compared = 0;    ///< Elements compared.
    std::size_t mismatches = 0;  ///< Elements that did not match.
    std::size_t first_bad = 0;   ///< Index of the first mismatch (when !ok).
    float expected = 0.0F;       ///< Reference value there.
    float actual = 0.0F;         ///< Output value there.
    /// One line for a student: "all 1048576 elements match" or where it went wrong.
    [[nodiscard]] std::string message() const;
};

/// Whether one output element equals its reference value to the rounding that
/// `iterations` rotation steps allow (never for NaN, the poison).
[[nodiscard]] bool matches_reference(float actual, float expected, int iterations);

/// Compares `out` with the reference for `in`. Every element is compared when
/// that is cheap; otherwise a dense sample that includes the first and last
/// element of each of `chunks` equal chunks (so a missing chunk is always caught).
[[nodiscard]] ResultCheck check_workload_output(const float* in, const float* out, std::size_t n, int iterations,
                                                int chunks = 1);

/// How many of the n elements of `a` and `b` (host) differ bit for bit: two
/// kernels that read the same input must write the same output, poison included.
[[nodiscard]] std::size_t count_differing(const float* a, const float* b, std::size_t n);

/// The elements [offset, offset + count) of one chunk, when `n` elements are
/// split into nearly equal chunks (the last may be shorter).
struct ChunkRange {
    std::size_t offset = 0;  ///< First element.
    std::size_t count = 0;   ///< Elements.
};
/// The range of chunk `index` of `chunks` over `n` elements.
[[nodiscard]] ChunkRange chunk_range(std::size_t n, int chunks, int index);

}  // namespace streamlab

namespace streamlab {

/// Times one workload kernel over `n` elements (device memory of its own, a
/// warm-up launch first), in ms, measured with events. Needs a GPU.
[[nodiscard]] double measure_kernel_ms(std::size_t n, int iterations, int max_blocks = 0);

/// The iteration count that makes one workload kernel over `n` elements take
/// about `target_ms` on this device (at least 1). Used to make kernel time
/// comparable to copy time, whatever the GPU.
[[nodiscard]] int iterations_for_kernel_ms(std::size_t n, double target_ms, int max_blocks = 0);

/// Times one pinned host-to-device copy of `bytes`, in ms (a warm-up copy first). Needs a GPU.
[[nodiscard]] double measure_h2d_ms(std::size_t bytes);

}  // namespace streamlab
