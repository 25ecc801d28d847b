// Bandwidth from recorded copies, sweep sizes, and the bandwidth sweep file,
// on synthetic timelines whose answers can be worked out by hand.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "op_builder.hpp"
#include "streamlab/bandwidth.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using streamlab::BandwidthPoint;
using streamlab::DeviceOp;
using streamlab::HostMemory;
using streamlab::OpKind;

constexpr std::size_t kMiB = std::size_t{1} << 20;

DeviceOp copy(OpKind kind, HostMemory memory, std::uint64_t bytes, std::uint64_t start, std::uint64_t end,
              std::uint32_t correlation) {
    return streamlab::testing_ops::OpBuilder(kind)
        .name(streamlab::op_base_name(kind))
        .host(memory)
        .bytes(bytes)
        .span(start, end)
        .correlation(correlation);
}

json read_json(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return json::parse(text.str());
}

std::set<std::string> keys_of(const json& object) {
    std::set<std::string> keys;
    for (const auto& [key, value] : object.items()) {
        keys.insert(key);
    }
    return keys;
}

streamlab::BandwidthSweep sample_sweep() {
    streamlab::BandwidthSweep sweep;
    sweep.program = "synthetic: sweep writer test";
    sweep.date = "2026-01-01T00:00:00Z";
    sweep.device.name = "synthetic device";
    sweep.device.cc_major = 9;
    sweep.device.sm_count = 132;
    sweep.device.copy_engines = 3;
    sweep.device.concurrent_kernels = true;
    sweep.device.total_memory_bytes = 150000000000;
    sweep.device.driver_version = 13000;
    sweep.device.runtime_version = 13000;
    sweep.points = {{4096, OpKind::MemcpyH2D, HostMemory::Pinned, 2.5, 3},
                    {4096, OpKind::MemcpyD2H, HostMemory::Pageable, 1.25, 3}};
    return sweep;
}

// ---------------------------------------------------------------- bandwidth from copies

TEST(BestBandwidths, IsBytesOverTracedDurationAndTheBestOfRepetitions) {
    // 1 MiB in 100 us and in 50 us: the best is 1 MiB / 50 us.
    const std::vector<DeviceOp> ops = {copy(OpKind::MemcpyH2D, HostMemory::Pinned, kMiB, 0, 100000, 1),
                                       copy(OpKind::MemcpyH2D, HostMemory::Pinned, kMiB, 200000, 250000, 2)};
    const auto points = streamlab::best_bandwidths(ops);
    ASSERT_EQ(points.size(), 1U);
    EXPECT_EQ(points[0].bytes, kMiB);
    EXPECT_EQ(points[0].copies, 2U);
    EXPECT_DOUBLE_EQ(points[0].gbps, static_cast<double>(kMiB) / 50000.0);
}

TEST(BestBandwidths, KeepsSizesDirectionsAndMemoryKindsApartInOrder) {
    const std::vector<DeviceOp> ops = {
        copy(OpKind::MemcpyD2H, HostMemory::Pinned, 4096, 0, 10, 1),
        copy(OpKind::MemcpyH2D, HostMemory::Pinned, 8192, 20, 30, 2),
        copy(OpKind::MemcpyH2D, HostMemory::Pageable, 4096, 40, 50, 3),
        copy(OpKind::MemcpyH2D, HostMemory::Pinned, 4096, 60, 70, 4),
    };
    const auto points = streamlab::best_bandwidths(ops);
    ASSERT_EQ(points.size(), 4U);
    EXPECT_EQ(points[0].direction, OpKind::MemcpyH2D);
    EXPECT_EQ(points[0].memory, HostMemory::Pageable);
    EXPECT_EQ(points[1].memory, HostMemory::Pinned);
    EXPECT_EQ(points[1].bytes, 4096U);
    EXPECT_EQ(points[2].bytes, 8192U);
    EXPECT_EQ(points[3].direction, OpKind::MemcpyD2H);
}

TEST(BestBandwidths, JoinsTheRecordsOfOneCallAndSkipsWhatIsNotAHostCopy) {
    // One pageable call recorded as two pieces with a staging gap: 2 MiB from 0 to 400 us.
    DeviceOp kernel;
    kernel.kind = OpKind::Kernel;
    kernel.start_ns = 0;
    kernel.end_ns = 5;
    const std::vector<DeviceOp> ops = {
        copy(OpKind::MemcpyH2D, HostMemory::Pageable, kMiB, 0, 100000, 7),
        copy(OpKind::MemcpyH2D, HostMemory::Pageable, kMiB, 300000, 400000, 7),
        copy(OpKind::MemcpyD2D, HostMemory::Device, kMiB, 0, 10, 8),
        copy(OpKind::MemcpyD2H, HostMemory::Pinned, kMiB, 50, 50, 9),  // zero duration
        kernel,
    };
    const auto points = streamlab::best_bandwidths(ops);
    ASSERT_EQ(points.size(), 1U);
    EXPECT_EQ(points[0].bytes, 2 * kMiB);
    EXPECT_EQ(points[0].copies, 1U);
    EXPECT_DOUBLE_EQ(points[0].gbps, 2.0 * kMiB / 400000.0);
}

