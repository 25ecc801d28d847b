// Handle semantics that need no device: empty handles, moves, and that copies
// do not compile.
#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <type_traits>

#include "streamlab/handles.hpp"

namespace {

using streamlab::DeviceBuffer;
using streamlab::Event;
using streamlab::HostRegistration;
using streamlab::PinnedBuffer;
using streamlab::Stream;
using streamlab::StreamOrderedBuffer;

template <typename T>
constexpr bool move_only =
    std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T> &&
    !std::is_copy_constructible_v<T> && !std::is_copy_assignable_v<T> && std::is_nothrow_destructible_v<T>;

static_assert(move_only<Stream>);
static_assert(move_only<Event>);
static_assert(move_only<PinnedBuffer<float>>);
static_assert(move_only<DeviceBuffer<float>>);
static_assert(move_only<StreamOrderedBuffer<float>>);
static_assert(move_only<HostRegistration>);
// The NULL stream belongs to no one: no Stream can be made from nullptr.
static_assert(!std::is_constructible_v<Stream, std::nullptr_t>);

TEST(Handles, DefaultConstructedOwnNothing) {
    EXPECT_FALSE(Stream{});
    EXPECT_THROW((void)Stream{}.get(), std::logic_error);  // a null cudaStream_t would be the NULL stream
    EXPECT_FALSE(Event{});
    EXPECT_FALSE(PinnedBuffer<float>{});
    EXPECT_EQ(PinnedBuffer<float>{}.size(), 0U);
    EXPECT_FALSE(DeviceBuffer<double>{});
    EXPECT_EQ(DeviceBuffer<double>{}.bytes(), 0U);
    EXPECT_FALSE(StreamOrderedBuffer<int>{});
    EXPECT_FALSE(HostRegistration{});
}

TEST(Handles, MovingAnEmptyHandleLeavesBothEmpty) {
    Stream a;
    Stream b(std::move(a));
    EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): moved-from state is specified
    EXPECT_FALSE(b);
    EXPECT_THROW((void)b.get(), std::logic_error);
    EXPECT_THROW(b.synchronize(), std::logic_error);
    DeviceBuffer<float> x;
    DeviceBuffer<float> y;
    y = std::move(x);
    EXPECT_FALSE(y);
}

TEST(Handles, ResetOnEmptyHandleIsHarmless) {
    Stream s;
    s.reset();
    Event e;
    e.reset();
    PinnedBuffer<float> p;
    p.reset();
    EXPECT_FALSE(s);
    EXPECT_FALSE(e);
    EXPECT_FALSE(p);
}

}  // namespace
