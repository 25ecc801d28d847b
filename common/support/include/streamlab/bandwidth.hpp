/// @file bandwidth.hpp
/// @brief Copy bandwidth as the GPU recorded it, the sizes of a bandwidth sweep,
/// and the sweep file that `course plot` draws.
///
/// A bandwidth here is always bytes divided by the copy's duration on the GPU's
/// own timeline (CUPTI), never a host clock: the host's view of a copy includes
/// the call's overhead and, for pageable memory, the time spent staging.
///
/// @code
/// const streamlab::Timeline timeline = streamlab::record_timeline("sweep", [&] { /* copies */ });
/// const auto points = streamlab::best_bandwidths(timeline.ops);
/// const double gbps = streamlab::bandwidth_gbps(points, 1 << 20, streamlab::OpKind::MemcpyH2D,
///                                               streamlab::HostMemory::Pinned);
/// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "streamlab/timeline.hpp"

namespace streamlab {

/// The best bandwidth seen for copies of one size, one direction and one kind of host memory.
struct BandwidthPoint {
    std::uint64_t bytes = 0;                 ///< Bytes per copy.
    OpKind direction = OpKind::MemcpyH2D;    ///< OpKind::MemcpyH2D or OpKind::MemcpyD2H.
    HostMemory memory = HostMemory::Pinned;  ///< The host buffer's kind, as CUPTI recorded it.
    double gbps = 0.0;                       ///< Bytes per traced nanosecond: GB/s (10^9 bytes per second).
    std::size_t copies = 0;                  ///< How many copies the best was chosen from.
};

/// The best (highest) bandwidth for every (size, direction, host memory) among
/// the host-device copies in `ops`; kernels and other copies are ignored.
///
/// One runtime call may reach the timeline as several records (they share a
/// correlation id): such a copy counts once, with all its bytes, from its first
/// record's start to its last record's end. Copies of zero duration are skipped.
/// Points come sorted by direction (H2D first), memory, then size.
[[nodiscard]] std::vector<BandwidthPoint> best_bandwidths(const std::vector<DeviceOp>& ops);

/// The bandwidth of the point for (`bytes`, `direction`, `memory`) in `points`, or 0 when there is none.
[[nodiscard]] double bandwidth_gbps(const std::vector<BandwidthPoint>& points, std::uint64_t bytes, OpKind direction,
                                    HostMemory memory);

/// Powers of two from `smallest` to `largest` (both rounded down to a power of
/// two), ascending: 4096, 8192, ..., `largest`. Empty when `largest` < `smallest`.
[[nodiscard]] std::vector<std::size_t> power_of_two_sizes(std::size_t smallest, std::size_t largest);

/// Host memory the system could give this process now, in bytes: MemAvailable
/// from /proc/meminfo, or free pages times the page size where that is missing.
/// 0 when neither can be read.
[[nodiscard]] std::size_t available_host_memory_bytes();

/// The largest copy a sweep should make: the largest power of two that is at
/// most `wanted`, at most an eighth of the device's memory and at most an eighth
/// of the available host memory (a sweep holds a pageable and a pinned buffer
/// of that size, and the machine must keep working). Never below 4 KiB.
/// A host memory of 0 (unknown) does not limit the size.
[[nodiscard]] std::size_t largest_copy_bytes(std::size_t wanted, std::size_t device_memory_bytes,
                                             std::size_t host_available_bytes);

/// `otherData.format` of a bandwidth sweep file (common/TRACE_FORMAT.md, "Other files the labs write").
inline constexpr const char* kBandwidthFormatName = "streamlab-bandwidth";

/// A bandwidth sweep as its file stores it.
struct BandwidthSweep {
    std::string program;                 ///< What was measured.
    std::string date;                    ///< UTC ISO 8601 time of the measurement (a Timeline's `date`).
    DeviceFacts device;                  ///< The device it was measured on.
    std::vector<BandwidthPoint> points;  ///< The measured points: H2D or D2H, pageable or pinned.
};

/// The sweep file's text: the metadata block trace files carry, with format
/// "streamlab-bandwidth", and one line per point. Throws std::invalid_argument
/// for a point that is not H2D or D2H, or whose memory is not pageable or pinned
/// (the file format holds only those).
[[nodiscard]] std::string bandwidth_sweep_to_json_string(const BandwidthSweep& sweep);

/// Writes the sweep file to `path`, creating missing parent folders.
/// Throws std::runtime_error when the file cannot be written, and
/// std::invalid_argument as bandwidth_sweep_to_json_string does.
void write_bandwidth_sweep(const std::string& path, const BandwidthSweep& sweep);

}  // namespace streamlab
