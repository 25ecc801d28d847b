// three_chunks_example: the three-chunk pipeline, as a program to trace.
//
// The input is split into three chunks. Chunk i is copied to the device (H2D_i),
// processed (K_i) and copied back (D2H_i), all in its own non-blocking stream i.
// Work in different streams may run at the same time, so while K_0 runs, H2D_1
// can already copy the next chunk: copies and kernels overlap.
//
// Record its timeline (from the repository root, with the Python `./course setup` makes),
// then open three_chunks.json in ui.perfetto.dev or plot it:
//   .venv/bin/python -m streamlab_tools.trace_cmd --inject BUILD/common/inject/libstreamlab_inject.so
//           -o three_chunks.json -- BUILD/common/examples/three_chunks_example
//
// The chunk labels (OpLabel) show as NVTX ranges in Nsight Systems; they reach
// the trace file only when a program records itself with streamlab::Tracer.
//
// Usage: three_chunks_example [ITERATIONS]   (kernel work per element, default 512)
//        three_chunks_example [ITERATIONS] --compare-tracing REPEATS
//        (the pipeline's time with and without streamlab::Tracer recording it)
//
// Everything goes to the three created streams; nothing uses the NULL stream,
// so the trace shows exactly three streams.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "streamlab/handles.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;

constexpr int kChunks = 3;
constexpr std::size_t kElements = std::size_t{12} << 20;  // 48 MiB of floats, 16 MiB per chunk

/// Host and device buffers and the three streams, made once and reused.
/// (PipelineMemory: pinned host buffers, since only pinned memory lets
/// cudaMemcpyAsync overlap with kernels, and the two device buffers.)
struct Pipeline : PipelineMemory {
    Pipeline() : PipelineMemory(kElements) {}

    // Non-blocking: these streams never wait for the legacy NULL stream.
    std::array<Stream, kChunks> streams{Stream(cudaStreamNonBlocking), Stream(cudaStreamNonBlocking),
                                        Stream(cudaStreamNonBlocking)};

    /// Issues H2D_i, K_i, D2H_i in stream i for every chunk, waits, and
    /// returns the host-clock time from the first issue to the last wait, in ms.
    double run(int iterations) {
        const auto started = std::chrono::steady_clock::now();
        for (int i = 0; i < kChunks; ++i) {
            const OpLabel label(std::to_string(i + 1));  // the ops below are H2D_i, K_i, D2H_i
            const ChunkRange chunk = chunk_range(kElements, kChunks, i);
            const std::size_t bytes = chunk.count * sizeof(float);
            cudaStream_t stream = streams[i].get();
            SL_CHECK(cudaMemcpyAsync(device_input.data() + chunk.offset, input.data() + chunk.offset, bytes,
                                     cudaMemcpyHostToDevice, stream));
            launch_workload(device_input.data() + chunk.offset, device_output.data() + chunk.offset, chunk.count,
                            iterations, stream);
            SL_CHECK(cudaMemcpyAsync(output.data() + chunk.offset, device_output.data() + chunk.offset, bytes,
                                     cudaMemcpyDeviceToHost, stream));
        }
        for (const Stream& stream : streams) {
            stream.synchronize();
        }
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    }
};

int run_once(int iterations) {
    Pipeline pipeline;
    fill_input(pipeline.input.data(), kElements);
    fill_poison(pipeline.output.data(), kElements);
    const double elapsed_ms = pipeline.run(iterations);
    const ResultCheck result =
        check_workload_output(pipeline.input.data(), pipeline.output.data(), kElements, iterations, kChunks);
    std::printf("three chunks, %d iterations: %.3f ms (host clock, issue to last synchronize)\n", iterations,
                elapsed_ms);
    std::printf("result: %s\n", result.message().c_str());
    return result.ok ? 0 : 1;
}

/// How much recording a timeline slows the pipeline down (see measure_tracer_overhead).
int compare_tracing(int iterations, int repeats) {
    Pipeline pipeline;
    fill_input(pipeline.input.data(), kElements);
    const TracerOverhead overhead =
        measure_tracer_overhead("three_chunks_example", repeats, [&] { return pipeline.run(iterations); });
    std::printf(
        "{\"untraced_ms\": %.4f, \"cupti_only_ms\": %.4f, \"traced_ms\": %.4f, \"traced_over_untraced\": %.4f, "
        "\"traced_over_cupti_only\": %.4f, \"repeats\": %d}\n",
        overhead.untraced_ms, overhead.cupti_only_ms, overhead.traced_ms, overhead.traced_ms / overhead.untraced_ms,
        overhead.traced_ms / overhead.cupti_only_ms, repeats);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // three_chunks_example [ITERATIONS] [--compare-tracing REPEATS]
    int iterations = 512;
    int repeats = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--compare-tracing" && i + 1 < argc) {
            repeats = std::atoi(argv[++i]);
        } else {
            iterations = std::atoi(argv[i]);
        }
        if (iterations <= 0 || (arg == "--compare-tracing" && repeats <= 0)) {
            std::fprintf(stderr, "usage: %s [ITERATIONS > 0] [--compare-tracing REPEATS > 0]\n", argv[0]);
            return 2;
        }
    }
    try {
        return repeats > 0 ? compare_tracing(iterations, repeats) : run_once(iterations);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "three_chunks_example: %s\n", error.what());
        return 1;
    }
}
