// What the simulated GPU logs for the course's tracer (simgpu::log_since): the ops with the fields CUPTI's
// records give them, the runtime calls counted by name and by thread, and the calls that queue or order stream
// work in the order the host made them (what the graders read in Timeline::stream_calls).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "simgpu_test.hpp"
#include "streamlab/handles.hpp"

namespace streamlab::simgpu::testing {
namespace {

using SimulatorLog = SimGpuTest;

// Each op carries what CUPTI's records carry: its kind, bytes and host memory kind for copies, its stream (the
// streams of one process told apart by id), the call that issued it (a correlation id), the device.
TEST_F(SimulatorLog, OpsCarryWhatCuptiRecordsCarry) {
    const Stream one(cudaStreamNonBlocking);
    const Stream two(cudaStreamNonBlocking);
    const DeviceBuffer<char> device(4096);
    const PinnedBuffer<char> pinned(4096);
    copy_async("H2D", device.data(), pinned.data(), 4096, cudaMemcpyHostToDevice, one.get());
    busy("kernel", two.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    const DeviceOp h2d = op("H2D");
    const DeviceOp kernel = op("kernel");
    EXPECT_EQ(h2d.kind, OpKind::MemcpyH2D);
    EXPECT_EQ(h2d.bytes, 4096U);
    EXPECT_EQ(h2d.host_memory, HostMemory::Pinned);
    EXPECT_EQ(kernel.kind, OpKind::Kernel);
    EXPECT_EQ(kernel.name, "simgpu_test_busy_kernel");
    EXPECT_NE(h2d.stream_id, kernel.stream_id);
    EXPECT_NE(h2d.correlation_id, 0U);
    EXPECT_NE(h2d.correlation_id, kernel.correlation_id);
    EXPECT_EQ(kernel.device_id, 0U);
    EXPECT_LT(h2d.start_ns, h2d.end_ns);
}

// The runtime calls are counted by name, as CUPTI's callbacks see them, and the calls that order stream work
// are listed in the order the host made them, naming their streams and events by handle.
TEST_F(SimulatorLog, CountsCallsAndListsTheOrderingOnes) {
    const std::uint64_t since_ns = host_now_ns();
    cudaStream_t stream = nullptr;
    cudaEvent_t event = nullptr;
    ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    ASSERT_CUDA_OK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    busy("kernel", stream);
    ASSERT_CUDA_OK(cudaEventRecord(event, stream));
    ASSERT_CUDA_OK(cudaStreamWaitEvent(nullptr, event, 0));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
    ASSERT_CUDA_OK(cudaStreamDestroy(stream));
    ASSERT_CUDA_OK(cudaEventDestroy(event));
    const Log log = log_since(since_ns);

    EXPECT_EQ(log.api_calls.at("cudaStreamCreateWithFlags"), 1U);
    EXPECT_EQ(log.api_calls.at("cudaEventRecord"), 1U);
    EXPECT_EQ(log.api_calls.at("cudaStreamDestroy"), 1U);
    EXPECT_FALSE(log.api_calls_by_thread.empty());
    std::vector<OrderingCall> kinds;
    for (const StreamCall& call : log.stream_calls) {
        kinds.push_back(call.call);
    }
    const std::vector<OrderingCall> expected{OrderingCall::Work, OrderingCall::EventRecord,
                                             OrderingCall::StreamWaitEvent, OrderingCall::StreamSynchronize};
    EXPECT_EQ(kinds, expected);
    ASSERT_EQ(log.stream_calls.size(), expected.size());
    const auto handle = [](const void* pointer) {
        return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer));
    };
    EXPECT_EQ(log.stream_calls[0].stream, handle(stream));
    EXPECT_EQ(log.stream_calls[1].event, handle(event));
    EXPECT_EQ(log.stream_calls[2].stream, 0U);  // the legacy NULL stream
    EXPECT_EQ(log.stream_calls[2].event, handle(event));
    for (std::size_t i = 1; i < log.stream_calls.size(); ++i) {
        EXPECT_LE(log.stream_calls[i - 1].time_ns, log.stream_calls[i].time_ns);
    }
}

}  // namespace
}  // namespace streamlab::simgpu::testing
