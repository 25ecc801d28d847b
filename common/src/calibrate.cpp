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
    // A workload kernel's time is a fixed part (the launch, one pass over its
    // memory) plus a part that grows with the iterations. Time a probe long enough
    // to measure, then one four times as long, and follow the line through both:
    // scaling the first probe alone would count the fixed part once per iteration
    // and come out short.
    int probe = 16;
    double probe_ms = measure_kernel_ms(n, probe, max_blocks);
    while (probe_ms < 0.5 && probe < (1 << 20)) {
        probe *= 4;
        probe_ms = measure_kernel_ms(n, probe, max_blocks);
    }
    const int longer = 4 * probe;
    const double longer_ms = measure_kernel_ms(n, longer, max_blocks);
    double per_iteration_ms = (longer_ms - probe_ms) / (longer - probe);
    double fixed_ms = probe_ms - probe * per_iteration_ms;
    if (!(per_iteration_ms > 0) || fixed_ms < 0) {  // timing noise: fall back to a line through zero
        per_iteration_ms = longer_ms / longer;
        fixed_ms = 0;
    }
    return std::max(1, static_cast<int>(std::lround((target_ms - fixed_ms) / per_iteration_ms)));
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
