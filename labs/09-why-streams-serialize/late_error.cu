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

        // TODO(lab09): Task 2. The chunk's work, queued as if nothing could go wrong. Find out
        // at once whether each call worked, the launch included; on an error, note the
        // chunk and the error in `report` and queue no more work. Throw nothing.
        cudaMemcpyAsync(device_in, host_in, bytes, cudaMemcpyHostToDevice, stream);
        launch_faulty_workload(device_in, device_out, chunk.count, job.iterations, stream);
        cudaMemcpyAsync(host_out, device_out, bytes, cudaMemcpyDeviceToHost, stream);
        // TODO(lab09) end
    }

    // TODO(lab09): Task 2. Wait for every stream, even after an error, and put an error
    // that shows only here into `report` instead of throwing it. Which chunk failed?
    for (const streamlab::Stream& stream : streams) {
        stream.synchronize();  // throws streamlab::CudaError when the wait returns an error
    }
    // TODO(lab09) end
    return report;
}

}  // namespace lab09
