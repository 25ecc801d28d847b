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

    start.record();  // no stream named: the NULL stream
    SL_CHECK(cudaMemcpy(d_input.data(), input, bytes, cudaMemcpyHostToDevice));
    streamlab::launch_workload(d_input.data(), d_output.data(), n, iterations, /*stream=*/nullptr);
    SL_CHECK(cudaMemcpy(output, d_output.data(), bytes, cudaMemcpyDeviceToHost));
    stop.record();

    // The events are recorded when the GPU reaches them; wait for the last one.
    stop.synchronize();
    return streamlab::elapsed_ms(start, stop);
}

// Task 2 creates streams before lab 02 teaches them, on purpose: the NULL stream's
// barrier, this lab's subject, can only be seen against other streams, and
// creating one is a single call (README, "Why streams already, before lab 02?").
void run_barrier_demo(unsigned int stream_flags, const DemoWork& work) {
    cudaStream_t first = nullptr;
    cudaStream_t second = nullptr;
    SL_CHECK(cudaStreamCreateWithFlags(&first, stream_flags));
    SL_CHECK(cudaStreamCreateWithFlags(&second, stream_flags));

    streamlab::launch_workload(work.input, work.outputs[0], work.n, work.iterations, first, work.max_blocks);
    streamlab::launch_workload(work.input, work.outputs[1], work.n, work.iterations, nullptr, work.max_blocks);
    streamlab::launch_workload(work.input, work.outputs[2], work.n, work.iterations, second, work.max_blocks);

    SL_CHECK(cudaDeviceSynchronize());
    SL_CHECK(cudaStreamDestroy(first));
    SL_CHECK(cudaStreamDestroy(second));
}

}  // namespace lab01
