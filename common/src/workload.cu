#include "streamlab/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "streamlab/check.hpp"

namespace streamlab {

__global__ void workload_kernel(const float* in, float* out, std::size_t n, int iterations) {
    // Grid-stride loop: any grid size covers the whole array.
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        out[i] = workload_element(in[i], iterations);
    }
}

unsigned int workload_blocks(std::size_t n, int max_blocks) {
    const std::size_t needed = std::max<std::size_t>(1, (n + kWorkloadThreadsPerBlock - 1) / kWorkloadThreadsPerBlock);
    std::size_t blocks = std::min<std::size_t>(needed, 1U << 30);
    if (max_blocks > 0) {
        blocks = std::min<std::size_t>(blocks, static_cast<std::size_t>(max_blocks));
    }
    return static_cast<unsigned int>(blocks);
}

void launch_workload(const float* in, float* out, std::size_t n, int iterations, cudaStream_t stream, int max_blocks) {
    if (n == 0) {
        return;
    }
    workload_kernel<<<workload_blocks(n, max_blocks), kWorkloadThreadsPerBlock, 0, stream>>>(in, out, n, iterations);
    SL_CHECK_LAUNCH();
}

float workload_reference(float x, int iterations) {
    return workload_element(x, iterations);
}

float input_element(std::size_t i, std::uint32_t seed) {
    // A cheap integer hash of (i, seed) mapped to [0.25, 1], with a sign.
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761U ^ (seed * 0x9E3779B9U);
    h ^= h >> 16;
    h *= 0x85EBCA6BU;
    h ^= h >> 13;
    const float magnitude = 0.25F + 0.75F * static_cast<float>(h & 0xFFFFU) / 65535.0F;
    return (h & 0x10000U) != 0 ? magnitude : -magnitude;
}

void fill_input(float* data, std::size_t n, std::uint32_t seed, std::size_t first) {
    for (std::size_t i = 0; i < n; ++i) {
        data[i] = input_element(first + i, seed);
    }
}

void fill_poison(float* data, std::size_t n) {
    std::fill(data, data + n, std::numeric_limits<float>::quiet_NaN());
}

std::string ResultCheck::message() const {
    if (ok) {
        return "all " + std::to_string(compared) + " compared elements match the CPU reference";
    }
    char line[256];
    std::snprintf(line, sizeof line, "%zu of %zu compared elements differ; first at index %zu: expected %g, got %g",
                  mismatches, compared, first_bad, static_cast<double>(expected), static_cast<double>(actual));
    return line;
}

ChunkRange chunk_range(std::size_t n, int chunks, int index) {
    const std::size_t per_chunk = (n + static_cast<std::size_t>(chunks) - 1) / static_cast<std::size_t>(chunks);
    const std::size_t offset = std::min(n, per_chunk * static_cast<std::size_t>(index));
    return {offset, std::min(per_chunk, n - offset)};
}

bool matches_reference(float actual, float expected, int iterations) {
    // Rounding grows with the number of steps; |x| <= 1 bounds the values.
    const float tolerance = 1e-5F * static_cast<float>(iterations + 10);
    return std::fabs(actual - expected) <= tolerance;  // false for the NaN poison
}

std::size_t count_differing(const float* a, const float* b, std::size_t n) {
    std::size_t differing = 0;
    for (std::size_t i = 0; i < n; ++i) {
        differing += std::memcmp(&a[i], &b[i], sizeof(float)) != 0 ? 1 : 0;
    }
    return differing;
}

ResultCheck check_workload_output(const float* in, const float* out, std::size_t n, int iterations, int chunks) {
    ResultCheck result;
    auto compare = [&](std::size_t i) {
        const float expected = workload_reference(in[i], iterations);
        ++result.compared;
        if (!matches_reference(out[i], expected, iterations)) {
            if (result.ok) {
                result.first_bad = i;
                result.expected = expected;
                result.actual = out[i];
            }
            result.ok = false;
            ++result.mismatches;
        }
    };
    // Every element when the CPU can afford it, else a dense stride.
    constexpr double kBudget = 4e8;  // rotation steps the check may spend
    const double cost = static_cast<double>(n) * std::max(iterations, 1);
    const std::size_t stride = cost <= kBudget ? 1 : static_cast<std::size_t>(std::ceil(cost / kBudget));
    for (std::size_t i = 0; i < n; i += stride) {
        compare(i);
    }
    for (int c = 0; c < std::max(chunks, 1); ++c) {
        const ChunkRange range = chunk_range(n, std::max(chunks, 1), c);
        if (range.count > 0) {
            compare(range.offset);
            compare(range.offset + range.count - 1);
        }
    }
    if (n > 0) {
        compare(n - 1);
    }
    return result;
}

}  // namespace streamlab
