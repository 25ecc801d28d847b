// Lab 04: asynchronous copies. Everything goes into one stream of your own:
// the calls only queue work and return, so the host is free to do its own work
// while the device copies and computes, as long as the host memory is pinned.
#include "lab04.hpp"

#include "streamlab/check.hpp"
#include "streamlab/workload.hpp"

namespace lab04 {

std::vector<BatchReport> run_batches(const std::vector<Batch>& batches, std::size_t n, int iterations,
                                     WaitWith wait, const HostWork& host_work) {
    const std::size_t bytes = n * sizeof(float);
    cudaStream_t stream = nullptr;
    float* d_input = nullptr;
    float* d_output = nullptr;
    // TODO(lab04): create `stream` with cudaStreamNonBlocking, then allocate
    // d_input and d_output (`bytes` each) with cudaMallocAsync in `stream`.
    (void)bytes, (void)&stream, (void)&d_input, (void)&d_output;
    // TODO(lab04) end

    std::vector<BatchReport> reports(batches.size());
    for (std::size_t b = 0; b < batches.size(); ++b) {
        const Batch& batch = batches[b];
        // TODO(lab04): queue batch b in `stream`: copy batch.input to d_input
        // (cudaMemcpyAsync), run the kernel (streamlab::launch_workload, `iterations`),
        // copy d_output to batch.output (cudaMemcpyAsync).
        (void)batch, (void)n, (void)iterations;
        // TODO(lab04) end

        // TODO(lab04): ask the stream, without waiting, whether it still has work
        // (cudaStreamQuery), and set reports[b].device_busy_on_return.
        // TODO(lab04) end

        host_work(static_cast<int>(b));  // the host's own work, while the device runs batch b

        // TODO(lab04): wait for batch b: cudaStreamSynchronize(stream) when `wait`
        // is WaitWith::Stream, cudaDeviceSynchronize() when it is WaitWith::Device.
        (void)wait;
        // TODO(lab04) end
    }

    // TODO(lab04): free d_input and d_output with cudaFreeAsync in `stream`,
    // wait for the stream, destroy it.
    // TODO(lab04) end
    return reports;
}

}  // namespace lab04
