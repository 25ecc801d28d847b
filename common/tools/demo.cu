// streamlab_demo: what `./course demo` runs. Prints the facts of the GPU at
// hand and runs the course's workload kernel once, checked against the CPU.
#include <cstdio>
#include <exception>

#include "streamlab/device.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/workload.hpp"

namespace {

void print_facts(const streamlab::DeviceFacts& facts) {
    std::printf("GPU %d: %s (compute capability %s, %d SMs, %.1f GiB)\n", facts.ordinal, facts.name.c_str(),
                facts.compute_capability().c_str(), facts.sm_count,
                static_cast<double>(facts.total_memory_bytes) / (1024.0 * 1024.0 * 1024.0));
    std::printf("  copy engines (asyncEngineCount): %d -> %s\n", facts.copy_engines,
                facts.copy_engines >= 2 ? "H2D and D2H copies can run at the same time"
                                        : "H2D and D2H copies take turns on one engine");
    std::printf("  concurrent kernels: %s\n", facts.concurrent_kernels ? "yes" : "no");
    std::printf("  driver %s, runtime %s\n", streamlab::format_cuda_version(facts.driver_version).c_str(),
                streamlab::format_cuda_version(facts.runtime_version).c_str());
}

int run_verified_kernel() {
    using namespace streamlab;
    const std::size_t n = std::size_t{1} << 24;
    const int iterations = 64;
    PinnedBuffer<float> input(n), output(n);
    fill_input(input.data(), n);
    fill_poison(output.data(), n);
    DeviceBuffer<float> d_input(n), d_output(n);
    Event start(cudaEventDefault), stop(cudaEventDefault);
    start.record();
    SL_CHECK(cudaMemcpy(d_input.data(), input.data(), input.bytes(), cudaMemcpyHostToDevice));
    launch_workload(d_input.data(), d_output.data(), n, iterations, nullptr);
    SL_CHECK(cudaMemcpy(output.data(), d_output.data(), output.bytes(), cudaMemcpyDeviceToHost));
    stop.record();
    stop.synchronize();
    const ResultCheck check = check_workload_output(input.data(), output.data(), n, iterations);
    std::printf("H2D + kernel + D2H of %zu MiB on the NULL stream: %.3f ms; %s\n",
                input.bytes() >> 20, static_cast<double>(elapsed_ms(start, stop)), check.message().c_str());
    return check.ok ? 0 : 1;
}

}  // namespace

int main() {
    const streamlab::GpuPresence presence = streamlab::query_gpu_presence();
    if (!presence.available) {
        std::printf("No CUDA device is usable here (%s).\n", presence.reason.c_str());
        std::printf("The labs build and their CPU tests run; GPU tests and timelines need an NVIDIA GPU.\n");
        return 0;
    }
    try {
        print_facts(streamlab::query_device_facts(0));
        return run_verified_kernel();
    } catch (const std::exception& error) {
        std::fprintf(stderr, "streamlab_demo: %s\n", error.what());
        return 1;
    }
}
