// How the host spends a wait for the simulated GPU, and when a launch returns: the device's schedule flags
// (cudaSetDeviceFlags), events made to block (cudaEventBlockingSync) and CUDA_LAUNCH_BLOCKING. A wait lasts as
// long on the simulated clock whichever way the host spends it; what the flags change is the CPU time the
// process uses meanwhile, which a program can measure (getrusage), so the tests measure it too.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>

#include "simgpu_test.hpp"
#include "streamlab/handles.hpp"

namespace streamlab::simgpu::testing {
namespace {

/// The process's CPU time so far, every thread's, user and system, ns.
std::uint64_t process_cpu_ns() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto ns = [](const timeval& t) {
        return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000ULL +
               static_cast<std::uint64_t>(t.tv_usec) * 1'000ULL;
    };
    return ns(usage.ru_utime) + ns(usage.ru_stime);
}

/// A wait as the host saw it: how long it lasted on the simulated clock, and the CPU time it used.
struct WaitCost {
    std::uint64_t wall_ns = 0;
    std::uint64_t cpu_ns = 0;
    [[nodiscard]] double cpu_share() const { return static_cast<double>(cpu_ns) / static_cast<double>(wall_ns); }
};

/// Runs `wait` and measures it.
template <typename Wait>
WaitCost measure(const Wait& wait) {
    const std::uint64_t cpu_before = process_cpu_ns();
    const std::uint64_t called = host_now_ns();
    wait();
    WaitCost cost;
    cost.wall_ns = host_now_ns() - called;
    cost.cpu_ns = process_cpu_ns() - cpu_before;
    return cost;
}

/// Short enough that a test that spins through it stays quick, long beside a call's cost. The host's own real
/// time passes between the launch and the wait (more of it on a busy machine), so a test expects the wait to
/// last at least half of it, and measures the CPU time against how long it did last.
constexpr std::uint64_t kWaitNs = 20'000'000;

class ScheduleFlags : public SimGpuTest {
protected:
    /// A fresh simulator whose flags no one set, as a program's (SimGpuTest's set-up sets one).
    static void start_as_a_program_does() {
        reset_for_tests();
        register_busy_kernel();
    }
};

// cudaSetDeviceFlags: cudaDeviceScheduleAuto, the default, "uses a heuristic based on the number of active
// CUDA contexts in the process C and the number of logical processors in the system P. If C > P, then CUDA will
// yield [...], otherwise CUDA will not yield while waiting for results and actively spin on the processor". One
// context, at least one processor: the host spins through cudaStreamSynchronize, its core busy the whole wait.
TEST_F(ScheduleFlags, TheDefaultSpinsThroughAWait) {
    start_as_a_program_does();
    const Stream stream(cudaStreamNonBlocking);
    busy("kernel", stream.get(), 0.25, kWaitNs);
    const WaitCost cost = measure([&] { ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get())); });
    EXPECT_GE(cost.wall_ns, kWaitNs / 2);
    EXPECT_GE(cost.cpu_share(), 0.8) << cost.cpu_ns << " ns of CPU time in a " << cost.wall_ns << " ns wait";
}

// cudaDeviceScheduleSpin: "Instruct CUDA to actively spin when waiting for results from the device." The
// cudaDeviceSynchronize of a host that asked for it keeps its core busy.
TEST_F(ScheduleFlags, SpinKeepsTheCoreBusy) {
    ASSERT_CUDA_OK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
    const Stream stream(cudaStreamNonBlocking);
    busy("kernel", stream.get(), 0.25, kWaitNs);
    const WaitCost cost = measure([&] { ASSERT_CUDA_OK(cudaDeviceSynchronize()); });
    EXPECT_GE(cost.wall_ns, kWaitNs / 2);
    EXPECT_GE(cost.cpu_share(), 0.8) << cost.cpu_ns << " ns of CPU time in a " << cost.wall_ns << " ns wait";
}

// cudaDeviceScheduleBlockingSync: "Instruct CUDA to block the CPU thread on a synchronization primitive when
// waiting for the device to finish work." The wait lasts as long, and leaves the core free.
TEST_F(ScheduleFlags, BlockingSyncLeavesTheCoreFree) {
    ASSERT_CUDA_OK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    const Stream stream(cudaStreamNonBlocking);
    busy("kernel", stream.get(), 0.25, kWaitNs);
    const WaitCost cost = measure([&] { ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get())); });
    EXPECT_GE(cost.wall_ns, kWaitNs / 2);
    EXPECT_LE(cost.cpu_share(), 0.2) << cost.cpu_ns << " ns of CPU time in a " << cost.wall_ns << " ns wait";
}