TEST(BestBandwidths, LooksUpOnePointOrZero) {
    const std::vector<BandwidthPoint> points = {{4096, OpKind::MemcpyH2D, HostMemory::Pinned, 3.0, 1}};
    EXPECT_DOUBLE_EQ(streamlab::bandwidth_gbps(points, 4096, OpKind::MemcpyH2D, HostMemory::Pinned), 3.0);
    EXPECT_DOUBLE_EQ(streamlab::bandwidth_gbps(points, 4096, OpKind::MemcpyH2D, HostMemory::Pageable), 0.0);
    EXPECT_DOUBLE_EQ(streamlab::bandwidth_gbps(points, 4096, OpKind::MemcpyD2H, HostMemory::Pinned), 0.0);
    EXPECT_DOUBLE_EQ(streamlab::bandwidth_gbps(points, 8192, OpKind::MemcpyH2D, HostMemory::Pinned), 0.0);
}

// ---------------------------------------------------------------- sweep sizes

TEST(SweepSizes, ArePowersOfTwoFromSmallestToLargest) {
    const auto sizes = streamlab::power_of_two_sizes(4096, 256 * kMiB);
    ASSERT_EQ(sizes.size(), 17U);  // 2^12 .. 2^28
    EXPECT_EQ(sizes.front(), 4096U);
    EXPECT_EQ(sizes.back(), 256 * kMiB);
    for (std::size_t i = 1; i < sizes.size(); ++i) {
        EXPECT_EQ(sizes[i], 2 * sizes[i - 1]);
    }
    EXPECT_EQ(streamlab::power_of_two_sizes(5000, 20000), (std::vector<std::size_t>{4096, 8192, 16384}));
    EXPECT_TRUE(streamlab::power_of_two_sizes(8192, 4096).empty());
}

TEST(SweepSizes, LargestCopyLeavesRoomOnDeviceAndHost) {
    const std::size_t GiB = 1024 * kMiB;
    // A big machine: the wanted size.
    EXPECT_EQ(streamlab::largest_copy_bytes(256 * kMiB, 141 * GiB, 500 * GiB), 256 * kMiB);
    // A 1 GiB GPU: an eighth of it.
    EXPECT_EQ(streamlab::largest_copy_bytes(256 * kMiB, GiB, 500 * GiB), 128 * kMiB);
    // 1.5 GiB of free host memory: the power of two below an eighth of it.
    EXPECT_EQ(streamlab::largest_copy_bytes(256 * kMiB, 141 * GiB, 3 * GiB / 2), 128 * kMiB);
    // Unknown host memory does not limit; nothing goes below 4 KiB.
    EXPECT_EQ(streamlab::largest_copy_bytes(256 * kMiB, 141 * GiB, 0), 256 * kMiB);
    EXPECT_EQ(streamlab::largest_copy_bytes(256 * kMiB, 1000, 0), 4096U);
}

TEST(SweepSizes, AvailableHostMemoryIsReadOnLinux) {
    EXPECT_GT(streamlab::available_host_memory_bytes(), 0U) << "neither /proc/meminfo nor sysconf answered";
}

// ---------------------------------------------------------------- the sweep file

TEST(SweepFile, HasTheMetadataAndPointsTheToolsRead) {
    const json written = json::parse(streamlab::bandwidth_sweep_to_json_string(sample_sweep()));
    const json fixture = read_json(std::string(STREAMLAB_FIXTURES) + "/bandwidth_sweep.json");
    // Same keys as the hand-made fixture the Python tools are tested on.
    EXPECT_EQ(keys_of(written), keys_of(fixture));
    EXPECT_EQ(keys_of(written["otherData"]), keys_of(fixture["otherData"]));
    EXPECT_EQ(keys_of(written["otherData"]["device"]), keys_of(fixture["otherData"]["device"]));
    EXPECT_EQ(keys_of(written["points"][0]), keys_of(fixture["points"][0]));

    EXPECT_EQ(written["otherData"]["format"], "streamlab-bandwidth");
    EXPECT_EQ(written["otherData"]["version"], 1);
    EXPECT_EQ(written["otherData"]["program"], "synthetic: sweep writer test");
    EXPECT_EQ(written["otherData"]["device"]["compute_capability"], "9.0");
    EXPECT_EQ(written["otherData"]["device"]["driver_version"], "13.0");
    ASSERT_EQ(written["points"].size(), 2U);
    EXPECT_EQ(written["points"][0], (json{{"bytes", 4096}, {"direction", "H2D"}, {"memory", "pinned"}, {"gbps", 2.5}}));
    EXPECT_EQ(written["points"][1]["direction"], "D2H");
    EXPECT_EQ(written["points"][1]["memory"], "pageable");
}

TEST(SweepFile, RefusesPointsTheFormatCannotHold) {
    streamlab::BandwidthSweep sweep = sample_sweep();
    sweep.points[0].memory = HostMemory::Managed;
    EXPECT_THROW((void)streamlab::bandwidth_sweep_to_json_string(sweep), std::invalid_argument);
    sweep = sample_sweep();
    sweep.points[0].direction = OpKind::MemcpyD2D;
    EXPECT_THROW((void)streamlab::bandwidth_sweep_to_json_string(sweep), std::invalid_argument);
}

TEST(SweepFile, IsWrittenWithItsFolders) {
    const fs::path folder = fs::temp_directory_path() / ("streamlab-sweep-test-" + std::to_string(::getpid()));
    fs::remove_all(folder);
    const fs::path path = folder / "nested" / "sweep.json";
    streamlab::write_bandwidth_sweep(path.string(), sample_sweep());
    EXPECT_EQ(read_json(path.string())["points"].size(), 2U);
    fs::remove_all(folder);
    EXPECT_THROW(streamlab::write_bandwidth_sweep("/proc/streamlab-cannot-write/sweep.json", sample_sweep()),
                 std::runtime_error);
}

}  // namespace
