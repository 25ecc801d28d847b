// Lab 09, Task 2: a late error. A four-stream pipeline whose kernel fails in
// one chunk, which no one knows before it runs. The error reaches the host
// late, at a call that has nothing to do with the failing kernel. The task:
// find out as early as you can, name the chunk when you can, and hand the
// error back instead of throwing it.
#include "lab09.hpp"

#include <string>
#include <vector>

#include "streamlab/handles.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab09 {

ChunkError run_checked_pipeline(const CheckedJob& job, int chunks) {
    // One stream per chunk. Non-blocking: nothing here uses the legacy NULL
    // stream, and the caller's work in it should not hold up this pipeline.
    // The handles release the streams on every way out (their destructors
    // report a failure on stderr and never throw).
    std::vector<streamlab::Stream> streams;
    for (int i = 0; i < chunks; ++i) {
        streams.emplace_back(cudaStreamNonBlocking);
    }
    ChunkError report;

    for (int i = 0; i < chunks; ++i) {
        const streamlab::OpLabel label(std::to_string(i + 1));  // the ops below show as H2D_1, K_1, D2H_1, ...
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, i);
        const std::size_t bytes = chunk.count * sizeof(float);
        cudaStream_t stream = streams[i].get();
        const float* host_in = job.input + chunk.offset;
        float* host_out = job.output + chunk.offset;
        float* device_in = job.device_input + chunk.offset;
        float* device_out = job.device_output + chunk.offset;

        // Task 2: every call's error is looked at, and none is thrown. A launch
        // returns nothing: cudaGetLastError() right after it says whether it was
        // accepted, and resets the error it returns (cudaPeekAtLastError would
        // leave it in place, for a later check to find again).
        // With CUDA_LAUNCH_BLOCKING=1 the launch returns once the kernel has
        // run, so the kernel's own failure shows here, in its chunk. Without
        // it the kernel runs after its chunk's H2D copy, long after this loop
        // has ended, and its failure shows at a wait.
        cudaError_t error = cudaMemcpyAsync(device_in, host_in, bytes, cudaMemcpyHostToDevice, stream);
        if (error == cudaSuccess) {
            launch_faulty_workload(device_in, device_out, chunk.count, job.iterations, stream);
            error = cudaGetLastError();
        }
        if (error == cudaSuccess) {
            error = cudaMemcpyAsync(host_out, device_out, bytes, cudaMemcpyDeviceToHost, stream);
        }
        if (error != cudaSuccess) {
            report = {i, error};
            break;  // queue no more work after an error: it could only fail too
        }
    }

    // Task 2: wait for every stream, whatever happened: work already queued
    // must be done (or failed) before the caller reuses its buffers. An error
    // found only here is sticky (an illegal address poisons the whole context,
    // and every later call, in any stream, returns it): which stream's wait
    // returns it says nothing about which kernel failed, so no chunk is named.
    for (const streamlab::Stream& stream : streams) {
        const cudaError_t waited = cudaStreamSynchronize(stream.get());
        if (waited != cudaSuccess && report.error == cudaSuccess) {
            report = {-1, waited};
        }
    }
    return report;
}

}  // namespace lab09
