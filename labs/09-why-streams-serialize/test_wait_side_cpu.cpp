// Lab 09's course side for Task 3 (wait_side.hpp), without a GPU: how a wait's
// cost and wake-up delay are read, and how the host's slices are counted, on
// made-up records and on the host alone.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include "streamlab/timeline.hpp"
#include "wait_side.hpp"

namespace {

using lab09::course::HostWork;
using lab09::course::WaitCost;

constexpr std::uint64_t kUs = 1000;  // one microsecond in ns

/// A timeline whose ops end at `ends` (us after its origin, which is 1 s).
streamlab::Timeline ending_at(std::initializer_list<std::uint64_t> ends) {
    streamlab::Timeline timeline;
    timeline.origin_ns = 1'000'000 * kUs;
    for (const std::uint64_t end : ends) {
        streamlab::DeviceOp op;
        op.start_ns = 0;
        op.end_ns = end * kUs;
        timeline.ops.push_back(op);
    }
    return timeline;
}

TEST(WakeUpDelay, CountsFromTheLastOpToTheReturn) {
    const streamlab::Timeline timeline = ending_at({9000, 5000});  // the last op is not the last listed
    EXPECT_EQ(lab09::course::wake_up_delay_ns(timeline, timeline.origin_ns + 9500 * kUs), 500 * kUs);
}

TEST(WakeUpDelay, IsNegativeForAReturnBeforeTheWorkEnded) {
    const streamlab::Timeline timeline = ending_at({5000, 9000});
    EXPECT_EQ(lab09::course::wake_up_delay_ns(timeline, timeline.origin_ns + 8000 * kUs),
              -static_cast<std::int64_t>(1000 * kUs));
}

TEST(WakeUpDelay, IsZeroWithoutOps) {
    EXPECT_EQ(lab09::course::wake_up_delay_ns(streamlab::Timeline{}, 12345), 0);
}

TEST(WaitCost, SharesCpuTimeOfWallTime) {
    EXPECT_DOUBLE_EQ((WaitCost{1000, 3000, 500}.cpu_share()), 0.25);
    EXPECT_DOUBLE_EQ((WaitCost{1000, 1000, 500}.cpu_share()), 0.0);
}

TEST(ObserveWait, ASleepingWaitUsesLessCpuThanASpinningOne) {
    const auto for_a_while = std::chrono::milliseconds(30);
    const WaitCost asleep = lab09::course::observe_wait([&] { std::this_thread::sleep_for(for_a_while); });
    const WaitCost spinning = lab09::course::observe_wait([&] {
        const auto until = std::chrono::steady_clock::now() + for_a_while;
        while (std::chrono::steady_clock::now() < until) {}
    });
    EXPECT_GE(asleep.wall_ns(), 30'000 * kUs);
    EXPECT_LT(asleep.cpu_share(), 0.2);
    EXPECT_GT(spinning.cpu_share(), asleep.cpu_share());
}

TEST(HostWork, TimesEachSliceOnTheWaitingThread) {
    HostWork work(200 * kUs);
    EXPECT_EQ(work.mean_slice_ns(), 200 * kUs);  // none yet: the length asked for
    const std::function<void()> slice = work.as_function();
    for (int i = 0; i < 3; ++i) {
        slice();
    }
    EXPECT_EQ(work.slices(), 3);
    EXPECT_GE(work.busy_ns(), 3 * 200 * kUs);
    EXPECT_GE(work.mean_slice_ns(), 200 * kUs);
    EXPECT_EQ(work.slices_elsewhere(), 0);
}

TEST(HostWork, CountsSlicesOnAnotherThread) {
    HostWork work(50 * kUs);
    std::thread other([&] { work.slice(); });
    other.join();
    work.slice();
    EXPECT_EQ(work.slices(), 2);
    EXPECT_EQ(work.slices_elsewhere(), 1);
    work.reset();
    EXPECT_EQ(work.slices(), 0);
    EXPECT_EQ(work.slices_elsewhere(), 0);
    EXPECT_EQ(work.busy_ns(), 0U);
}

}  // namespace
