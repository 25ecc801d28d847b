// A kernel that faults on the simulated GPU: its launch, asynchronous, returns at once and knows nothing of it;
// the error shows at the first call after the kernel has ended, a wait for it or any other, and at every call
// after that (a "sticky" error). The Runtime API on cudaErrorIllegalAddress: "This leaves the process in an
// inconsistent state and any further CUDA work will return the same error. To continue using CUDA, the process
// must be terminated and relaunched." And on cudaGetLastError: "this function may also return error codes
// from previous, asynchronous launches."
//
// The tests keep raw handles: after a sticky error even cudaStreamDestroy fails, which the course's handles
// would report when they go out of scope.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>

#include "faulty_kernel.hpp"
#include "simgpu_test.hpp"

namespace streamlab::simgpu::testing {
namespace {

/// Long beside a call's cost, so that "before the kernel ended" is not a matter of timing.
constexpr std::uint64_t kFaultyKernelNs = 20'000'000;

class StickyErrors : public SimGpuTest {
protected:
    void SetUp() override {
        SimGpuTest::SetUp();
        register_faulty_kernel();
    }
    /// A new non-blocking stream.
    static cudaStream_t new_stream() {
        cudaStream_t stream = nullptr;
        EXPECT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        return stream;
    }
};

// Kernel launches are asynchronous: the launch, and the calls made while the kernel still runs, return
// cudaSuccess; the wait for it returns the kernel's error.
TEST_F(StickyErrors, AFaultShowsAtTheWaitNotAtTheLaunch) {
    cudaStream_t stream = new_stream();
    EXPECT_EQ(launch_faulty(stream, kFaultyKernelNs), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(stream), cudaErrorNotReady);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaErrorIllegalAddress);
}

// Once the faulting kernel has ended, every later call returns its error, in any stream, whatever it asks:
// work, waits, queries, allocations, and cudaGetLastError each time (a sticky error is never reset).
TEST_F(StickyErrors, EveryLaterCallReturnsIt) {
    cudaStream_t faulting = new_stream();
    cudaStream_t other = new_stream();
    ASSERT_EQ(launch_faulty(faulting, kFaultyKernelNs), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);

    void* device = nullptr;
    EXPECT_EQ(cudaMalloc(&device, 1024), cudaErrorIllegalAddress);
    EXPECT_EQ(cudaStreamQuery(other), cudaErrorIllegalAddress);
    EXPECT_EQ(cudaStreamSynchronize(other), cudaErrorIllegalAddress);
    EXPECT_EQ(launch_busy(other, 1000, 1), cudaErrorIllegalAddress);
    EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_EQ(cudaPeekAtLastError(), cudaErrorIllegalAddress);
}

// Until the faulting kernel has ended on the GPU, the calls of the host, and a wait for other work that ends
// before it, return cudaSuccess: nothing has failed yet.
TEST_F(StickyErrors, NothingFailsBeforeTheKernelHasEnded) {
    cudaStream_t faulting = new_stream();
    cudaStream_t other = new_stream();
    ASSERT_EQ(launch_faulty(faulting, kFaultyKernelNs), cudaSuccess);
    busy("short", other, 0.25, kFaultyKernelNs / 4);
    EXPECT_EQ(cudaStreamSynchronize(other), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(faulting), cudaErrorNotReady);
    EXPECT_EQ(cudaStreamSynchronize(faulting), cudaErrorIllegalAddress);
}

// With CUDA_LAUNCH_BLOCKING=1 a launch returns once its kernel has run, so the check right after the launch
// (cudaGetLastError) returns the kernel's own error.
TEST_F(StickyErrors, WithBlockingLaunchesTheLaunchReportsIt) {
    setenv("CUDA_LAUNCH_BLOCKING", "1", 1);
    reset_for_tests();  // the runtime reads CUDA_LAUNCH_BLOCKING when it starts
    unsetenv("CUDA_LAUNCH_BLOCKING");
    register_busy_kernel();
    register_faulty_kernel();
    cudaStream_t stream = new_stream();
    (void)launch_faulty(stream, kFaultyKernelNs);
    EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
}

}  // namespace
}  // namespace streamlab::simgpu::testing
