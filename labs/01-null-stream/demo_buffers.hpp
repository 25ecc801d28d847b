/// @file demo_buffers.hpp
/// @brief The barrier demo's device memory and work (Task 2), set up the same way
/// by lab 01's program and by its graded tests. Course code: not yours to edit.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "lab01.hpp"
#include "streamlab/check.hpp"
#include "streamlab/device.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/workload.hpp"

namespace lab01 {

/// The demo's device input, holding the course's input values (from `seed`),
/// and the outputs of kernels A, B and C; `n` floats each. Needs a GPU.
struct DemoBuffers {
    explicit DemoBuffers(std::size_t n, std::uint32_t seed = 1)
        : input(n),
          outputs{{streamlab::DeviceBuffer<float>(n), streamlab::DeviceBuffer<float>(n),
                   streamlab::DeviceBuffer<float>(n)}} {
        std::vector<float> host(n);
        streamlab::fill_input(host.data(), n, seed);
        SL_CHECK(cudaMemcpy(input.data(), host.data(), input.bytes(), cudaMemcpyHostToDevice));
    }

    /// The three kernels' work on this device: a quarter of the SMs each, so
    /// that all three fit on the GPU together and only a stream dependency can
    /// keep them apart, each about 2 ms long (kernel_iterations).
    [[nodiscard]] DemoWork work(const streamlab::DeviceFacts& facts) const {
        return work(facts, kernel_iterations(facts));
    }

    /// The same work with `iterations` iterations, found earlier by kernel_iterations.
    [[nodiscard]] DemoWork work(const streamlab::DeviceFacts& facts, int iterations) const {
        DemoWork work;
        work.input = input.data();
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            work.outputs[i] = outputs[i].data();
        }
        work.n = input.size();
        work.max_blocks = blocks(facts);
        work.iterations = iterations;
        return work;
    }

    /// The workload iterations that make one kernel about 2 ms long, timed on the GPU.
    [[nodiscard]] int kernel_iterations(const streamlab::DeviceFacts& facts) const {
        return streamlab::iterations_for_kernel_ms(input.size(), 2.0, blocks(facts));
    }

    /// A quarter of the SMs: the blocks of each kernel.
    [[nodiscard]] static int blocks(const streamlab::DeviceFacts& facts) { return std::max(1, facts.sm_count / 4); }

    streamlab::DeviceBuffer<float> input;                   ///< Kernels' input.
    std::array<streamlab::DeviceBuffer<float>, 3> outputs;  ///< Outputs of kernels A, B and C.
};

}  // namespace lab01
