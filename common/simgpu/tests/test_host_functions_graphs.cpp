// Host functions and graphs on the simulated GPU, each test one rule of the CUDA Runtime API reference
// (cudaLaunchHostFunc, cudaStreamBeginCapture, cudaGraphLaunch).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "simgpu_test.hpp"
#include "streamlab/handles.hpp"

namespace streamlab::simgpu::testing {
namespace {

using HostFunctions = SimGpuTest;

// What the host functions of a test saw: the order they ran in and the threads they ran on.
struct HostFunctionCalls {
    std::vector<int> order;
    std::set<std::thread::id> threads;
};

template <int kId>
void note_call(void* calls) {
    auto* seen = static_cast<HostFunctionCalls*>(calls);
    seen->order.push_back(kId);
    seen->threads.insert(std::this_thread::get_id());
}

// cudaLaunchHostFunc: the function is called after the work already enqueued in the stream and blocks the
// work added after it; functions of one stream run in their order; they run on a thread of the runtime, not
// the caller's (which is why they must make no CUDA call).
TEST_F(HostFunctions, RunInStreamOrderOnTheRuntimesThread) {
    const Stream stream(cudaStreamNonBlocking);
    HostFunctionCalls calls;
    busy("before", stream.get());
    ASSERT_CUDA_OK(cudaLaunchHostFunc(stream.get(), note_call<1>, &calls));
    ASSERT_CUDA_OK(cudaLaunchHostFunc(stream.get(), note_call<2>, &calls));
    busy("after", stream.get());
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));

    EXPECT_EQ(calls.order, (std::vector<int>{1, 2}));
    EXPECT_EQ(calls.threads.count(std::this_thread::get_id()), 0U);
    EXPECT_GE(op("after").start_ns, op("before").end_ns);
}

// What a CUDA call made from a host function returned.
void call_cuda_from_host_function(void* result) {
    *static_cast<cudaError_t*>(result) = cudaStreamQuery(nullptr);
}

// cudaLaunchHostFunc: a host function must not make CUDA calls; the runtime may refuse them with
// cudaErrorNotPermitted, and the simulator always does, so that the mistake shows.
TEST_F(HostFunctions, CudaCallsFromAHostFunctionAreRefused) {
    const Stream stream(cudaStreamNonBlocking);
    cudaError_t result = cudaSuccess;
    ASSERT_CUDA_OK(cudaLaunchHostFunc(stream.get(), call_cuda_from_host_function, &result));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));

    EXPECT_EQ(result, cudaErrorNotPermitted);
}

// When a host function began, on the simulated host clock.
void note_start(void* start_ns) {
    *static_cast<std::uint64_t*>(start_ns) = host_now_ns();
}

// cudaLaunchHostFunc: the function is called after the work enqueued in the stream before it, and the call
// that enqueues it returns at once. So on the host's clock it begins when that work ends, not when it was
// issued (the simulator runs it when its stream reaches it).
TEST_F(HostFunctions, BeginWhenTheWorkBeforeThemEndsNotWhenIssued) {
    const Stream stream(cudaStreamNonBlocking);
    std::uint64_t began_ns = 0;
    busy("before", stream.get());
    ASSERT_CUDA_OK(cudaLaunchHostFunc(stream.get(), note_start, &began_ns));
    const std::uint64_t issued_ns = host_now_ns();
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));

    EXPECT_LT(issued_ns, op("before").end_ns) << "cudaLaunchHostFunc waited for the work before it";
    EXPECT_GE(began_ns, op("before").end_ns) << "the host function ran before the work before it ended";
    EXPECT_LE(began_ns, host_now_ns());
}

using Graphs = SimGpuTest;

// cudaStreamBeginCapture: work issued to a capturing stream is not run but appended to a graph
// (cudaStreamIsCapturing says so); cudaGraphLaunch runs the graph's work, in the captured order, every time
// it is launched, each launch ordered behind the stream's earlier work and the previous launch.
TEST_F(Graphs, CapturedWorkRunsOnlyWhenTheGraphIsLaunched) {
    const Stream stream(cudaStreamNonBlocking);
    ASSERT_CUDA_OK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    ASSERT_CUDA_OK(cudaStreamIsCapturing(stream.get(), &status));
    EXPECT_EQ(status, cudaStreamCaptureStatusActive);
    busy("first", stream.get());
    busy("second", stream.get());
    cudaGraph_t graph = nullptr;
    ASSERT_CUDA_OK(cudaStreamEndCapture(stream.get(), &graph));
    EXPECT_TRUE(ops().empty()) << "captured work ran before any launch";

    cudaGraphExec_t exec = nullptr;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, stream.get()));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, stream.get()));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));

    std::vector<DeviceOp> ran = ops();
    ASSERT_EQ(ran.size(), 4U);
    for (std::size_t i = 1; i < ran.size(); ++i) {
        EXPECT_GE(ran[i].start_ns, ran[i - 1].end_ns) << "op " << i;
    }
    for (const DeviceOp& each : ran) {
        EXPECT_EQ(each.kind, OpKind::Kernel);
        EXPECT_NE(each.graph_id, 0U);
    }
    EXPECT_EQ(ran[0].graph_node_id, ran[2].graph_node_id);  // the same node, launched twice
    EXPECT_NE(ran[0].graph_node_id, ran[1].graph_node_id);
    EXPECT_CUDA_OK(cudaGraphExecDestroy(exec));
    EXPECT_CUDA_OK(cudaGraphDestroy(graph));
}

}  // namespace
}  // namespace streamlab::simgpu::testing
