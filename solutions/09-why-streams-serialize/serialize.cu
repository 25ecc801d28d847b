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

    // Task 1: one pinned staging buffer for the whole run, allocated before any
    // stream has work: a page-locked allocation between two streams' work would
    // make them wait for each other.
    float* staging = nullptr;
    SL_CHECK(cudaMallocHost(&staging, job.n * sizeof(float)));

    for (int i = 0; i < chunks; ++i) {
        const streamlab::OpLabel label(std::to_string(i + 1));  // the ops below show as H2D_1, K_1, D2H_1, ...
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, i);
        const std::size_t bytes = chunk.count * sizeof(float);
        cudaStream_t stream = streams[i].get();

        // Task 1: the stream-ordered forms. The allocations and the memset are queued
        // in the chunk's stream and wait for nothing else; the staging is a slice of
        // the buffer allocated before the loop.
        SL_CHECK(cudaMallocAsync(&device_in[i], bytes, stream));
        SL_CHECK(cudaMallocAsync(&device_out[i], bytes, stream));
        SL_CHECK(cudaMemsetAsync(device_out[i], 0, bytes, stream));  // no stale results, whatever the kernel does
        staged[i] = staging + chunk.offset;

        SL_CHECK(cudaMemcpyAsync(device_in[i], job.input + chunk.offset, bytes, cudaMemcpyHostToDevice, stream));
        streamlab::launch_workload(device_in[i], device_out[i], chunk.count, job.iterations, stream);
        SL_CHECK(cudaMemcpyAsync(staged[i], device_out[i], bytes, cudaMemcpyDeviceToHost, stream));

        // Task 1: released after the loop. A block freed here could be handed to the
        // next chunk's allocation, and the pool may make that chunk's stream wait for
        // this one to reuse it.
    }

    // Task 1: every chunk's device memory, freed in its own stream once its D2H copy is done.
    for (int i = 0; i < chunks; ++i) {
        SL_CHECK(cudaFreeAsync(device_in[i], streams[i].get()));
        SL_CHECK(cudaFreeAsync(device_out[i], streams[i].get()));
    }

    for (streamlab::Stream& stream : streams) {
        stream.synchronize();
    }
    for (int i = 0; i < chunks; ++i) {
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, i);
        std::memcpy(job.output + chunk.offset, staged[i], chunk.count * sizeof(float));
    }

    // Task 1: the one pinned buffer, after every stream is done with it.
    SL_CHECK(cudaFreeHost(staging));
}

}  // namespace lab09
