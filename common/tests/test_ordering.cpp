// What the last event recorded waits for, from hand-written call sequences: the
// join that a pipeline's `stop` event needs, and the ways a timing can miss it.
#include <gtest/gtest.h>

#include <vector>

#include "streamlab/ordering.hpp"

namespace {

using namespace streamlab;

StreamCall work(std::uint64_t stream) {
    return {OrderingCall::Work, "cudaMemcpyAsync", stream, 0};
}
StreamCall record(std::uint64_t event, std::uint64_t stream) {
    return {OrderingCall::EventRecord, "cudaEventRecord", stream, event};
}
StreamCall wait(std::uint64_t stream, std::uint64_t event) {
    return {OrderingCall::StreamWaitEvent, "cudaStreamWaitEvent", stream, event};
}

constexpr std::uint64_t kStart = 100, kStop = 101, kDone = 102;

/// start in stream 1, one piece of work in each of streams 1, 2, 3; then `join`, then stop in `stop_stream`.
std::vector<StreamCall> three_streams(const std::vector<StreamCall>& join, std::uint64_t stop_stream) {
    std::vector<StreamCall> calls = {record(kStart, 1), work(1), work(2), work(3)};
    calls.insert(calls.end(), join.begin(), join.end());
    calls.push_back(record(kStop, stop_stream));
    return calls;
}

TEST(Ordering, TheJoinOrdersStopAfterEveryStream) {
    const auto calls = three_streams({record(kDone, 2), wait(1, kDone), record(kDone, 3), wait(1, kDone)}, 1);
    const LastEventOrder order = order_of_last_event(calls);
    ASSERT_TRUE(order.recorded);
    EXPECT_EQ(order.event_call, calls.size() - 1);
    EXPECT_EQ(order.work_before, 3U);
    EXPECT_TRUE(order.not_ordered.empty()) << order.describe(calls);
}

TEST(Ordering, StopInTheLastStreamWithoutAJoinMissesTheOthers) {
    const auto calls = three_streams({}, 3);
    const LastEventOrder order = order_of_last_event(calls);
    EXPECT_EQ(order.not_ordered, (std::vector<std::size_t>{1, 2}));
    EXPECT_NE(order.describe(calls).find("does not wait for 2 of the 3 work calls"), std::string::npos)
        << order.describe(calls);
}

TEST(Ordering, AnEventIsReusedByItsLatestRecordOnly) {
    // kDone recorded in stream 2, then again in stream 3 before stream 1 waits: only stream 3 is joined.
    const auto calls = three_streams({record(kDone, 2), record(kDone, 3), wait(1, kDone)}, 1);
    EXPECT_EQ(order_of_last_event(calls).not_ordered, (std::vector<std::size_t>{2}));
}

TEST(Ordering, WaitsAreTransitive) {
    // Stream 2 waits for stream 3; stream 1 waits for stream 2: stop in 1 follows all three.
    const auto calls = three_streams({record(kDone, 3), wait(2, kDone), record(kDone + 1, 2), wait(1, kDone + 1)}, 1);
    EXPECT_TRUE(order_of_last_event(calls).not_ordered.empty());
}

TEST(Ordering, HostSynchronizationsOrderWhatTheyWaitedFor) {
    const StreamCall device_sync{OrderingCall::DeviceSynchronize, "cudaDeviceSynchronize", 0, 0};
    EXPECT_TRUE(order_of_last_event(three_streams({device_sync}, 1)).not_ordered.empty());
    const StreamCall sync_2{OrderingCall::StreamSynchronize, "cudaStreamSynchronize", 2, 0};
    EXPECT_EQ(order_of_last_event(three_streams({sync_2}, 1)).not_ordered, (std::vector<std::size_t>{3}));
    const StreamCall wait_done{OrderingCall::EventSynchronize, "cudaEventSynchronize", 0, kDone};
    EXPECT_EQ(order_of_last_event(three_streams({record(kDone, 3), wait_done}, 1)).not_ordered,
              (std::vector<std::size_t>{2}));
}

TEST(Ordering, NoEventNoOrder) {
    const LastEventOrder order = order_of_last_event({work(1)});
    EXPECT_FALSE(order.recorded);
    EXPECT_EQ(order.describe({work(1)}), "no CUDA event was recorded");
}

}  // namespace
