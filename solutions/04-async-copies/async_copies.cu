// Lab 04: asynchronous copies. Everything goes into one stream of your own:
// the calls only queue work and return, so the host is free to do its own work
// while the device copies and computes, as long as the host memory is pinned.
#include "lab04.hpp"

#include "streamlab/check.hpp"
#include "streamlab/workload.hpp"

namespace lab04 {

std::vector<BatchReport> run_batches(const std::vector<Batch>& batches, std::size_t n, int iterations, WaitWith wait,
                                     const HostWork& host_work) {
    const std::size_t bytes = n * sizeof(float);
    cudaStream_t stream = nullptr;
    float* d_input = nullptr;
    float* d_output = nullptr;
    // Device memory from the stream-ordered allocator: allocated in stream
    // order, before the first copy that uses it.
    SL_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    SL_CHECK(cudaMallocAsync(&d_input, bytes, stream));
    SL_CHECK(cudaMallocAsync(&d_output, bytes, stream));

    std::vector<BatchReport> reports(batches.size());
    for (std::size_t b = 0; b < batches.size(); ++b) {
        const Batch& batch = batches[b];
        SL_CHECK(cudaMemcpyAsync(d_input, batch.input, bytes, cudaMemcpyHostToDevice, stream));
        streamlab::launch_workload(d_input, d_output, n, iterations, stream);
        SL_CHECK(cudaMemcpyAsync(batch.output, d_output, bytes, cudaMemcpyDeviceToHost, stream));

        // Ask, without waiting: cudaErrorNotReady means the stream still has work.
        const cudaError_t status = cudaStreamQuery(stream);
        if (status != cudaErrorNotReady) {
            SL_CHECK(status);
        }
        reports[b].device_busy_on_return = status == cudaErrorNotReady;

        host_work(static_cast<int>(b));  // the host's own work, while the device runs batch b

        if (wait == WaitWith::Stream) {
            SL_CHECK(cudaStreamSynchronize(stream));  // this stream's work only
        } else {
            SL_CHECK(cudaDeviceSynchronize());  // everything on the device, every stream
        }
    }

    SL_CHECK(cudaFreeAsync(d_input, stream));
    SL_CHECK(cudaFreeAsync(d_output, stream));
    SL_CHECK(cudaStreamSynchronize(stream));
    SL_CHECK(cudaStreamDestroy(stream));
    return reports;
}

}  // namespace lab04
