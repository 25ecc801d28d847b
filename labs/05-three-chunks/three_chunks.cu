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
    // TODO(lab05): Task 1. Give every chunk a stream of its own that never waits for
    // the legacy NULL stream; every stream you create is destroyed before you return.
    // TODO(lab05) end

    // TODO(lab05): Task 3, the fork. Start the timing so that it comes before the work
    // of every stream, whichever stream the GPU runs first.
    // TODO(lab05) end

    // TODO(lab05): Task 2. Cut the job.n elements into `chunks` nearly equal chunks.
    // In each chunk's stream: its part of job.input into job.device_input, the workload
    // kernel (job.iterations) on it into job.device_output, its results back into
    // job.output. Queue every chunk before waiting for anything.
    (void)job;
    (void)chunks;
    // TODO(lab05) end

    // TODO(lab05): Task 3, the join. Stop the timing after the work of every stream,
    // wait for it, and return the milliseconds the pipeline took.
    return 0.0F;
    // TODO(lab05) end
}

}  // namespace lab05
