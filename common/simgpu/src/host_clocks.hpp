/// @file host_clocks.hpp
/// @brief The program's clocks on the simulated GPU (host_clocks.cpp), and the real clocks the simulator
/// itself reads.
///
/// On a real GPU a host thread that waits for the device (cudaStreamSynchronize, a synchronous copy) is
/// blocked that long, and every clock of the host shows it; a launch returns at once. The simulator's host
/// thread does the GPU's work on the CPU instead, and waits for nothing: only the simulated host clock
/// (simgpu.hpp's host_now_ns) leaves the one out and adds the other. So that a program timing itself with
/// its own clocks (std::chrono::steady_clock, system_clock) sees what it would see on the GPU modelled,
/// those clocks read the simulated host clock: host_clocks.cpp defines clock_gettime, which the program and
/// the C++ library call in place of the C library's.
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>

namespace streamlab::simgpu {

/// `clock` (CLOCK_MONOTONIC, CLOCK_REALTIME...) as the C library reads it, in ns: real time, for the
/// simulator's own use.
[[nodiscard]] std::uint64_t real_clock_ns(clockid_t clock);

/// Now on the real steady clock (std::chrono::steady_clock::now() reads the simulated one).
[[nodiscard]] std::chrono::steady_clock::time_point real_steady_now();

}  // namespace streamlab::simgpu
