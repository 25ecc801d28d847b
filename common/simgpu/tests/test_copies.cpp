// Copies, memsets and allocation on the simulated GPU: when the host gets control back, which copies run at
// the same time, which calls separate the streams' work, and that the data arrives. Each test states the rule
// of NVIDIA's documentation it checks ("API synchronization behavior"; the Programming Guide's "Implicit
// Synchronization", "Concurrent Data Transfers" and "Stream-Ordered Memory Allocator").
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "simgpu_test.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/workload.hpp"

namespace streamlab::simgpu::testing {
namespace {

using HostBlocking = SimGpuTest;

/// Real time, which the program's clocks (steady_clock, system_clock) leave for the simulated host clock:
/// CLOCK_MONOTONIC_RAW, which the simulator leaves as it is.
std::chrono::nanoseconds real_now() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &now);
    return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

// API synchronization behavior: cudaMemcpy from the device to host memory returns only once the copy has
// completed.
TEST_F(HostBlocking, SynchronousCopyToTheHostReturnsAfterTheCopy) {
    const DeviceBuffer<char> device(kCopyBytes);
    std::vector<char> pageable(kCopyBytes);
    const std::uint64_t returned_ns = copy("D2H", pageable.data(), device.data(), kCopyBytes, cudaMemcpyDeviceToHost);
    EXPECT_GE(returned_ns, op("D2H").end_ns);
}

// Runtime API, cudaStreamSynchronize: it "blocks until stream has completed all operations". The host's own
// clocks (std::chrono::steady_clock and system_clock, the simulated host clock) show the wait as they would on
// the GPU, where the simulator waits for nothing in real time.
TEST_F(HostBlocking, TheHostsOwnClocksShowItWaitingForTheDevice) {
    const Stream stream(cudaStreamNonBlocking);
    const auto steady_before = std::chrono::steady_clock::now();
    const auto system_before = std::chrono::system_clock::now();
    busy("K", stream.get());
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
    const auto steady_waited = std::chrono::steady_clock::now() - steady_before;
    const auto system_waited = std::chrono::system_clock::now() - system_before;

    const std::chrono::nanoseconds kernel(op("K").end_ns - op("K").start_ns);
    EXPECT_GE(steady_waited, kernel);
    EXPECT_GE(system_waited, kernel);
}

// Programming Guide, "Asynchronous Concurrent Execution": a kernel launch is asynchronous, control returns to
// the host before the device has completed the work. On the host's own clock the launch costs what a call
// costs, never the real time the simulator spends computing the kernel's results on the CPU.
TEST_F(HostBlocking, TheHostsOwnClockShowsALaunchReturningAtOnce) {
    // A kernel whose results take the CPU a while (milliseconds) to compute: distinct inputs, and an
    // iteration count no other test launches.
    const std::size_t n = std::size_t{1} << 16;
    const int iterations = 3001;
    const PinnedBuffer<float> input(n);
    fill_input(input.data(), n, 11);
    const DeviceBuffer<float> device_in(n);
    const DeviceBuffer<float> device_out(n);
    ASSERT_CUDA_OK(cudaMemcpy(device_in.data(), input.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    const Stream stream(cudaStreamNonBlocking);
    const auto real_before = real_now();
    const auto steady_before = std::chrono::steady_clock::now();
    launch_workload(device_in.data(), device_out.data(), n, iterations, stream.get());
    const auto steady_launch = std::chrono::steady_clock::now() - steady_before;
    const auto real_launch = real_now() - real_before;

    EXPECT_LT(steady_launch, real_launch) << "the launch's cost on the host clock includes the simulator's CPU work";
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
}

// API synchronization behavior: cudaMemcpy from pinned host memory to the device is synchronous with respect to
// the host.
TEST_F(HostBlocking, SynchronousCopyFromPinnedMemoryReturnsAfterTheCopy) {
    const DeviceBuffer<char> device(kCopyBytes);
    const PinnedBuffer<char> pinned(kCopyBytes);
    const std::uint64_t returned_ns = copy("H2D", device.data(), pinned.data(), kCopyBytes, cudaMemcpyHostToDevice);
    EXPECT_GE(returned_ns, op("H2D").end_ns);
}

// cudaMemcpy is issued to the legacy NULL stream: it waits for the work already queued in blocking streams, so a
// synchronous copy between two streams' kernels ends their overlap (a first pipeline's classic mistake).
TEST_F(HostBlocking, SynchronousCopyWaitsForBlockingStreams) {
    const Stream stream(cudaStreamDefault);
    const DeviceBuffer<char> device(kCopyBytes);
    std::vector<char> pageable(kCopyBytes);
    busy("kernel", stream.get());
    const std::uint64_t returned_ns = copy("D2H", pageable.data(), device.data(), kCopyBytes, cudaMemcpyDeviceToHost);
    EXPECT_GE(op("D2H").start_ns, op("kernel").end_ns);
    EXPECT_GE(returned_ns, op("D2H").end_ns);
}

// API synchronization behavior: for a copy from device memory to device memory, no host-side synchronization
// is performed, even by cudaMemcpy.
TEST_F(HostBlocking, SynchronousDeviceToDeviceCopyDoesNotBlockTheHost) {
    const DeviceBuffer<char> from(kCopyBytes);
    const DeviceBuffer<char> to(kCopyBytes);
    busy("kernel", nullptr);  // the copy queues behind it in the NULL stream
    const std::uint64_t returned_ns = copy("D2D", to.data(), from.data(), kCopyBytes, cudaMemcpyDeviceToDevice);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    EXPECT_LT(returned_ns, op("D2D").end_ns);
}

// API synchronization behavior: cudaMemcpyAsync between the device and pinned host memory is asynchronous: it
// returns before the copy has even started when the copy waits for a kernel in its stream.
TEST_F(HostBlocking, PinnedAsyncCopiesReturnAtOnce) {
    const Stream stream(cudaStreamNonBlocking);
    const DeviceBuffer<char> device(kCopyBytes);
    const PinnedBuffer<char> pinned(kCopyBytes);
    busy("kernel", stream.get());
    const std::uint64_t h2d_returned_ns =
        copy_async("H2D", device.data(), pinned.data(), kCopyBytes, cudaMemcpyHostToDevice, stream.get());
    const std::uint64_t d2h_returned_ns =
        copy_async("D2H", pinned.data(), device.data(), kCopyBytes, cudaMemcpyDeviceToHost, stream.get());
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));

    EXPECT_LT(h2d_returned_ns, op("H2D").start_ns);
    EXPECT_LT(d2h_returned_ns, op("D2H").start_ns);
    EXPECT_GE(op("H2D").start_ns, op("kernel").end_ns);  // and they still run in stream order
}

// API synchronization behavior: cudaMemcpyAsync from the device to pageable host memory returns only once the
// copy has completed.
TEST_F(HostBlocking, PageableAsyncCopyToTheHostReturnsAfterTheCopy) {
    const Stream stream(cudaStreamNonBlocking);
    const DeviceBuffer<char> device(kCopyBytes);
    std::vector<char> pageable(kCopyBytes);
    busy("kernel", stream.get());
    const std::uint64_t returned_ns =
        copy_async("D2H", pageable.data(), device.data(), kCopyBytes, cudaMemcpyDeviceToHost, stream.get());
    EXPECT_GE(returned_ns, op("D2H").end_ns);
    EXPECT_GE(op("D2H").start_ns, op("kernel").end_ns);
}

// API synchronization behavior: when pageable memory must first be staged to pinned memory, the driver may
// synchronize with the stream and stage the copy: the host gets control back only once the stream's earlier
// work is done and the buffer is staged. The copy itself is logged as one from pageable memory.
TEST_F(HostBlocking, PageableAsyncCopyFromTheHostReturnsAfterStaging) {
    const Stream stream(cudaStreamNonBlocking);
    const DeviceBuffer<char> device(kCopyBytes);
    std::vector<char> pageable(kCopyBytes);
    busy("kernel", stream.get());
    const std::uint64_t returned_ns =
        copy_async("H2D", device.data(), pageable.data(), kCopyBytes, cudaMemcpyHostToDevice, stream.get());
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));

    EXPECT_GE(returned_ns, op("kernel").end_ns);
    EXPECT_EQ(op("H2D").host_memory, HostMemory::Pageable);
    EXPECT_EQ(op("H2D").kind, OpKind::MemcpyH2D);
}

