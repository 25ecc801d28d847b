/// @file device_links.hpp
/// @brief The course's own table of how fast each kind of GPU can move data and run the workload kernel:
/// the bounds a judge holds a record's durations to (record_consistency.hpp), never a figure the record
/// itself states. A copy cannot beat its link, and a kernel cannot do its work faster than the chip can.
#pragma once

#include <string>

namespace streamlab::record {

/// The fastest one kind of GPU goes, from public specifications and the course's own measurements.
struct DeviceLinks {
    /// Matched within the device's name ("NVIDIA H200" holds "H200"); the table's first match is its kind.
    const char* name_part;
    /// One copy between host memory and the GPU, one direction, GB/s (10^9 bytes a second).
    double host_link_gb_s;
    /// One copy between two GPUs of one host, one direction, GB/s.
    double peer_link_gb_s;
    /// The device memory's bandwidth, GB/s: a copy within the GPU goes no faster.
    double memory_gb_s;
    /// The workload kernel's element-iterations per nanosecond that one SM does at most (workload.hpp:
    /// one element through `iterations` rotations), where the course measured it; 0 where it did not.
    double workload_per_sm_per_ns;
    /// The SMs of the whole chip (a MIG slice of it has fewer).
    int sm_count;
};

/// The kinds of GPU the course knows. A GH200 comes before the H200 its name contains.
///
/// Host links: PCIe 5.0 x16 carries 63 GB/s each way (32 GT/s on 16 lanes, 128b/130b), PCIe 4.0 x16 half
/// that, a GH200's NVLink-C2C 450 GB/s each way; the committed H200 and H100 records' fastest copy from
/// pinned memory moved 55.7 GB/s. Peer links are NVLink's per direction (NVLink 4: 450 GB/s, NVLink 3:
/// 300 GB/s). The workload rate is the fastest any committed H200 or H100 record's kernels ran (7090
/// element-iterations per ns over 132 SMs: 53.7 an SM); the check allows twice that (record_consistency.cpp).
inline constexpr DeviceLinks kKnownDevices[] = {
    {"GH200", 450, 450, 4900, 0, 132},
    {"H200", 64, 450, 4800, 54, 132},
    {"H100", 64, 450, 3900, 54, 132},
    {"A100", 32, 300, 2039, 0, 108},
};

/// A GPU the table does not know: bounds no GPU of today reaches (a host link twice NVLink-C2C's, peer
/// and memory links above any chip's), and a workload rate per SM twice what the fastest SM of today could
/// do at all (128 FP32 lanes at 3 GHz, four instructions an iteration: 96 per ns; an H200's SM does 54).
inline constexpr DeviceLinks kUnknownDevice{"", 1000, 2000, 10000, 200, 0};

/// The table's entry for a device named `name`, or kUnknownDevice (its name_part empty).
[[nodiscard]] inline const DeviceLinks& links_of(const std::string& name) {
    for (const DeviceLinks& known : kKnownDevices) {
        if (name.find(known.name_part) != std::string::npos) {
            return known;
        }
    }
    return kUnknownDevice;
}

}  // namespace streamlab::record
