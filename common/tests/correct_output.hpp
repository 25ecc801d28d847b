// What a correct run writes at the elements a record samples, for the CPU tests of records.
#pragma once

#include <cstdint>

#include "streamlab/record.hpp"
#include "streamlab/workload.hpp"

namespace streamlab::testing_ops {

/// The sample a correct run of `n` elements, `iterations` and `chunks`, input from `seed`, leaves.
inline record::OutputSample correct_output_sample(std::uint64_t n, int iterations, int chunks, std::uint32_t seed) {
    record::OutputSample sample{n, iterations, chunks, seed, record::sample_indices(n, chunks, seed), {}};
    for (const std::uint64_t i : sample.index) {
        sample.value.push_back(workload_reference(input_element(i, seed), iterations));
    }
    return sample;
}

}  // namespace streamlab::testing_ops
