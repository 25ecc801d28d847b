/// @file lab09_record.hpp
/// @brief Lab 09 in the record: what record_lab09.cpp (and python/record_lab09.py,
/// through streamlab.lab09) writes into its scenarios beyond timelines and
/// outputs, and the judges of test_lab09.cpp read back. Task 2's
/// reports and Task 3's waits, as the course observed them; the ways to wait that
/// choice.txt may name and the scenario that recorded each. Header only: the judges
/// link none of the lab's course side.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "streamlab/record.hpp"
#include "streamlab/timeline.hpp"
#include "wait_side.hpp"

namespace lab09::course {

// ---------------------------------------------------------------- Task 2: a late error

/// How the recording fails a tripwire scenario whose run_checked_pipeline threw
/// instead of returning the error: the message starts with these words, then what it threw.
inline constexpr const char* kThrewInsteadOfReporting = "run_checked_pipeline threw instead of returning the error: ";

// ------------------------------------------------------------ Task 3: the waiting host

/// A way to wait that choice.txt may name: a row of lab09_wait_modes' table.
struct WaitWay {
    const char* name;       ///< As the program's table and choice.txt write it.
    unsigned int schedule;  ///< The device's schedule flag it waits under (cudaDeviceScheduleAuto: left alone).
    const char* scenario;   ///< The recorded scenario in which the course's long job was waited for that way.
};

/// Every way choice.txt may name. spin, yield, blocking-sync and auto are
/// cudaStreamSynchronize under that schedule flag; event is your wait_blocking,
/// polling your wait_polling (the graded waits of the long job).
inline constexpr WaitWay kWaitWays[] = {
    {"spin", cudaDeviceScheduleSpin, "wait_spin"},
    {"yield", cudaDeviceScheduleYield, "wait_yield"},
    {"blocking-sync", cudaDeviceScheduleBlockingSync, "wait_blocking_sync"},
    {"auto", cudaDeviceScheduleAuto, "wait_auto"},
    {"event", cudaDeviceScheduleAuto, "wait_blocking_long"},
    {"polling", cudaDeviceScheduleAuto, "wait_polling_long"},
};

/// The way `name` names, or nullptr.
[[nodiscard]] inline const WaitWay* wait_way(const std::string& name) {
    for (const WaitWay& way : kWaitWays) {
        if (name == way.name) {
            return &way;
        }
    }
    return nullptr;
}

/// The environment variable that names the way (kWaitWays) whose schedule flag the
/// recording program sets before CUDA starts: a flag belongs to the device's
/// context, fixed when it is created, so each flag's wait has a process of its own.
inline constexpr const char* kScheduleVariable = "LAB09_WAIT_SCHEDULE";

/// The scenario of your wait `wait` ("wait_blocking", "wait_polling") for the job with `kernels` kernels.
[[nodiscard]] inline std::string job_scenario(const std::string& wait, int kernels) {
    return wait + (kernels == kShortJobKernels ? "_short" : "_long");
}

/// One wait as the course observed it, on the axis of the scenario's timeline.
struct WaitValues {
    std::int64_t called_ns = 0;            ///< When the wait was called, ns from the timeline's origin.
    std::int64_t returned_ns = 0;          ///< When it returned, ns from the timeline's origin.
    std::uint64_t cpu_ns = 0;              ///< The process's CPU time (every thread) between the two.
    std::uint64_t work_ns = 0;             ///< Time spent in the host's slices of work during the wait.
    int slices = 0;                        ///< Slices done during the wait.
    int slices_elsewhere = 0;              ///< Of those, slices run on a thread other than the waiting one.
    std::uint64_t mean_slice_ns = 0;       ///< The slices' mean length (the length asked for while none ran).
    unsigned int device_flags_before = 0;  ///< cudaGetDeviceFlags before the scenario's first wait (its warm-up).
    unsigned int device_flags_after = 0;   ///< cudaGetDeviceFlags after the observed wait.

    /// How long the wait took, ns.
    [[nodiscard]] std::uint64_t wall_ns() const { return static_cast<std::uint64_t>(returned_ns - called_ns); }
    /// CPU time over wall time: near 1 for a thread that spins, near 0 for one asleep.
    [[nodiscard]] double cpu_share() const {
        return wall_ns() == 0 ? 0.0 : static_cast<double>(cpu_ns) / static_cast<double>(wall_ns());
    }
    /// Time in the host's slices over wall time.
    [[nodiscard]] double work_share() const {
        return wall_ns() == 0 ? 0.0 : static_cast<double>(work_ns) / static_cast<double>(wall_ns());
    }
};

/// Writes `wait` into a scenario's values (the recording).
inline void put_wait(const WaitValues& wait, std::map<std::string, double>& values) {
    values["called_ns"] = static_cast<double>(wait.called_ns);
    values["returned_ns"] = static_cast<double>(wait.returned_ns);
    values["cpu_ns"] = static_cast<double>(wait.cpu_ns);
    values["work_ns"] = static_cast<double>(wait.work_ns);
    values["slices"] = wait.slices;
    values["slices_elsewhere"] = wait.slices_elsewhere;
    values["mean_slice_ns"] = static_cast<double>(wait.mean_slice_ns);
    values["device_flags_before"] = wait.device_flags_before;
    values["device_flags_after"] = wait.device_flags_after;
}

/// Reads back what put_wait wrote into `scenario` (a judge). Throws
/// streamlab::record::RecordFormatError naming the scenario when a value is missing.
[[nodiscard]] inline WaitValues wait_of(const streamlab::record::Scenario& scenario) {
    WaitValues wait;
    // A record is untrusted: each value is read into its type's range (ns: within 1e18 of the origin).
    using streamlab::record::whole_number;
    constexpr double kMostNs = 1e18;
    wait.called_ns = whole_number<std::int64_t>(scenario.value("called_ns"), -kMostNs, kMostNs);
    wait.returned_ns = whole_number<std::int64_t>(scenario.value("returned_ns"), -kMostNs, kMostNs);
    wait.cpu_ns = whole_number<std::uint64_t>(scenario.value("cpu_ns"), 0, kMostNs);
    wait.work_ns = whole_number<std::uint64_t>(scenario.value("work_ns"), 0, kMostNs);
    wait.slices = whole_number<int>(scenario.value("slices"), 0, 1e9);
    wait.slices_elsewhere = whole_number<int>(scenario.value("slices_elsewhere"), 0, 1e9);
    wait.mean_slice_ns = whole_number<std::uint64_t>(scenario.value("mean_slice_ns"), 0, kMostNs);
    wait.device_flags_before = whole_number<unsigned int>(scenario.value("device_flags_before"), 0, 1e9);
    wait.device_flags_after = whole_number<unsigned int>(scenario.value("device_flags_after"), 0, 1e9);
    return wait;
}

/// From the end of `timeline`'s last op to `returned_ns` (ns from its origin), in
/// ns: negative when the host returned before the GPU was done. 0 for a timeline
/// without ops.
[[nodiscard]] inline std::int64_t delay_after_last_op_ns(const streamlab::Timeline& timeline,
                                                         std::int64_t returned_ns) {
    if (timeline.ops.empty()) {
        return 0;
    }
    std::uint64_t last_end = 0;
    for (const streamlab::DeviceOp& op : timeline.ops) {
        last_end = std::max(last_end, op.end_ns);
    }
    return returned_ns - static_cast<std::int64_t>(last_end);
}

}  // namespace lab09::course