// cudaHostRegister page-locks an existing host range: copies from it behave as copies from pinned memory (the
// async one returns at once) until cudaHostUnregister makes it pageable again.
TEST_F(HostBlocking, RegisteredMemoryIsPinnedUntilUnregistered) {
    const Stream stream(cudaStreamNonBlocking);
    const DeviceBuffer<char> device(kCopyBytes);
    std::vector<char> host(kCopyBytes);
    ASSERT_CUDA_OK(cudaHostRegister(host.data(), kCopyBytes, cudaHostRegisterDefault));
    busy("first kernel", stream.get());
    const std::uint64_t registered_returned_ns =
        copy_async("registered", device.data(), host.data(), kCopyBytes, cudaMemcpyHostToDevice, stream.get());
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
    ASSERT_CUDA_OK(cudaHostUnregister(host.data()));
    busy("second kernel", stream.get());
    const std::uint64_t unregistered_returned_ns =
        copy_async("unregistered", device.data(), host.data(), kCopyBytes, cudaMemcpyHostToDevice, stream.get());
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));

    EXPECT_EQ(op("registered").host_memory, HostMemory::Pinned);
    EXPECT_LT(registered_returned_ns, op("registered").start_ns);
    EXPECT_EQ(op("unregistered").host_memory, HostMemory::Pageable);
    EXPECT_GE(unregistered_returned_ns, op("second kernel").end_ns);
}

