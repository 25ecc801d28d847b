// Lab 06: many chunks, few streams. The input is larger than the pinned
// buffers, so the host fills a small ring of staging buffers piece by piece,
// K streams with a device buffer set each carry the chunks, and the results come
// back into a ring of pinned buffers that the host drains.
#include "lab06.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab06 {

void run_stream(const StreamingJob& job) {
    const int sets = static_cast<int>(job.device.size());
    const int staging_slots = static_cast<int>(job.staging.size());
    const int result_slots = static_cast<int>(job.results.size());

    // TODO(lab06): Task 1. A stream of your own for each device set, none of which waits
    // for the legacy NULL stream, and what you will need later to tell when the GPU has
    // finished with each staging buffer and each results buffer. Everything you create is
    // released before run_stream returns.
    (void)sets;
    (void)staging_slots;
    (void)result_slots;
    // TODO(lab06) end

    // TODO(lab06): Tasks 2 and 3. Chunk by chunk, in order: the host produces the chunk
    // into a staging buffer, the GPU copies it into a device set, runs the workload kernel
    // (job.iterations) on it and copies its results into a results buffer, and the host
    // consumes them from there; every chunk is consumed before you return. The rings are
    // smaller than the stream, so buffers are reused, and no reuse may begin before the
    // previous use has ended: the host never writes a staging buffer that a copy may still
    // read, never reads a results buffer that a copy may still write, and a copy never
    // writes a buffer that a kernel, a copy or the host may still read. Keep the GPU busy:
    // the host waits only when a buffer it needs is still in use.
    (void)job;
    // TODO(lab06) end
}

Sweep sweep_chunks(const StreamingJob& job, const std::vector<int>& chunk_counts) {
    // TODO(lab06): Task 4. Run the job once with each of chunk_counts as its number of
    // chunks, measure how long each run takes from start to finish, and return every point
    // and the fastest N.
    (void)job;
    (void)chunk_counts;
    return {};
    // TODO(lab06) end
}

}  // namespace lab06
