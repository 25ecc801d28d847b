// Streams, the legacy NULL stream, events and queries on the simulated GPU, each test one rule of NVIDIA's
// documentation (Programming Guide, "Streams"; Runtime API reference, "Stream synchronization behavior").
// The kernels are the tests' own (busy_kernel.cu): small shares of the GPU, so that nothing but the rule under
// test keeps two of them from running side by side.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include "simgpu_test.hpp"
#include "streamlab/handles.hpp"

namespace streamlab::simgpu::testing {
namespace {

using StreamOrder = SimGpuTest;

// Programming Guide: a stream is a sequence of commands that execute in order.
TEST_F(StreamOrder, WorkInOneStreamRunsInTheOrderIssued) {
    const Stream stream(cudaStreamNonBlocking);
    busy("first", stream.get());
    busy("second", stream.get());
    busy("third", stream.get());
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));

    EXPECT_GE(op("second").start_ns, op("first").end_ns);
    EXPECT_GE(op("third").start_ns, op("second").end_ns);
}

// Programming Guide: commands of different streams may run concurrently; two kernels whose blocks fit on the
// GPU together do.
TEST_F(StreamOrder, KernelsOfTwoStreamsThatFitTogetherRunConcurrently) {
    const Stream one(cudaStreamNonBlocking);
    const Stream two(cudaStreamNonBlocking);
    busy("one", one.get(), 0.5);
    busy("two", two.get(), 0.5);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_TRUE(overlap(op("one"), op("two")));
}

using LegacyNullStream = SimGpuTest;

