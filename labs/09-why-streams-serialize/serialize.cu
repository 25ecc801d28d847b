// Lab 09: why streams serialize. A chunked pipeline in four streams that looks
// right and gives the right results, yet runs one chunk after another: a few
// ordinary calls in the chunk loop make every stream wait for the others.
#include "lab09.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab09 {

void run_pipeline(const PipelineJob& job, int chunks) {
    // One stream per chunk. Blocking streams, as cudaStreamCreate makes them: they
    // wait for work in the legacy NULL stream, and it waits for them.
    std::vector<streamlab::Stream> streams;
    for (int i = 0; i < chunks; ++i) {
        streams.emplace_back(cudaStreamDefault);
    }
    // Each chunk's device input, device results, and pinned staging for its results.
    std::vector<float*> device_in(chunks, nullptr), device_out(chunks, nullptr), staged(chunks, nullptr);

    // TODO(lab09): Task 1. Whatever this run allocates once, before any chunk's work is queued.
    // TODO(lab09) end

    for (int i = 0; i < chunks; ++i) {
        const streamlab::OpLabel label(std::to_string(i + 1));  // the ops below show as H2D_1, K_1, D2H_1, ...
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, i);
        const std::size_t bytes = chunk.count * sizeof(float);
        cudaStream_t stream = streams[i].get();

        // TODO(lab09): Task 1. The chunk's memory. Something in here makes the streams wait
        // for each other: keep what it does, only in the chunk's stream or before the loop.
        SL_CHECK(cudaMalloc(&device_in[i], bytes));
        SL_CHECK(cudaMalloc(&device_out[i], bytes));
        SL_CHECK(cudaMemset(device_out[i], 0, bytes));  // no stale results, whatever the kernel does
        SL_CHECK(cudaMallocHost(&staged[i], bytes));
        // TODO(lab09) end

        SL_CHECK(cudaMemcpyAsync(device_in[i], job.input + chunk.offset, bytes, cudaMemcpyHostToDevice, stream));
        streamlab::launch_workload(device_in[i], device_out[i], chunk.count, job.iterations, stream);
        SL_CHECK(cudaMemcpyAsync(staged[i], device_out[i], bytes, cudaMemcpyDeviceToHost, stream));

        // TODO(lab09): Task 1. The chunk's device memory is no longer needed once its D2H copy
        // is done. Release it without making any stream wait for another.
        SL_CHECK(cudaFree(device_in[i]));
        SL_CHECK(cudaFree(device_out[i]));
        // TODO(lab09) end
    }

    // TODO(lab09): Task 1. What is released after every chunk's work has been queued.
    // TODO(lab09) end

    for (streamlab::Stream& stream : streams) {
        stream.synchronize();
    }
    for (int i = 0; i < chunks; ++i) {
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, i);
        std::memcpy(job.output + chunk.offset, staged[i], chunk.count * sizeof(float));
    }

    // TODO(lab09): Task 1. Release the pinned staging.
    for (float* staging : staged) {
        SL_CHECK(cudaFreeHost(staging));
    }
    // TODO(lab09) end
}

}  // namespace lab09
