// three_chunks_example: the three-chunk pipeline, as a program to trace.
//
// The input is split into three chunks. Chunk i is copied to the device (H2D_i),
// processed (K_i) and copied back (D2H_i), all in its own non-blocking stream i.
// Work in different streams may run at the same time, so while K_0 runs, H2D_1
// can already copy the next chunk: copies and kernels overlap.
//
// Record its timeline (from the repository root, with PYTHONPATH=tools), then
// open three_chunks.json in ui.perfetto.dev or plot it:
//   python3 -m streamlab_tools.trace_cmd --inject BUILD/common/inject/libstreamlab_inject.so
//           -o three_chunks.json -- BUILD/common/examples/three_chunks_example
//
// The chunk labels (OpLabel) show as NVTX ranges in Nsight Systems; they reach
// the trace file only when a program records itself with streamlab::Tracer.
//
// Usage: three_chunks_example [ITERATIONS]   (kernel work per element, default 512)
//
// Everything goes to the three created streams; nothing uses the NULL stream,
// so the trace shows exactly three streams.
#include <cuda_runtime_api.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "streamlab/handles.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace {

constexpr int kChunks = 3;
constexpr std::size_t kElements = std::size_t{12} << 20;  // 48 MiB of floats, 16 MiB per chunk

int run(int iterations) {
    using namespace streamlab;

    // Pinned host memory: only pinned buffers let cudaMemcpyAsync overlap with kernels.
    PinnedBuffer<float> input(kElements);
    PinnedBuffer<float> output(kElements);
    fill_input(input.data(), kElements);
    fill_poison(output.data(), kElements);
    DeviceBuffer<float> device_input(kElements);
    DeviceBuffer<float> device_output(kElements);

    // Non-blocking: these streams never wait for the legacy NULL stream.
    std::array<Stream, kChunks> streams{Stream(cudaStreamNonBlocking), Stream(cudaStreamNonBlocking),
                                        Stream(cudaStreamNonBlocking)};

    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < kChunks; ++i) {
        const OpLabel label(std::to_string(i));  // the ops below are H2D_i, K_i, D2H_i
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
    const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - started;

    const ResultCheck result = check_workload_output(input.data(), output.data(), kElements, iterations, kChunks);
    std::printf("three chunks, %d iterations: %.3f ms (host clock, issue to last synchronize)\n", iterations,
                elapsed.count());
    std::printf("result: %s\n", result.message().c_str());
    return result.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    int iterations = 512;
    if (argc > 2 || (argc == 2 && (iterations = std::atoi(argv[1])) <= 0)) {
        std::fprintf(stderr, "usage: %s [ITERATIONS > 0]\n", argv[0]);
        return 2;
    }
    try {
        return run(iterations);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "three_chunks_example: %s\n", error.what());
        return 1;
    }
}