// Stream synchronization behavior: an action in the legacy default stream first waits for all blocking
// streams, and then all blocking streams wait for it. NVIDIA's own example: k_1 in s, k_2 in the legacy
// stream, k_3 in s; k_2 waits for k_1 and k_3 waits for k_2.
TEST_F(LegacyNullStream, WaitsForBlockingStreamsAndTheyWaitForIt) {
    const Stream s(cudaStreamDefault);
    busy("k_1", s.get());
    busy("k_2", nullptr);
    busy("k_3", s.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_GE(op("k_2").start_ns, op("k_1").end_ns);
    EXPECT_GE(op("k_3").start_ns, op("k_2").end_ns);
}

// The same barrier holds across blocking streams: work queued in another blocking stream after a NULL-stream
// action waits for that action too (the legacy stream synchronizes with all blocking streams of the context).
TEST_F(LegacyNullStream, IsABarrierBetweenTwoBlockingStreams) {
    const Stream s1(cudaStreamDefault);
    const Stream s2(cudaStreamDefault);
    busy("before", s1.get());
    busy("null", nullptr);
    busy("after", s2.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_GE(op("null").start_ns, op("before").end_ns);
    EXPECT_GE(op("after").start_ns, op("null").end_ns);
    EXPECT_FALSE(overlap(op("before"), op("after")));
}

// cudaStreamCreateWithFlags: a cudaStreamNonBlocking stream may run concurrently with the NULL stream and does
// no implicit synchronization with it, in either direction.
TEST_F(LegacyNullStream, DoesNotSynchronizeWithNonBlockingStreams) {
    const Stream s(cudaStreamNonBlocking);
    busy("k_1", s.get());
    busy("k_2", nullptr);
    busy("k_3", s.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_TRUE(overlap(op("k_1"), op("k_2")));
    EXPECT_TRUE(overlap(op("k_2"), op("k_3")));
}

// Stream synchronization behavior: the legacy stream can also be named explicitly, as cudaStreamLegacy.
TEST_F(LegacyNullStream, CudaStreamLegacyIsTheSameBarrier) {
    const Stream s(cudaStreamDefault);
    busy("k_1", s.get());
    busy("k_2", cudaStreamLegacy);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_GE(op("k_2").start_ns, op("k_1").end_ns);
}

using PerThreadDefaultStream = SimGpuTest;

// Stream synchronization behavior: the per-thread default stream (cudaStreamPerThread) synchronizes with the
// legacy default stream like any blocking stream, and with nothing else: work of a created stream runs beside
// it.
TEST_F(PerThreadDefaultStream, SynchronizesWithTheLegacyStreamOnly) {
    const Stream created(cudaStreamDefault);
    busy("per-thread", cudaStreamPerThread);
    busy("created", created.get());
    busy("legacy", nullptr);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_TRUE(overlap(op("per-thread"), op("created")));
    EXPECT_GE(op("legacy").start_ns, op("per-thread").end_ns);
    EXPECT_EQ(op("per-thread").stream_kind, StreamKind::PerThreadDefault);
    EXPECT_EQ(op("legacy").stream_kind, StreamKind::LegacyNull);
    EXPECT_EQ(op("created").stream_kind, StreamKind::Created);
}

using Priorities = SimGpuTest;

// cudaStreamCreateWithPriority: priorities are a hint to run pending work of higher priority first when
// possible; they do not preempt work already running. Two whole-GPU kernels become ready at the same moment
// (both wait for one event): the higher priority one runs first. A third, issued while a low priority kernel
// runs, waits for it to end.
TEST_F(Priorities, PendingWorkOfAHigherPriorityStreamRunsFirstWithoutPreemption) {
    int least = 0;
    int greatest = 0;
    ASSERT_CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    ASSERT_LT(greatest, least) << "the model offers one priority only: this rule does not apply";

    const Stream gate(cudaStreamNonBlocking);
    const Stream low(cudaStreamNonBlocking, least);
    const Stream high(cudaStreamNonBlocking, greatest);
    const Event open(cudaEventDisableTiming);
    busy("gate", gate.get(), 1.0);
    ASSERT_CUDA_OK(cudaEventRecord(open.get(), gate.get()));
    ASSERT_CUDA_OK(cudaStreamWaitEvent(low.get(), open.get(), 0));
    ASSERT_CUDA_OK(cudaStreamWaitEvent(high.get(), open.get(), 0));
    busy("low", low.get(), 1.0);
    busy("high", high.get(), 1.0);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_GE(op("low").start_ns, op("high").end_ns);

    // No preemption: the high priority kernel issued while a low priority one runs waits for its end.
    busy("running low", low.get(), 1.0);
    // The host's own time moves the simulated host clock: after this the low priority kernel has started.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const std::uint64_t late_issued_ns = host_now_ns();
    busy("late high", high.get(), 1.0);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    ASSERT_LT(op("running low").start_ns, late_issued_ns);
    EXPECT_GE(op("late high").start_ns, op("running low").end_ns);
}

using Events = SimGpuTest;

// cudaStreamWaitEvent: all future work submitted to the stream waits until the event's recorded work has
// completed.
TEST_F(Events, StreamWaitEventMakesLaterWorkWaitForTheRecordedWork) {
    const Stream producer(cudaStreamNonBlocking);
    const Stream consumer(cudaStreamNonBlocking);
    const Event produced(cudaEventDisableTiming);
    busy("produce", producer.get());
    ASSERT_CUDA_OK(cudaEventRecord(produced.get(), producer.get()));
    ASSERT_CUDA_OK(cudaStreamWaitEvent(consumer.get(), produced.get(), 0));
    busy("consume", consumer.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_GE(op("consume").start_ns, op("produce").end_ns);
}

// An event captures the work queued in its stream before the record, not after: work queued after the record
// does not delay a stream that waits for the event.
TEST_F(Events, WaitCoversOnlyWorkQueuedBeforeTheRecord) {
    const Stream producer(cudaStreamNonBlocking);
    const Stream consumer(cudaStreamNonBlocking);
    const Event produced(cudaEventDisableTiming);
    busy("before record", producer.get(), 0.25, kLongKernelNs / 10);
    ASSERT_CUDA_OK(cudaEventRecord(produced.get(), producer.get()));
    busy("after record", producer.get());
    ASSERT_CUDA_OK(cudaStreamWaitEvent(consumer.get(), produced.get(), 0));
    busy("consume", consumer.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_GE(op("consume").start_ns, op("before record").end_ns);
    EXPECT_TRUE(overlap(op("consume"), op("after record")));
}

// cudaEventQuery: cudaErrorNotReady while the captured work is incomplete, cudaSuccess once it has completed,
// and cudaSuccess for an event that was never recorded.
TEST_F(Events, QueryIsNotReadyBeforeTheWorkEndsAndSuccessAfter) {
    const Stream stream(cudaStreamNonBlocking);
    const Event never_recorded(cudaEventDefault);
    const Event done(cudaEventDefault);
    EXPECT_EQ(cudaEventQuery(never_recorded.get()), cudaSuccess);

    busy("work", stream.get());
    ASSERT_CUDA_OK(cudaEventRecord(done.get(), stream.get()));
    EXPECT_EQ(cudaEventQuery(done.get()), cudaErrorNotReady);
    const std::uint64_t queried_ns = host_now_ns();

    ASSERT_CUDA_OK(cudaEventSynchronize(done.get()));
    EXPECT_EQ(cudaEventQuery(done.get()), cudaSuccess);
    EXPECT_LT(queried_ns, op("work").end_ns);
    EXPECT_GE(host_now_ns(), op("work").end_ns);
}

// cudaEventElapsedTime: the time between two completed events, in ms; the events bracket the kernel, so the
// time is at least the kernel's.
TEST_F(Events, ElapsedTimeBetweenEventsCoversTheWorkBetweenThem) {
    const Stream stream(cudaStreamNonBlocking);
    const Event start(cudaEventDefault);
    const Event stop(cudaEventDefault);
    ASSERT_CUDA_OK(cudaEventRecord(start.get(), stream.get()));
    busy("timed", stream.get());
    ASSERT_CUDA_OK(cudaEventRecord(stop.get(), stream.get()));
    ASSERT_CUDA_OK(cudaEventSynchronize(stop.get()));

    float elapsed_ms = 0.0F;
    ASSERT_CUDA_OK(cudaEventElapsedTime(&elapsed_ms, start.get(), stop.get()));
    const double kernel_ms = ms(op("timed").duration_ns());
    EXPECT_GE(elapsed_ms, kernel_ms * 0.999);
    EXPECT_LE(elapsed_ms, kernel_ms * 1.1);  // the two records add no more than launch overheads
}

using Queries = SimGpuTest;

// cudaStreamQuery: cudaSuccess when all work in the stream has completed (an empty stream included),
// cudaErrorNotReady when not.
TEST_F(Queries, StreamQueryIsNotReadyBeforeTheWorkEndsAndSuccessAfter) {
    const Stream stream(cudaStreamNonBlocking);
    EXPECT_EQ(cudaStreamQuery(stream.get()), cudaSuccess);

    busy("work", stream.get());
    EXPECT_EQ(cudaStreamQuery(stream.get()), cudaErrorNotReady);

    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
    EXPECT_EQ(cudaStreamQuery(stream.get()), cudaSuccess);
}

// cudaStreamSynchronize blocks the host until the stream's work has completed; a kernel launch does not.
TEST_F(Queries, LaunchReturnsAtOnceAndStreamSynchronizeWaitsForTheWork) {
    const Stream stream(cudaStreamNonBlocking);
    busy("work", stream.get());
    const std::uint64_t launched_ns = host_now_ns();

    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
    EXPECT_LT(launched_ns, op("work").end_ns);
    EXPECT_GE(host_now_ns(), op("work").end_ns);
}

// cudaDeviceSynchronize blocks the host until all work of all streams has completed.
TEST_F(Queries, DeviceSynchronizeWaitsForEveryStream) {
    const Stream one(cudaStreamNonBlocking);
    const Stream two(cudaStreamNonBlocking);
    busy("short", one.get(), 0.25, kLongKernelNs / 10);
    busy("long", two.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());

    EXPECT_GE(host_now_ns(), op("long").end_ns);
    EXPECT_GE(host_now_ns(), op("short").end_ns);
}

// cudaStreamDestroy: when the device is still doing work in the stream, the call returns at once and the
// stream's resources are released once the work completes. The work is not lost.
TEST_F(Queries, DestroyingAStreamWithWorkReturnsAtOnceAndTheWorkStillRuns) {
    cudaStream_t stream = nullptr;
    ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    busy("work", stream);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    const std::uint64_t returned_ns = host_now_ns();

    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    const DeviceOp work = op("work");
    EXPECT_LT(returned_ns, work.end_ns);
    EXPECT_GE(host_now_ns(), work.end_ns);
}

}  // namespace
}  // namespace streamlab::simgpu::testing
