// Lab 08: two GPUs. Pinned memory that every GPU treats as pinned; the chunked
// pipeline split over the GPUs, each with streams of its own and its own link
// to the host; and a hand-off in which one GPU takes the input in and the other
// processes it, the second GPU's stream waiting for the first GPU's event.
#include "lab08.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab08 {

namespace {

/// Makes `device` current for as long as it lives, then the device that was current before.
class CurrentDevice {
public:
    explicit CurrentDevice(int device) {
        SL_CHECK(cudaGetDevice(&previous_));
        SL_CHECK(cudaSetDevice(device));
    }
    ~CurrentDevice() { SL_CHECK_NOEXCEPT(cudaSetDevice(previous_)); }
    CurrentDevice(const CurrentDevice&) = delete;
    CurrentDevice& operator=(const CurrentDevice&) = delete;

private:
    int previous_ = 0;
};

}  // namespace

float* allocate_portable(std::size_t n) {
    // TODO(lab08): Task 1. Host memory for n floats that is pinned, and that every GPU of the
    // machine treats as pinned, not only the GPU that is current now.
    return static_cast<float*>(::operator new(n * sizeof(float)));
    // TODO(lab08) end
}

void free_portable(float* data) {
    // TODO(lab08): Task 1. Release what allocate_portable allocated.
    ::operator delete(data);
    // TODO(lab08) end
}

void run_split(const SplitJob& job) {
    const int gpus = static_cast<int>(job.gpus.size());
    const CurrentDevice restore(job.gpus.empty() ? 0 : job.gpus.front().device);

    // TODO(lab08): Task 2. Streams of each GPU's own (job.streams per GPU, none of which waits for
    // the legacy NULL stream); every GPU's share, chunk by chunk, copied in, processed and copied
    // back at its own place in job.output, all of it queued before the host waits for any GPU;
    // then wait until every result is back. `restore` puts the current device back when you return.
    (void)gpus;
    // TODO(lab08) end
}

void run_handoff(const HandoffJob& job) {
    const CurrentDevice restore(job.from.device);

    // TODO(lab08): Task 3. Let the two GPUs reach each other's memory directly where the machine
    // allows it. Then chunk by chunk: the chunk comes in on job.from, goes from there to job.to
    // GPU to GPU, is processed on job.to and copied back. One non-blocking stream per GPU; what
    // job.to does with a chunk waits for job.from's copy of it on the GPUs, never on the host.
    // Return once every result is in job.output.
    (void)job;
    // TODO(lab08) end
}

}  // namespace lab08