// API synchronization behavior: the memset functions are asynchronous with respect to the host (except when
// they set pinned host memory): cudaMemset and cudaMemsetAsync queue the memset behind a stream's work and
// return at once.
TEST_F(HostBlocking, MemsetsOfDeviceMemoryReturnAtOnce) {
    const Stream stream(cudaStreamNonBlocking);
    const DeviceBuffer<char> device(kCopyBytes);
    busy("kernel in the stream", stream.get());
    std::uint64_t async_returned_ns = 0;
    {
        const Labelled labelled("cudaMemsetAsync");
        ASSERT_CUDA_OK(cudaMemsetAsync(device.data(), 1, kCopyBytes, stream.get()));
        async_returned_ns = host_now_ns();
    }
    busy("kernel in the NULL stream", nullptr);
    std::uint64_t returned_ns = 0;
    {
        const Labelled labelled("cudaMemset");
        ASSERT_CUDA_OK(cudaMemset(device.data(), 2, kCopyBytes));
        returned_ns = host_now_ns();
    }
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_GE(op("cudaMemsetAsync").start_ns, op("kernel in the stream").end_ns);
    EXPECT_LT(async_returned_ns, op("cudaMemsetAsync").start_ns);
    EXPECT_GE(op("cudaMemset").start_ns, op("kernel in the NULL stream").end_ns);
    EXPECT_LT(returned_ns, op("cudaMemset").start_ns);
    EXPECT_EQ(op("cudaMemset").kind, OpKind::Memset);
}

using CopyEngines = SimGpuTest;

// Programming Guide, "Concurrent Data Transfers": a device with two copy engines (asyncEngineCount 2, as the
// H200) runs a copy to the device and a copy from it at the same time, when both use pinned memory and
// different streams. Both copies are held back by one event, so they are ready at the same moment.
TEST_F(CopyEngines, CopiesInBothDirectionsRunAtOnceWithTwoEngines) {
    int engines = 0;
    ASSERT_CUDA_OK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, 0));
    ASSERT_GE(engines, 2) << "the model has one copy engine: this rule does not apply";

    const Stream gate(cudaStreamNonBlocking);
    const Stream up(cudaStreamNonBlocking);
    const Stream down(cudaStreamNonBlocking);
    const Event open(cudaEventDisableTiming);
    const DeviceBuffer<char> device_in(kCopyBytes);
    const DeviceBuffer<char> device_out(kCopyBytes);
    const PinnedBuffer<char> pinned_in(kCopyBytes);
    const PinnedBuffer<char> pinned_out(kCopyBytes);
    busy("gate", gate.get());
    ASSERT_CUDA_OK(cudaEventRecord(open.get(), gate.get()));
    ASSERT_CUDA_OK(cudaStreamWaitEvent(up.get(), open.get(), 0));
    ASSERT_CUDA_OK(cudaStreamWaitEvent(down.get(), open.get(), 0));
    copy_async("H2D", device_in.data(), pinned_in.data(), kCopyBytes, cudaMemcpyHostToDevice, up.get());
    copy_async("D2H", pinned_out.data(), device_out.data(), kCopyBytes, cudaMemcpyDeviceToHost, down.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_TRUE(overlap(op("H2D"), op("D2H")));
}

