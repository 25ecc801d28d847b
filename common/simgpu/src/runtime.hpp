/// @file runtime.hpp
/// @brief What the runtime's entry points (runtime_*.cpp) share: how a stream handle is logged, and how
/// long moving bytes takes on the model.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

namespace streamlab::simgpu {

/// A stream handle as the course's tracer logs it (Timeline::stream_calls): the legacy NULL stream is 0
/// however it is named, the per-thread default stream is cudaStreamPerThread's value.
[[nodiscard]] inline std::uint64_t stream_key(cudaStream_t handle) {
    return handle == cudaStreamLegacy ? 0 : reinterpret_cast<std::uintptr_t>(handle);
}

/// An event handle as the tracer logs it.
[[nodiscard]] inline std::uint64_t event_key(cudaEvent_t handle) {
    return reinterpret_cast<std::uintptr_t>(handle);
}

/// How long moving `bytes` at `gb_per_s` (bytes per ns) takes, in ns: at least 1, so that every op the log
/// shows has a length.
[[nodiscard]] inline std::uint64_t transfer_ns(std::uint64_t bytes, double gb_per_s) {
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(bytes) / gb_per_s));
}

}  // namespace streamlab::simgpu
