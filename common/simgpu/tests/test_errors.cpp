// The errors the CUDA Runtime API reference documents, returned by the simulated GPU for the same mistakes:
// handles that are no longer valid, copy kinds that do not fit, freeing twice, sizes that cannot be, and the
// calls the reference says are allowed (freeing null, destroying a stream that still has work).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "simgpu_test.hpp"
#include "streamlab/handles.hpp"

namespace streamlab::simgpu::testing {
namespace {

using InvalidHandles = SimGpuTest;

// cudaStreamSynchronize and cudaStreamQuery return cudaErrorInvalidResourceHandle for a stream that is no
// longer valid (here: destroyed).
TEST_F(InvalidHandles, ADestroyedStreamIsRefused) {
    cudaStream_t stream = nullptr;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    ASSERT_CUDA_OK(cudaStreamDestroy(stream));

    EXPECT_EQ(cudaStreamSynchronize(stream), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaStreamQuery(stream), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaErrorInvalidResourceHandle);
}

// cudaEventRecord, cudaEventSynchronize and cudaStreamWaitEvent return cudaErrorInvalidResourceHandle for an
// event that is no longer valid.
TEST_F(InvalidHandles, ADestroyedEventIsRefused) {
    const Stream stream(cudaStreamNonBlocking);
    cudaEvent_t event = nullptr;
    ASSERT_CUDA_OK(cudaEventCreate(&event));
    ASSERT_CUDA_OK(cudaEventDestroy(event));

    EXPECT_EQ(cudaEventRecord(event, stream.get()), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaEventSynchronize(event), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaStreamWaitEvent(stream.get(), event, 0), cudaErrorInvalidResourceHandle);
}

// cudaEventElapsedTime: cudaErrorInvalidResourceHandle when an event was created with cudaEventDisableTiming or
// was never recorded; cudaErrorNotReady while an event has not completed yet.
TEST_F(InvalidHandles, ElapsedTimeNeedsTwoTimedRecordedCompletedEvents) {
    const Stream stream(cudaStreamNonBlocking);
    const Event timed(cudaEventDefault);
    const Event untimed(cudaEventDisableTiming);
    const Event never_recorded(cudaEventDefault);
    const Event pending(cudaEventDefault);
    ASSERT_CUDA_OK(cudaEventRecord(timed.get(), stream.get()));
    ASSERT_CUDA_OK(cudaEventRecord(untimed.get(), stream.get()));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
    float elapsed_ms = 0.0F;

    EXPECT_EQ(cudaEventElapsedTime(&elapsed_ms, timed.get(), untimed.get()), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaEventElapsedTime(&elapsed_ms, timed.get(), never_recorded.get()), cudaErrorInvalidResourceHandle);
    // cudaGetLastError: the refusal stays the thread's last error until read, and a later launch's check
    // (cudaGetLastError) would read it; reading it clears it.
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);

    busy("work", stream.get());
    ASSERT_CUDA_OK(cudaEventRecord(pending.get(), stream.get()));
    EXPECT_EQ(cudaEventElapsedTime(&elapsed_ms, timed.get(), pending.get()), cudaErrorNotReady);
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
}

// cudaStreamCreateWithFlags: cudaErrorInvalidValue for flags other than cudaStreamDefault and
// cudaStreamNonBlocking, or a null place to put the stream.
TEST_F(InvalidHandles, StreamCreationRefusesUnknownFlags) {
    cudaStream_t stream = nullptr;
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream, 0x40), cudaErrorInvalidValue);
    EXPECT_EQ(cudaStreamCreateWithFlags(nullptr, cudaStreamNonBlocking), cudaErrorInvalidValue);
}

using Launches = SimGpuTest;

// cudaLaunchKernel: cudaErrorInvalidConfiguration for a grid of no blocks, and the launch queues nothing.
TEST_F(Launches, AnEmptyGridIsRefused) {
    const Stream stream(cudaStreamNonBlocking);
    EXPECT_EQ(launch_busy(stream.get(), kLongKernelNs, 0), cudaErrorInvalidConfiguration);
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
    EXPECT_TRUE(ops().empty());
}

using CopyKinds = SimGpuTest;

