#include "streamlab/bandwidth.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <tuple>

#include "json_file.hpp"
#include "streamlab/trace_file.hpp"

namespace streamlab {
namespace {

using ordered_json = nlohmann::ordered_json;

bool is_host_device_copy(OpKind kind) {
    return kind == OpKind::MemcpyH2D || kind == OpKind::MemcpyD2H;
}

/// One copy as the program asked for it: every record of one runtime call, joined.
struct Copy {
    OpKind direction = OpKind::MemcpyH2D;
    HostMemory memory = HostMemory::Unknown;
    std::uint64_t bytes = 0;
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
};

std::vector<Copy> copies_by_call(const std::vector<DeviceOp>& ops) {
    std::map<std::uint32_t, Copy> by_correlation;
    std::vector<Copy> uncorrelated;  // correlation id 0: nothing ties the record to a call
    for (const DeviceOp& op : ops) {
        if (!is_host_device_copy(op.kind)) {
            continue;
        }
        const Copy piece{op.kind, op.host_memory, op.bytes, op.start_ns, op.end_ns};
        if (op.correlation_id == 0) {
            uncorrelated.push_back(piece);
            continue;
        }
        const auto [entry, inserted] = by_correlation.emplace(op.correlation_id, piece);
        if (!inserted) {
            Copy& copy = entry->second;
            copy.bytes += op.bytes;
            copy.start_ns = std::min(copy.start_ns, op.start_ns);
            copy.end_ns = std::max(copy.end_ns, op.end_ns);
        }
    }
    std::vector<Copy> copies = std::move(uncorrelated);
    for (const auto& [id, copy] : by_correlation) {
        copies.push_back(copy);
    }
    return copies;
}

const char* memory_name_in_file(HostMemory memory) {
    if (memory != HostMemory::Pageable && memory != HostMemory::Pinned) {
        throw std::invalid_argument(std::string("a bandwidth sweep holds pageable or pinned copies, not ") +
                                    to_string(memory) + " ones");
    }
    return to_string(memory);
}

const char* direction_name_in_file(OpKind direction) {
    if (!is_host_device_copy(direction)) {
        throw std::invalid_argument(std::string("a bandwidth sweep holds H2D or D2H copies, not ") +
                                    to_string(direction));
    }
    return op_base_name(direction);  // "H2D" or "D2H"
}

}  // namespace

std::vector<BandwidthPoint> best_bandwidths(const std::vector<DeviceOp>& ops) {
    using Key = std::tuple<OpKind, HostMemory, std::uint64_t>;  // sorts H2D before D2H, pageable before pinned
    std::map<Key, BandwidthPoint> best;
    for (const Copy& copy : copies_by_call(ops)) {
        const std::uint64_t duration_ns = copy.end_ns - copy.start_ns;
        if (duration_ns == 0) {
            continue;
        }
        const double gbps = static_cast<double>(copy.bytes) / static_cast<double>(duration_ns);
        BandwidthPoint& point = best[Key{copy.direction, copy.memory, copy.bytes}];
        point.bytes = copy.bytes;
        point.direction = copy.direction;
        point.memory = copy.memory;
        point.gbps = std::max(point.gbps, gbps);
        ++point.copies;
    }
    std::vector<BandwidthPoint> points;
    points.reserve(best.size());
    for (const auto& [key, point] : best) {
        points.push_back(point);
    }
    return points;
}

double bandwidth_gbps(const std::vector<BandwidthPoint>& points, std::uint64_t bytes, OpKind direction,
                      HostMemory memory) {
    for (const BandwidthPoint& point : points) {
        if (point.bytes == bytes && point.direction == direction && point.memory == memory) {
            return point.gbps;
        }
    }
    return 0.0;
}

std::vector<std::size_t> power_of_two_sizes(std::size_t smallest, std::size_t largest) {
    std::vector<std::size_t> sizes;
    if (smallest == 0) {
        smallest = 1;
    }
    std::size_t size = 1;
    while (size <= smallest / 2) {
        size *= 2;  // the largest power of two <= smallest
    }
    for (; size <= largest && size != 0; size *= 2) {
        sizes.push_back(size);
    }
    return sizes;
}

std::size_t available_host_memory_bytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        std::istringstream fields(line);
        std::string key;
        std::size_t kib = 0;
        if (fields >> key >> kib && key == "MemAvailable:") {
            return kib * 1024;
        }
    }
    const long pages = ::sysconf(_SC_AVPHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) {
        return 0;
    }
    return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size);
}

std::size_t largest_copy_bytes(std::size_t wanted, std::size_t device_memory_bytes, std::size_t host_available_bytes) {
    constexpr std::size_t kSmallest = 4096;
    std::size_t limit = std::min(wanted, device_memory_bytes / 8);
    if (host_available_bytes > 0) {
        limit = std::min(limit, host_available_bytes / 8);
    }
    const std::vector<std::size_t> sizes = power_of_two_sizes(kSmallest, limit);
    return sizes.empty() ? kSmallest : sizes.back();
}

std::string bandwidth_sweep_to_json_string(const BandwidthSweep& sweep) {
    ordered_json points = ordered_json::array();
    for (const BandwidthPoint& point : sweep.points) {
        points.push_back(ordered_json{
            {"bytes", point.bytes},
            {"direction", direction_name_in_file(point.direction)},
            {"memory", memory_name_in_file(point.memory)},
            {"gbps", point.gbps},
        });
    }
    return detail::json_file_text(detail::metadata_block(kBandwidthFormatName, sweep.program, sweep.date, sweep.device),
                                  {{"points", std::move(points)}});
}

void write_bandwidth_sweep(const std::string& path, const BandwidthSweep& sweep) {
    detail::write_file_atomically(path, bandwidth_sweep_to_json_string(sweep), "bandwidth sweep file");
}

}  // namespace streamlab
