// How the simulated GPU hands a kernel's thread blocks to its SMs, each test one rule of NVIDIA's documentation:
// the Programming Guide's "Hardware Implementation" (the blocks of a grid are distributed to the multiprocessors
// with room for them, and as blocks end, new ones are launched on the vacated multiprocessors) and its section
// on work stealing with cluster launch control (a higher-priority kernel launched while a lower-priority one
// runs is started by scheduling its blocks as the lower-priority kernel's blocks complete).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

#include "simgpu_test.hpp"
#include "streamlab/handles.hpp"

namespace streamlab::simgpu::testing {
namespace {

using BlockScheduling = SimGpuTest;

// The test kernel's blocks have 32 threads: how many of them all the SMs hold at once, from the device's own
// limits (threads and blocks per SM), as an occupancy calculation would find for a kernel that uses few
// registers and no shared memory.
unsigned int resident_test_blocks() {
    cudaDeviceProp properties{};
    EXPECT_CUDA_OK(cudaGetDeviceProperties(&properties, 0));
    const int per_sm = std::min(properties.maxBlocksPerMultiProcessor, properties.maxThreadsPerMultiProcessor / 32);
    return static_cast<unsigned int>(properties.multiProcessorCount * std::max(per_sm, 1));
}

// Programming Guide, "Hardware Implementation": the blocks of a grid go to the SMs that have room for them. A
// kernel that needs the whole GPU, issued beside one that holds a quarter of it, starts at once on the rest;
// the blocks that found no room run once the quarter is free, so it ends after the other kernel.
TEST_F(BlockScheduling, AKernelStartsOnTheRoomLeftFreeAndItsOtherBlocksFollow) {
    const Stream one(cudaStreamNonBlocking);
    const Stream two(cudaStreamNonBlocking);
    busy("quarter", one.get(), 0.25);
    busy("whole", two.get(), 1.0);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_TRUE(overlap(op("quarter"), op("whole")));
    EXPECT_GT(op("whole").end_ns, op("quarter").end_ns);
}

// Programming Guide, "Hardware Implementation": as blocks end, new blocks are launched on the vacated SMs. A
// grid of four times what the SMs hold runs in four waves, one after another: alone on the GPU it lasts its
// whole duration, neither more nor less.
TEST_F(BlockScheduling, AGridLargerThanTheSmsHoldRunsInWaves) {
    const Stream stream(cudaStreamNonBlocking);
    {
        const Labelled labelled("four waves");
        ASSERT_CUDA_OK(launch_busy(stream.get(), kLongKernelNs, 4 * resident_test_blocks()));
    }
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
    EXPECT_EQ(op("four waves").duration_ns(), kLongKernelNs);
}

// Programming Guide (work stealing with cluster launch control): the GPU scheduler can start a higher-priority
// kernel launched after a lower-priority one has begun by scheduling its blocks as the lower-priority kernel's
// blocks complete. The running blocks are not preempted: the urgent kernel starts when the first wave of the
// background's blocks ends, long before the background's last wave.
TEST_F(BlockScheduling, AGreaterPriorityKernelGetsInAsTheRunningBlocksOfALowerOneEnd) {
    int least = 0;
    int greatest = 0;
    ASSERT_CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    ASSERT_LT(greatest, least) << "the model offers one priority only: this rule does not apply";
    const Stream background(cudaStreamNonBlocking, least);
    const Stream urgent(cudaStreamNonBlocking, greatest);
    constexpr int kWaves = 8;
    {
        const Labelled labelled("background");
        // Waves long beside the host's pause below, however busy the machine running the test is.
        ASSERT_CUDA_OK(launch_busy(background.get(), kWaves * kLongKernelNs, kWaves * resident_test_blocks()));
    }
    // The host's own time moves the simulated host clock: the background's first wave has begun by then.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const std::uint64_t urgent_issued_ns = host_now_ns();
    busy("urgent", urgent.get(), 0.25, kLongKernelNs / 100);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    const DeviceOp low = op("background");
    const std::uint64_t wave_ns = kLongKernelNs;
    ASSERT_GT(urgent_issued_ns, low.start_ns) << "the urgent kernel was issued before the background began";
    ASSERT_LT(urgent_issued_ns, low.start_ns + wave_ns) << "the host issued the urgent kernel too late to tell";
    EXPECT_GE(op("urgent").start_ns, low.start_ns + wave_ns) << "the background's running blocks were preempted";
    EXPECT_LT(op("urgent").start_ns, low.start_ns + 2 * wave_ns)
        << "the urgent kernel waited for more than the background's running blocks";
}

}  // namespace
}  // namespace streamlab::simgpu::testing
