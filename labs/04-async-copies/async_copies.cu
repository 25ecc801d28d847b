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
    // TODO(lab04): Task 1. A stream of your own that never waits for the NULL stream,
    // and d_input and d_output (`bytes` each) from the stream-ordered allocator, in it.
    (void)bytes, (void)&stream, (void)&d_input, (void)&d_output;
    // TODO(lab04) end

    std::vector<BatchReport> reports(batches.size());
    for (std::size_t b = 0; b < batches.size(); ++b) {
        const Batch& batch = batches[b];
        // TODO(lab04): Task 2. Queue batch b in your stream: its input to the device, the
        // workload kernel (`iterations`) on it, its output back into batch.output. Nothing
        // here may make the host wait.
        (void)batch, (void)n, (void)iterations;
        // TODO(lab04) end

        // TODO(lab04): Task 2. Without waiting, find out whether your stream still has
        // work, into reports[b].device_busy_on_return.
        // TODO(lab04) end

        host_work(static_cast<int>(b));  // the host's own work, while the device runs batch b

        // TODO(lab04): Task 3. Wait for batch b: for your stream only when `wait` is
        // WaitWith::Stream, for the whole device when it is WaitWith::Device.
        (void)wait;
        // TODO(lab04) end
    }

    // TODO(lab04): Task 1. Give the device memory back in stream order, then wait for
    // your stream and destroy it.
    // TODO(lab04) end
    return reports;
}

}  // namespace lab04
