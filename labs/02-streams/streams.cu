// Lab 02: creating streams. Kernels in different streams have no order
// between them, so the GPU may run them at the same time.
#include "lab02.hpp"

#include "streamlab/check.hpp"
#include "streamlab/workload.hpp"

namespace lab02 {

namespace {
/// cudaStreamQuery answers cudaSuccess (idle) or cudaErrorNotReady (still
/// working); only other codes are errors.
bool stream_is_idle(cudaStream_t stream) {
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaErrorNotReady) {
        return false;
    }
    SL_CHECK(status);
    return true;
}
}  // namespace

WaitReport run_in_streams(const std::vector<KernelJob>& jobs, unsigned int flags) {
    std::vector<cudaStream_t> streams(jobs.size(), nullptr);
    // TODO(lab02): create every stream with cudaStreamCreateWithFlags(&stream, flags).
    (void)flags;
    // TODO(lab02) end

    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const KernelJob& job = jobs[i];
        // TODO(lab02): launch this job's kernel in streams[i] yourself, with the <<<...>>>
        // syntax: streamlab::workload_kernel over job.n elements with job.iterations, a grid
        // of streamlab::workload_blocks(job.n, job.max_blocks) blocks of
        // streamlab::kWorkloadThreadsPerBlock threads, no dynamic shared memory; then check
        // the launch with SL_CHECK(cudaGetLastError()).
        (void)job;
        // TODO(lab02) end
    }

    WaitReport report;
    // TODO(lab02): poll the last stream (stream_is_idle), wait for the first one
    // (cudaStreamSynchronize), poll it again, then wait for all work (cudaDeviceSynchronize).
    (void)stream_is_idle;
    // TODO(lab02) end

    // TODO(lab02): destroy every stream you created.
    // TODO(lab02) end
    return report;
}

void run_in_null_stream(const std::vector<KernelJob>& jobs) {
    for (const KernelJob& job : jobs) {
        // TODO(lab02): launch the job's kernel in the NULL stream.
        (void)job;
        // TODO(lab02) end
    }
    SL_CHECK(cudaDeviceSynchronize());
}

}  // namespace lab02