// cudaGetDeviceFlags returns the flags cudaSetDeviceFlags recorded, the schedule flag among them; the
// default, before any is set, is cudaDeviceScheduleAuto (zero).
TEST_F(ScheduleFlags, ReadBackAsSet) {
    start_as_a_program_does();
    unsigned int flags = 1234;
    ASSERT_CUDA_OK(cudaGetDeviceFlags(&flags));
    EXPECT_EQ(flags & cudaDeviceScheduleMask, static_cast<unsigned int>(cudaDeviceScheduleAuto));
    ASSERT_CUDA_OK(cudaSetDeviceFlags(cudaDeviceScheduleYield));
    ASSERT_CUDA_OK(cudaGetDeviceFlags(&flags));
    EXPECT_EQ(flags & cudaDeviceScheduleMask, static_cast<unsigned int>(cudaDeviceScheduleYield));
}

using BlockingEvents = ScheduleFlags;

// cudaEventCreateWithFlags: "cudaEventBlockingSync: Specifies that event should use blocking synchronization.
// A host thread that uses cudaEventSynchronize() to wait on an event created with this flag will block until
// the event actually completes." Under the default schedule, which spins, such an event's wait leaves the core
// free, and an event without the flag keeps it busy.
TEST_F(BlockingEvents, BlockUnderASpinningSchedule) {
    start_as_a_program_does();
    const Stream stream(cudaStreamNonBlocking);
    const Event blocking(cudaEventBlockingSync | cudaEventDisableTiming);
    const Event spinning(cudaEventDisableTiming);

    busy("first", stream.get(), 0.25, kWaitNs);
    blocking.record(stream.get());
    const WaitCost blocked = measure([&] { ASSERT_CUDA_OK(cudaEventSynchronize(blocking.get())); });
    EXPECT_GE(blocked.wall_ns, kWaitNs / 2);
    EXPECT_LE(blocked.cpu_share(), 0.2) << "cudaEventBlockingSync: " << blocked.cpu_ns << " ns of CPU time in a "
                                        << blocked.wall_ns << " ns wait";

    busy("second", stream.get(), 0.25, kWaitNs);
    spinning.record(stream.get());
    const WaitCost spun = measure([&] { ASSERT_CUDA_OK(cudaEventSynchronize(spinning.get())); });
    EXPECT_GE(spun.wall_ns, kWaitNs / 2);
    EXPECT_GE(spun.cpu_share(), 0.8) << "an event without the flag: " << spun.cpu_ns << " ns of CPU time in a "
                                     << spun.wall_ns << " ns wait";
}

/// The simulator with CUDA_LAUNCH_BLOCKING set to `value` from its start (the runtime reads it when it starts:
/// reset_for_tests starts it again), and without it again after the test.
class LaunchBlocking : public SimGpuTest {
protected:
    void start_with(const char* value) {
        setenv("CUDA_LAUNCH_BLOCKING", value, 1);
        reset_for_tests();
        register_busy_kernel();
    }
    void TearDown() override {
        unsetenv("CUDA_LAUNCH_BLOCKING");
        SimGpuTest::TearDown();
    }
};

// The Programming Guide ("Asynchronous Concurrent Execution"): "Programmers can globally disable asynchronicity
// of kernel launches for all CUDA applications running on a system by setting the CUDA_LAUNCH_BLOCKING
// environment variable to 1." A launch then returns once its kernel has run: its stream is idle at once.
TEST_F(LaunchBlocking, ALaunchReturnsOnceItsKernelHasRun) {
    start_with("1");
    const Stream stream(cudaStreamNonBlocking);
    const std::uint64_t called = host_now_ns();
    busy("kernel", stream.get(), 0.25, kWaitNs);
    EXPECT_GE(host_now_ns() - called, kWaitNs);
    EXPECT_EQ(cudaStreamQuery(stream.get()), cudaSuccess);
}

// With CUDA_LAUNCH_BLOCKING=0 (or unset) launches are asynchronous: the launch returns while its kernel runs.
TEST_F(LaunchBlocking, WithZeroALaunchReturnsAtOnce) {
    start_with("0");
    const Stream stream(cudaStreamNonBlocking);
    const std::uint64_t called = host_now_ns();
    busy("kernel", stream.get(), 0.25, kWaitNs);
    EXPECT_LT(host_now_ns() - called, kWaitNs);
    EXPECT_EQ(cudaStreamQuery(stream.get()), cudaErrorNotReady);
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.get()));
}

}  // namespace
}  // namespace streamlab::simgpu::testing