// cudaMemcpy: cudaErrorInvalidMemcpyDirection when the kind is not one of cudaMemcpyKind's values.
TEST_F(CopyKinds, AKindOutsideTheEnumIsRefused) {
    const DeviceBuffer<char> device(64);
    std::vector<char> host(64);
    EXPECT_EQ(cudaMemcpy(device.data(), host.data(), 64, static_cast<cudaMemcpyKind>(42)),
              cudaErrorInvalidMemcpyDirection);
}

// cudaMemcpy: the kind must match where dst and src are (the reference calls a mismatch undefined behaviour
// and lists cudaErrorInvalidValue among the errors). The simulator refuses it rather than guess, and copies
// nothing.
TEST_F(CopyKinds, AKindThatContradictsThePointersIsRefused) {
    const DeviceBuffer<char> device(64);
    std::vector<char> host(64, 'h');
    ASSERT_CUDA_OK(cudaMemset(device.data(), 'd', 64));

    // Device to host, called host to device: the pointers are the wrong way round for the kind.
    EXPECT_EQ(cudaMemcpy(host.data(), device.data(), 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_EQ(host.front(), 'h');
    EXPECT_EQ(cudaMemcpy(device.data(), host.data(), 64, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // the last error, returned and then cleared
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

using Freeing = SimGpuTest;

// cudaFree: freeing a pointer that cudaFree already freed, or that cudaMalloc never returned, is an error
// (cudaErrorInvalidValue); freeing a null pointer does nothing and succeeds.
TEST_F(Freeing, FreeingTwiceIsRefusedAndFreeingNullIsNot) {
    void* device = nullptr;
    ASSERT_CUDA_OK(cudaMalloc(&device, 256));
    ASSERT_CUDA_OK(cudaFree(device));

    EXPECT_EQ(cudaFree(device), cudaErrorInvalidValue);
    int on_the_stack = 0;
    EXPECT_EQ(cudaFree(&on_the_stack), cudaErrorInvalidValue);
    EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
}

// cudaFreeHost: only memory cudaMallocHost or cudaHostAlloc returned, once.
TEST_F(Freeing, FreeingPinnedMemoryTwiceIsRefused) {
    void* pinned = nullptr;
    ASSERT_CUDA_OK(cudaMallocHost(&pinned, 256));
    ASSERT_CUDA_OK(cudaFreeHost(pinned));

    EXPECT_EQ(cudaFreeHost(pinned), cudaErrorInvalidValue);
}

using Sizes = SimGpuTest;

// A "negative" size reaches the runtime as an enormous size_t: cudaMalloc and cudaMallocHost fail with
// cudaErrorMemoryAllocation (no memory that large), and a copy or memset beyond its allocation is refused with
// cudaErrorInvalidValue.
TEST_F(Sizes, ANegativeSizeIsRefused) {
    const int negative = -1;
    const auto as_size = static_cast<std::size_t>(negative);
    void* memory = nullptr;
    EXPECT_EQ(cudaMalloc(&memory, as_size), cudaErrorMemoryAllocation);
    EXPECT_EQ(cudaMallocHost(&memory, as_size), cudaErrorMemoryAllocation);

    const DeviceBuffer<char> device(64);
    std::vector<char> host(64);
    EXPECT_EQ(cudaMemcpy(device.data(), host.data(), as_size, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemset(device.data(), 0, as_size), cudaErrorInvalidValue);
}

// A copy larger than the device allocation it names is refused (cudaErrorInvalidValue).
TEST_F(Sizes, ACopyBeyondItsAllocationIsRefused) {
    const DeviceBuffer<char> device(64);
    std::vector<char> host(128);
    EXPECT_EQ(cudaMemcpy(device.data(), host.data(), 128, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
}

// A copy or memset of zero bytes succeeds and changes nothing.
TEST_F(Sizes, AZeroSizeCopyDoesNothing) {
    const DeviceBuffer<char> device(64);
    std::vector<char> host(64, 'h');
    ASSERT_CUDA_OK(cudaMemset(device.data(), 'd', 64));

    EXPECT_EQ(cudaMemcpy(host.data(), device.data(), 0, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemset(device.data(), 0, 0), cudaSuccess);
    EXPECT_EQ(host.front(), 'h');
    ASSERT_CUDA_OK(cudaMemcpy(host.data(), device.data(), 64, cudaMemcpyDeviceToHost));
    EXPECT_EQ(host.front(), 'd');
}

}  // namespace
}  // namespace streamlab::simgpu::testing
