// Lab 01: the NULL stream. Every call below names no stream, so everything
// goes to the NULL stream and runs in the order it was issued.
#include "lab01.hpp"

#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/workload.hpp"

namespace lab01 {

float run_serial(const float* input, float* output, std::size_t n, int iterations) {
    const std::size_t bytes = n * sizeof(float);
    streamlab::DeviceBuffer<float> d_input(n);
    streamlab::DeviceBuffer<float> d_output(n);
    streamlab::Event start(cudaEventDefault);
    streamlab::Event stop(cudaEventDefault);

    // TODO(lab01): record `start`, copy `input` to `d_input` (cudaMemcpy, host to
    // device), run the kernel (streamlab::launch_workload into d_output, in the
    // NULL stream), copy `d_output` back to `output`, record `stop`.
    (void)input, (void)output, (void)bytes, (void)iterations;
    // TODO(lab01) end

    // The events are recorded when the GPU reaches them; wait for the last one.
    // TODO(lab01): wait for `stop`, then return the milliseconds between the events.
    return 0.0F;
    // TODO(lab01) end
}

// Task 2 creates streams before lab 02 teaches them, on purpose: the NULL stream's
// barrier, this lab's subject, can only be seen against other streams, and
// creating one is a single call (README, "Why streams already, before lab 02?").
void run_barrier_demo(unsigned int stream_flags, const DemoWork& work) {
    cudaStream_t first = nullptr;
    cudaStream_t second = nullptr;
    // TODO(lab01): create `first` and `second` with cudaStreamCreateWithFlags(&s, stream_flags).
    (void)stream_flags, (void)&second;
    // TODO(lab01) end

    streamlab::launch_workload(work.input, work.outputs[0], work.n, work.iterations, first, work.max_blocks);
    // TODO(lab01): launch kernel B (outputs[1]) in the NULL stream, then kernel C
    // (outputs[2]) in `second`, both with work.max_blocks.
    // TODO(lab01) end

    SL_CHECK(cudaDeviceSynchronize());
    // TODO(lab01): destroy both streams.
    // TODO(lab01) end
}

}  // namespace lab01
