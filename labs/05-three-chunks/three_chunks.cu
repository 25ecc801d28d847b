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
    // Task 1: one stream per chunk. A streamlab::Stream destroys its stream when
    // the function returns.
    std::vector<streamlab::Stream> streams;
    // TODO(lab05): create `chunks` non-blocking streams: streams.emplace_back(cudaStreamNonBlocking);
    // then keep the first one's handle in `first` (streams.front().get()).
    cudaStream_t first = nullptr;
    // TODO(lab05) end

    streamlab::Event start(cudaEventDefault);
    streamlab::Event stop(cudaEventDefault);
    streamlab::Event chunk_done(cudaEventDisableTiming);  // only for waiting, never timed
    // Task 3, first part: `start` goes into the first stream, before any chunk's work.
    // TODO(lab05): record `start` in `first`.
    // TODO(lab05) end

    for (int i = 0; i < chunks; ++i) {
        const streamlab::OpLabel label(std::to_string(i + 1));  // the ops below show as H2D_1, K_1, D2H_1, ...
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, i);
        const std::size_t bytes = chunk.count * sizeof(float);
        // Task 2: this chunk's three steps, in its own stream.
        // TODO(lab05): in streams[i], copy `bytes` from job.input + chunk.offset to
        // job.device_input + chunk.offset (cudaMemcpyAsync), run the workload on the
        // chunk's chunk.count elements into job.device_output + chunk.offset
        // (streamlab::launch_workload), and copy the results back into job.output + chunk.offset.
        (void)bytes;
        // TODO(lab05) end
    }

    // Task 3: the first stream waits until every other stream is done, so `stop`,
    // recorded after that, comes after the last chunk's copy back.
    // TODO(lab05): for every stream but the first, record `chunk_done` in it and make
    // `first` wait for it (cudaStreamWaitEvent); then record `stop` in `first`.
    (void)&first;
    // TODO(lab05) end

    // TODO(lab05): wait for `stop`, then return the milliseconds between `start` and `stop`.
    return 0.0F;
    // TODO(lab05) end
}

}  // namespace lab05
