// The CPU side of the workload: inputs, poison, the reference and the result check.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "streamlab/workload.hpp"

namespace {

using streamlab::check_workload_output;
using streamlab::workload_reference;

TEST(Workload, InputHasNoZerosAndDependsOnSeed) {
    std::vector<float> a(10000), b(10000);
    streamlab::fill_input(a.data(), a.size(), 1);
    streamlab::fill_input(b.data(), b.size(), 2);
    int differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_GE(std::fabs(a[i]), 0.25F);
        EXPECT_LE(std::fabs(a[i]), 1.0F);
        differ += a[i] != b[i];
    }
    EXPECT_GT(differ, 9000);
}

TEST(Workload, ReferenceDependsOnEachInput) {
    // A workload that converged to one value would hide missing chunks.
    EXPECT_NE(workload_reference(0.5F, 100), workload_reference(0.6F, 100));
    EXPECT_NE(workload_reference(0.5F, 100), workload_reference(-0.5F, 100));
    EXPECT_NE(workload_reference(0.5F, 100), workload_reference(0.5F, 101));
}

TEST(Workload, CheckAcceptsReferenceOutput) {
    std::vector<float> in(5000), out(5000);
    streamlab::fill_input(in.data(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        out[i] = workload_reference(in[i], 50);
    }
    const auto result = check_workload_output(in.data(), out.data(), in.size(), 50, 3);
    EXPECT_TRUE(result.ok) << result.message();
}

TEST(Workload, CheckCatchesPoisonAndShiftedOutput) {
    std::vector<float> in(3000), out(3000);
    streamlab::fill_input(in.data(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        out[i] = workload_reference(in[i], 20);
    }
    streamlab::fill_poison(out.data() + 2000, 1000);  // the last of 3 chunks was never copied back
    auto result = check_workload_output(in.data(), out.data(), in.size(), 20, 3);
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(result.first_bad, 2000U);
    for (std::size_t i = 0; i + 1 < in.size(); ++i) {
        out[i] = workload_reference(in[i + 1], 20);
    }
    result = check_workload_output(in.data(), out.data(), in.size(), 20, 3);
    EXPECT_FALSE(result.ok) << "an off-by-one offset must be caught";
}

TEST(Workload, SampledCheckStillSeesEveryChunkBoundary) {
    // Large enough that the check samples with a stride; the one wrong element
    // is the last of chunk 2, which the stride alone would miss.
    const std::size_t n = std::size_t{1} << 21;
    const int iterations = 400;
    std::vector<float> in(n), out(n);
    streamlab::fill_input(in.data(), n);
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = workload_reference(in[i], iterations);
    }
    const auto chunk = streamlab::chunk_range(n, 4, 2);
    const std::size_t last = chunk.offset + chunk.count - 1;
    ASSERT_NE(last % 3, 0U) << "the test wants an element off the sampling grid";
    out[last] = -out[last];
    const auto result = check_workload_output(in.data(), out.data(), n, iterations, 4);
    EXPECT_LT(result.compared, n) << "expected a sampled check at this size";
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(result.first_bad, last);
}

TEST(Workload, ChunkRangesCoverTheArrayExactly) {
    for (std::size_t n : {1UL, 7UL, 100UL, 1000003UL}) {
        for (int chunks : {1, 2, 3, 8}) {
            std::size_t next = 0;
            for (int c = 0; c < chunks; ++c) {
                const auto r = streamlab::chunk_range(n, chunks, c);
                EXPECT_EQ(r.offset, std::min(next, n));
                next = r.offset + r.count;
            }
            EXPECT_EQ(next, n) << n << " elements in " << chunks << " chunks";
        }
    }
}

}  // namespace
