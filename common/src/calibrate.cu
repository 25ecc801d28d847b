// Measurements that size the labs' work to the GPU at hand.
#include <algorithm>
#include <cmath>

#include "streamlab/handles.hpp"
#include "streamlab/workload.hpp"

namespace streamlab {

double measure_kernel_ms(std::size_t n, int iterations, int max_blocks) {
    DeviceBuffer<float> input(n), output(n);
    SL_CHECK(cudaMemset(input.data(), 0, input.bytes()));
    Event start(cudaEventDefault), stop(cudaEventDefault);
    launch_workload(input.data(), output.data(), n, iterations, nullptr, max_blocks);  // warm-up
    start.record();
    launch_workload(input.data(), output.data(), n, iterations, nullptr, max_blocks);
    stop.record();
    stop.synchronize();
    return elapsed_ms(start, stop);
}

int iterations_for_kernel_ms(std::size_t n, double target_ms, int max_blocks) {
    // Kernel time grows linearly with iterations once launch overhead is small:
    // time a probe that is long enough to measure, then scale.
    int probe = 16;
    double probe_ms = measure_kernel_ms(n, probe, max_blocks);
    while (probe_ms < 0.5 && probe < (1 << 20)) {
        probe *= 4;
        probe_ms = measure_kernel_ms(n, probe, max_blocks);
    }
    const double per_iteration_ms = probe_ms / probe;
    return std::max(1, static_cast<int>(std::lround(target_ms / per_iteration_ms)));
}

double measure_h2d_ms(std::size_t bytes) {
    PinnedBuffer<char> host(bytes);
    DeviceBuffer<char> device(bytes);
    std::fill(host.data(), host.data() + bytes, 1);
    Event start(cudaEventDefault), stop(cudaEventDefault);
    SL_CHECK(cudaMemcpy(device.data(), host.data(), bytes, cudaMemcpyHostToDevice));  // warm-up
    start.record();
    SL_CHECK(cudaMemcpy(device.data(), host.data(), bytes, cudaMemcpyHostToDevice));
    stop.record();
    stop.synchronize();
    return elapsed_ms(start, stop);
}

}  // namespace streamlab
