// Lab 07's course side for Task 4: see priority_side.hpp.
#include "priority_side.hpp"

#include <cstdio>
#include <vector>

#include "streamlab/analysis.hpp"
#include "streamlab/check.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab07::course {

namespace {

/// Elements of the urgent kernel: a few blocks of the workload, one element per thread.
constexpr std::size_t kUrgentElements = 4 * streamlab::kWorkloadThreadsPerBlock;

/// How many times the urgent kernel's own time each background block lasts: long
/// enough that the host's few microseconds between the background's start and the
/// urgent launch are a small part of one wave.
constexpr double kBlockOverUrgent = 64.0;

/// The GPU's nanosecond timer, the same on every SM.
__device__ std::uint64_t global_ns() {
    std::uint64_t now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    return now;
}

/// Every block holds its room on an SM for `block_ns` (all its threads busy, so
/// none of its room frees early); the first block tells the host it has begun.
__global__ void background_kernel(std::uint64_t block_ns, unsigned int* started) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *static_cast<volatile unsigned int*>(started) = 1;
        __threadfence_system();
    }
    const std::uint64_t begin = global_ns();
    while (global_ns() - begin < block_ns) {}
}

/// Waits until the background kernel in `stream` has begun (its first block set
/// `started`), or has already ended.
void wait_until_started(const volatile unsigned int* started, cudaStream_t stream) {
    while (*started == 0) {
        const cudaError_t state = cudaStreamQuery(stream);
        if (state != cudaErrorNotReady) {
            SL_CHECK(state);
            return;
        }
    }
}

}  // namespace

PriorityDemo::PriorityDemo() : started_(1), input_(kUrgentElements), output_(kUrgentElements) {
    int device = 0;
    SL_CHECK(cudaGetDevice(&device));
    cudaDeviceProp properties{};
    SL_CHECK(cudaGetDeviceProperties(&properties, device));
    sms_ = properties.multiProcessorCount;
    SL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm_, background_kernel,
                                                           static_cast<int>(streamlab::kWorkloadThreadsPerBlock), 0));
    block_ns_ = static_cast<std::uint64_t>(kBlockOverUrgent * streamlab::measure_kernel_ms(kUrgentElements, 1) * 1e6);
    std::vector<float> values(kUrgentElements);
    streamlab::fill_input(values.data(), values.size());
    SL_CHECK(cudaMemcpy(input_.data(), values.data(), input_.bytes(), cudaMemcpyHostToDevice));
}

UrgentWork PriorityDemo::work() {
    UrgentWork made;
    made.fill_gpu = [this](cudaStream_t stream) {
        const streamlab::OpLabel label(kBackgroundLabel);
        started_[0] = 0;
        const unsigned int blocks = static_cast<unsigned int>(sms_ * blocks_per_sm_ * kBackgroundWaves);
        background_kernel<<<blocks, streamlab::kWorkloadThreadsPerBlock, 0, stream>>>(block_ns_, started_.data());
        SL_CHECK_LAUNCH();
        wait_until_started(started_.data(), stream);
    };
    made.launch = [this](cudaStream_t stream) {
        const streamlab::OpLabel label(kUrgentLabel);
        launched_ns_ = streamlab::trace_clock_ns();
        streamlab::launch_workload(input_.data(), output_.data(), kUrgentElements, 1, stream);
    };
    return made;
}

std::uint64_t PriorityDemo::launched_ns(std::uint64_t origin_ns) const {
    return launched_ns_ > origin_ns ? launched_ns_ - origin_ns : 0;
}

std::string PriorityDemo::describe() const {
    char text[160];
    std::snprintf(text, sizeof text, "%d blocks (%d SMs x %d per SM x %d waves), each %.3f ms",
                  sms_ * blocks_per_sm_ * kBackgroundWaves, sms_, blocks_per_sm_, kBackgroundWaves,
                  streamlab::ms(block_ns_));
    return text;
}

}  // namespace lab07::course