// Programming Guide, "Overlap of Data Transfer and Kernel Execution": a copy between pinned host memory and the
// device runs while a kernel of another stream runs.
TEST_F(CopyEngines, PinnedCopyOverlapsAKernelOfAnotherStream) {
    const Stream compute(cudaStreamNonBlocking);
    const Stream transfer(cudaStreamNonBlocking);
    const DeviceBuffer<char> device(kCopyBytes);
    const PinnedBuffer<char> pinned(kCopyBytes);
    busy("kernel", compute.get(), 1.0);
    copy_async("H2D", device.data(), pinned.data(), kCopyBytes, cudaMemcpyHostToDevice, transfer.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_TRUE(overlap(op("kernel"), op("H2D")));
}

// Programming Guide, "Implicit Synchronization": two commands from different streams cannot run concurrently
// when the host issues, between them, a page-locked host memory allocation, a device memory allocation or a
// device memory set; and ("Stream-Ordered Memory Allocator") cudaFree synchronizes across all streams. Each
// call is issued between two kernels of two non-blocking streams, so that the legacy NULL stream's barrier
// plays no part.
// (What the calls allocate is left to the simulator's reset after the test.)
struct ImplicitSyncCall {
    std::string name;
    cudaError_t (*issue)(void* device);
};

// Names the call in GoogleTest's messages.
void PrintTo(const ImplicitSyncCall& call, std::ostream* out) {
    *out << call.name;
}

class ImplicitSync : public SimGpuTest, public ::testing::WithParamInterface<ImplicitSyncCall> {};

TEST_P(ImplicitSync, SeparatesTheWorkOfTwoNonBlockingStreams) {
    const Stream one(cudaStreamNonBlocking);
    const Stream two(cudaStreamNonBlocking);
    void* device = nullptr;
    ASSERT_CUDA_OK(cudaMalloc(&device, 1024));

    busy("before", one.get());
    ASSERT_CUDA_OK(GetParam().issue(device));
    busy("after", two.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_FALSE(overlap(op("before"), op("after")));
    EXPECT_GE(op("after").start_ns, op("before").end_ns);
}

cudaError_t allocate_device(void* /*device*/) {
    void* made = nullptr;
    return cudaMalloc(&made, 1024);
}
cudaError_t allocate_pinned(void* /*device*/) {
    void* made = nullptr;
    return cudaMallocHost(&made, 1024);
}
cudaError_t set_device(void* device) {
    return cudaMemset(device, 0, 1024);
}
cudaError_t free_device(void* device) {
    return cudaFree(device);
}

INSTANTIATE_TEST_SUITE_P(Calls, ImplicitSync,
                         ::testing::Values(ImplicitSyncCall{"cudaMalloc", allocate_device},
                                           ImplicitSyncCall{"cudaMallocHost", allocate_pinned},
                                           ImplicitSyncCall{"cudaMemset", set_device},
                                           ImplicitSyncCall{"cudaFree", free_device}),
                         [](const ::testing::TestParamInfo<ImplicitSyncCall>& info) { return info.param.name; });

// The control for the tests above: without such a call between them, the same two kernels overlap.
TEST_F(HostBlocking, WithoutAnImplicitSynchronizationTheTwoKernelsOverlap) {
    const Stream one(cudaStreamNonBlocking);
    const Stream two(cudaStreamNonBlocking);
    busy("before", one.get(), 0.25);
    busy("after", two.get(), 0.25);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_TRUE(overlap(op("before"), op("after")));
}

// Programming Guide, "Stream-Ordered Memory Allocator": cudaMallocAsync and cudaFreeAsync order allocation
// with the work of their stream instead of synchronizing all streams as cudaMalloc and cudaFree do, so the
// same two kernels still overlap.
TEST_F(HostBlocking, StreamOrderedAllocationDoesNotSeparateTheStreams) {
    const Stream one(cudaStreamNonBlocking);
    const Stream two(cudaStreamNonBlocking);
    busy("before", one.get());
    void* device = nullptr;
    ASSERT_CUDA_OK(cudaMallocAsync(&device, 1024, one.get()));
    ASSERT_CUDA_OK(cudaFreeAsync(device, one.get()));
    busy("after", two.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_TRUE(overlap(op("before"), op("after")));
}

using Results = SimGpuTest;

// A copy is a copy: bytes sent to the device, copied within it and brought back are the bytes sent, through
// pinned and pageable memory alike.
TEST_F(Results, CopiesMoveTheBytes) {
    const std::size_t bytes = 1 << 20;
    std::vector<unsigned char> sent(bytes);
    for (std::size_t i = 0; i < bytes; ++i) {
        sent[i] = static_cast<unsigned char>(i * 7 + 3);
    }
    const PinnedBuffer<unsigned char> pinned(bytes);
    std::memcpy(pinned.data(), sent.data(), bytes);
    const DeviceBuffer<unsigned char> first(bytes);
    const DeviceBuffer<unsigned char> second(bytes);
    const Stream stream(cudaStreamNonBlocking);
    std::vector<unsigned char> received(bytes, 0);

    ASSERT_CUDA_OK(cudaMemcpyAsync(first.data(), pinned.data(), bytes, cudaMemcpyHostToDevice, stream.get()));
    ASSERT_CUDA_OK(cudaMemcpyAsync(second.data(), first.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    ASSERT_CUDA_OK(cudaMemcpyAsync(received.data(), second.data(), bytes, cudaMemcpyDeviceToHost, stream.get()));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
    EXPECT_EQ(received, sent);

    std::vector<unsigned char> again(bytes, 0);
    ASSERT_CUDA_OK(cudaMemcpy(first.data(), received.data(), bytes, cudaMemcpyHostToDevice));
    ASSERT_CUDA_OK(cudaMemcpy(again.data(), first.data(), bytes, cudaMemcpyDefault));
    EXPECT_EQ(again, sent);
}

// cudaMemset: sets each byte of the range to the value, and nothing beyond it.
TEST_F(Results, MemsetSetsTheBytesOfItsRange) {
    const std::size_t bytes = 4096;
    const DeviceBuffer<unsigned char> device(bytes);
    ASSERT_CUDA_OK(cudaMemset(device.data(), 0x11, bytes));
    ASSERT_CUDA_OK(cudaMemset(device.data(), 0xAB, bytes / 2));
    std::vector<unsigned char> back(bytes, 0);
    ASSERT_CUDA_OK(cudaMemcpy(back.data(), device.data(), bytes, cudaMemcpyDeviceToHost));

    EXPECT_EQ(back.front(), 0xAB);
    EXPECT_EQ(back[bytes / 2 - 1], 0xAB);
    EXPECT_EQ(back[bytes / 2], 0x11);
    EXPECT_EQ(back.back(), 0x11);
}

// A copy is a copy whatever its addresses' alignment and its size: the simulator moves large copies past the
// CPU's caches (memory.hpp), 16 bytes at a time between a head and a tail it copies as they come.
TEST_F(Results, CopiesOfAnyAlignmentMoveEveryByte) {
    const std::size_t bytes = (std::size_t{1} << 20) + 3;
    std::vector<unsigned char> host(bytes + 16);
    for (std::size_t i = 0; i < host.size(); ++i) {
        host[i] = static_cast<unsigned char>(i * 7 + 1);
    }
    const DeviceBuffer<unsigned char> device(bytes + 16);
    for (const std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{5}}) {
        std::vector<unsigned char> back(bytes + 16, 0);
        ASSERT_CUDA_OK(cudaMemcpy(device.data() + offset, host.data() + 3, bytes, cudaMemcpyHostToDevice));
        ASSERT_CUDA_OK(cudaMemcpy(back.data() + 7, device.data() + offset, bytes, cudaMemcpyDeviceToHost));
        EXPECT_EQ(std::memcmp(back.data() + 7, host.data() + 3, bytes), 0) << "offset " << offset;
        EXPECT_EQ(back[6], 0) << "offset " << offset;
        EXPECT_EQ(back[7 + bytes], 0) << "offset " << offset;
    }
}

// Runtime API, cudaMallocHost and cudaHostAlloc: they allocate host memory that is page-locked, which the
// operating system cannot page out: every page of it is in memory from the allocation on, before the program
// touches it (mincore, Linux's answer to which pages of a mapping are resident).
TEST_F(Results, PageLockedMemoryIsResidentFromItsAllocation) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t bytes = 64 * page;
    const auto resident_pages = [&](void* memory) {
        std::vector<unsigned char> resident(bytes / page);
        EXPECT_EQ(::mincore(memory, bytes, resident.data()), 0);
        std::size_t count = 0;
        for (const unsigned char flags : resident) {
            count += (flags & 1U) != 0 ? 1 : 0;
        }
        return count;
    };
    void* allocated = nullptr;
    ASSERT_CUDA_OK(cudaMallocHost(&allocated, bytes));
    EXPECT_EQ(resident_pages(allocated), bytes / page) << "cudaMallocHost";
    ASSERT_CUDA_OK(cudaFreeHost(allocated));
    ASSERT_CUDA_OK(cudaHostAlloc(&allocated, bytes, cudaHostAllocDefault));
    EXPECT_EQ(resident_pages(allocated), bytes / page) << "cudaHostAlloc";
    ASSERT_CUDA_OK(cudaFreeHost(allocated));
}

// The course's workload kernel computes, element by element, what its CPU reference computes.
TEST_F(Results, WorkloadKernelGivesItsCpuReference) {
    const std::size_t n = 100'000;
    const int iterations = 20;
    const PinnedBuffer<float> input(n);
    const PinnedBuffer<float> output(n);
    fill_input(input.data(), n, 7);
    fill_poison(output.data(), n);
    const DeviceBuffer<float> device_in(n);
    const DeviceBuffer<float> device_out(n);
    const Stream stream(cudaStreamNonBlocking);

    ASSERT_CUDA_OK(
        cudaMemcpyAsync(device_in.data(), input.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream.get()));
    launch_workload(device_in.data(), device_out.data(), n, iterations, stream.get());
    ASSERT_CUDA_OK(
        cudaMemcpyAsync(output.data(), device_out.data(), n * sizeof(float), cudaMemcpyDeviceToHost, stream.get()));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));

    const ResultCheck check = check_workload_output(input.data(), output.data(), n, iterations);
    EXPECT_TRUE(check.ok) << check.message();
    EXPECT_GT(check.compared, 0U);
}

// The workload kernel's results are its CPU reference's, bit for bit, whatever the input: more distinct values
// than fill_input gives, launch after launch with the same iteration count, in place, a NaN.
TEST_F(Results, WorkloadKernelGivesItsCpuReferenceBitForBit) {
    const std::size_t n = (std::size_t{1} << 20) + 37;  // not a round number of elements
    const int iterations = 20;
    const DeviceBuffer<float> device_in(n);
    const DeviceBuffer<float> device_out(n);
    std::vector<float> input(n);
    std::vector<float> output(n);
    const auto bits = [](float x) {
        std::uint32_t b = 0;
        std::memcpy(&b, &x, sizeof b);
        return b;
    };
    for (int launch = 0; launch < 4; ++launch) {
        // Every element its own value, and each launch values of its own, but for a quarter of the last's.
        for (std::size_t i = 0; i < n; ++i) {
            input[i] = static_cast<float>(i + n * static_cast<std::size_t>(launch) - (launch > 0 ? n / 4 : 0)) * 1e-6F;
        }
        input[n / 2] = std::numeric_limits<float>::quiet_NaN();
        std::uint32_t all_ones = 0xFFFFFFFFU;  // a NaN too
        std::memcpy(&input[n / 3], &all_ones, sizeof all_ones);
        ASSERT_CUDA_OK(cudaMemcpy(device_in.data(), input.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        // The last launch writes its output over its input.
        float* out = launch == 3 ? device_in.data() : device_out.data();
        launch_workload(device_in.data(), out, n, iterations, nullptr);
        ASSERT_CUDA_OK(cudaMemcpy(output.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));

        std::size_t differing = 0;
        for (std::size_t i = 0; i < n; ++i) {
            differing += bits(output[i]) != bits(workload_reference(input[i], iterations)) ? 1 : 0;
        }
        EXPECT_EQ(differing, 0U) << "launch " << launch;
    }
}

}  // namespace
}  // namespace streamlab::simgpu::testing
