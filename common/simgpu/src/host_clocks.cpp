// The program's clocks read the simulated host clock (see host_clocks.hpp).
#include "host_clocks.hpp"

#include <dlfcn.h>

#include "streamlab/simgpu.hpp"

namespace streamlab::simgpu {

namespace {

using ClockGettime = int (*)(clockid_t, timespec*);

/// The C library's clock_gettime, which the definition below hides from the program: the next definition
/// after the program's own.
ClockGettime library_clock_gettime() {
    static const auto found = reinterpret_cast<ClockGettime>(::dlsym(RTLD_NEXT, "clock_gettime"));
    return found;
}

constexpr std::uint64_t kNsPerSecond = 1'000'000'000;

/// A clock_gettime that is reading the simulated host clock on this thread: a clock read from inside it is
/// a real one.
thread_local bool t_reading_host_clock = false;

/// How far CLOCK_REALTIME stood ahead of CLOCK_MONOTONIC when the program first read a clock: the simulated
/// host clock counts ns since the epoch, as CLOCK_REALTIME does; the simulated CLOCK_MONOTONIC is it less this.
std::uint64_t realtime_ahead_of_monotonic_ns() {
    static const std::uint64_t ahead = real_clock_ns(CLOCK_REALTIME) - real_clock_ns(CLOCK_MONOTONIC);
    return ahead;
}

}  // namespace

std::uint64_t real_clock_ns(clockid_t clock) {
    timespec now{};
    library_clock_gettime()(clock, &now);
    return static_cast<std::uint64_t>(now.tv_sec) * kNsPerSecond + static_cast<std::uint64_t>(now.tv_nsec);
}

std::chrono::steady_clock::time_point real_steady_now() {
    return std::chrono::steady_clock::time_point(
        std::chrono::nanoseconds(static_cast<std::int64_t>(real_clock_ns(CLOCK_MONOTONIC))));
}

}  // namespace streamlab::simgpu

/// The C library's clock_gettime, with CLOCK_MONOTONIC (std::chrono::steady_clock) and CLOCK_REALTIME
/// (system_clock, high_resolution_clock) on the simulated host clock; every other clock (a thread's or the
/// process's CPU time...) as the C library reads it.
extern "C" int clock_gettime(clockid_t clock, timespec* time) {
    using namespace streamlab::simgpu;
    if ((clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME) || time == nullptr || t_reading_host_clock) {
        return library_clock_gettime()(clock, time);
    }
    t_reading_host_clock = true;
    const std::uint64_t since_epoch_ns = host_now_ns();
    const std::uint64_t ns =
        clock == CLOCK_REALTIME ? since_epoch_ns : since_epoch_ns - realtime_ahead_of_monotonic_ns();
    t_reading_host_clock = false;
    time->tv_sec = static_cast<time_t>(ns / kNsPerSecond);
    time->tv_nsec = static_cast<long>(ns % kNsPerSecond);
    return 0;
}
