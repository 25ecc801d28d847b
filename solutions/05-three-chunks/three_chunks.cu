// Lab 05: the three-chunk overlap. The data is cut into chunks and each chunk
// travels through its own stream, so while one chunk's kernel runs, the next
// chunk is copied in and the previous chunk's results are copied out.
#include "lab05.hpp"

#include <string>
#include <vector>

#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab05 {

float run_pipeline(const PipelineJob& job, int chunks) {
    // Task 1: one non-blocking stream per chunk. A streamlab::Stream destroys its
    // stream when the function returns.
    std::vector<streamlab::Stream> streams;
    for (int i = 0; i < chunks; ++i) {
        streams.emplace_back(cudaStreamNonBlocking);
    }
    cudaStream_t first = streams.front().get();

    // Task 3, the fork: `start` goes into the first stream and every other stream
    // waits for it, so no chunk's work can begin before `start`.
    streamlab::Event start(cudaEventDefault);
    streamlab::Event stop(cudaEventDefault);
    start.record(first);
    for (int i = 1; i < chunks; ++i) {
        SL_CHECK(cudaStreamWaitEvent(streams[i].get(), start.get(), 0));
    }

    // Task 2: each chunk's three steps, in its own stream; nothing waits here.
    for (int i = 0; i < chunks; ++i) {
        const streamlab::OpLabel label(std::to_string(i + 1));  // the ops below show as H2D_1, K_1, D2H_1, ...
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, i);
        const std::size_t bytes = chunk.count * sizeof(float);
        cudaStream_t stream = streams[i].get();
        SL_CHECK(cudaMemcpyAsync(job.device_input + chunk.offset, job.input + chunk.offset, bytes,
                                 cudaMemcpyHostToDevice, stream));
        streamlab::launch_workload(job.device_input + chunk.offset, job.device_output + chunk.offset, chunk.count,
                                   job.iterations, stream);
        SL_CHECK(cudaMemcpyAsync(job.output + chunk.offset, job.device_output + chunk.offset, bytes,
                                 cudaMemcpyDeviceToHost, stream));
    }

    // Task 3, the join: the first stream waits until every other stream is done,
    // so `stop`, recorded after that, comes after the last chunk's copy back.
    streamlab::Event chunk_done(cudaEventDisableTiming);  // only for waiting, never timed
    for (int i = 1; i < chunks; ++i) {
        chunk_done.record(streams[i].get());
        SL_CHECK(cudaStreamWaitEvent(first, chunk_done.get(), 0));
    }
    stop.record(first);

    stop.synchronize();
    return streamlab::elapsed_ms(start, stop);
}

}  // namespace lab05
