// Handles against a real device: they allocate, work and free.
#include <gtest/gtest.h>

#include <vector>

#include "streamlab/handles.hpp"
#include "streamlab/testing.hpp"

namespace {

using namespace streamlab;

TEST(HandlesGpu, StreamsAndEventsCreateAndTime) {
    SL_REQUIRE_GPU();
    Stream blocking(cudaStreamDefault);
    Stream non_blocking(cudaStreamNonBlocking);
    ASSERT_TRUE(blocking);
    ASSERT_TRUE(non_blocking);
    unsigned int flags = 0;
    SL_CHECK(cudaStreamGetFlags(non_blocking.get(), &flags));
    EXPECT_EQ(flags, cudaStreamNonBlocking);
    Event start(cudaEventDefault), stop(cudaEventDefault);
    start.record(blocking.get());
    stop.record(blocking.get());
    stop.synchronize();
    EXPECT_GE(elapsed_ms(start, stop), 0.0F);
}

TEST(HandlesGpu, BuffersRoundTripData) {
    SL_REQUIRE_GPU();
    const std::size_t n = 1 << 20;
    PinnedBuffer<int> host(n);
    DeviceBuffer<int> device(n);
    ASSERT_EQ(host.size(), n);
    ASSERT_EQ(device.bytes(), n * sizeof(int));
    for (std::size_t i = 0; i < n; ++i) {
        host[i] = static_cast<int>(i * 7 + 1);
    }
    SL_CHECK(cudaMemcpy(device.data(), host.data(), device.bytes(), cudaMemcpyHostToDevice));
    PinnedBuffer<int> back(n);
    SL_CHECK(cudaMemcpy(back.data(), device.data(), device.bytes(), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; i += 4099) {
        ASSERT_EQ(back[i], static_cast<int>(i * 7 + 1));
    }
}

TEST(HandlesGpu, StreamOrderedBufferAllocatesAndFreesInItsStream) {
    SL_REQUIRE_GPU();
    Stream stream(cudaStreamNonBlocking);
    {
        StreamOrderedBuffer<float> buffer(1 << 16, stream.get());
        ASSERT_TRUE(buffer);
        SL_CHECK(cudaMemsetAsync(buffer.data(), 0, buffer.bytes(), stream.get()));
    }  // cudaFreeAsync queued here
    stream.synchronize();
}

TEST(HandlesGpu, HostRegistrationPinsAndUnpins) {
    SL_REQUIRE_GPU();
    std::vector<float> pageable(1 << 18);
    {
        HostRegistration pin(pageable.data(), pageable.size() * sizeof(float));
        cudaPointerAttributes attributes{};
        SL_CHECK(cudaPointerGetAttributes(&attributes, pageable.data()));
        EXPECT_EQ(attributes.type, cudaMemoryTypeHost);
    }
    cudaPointerAttributes attributes{};
    SL_CHECK(cudaPointerGetAttributes(&attributes, pageable.data()));
    EXPECT_EQ(attributes.type, cudaMemoryTypeUnregistered);
}

TEST(HandlesGpu, MovedHandleIsFreedOnce) {
    SL_REQUIRE_GPU();
    DeviceBuffer<float> a(1024);
    float* raw = a.data();
    DeviceBuffer<float> b(std::move(a));
    EXPECT_EQ(b.data(), raw);
    EXPECT_FALSE(a);              // NOLINT(bugprone-use-after-move)
    b = DeviceBuffer<float>(16);  // frees the first allocation
    EXPECT_NE(b.data(), nullptr);
    SL_CHECK(cudaDeviceSynchronize());
}

TEST(HandlesGpu, ErrorsFromRealCallsThrow) {
    SL_REQUIRE_GPU();
    // Far more than any GPU has.
    EXPECT_THROW(DeviceBuffer<char>(std::size_t{1} << 60), CudaError);
    cudaGetLastError();
}

}  // namespace
