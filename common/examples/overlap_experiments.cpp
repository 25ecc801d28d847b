// overlap_experiments: the three experiments of the well-known "overlapping data
// transfers" pattern, one after another, in one program to trace.
//
//   1. sequential: the whole array copied in, processed and copied out in the NULL stream;
//   2. version 1: cut into chunks, one stream each, and each stream issues its chunk's
//      H2D copy, kernel and D2H copy in turn (a loop over streams);
//   3. version 2: the same chunks and streams, issued stage by stage: every H2D copy,
//      then every kernel, then every D2H copy (a loop per stage).
//
// Between experiments the host checks every element of the result against the CPU
// reference (the output is poisoned first), so the GPU sits idle for a while: the
// timeline has three stretches of work with idle gaps between them, which
// `course plot` draws as three phases. Each experiment is an NVTX range named after it,
// as Nsight Systems shows it; `course trace` records the ranges, and the phases are
// named after them.
//
// Record and draw it (from the repository root, after ./course build):
//   ./course trace -o overlap.json -- build/common/examples/overlap_experiments
//   ./course plot overlap.json -o overlap.png          # one panel per experiment
//   ./course plot overlap.json --phase "version 1" -o v1.png   # version 1 alone
//
// Usage: overlap_experiments [ITERATIONS]   (kernel work per element, default 64)
// Exit status: 0 when every experiment's result is right, 1 otherwise, 2 bad usage.
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <array>
#include <cstdio>
#include <cstdlib>

#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;

constexpr int kStreams = 4;
constexpr std::size_t kElements = std::size_t{4} << 20;  // 16 MiB of floats, 4 MiB per stream

/// The buffers and streams all three experiments share.
struct Experiments : PipelineMemory {
    std::array<Stream, kStreams> streams{Stream(cudaStreamNonBlocking), Stream(cudaStreamNonBlocking),
                                         Stream(cudaStreamNonBlocking), Stream(cudaStreamNonBlocking)};
    int iterations;

    explicit Experiments(int iterations_) : PipelineMemory(kElements), iterations(iterations_) {
        fill_input(input.data(), kElements);
    }

    void copy_in(const ChunkRange& chunk, cudaStream_t stream) {
        SL_CHECK(cudaMemcpyAsync(device_input.data() + chunk.offset, input.data() + chunk.offset,
                                 chunk.count * sizeof(float), cudaMemcpyHostToDevice, stream));
    }
    void process(const ChunkRange& chunk, cudaStream_t stream) {
        launch_workload(device_input.data() + chunk.offset, device_output.data() + chunk.offset, chunk.count,
                        iterations, stream);
    }
    void copy_out(const ChunkRange& chunk, cudaStream_t stream) {
        SL_CHECK(cudaMemcpyAsync(output.data() + chunk.offset, device_output.data() + chunk.offset,
                                 chunk.count * sizeof(float), cudaMemcpyDeviceToHost, stream));
    }

    void sequential() {
        const ChunkRange all{0, kElements};
        copy_in(all, nullptr);  // nullptr: the NULL stream
        process(all, nullptr);
        copy_out(all, nullptr);
    }
    void version_1() {  // per stream: H2D, kernel, D2H
        for (int i = 0; i < kStreams; ++i) {
            const ChunkRange chunk = chunk_range(kElements, kStreams, i);
            copy_in(chunk, streams[i].get());
            process(chunk, streams[i].get());
            copy_out(chunk, streams[i].get());
        }
    }
    void version_2() {  // per stage: every H2D, then every kernel, then every D2H
        for (int i = 0; i < kStreams; ++i) {
            copy_in(chunk_range(kElements, kStreams, i), streams[i].get());
        }
        for (int i = 0; i < kStreams; ++i) {
            process(chunk_range(kElements, kStreams, i), streams[i].get());
        }
        for (int i = 0; i < kStreams; ++i) {
            copy_out(chunk_range(kElements, kStreams, i), streams[i].get());
        }
    }

    /// Runs one experiment inside an NVTX range named `name`, timed with events around
    /// it (a device-wide synchronize first: the created streams do not wait for the
    /// NULL stream the events are recorded in), then checks the result on the host.
    bool run(const char* name, void (Experiments::*experiment)()) {
        fill_poison(output.data(), kElements);  // an element nobody wrote fails the check
        nvtxRangePushA(name);
        const Event start(cudaEventDefault), stop(cudaEventDefault);
        SL_CHECK(cudaEventRecord(start.get(), nullptr));
        (this->*experiment)();
        SL_CHECK(cudaDeviceSynchronize());
        SL_CHECK(cudaEventRecord(stop.get(), nullptr));
        SL_CHECK(cudaEventSynchronize(stop.get()));
        nvtxRangePop();
        // The host's check: the GPU has nothing to do meanwhile (the idle gap between phases).
        const ResultCheck result = check_workload_output(input.data(), output.data(), kElements, iterations, kStreams);
        std::printf("%-11s %7.3f ms  %s\n", name, elapsed_ms(start, stop), result.message().c_str());
        return result.ok;
    }
};

}  // namespace

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? std::atoi(argv[1]) : 64;
    if (argc > 2 || iterations <= 0) {
        std::fprintf(stderr, "usage: %s [ITERATIONS > 0]\n", argv[0]);
        return 2;
    }
    return run_with_gpu(argv[0], [&] {
        Experiments experiments(iterations);
        std::printf("%zu floats, %d streams, %d iterations per element; time between events:\n", kElements, kStreams,
                    iterations);
        bool right = experiments.run("sequential", &Experiments::sequential);
        right = experiments.run("version 1", &Experiments::version_1) && right;
        right = experiments.run("version 2", &Experiments::version_2) && right;
        return right ? 0 : 1;
    });
}
