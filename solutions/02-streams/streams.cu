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
    for (cudaStream_t& stream : streams) {
        SL_CHECK(cudaStreamCreateWithFlags(&stream, flags));
    }

    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const KernelJob& job = jobs[i];
        // The launch names its stream as the fourth launch parameter (the third is
        // dynamic shared memory, none here).
        const unsigned int blocks = streamlab::workload_blocks(job.n, job.max_blocks);
        streamlab::workload_kernel<<<blocks, streamlab::kWorkloadThreadsPerBlock, 0, streams[i]>>>(
            job.input, job.output, job.n, job.iterations);
        SL_CHECK(cudaGetLastError());
    }

    WaitReport report;
    report.last_stream_idle_when_polled = stream_is_idle(streams.back());  // polls; does not wait
    SL_CHECK(cudaStreamSynchronize(streams.front()));                      // waits for one stream
    report.first_stream_idle_after_sync = stream_is_idle(streams.front());
    SL_CHECK(cudaDeviceSynchronize());  // waits for all work

    for (cudaStream_t stream : streams) {
        SL_CHECK(cudaStreamDestroy(stream));
    }
    return report;
}

void run_in_null_stream(const std::vector<KernelJob>& jobs) {
    for (const KernelJob& job : jobs) {
        streamlab::launch_workload(job.input, job.output, job.n, job.iterations, /*stream=*/nullptr, job.max_blocks);
    }
    SL_CHECK(cudaDeviceSynchronize());
}

}  // namespace lab02
