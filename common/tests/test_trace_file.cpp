// Trace files: what the writer produces, that reading gives back what was written,
// and that every kind of broken file is refused with a message that says why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "op_builder.hpp"
#include "streamlab/timeline.hpp"
#include "streamlab/trace_file.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using streamlab::DeviceOp;
using streamlab::HostMemory;
using streamlab::OpKind;
using streamlab::StreamKind;
using streamlab::Timeline;
using streamlab::TraceFormatError;

std::string fixture(const std::string& name) {
    return std::string(STREAMLAB_FIXTURES) + "/" + name;
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

DeviceOp make_op(OpKind kind, std::string name, std::string label, std::uint32_t stream, StreamKind stream_kind,
                 std::uint64_t start, std::uint64_t end, std::uint64_t bytes, HostMemory memory,
                 std::uint32_t correlation) {
    return streamlab::testing_ops::OpBuilder(kind)
        .name(std::move(name))
        .label(std::move(label))
        .stream(stream, stream_kind)
        .span(start, end)
        .bytes(bytes)
        .host(memory)
        .correlation(correlation);
}

// A timeline with one op of every kind, every stream kind, and values that
// would be damaged by a detour through a double or a 32-bit integer.
Timeline sample_timeline() {
    Timeline timeline;
    timeline.program = "synthetic: round-trip sample";
    timeline.date = "2026-11-30T12:00:00Z";
    timeline.origin_ns = 1'764'504'000'123'456'789ULL;
    timeline.dropped_records = 3;
    timeline.device.name = "Synthetic GPU";
    timeline.device.cc_major = 8;
    timeline.device.cc_minor = 6;
    timeline.device.sm_count = 84;
    timeline.device.copy_engines = 1;
    timeline.device.concurrent_kernels = true;
    timeline.device.total_memory_bytes = 25'757'220'864ULL;
    timeline.device.driver_version = 12080;
    timeline.device.runtime_version = 13000;
    timeline.ops = {
        make_op(OpKind::MemcpyH2D, "H2D", "1", 13, StreamKind::Created, 0, 4500, 1 << 20, HostMemory::Pinned, 42),
        make_op(OpKind::Kernel, "workload_kernel(float const*, float*, unsigned long, int)", "1", 13,
                StreamKind::Created, 4500, 9001, 0, HostMemory::NotApplicable, 43),
        make_op(OpKind::Kernel, "fill_kernel", "", 7, StreamKind::LegacyNull, 9001, 9100, 0, HostMemory::NotApplicable,
                44),
        make_op(OpKind::MemcpyD2H, "D2H", "", 7, StreamKind::LegacyNull, 9100, 9100, 4096, HostMemory::Pageable, 45),
        make_op(OpKind::MemcpyD2D, "D2D", "copy", 2, StreamKind::PerThreadDefault, 9200, 9300, 64, HostMemory::Device,
                46),
        make_op(OpKind::MemcpyOther, "memcpy", "", 14, StreamKind::Created, 9300, 9400, 8, HostMemory::Managed, 47),
        make_op(OpKind::MemcpyP2P, "P2P", "gather", 15, StreamKind::Created, 9350, 9450, 1 << 20, HostMemory::Device,
                48),
        make_op(OpKind::Memset, "memset", "poison", 14, StreamKind::Created, 9400, 123'456'789'012ULL, 1 << 30,
                HostMemory::NotApplicable, 4'000'000'000U),
    };
    // A kernel that a graph launch ran; its node id needs more than 53 bits.
    timeline.ops[1].graph_id = 5;
    timeline.ops[1].graph_node_id = (std::uint64_t{1} << 60U) + 3;
    // A copy from GPU 1 to GPU 0, run by GPU 0's engine.
    timeline.ops[6].source_device = 1;
    timeline.ops[6].destination_device = 0;
    timeline.marks = {{"launches returned", 1200}, {"host work done", 8000}};
    return timeline;
}

/// Every field a trace file stores, as one comparable (and printable) tuple.
auto stored_fields(const DeviceOp& op) {
    return std::tie(op.kind, op.name, op.label, op.device_id, op.stream_id, op.stream_kind, op.start_ns, op.end_ns,
                    op.bytes, op.host_memory, op.correlation_id, op.graph_id, op.graph_node_id, op.source_device,
                    op.destination_device);
}

void expect_same_ops(const std::vector<DeviceOp>& actual, const std::vector<DeviceOp>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        SCOPED_TRACE("op " + std::to_string(i));
        EXPECT_EQ(stored_fields(actual[i]), stored_fields(expected[i]));
    }
}

// Each test gets its own folder under the system's temporary folder.
class TraceFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        folder_ =
            fs::temp_directory_path() / ("streamlab-trace-test-" + std::to_string(::getpid()) + "-" + test->name());
        fs::remove_all(folder_);
        fs::create_directories(folder_);
    }
    void TearDown() override { fs::remove_all(folder_); }

    fs::path folder_;
};

// ---------------------------------------------------------------- spellings

TEST(TraceSpellings, EveryEnumValueReadsBackFromItsSpelling) {
    for (const OpKind kind : {OpKind::Kernel, OpKind::MemcpyH2D, OpKind::MemcpyD2H, OpKind::MemcpyD2D,
                              OpKind::MemcpyP2P, OpKind::MemcpyOther, OpKind::Memset}) {
        EXPECT_EQ(streamlab::op_kind_from_string(streamlab::to_string(kind)), kind) << streamlab::to_string(kind);
    }
    for (const HostMemory memory : {HostMemory::NotApplicable, HostMemory::Pageable, HostMemory::Pinned,
                                    HostMemory::Managed, HostMemory::Device, HostMemory::Unknown}) {
        EXPECT_EQ(streamlab::host_memory_from_string(streamlab::to_string(memory)), memory)
            << streamlab::to_string(memory);
    }
    for (const StreamKind kind : {StreamKind::Created, StreamKind::LegacyNull, StreamKind::PerThreadDefault}) {
        EXPECT_EQ(streamlab::stream_kind_from_string(streamlab::to_string(kind)), kind) << streamlab::to_string(kind);
    }
}

TEST(TraceSpellings, TheFormatDocumentsSpellingsAreUsed) {
    EXPECT_STREQ(streamlab::to_string(OpKind::MemcpyH2D), "memcpy_h2d");
    EXPECT_STREQ(streamlab::to_string(OpKind::MemcpyOther), "memcpy_other");
    EXPECT_STREQ(streamlab::to_string(OpKind::MemcpyP2P), "memcpy_p2p");
    EXPECT_STREQ(streamlab::to_string(HostMemory::Pinned), "pinned");
    EXPECT_STREQ(streamlab::to_string(StreamKind::LegacyNull), "legacy_null");
    EXPECT_STREQ(streamlab::to_string(StreamKind::PerThreadDefault), "per_thread_default");
}

TEST(TraceSpellings, UnknownSpellingsAreRefusedByName) {
    try {
        (void)streamlab::op_kind_from_string("memcpy_h2h");
        FAIL() << "no TraceFormatError";
    } catch (const TraceFormatError& error) {
        EXPECT_NE(std::string(error.what()).find("\"memcpy_h2h\""), std::string::npos) << error.what();
    }
    EXPECT_THROW((void)streamlab::host_memory_from_string("Pinned"), TraceFormatError);
    EXPECT_THROW((void)streamlab::stream_kind_from_string(""), TraceFormatError);
}

TEST(TraceSpellings, DisplayNamesFollowTheFormat) {
    struct Case {
        OpKind kind;
        const char* label;
        const char* expected;
    };
    const Case cases[] = {
        {OpKind::Kernel, "", "workload_kernel"},
        {OpKind::Kernel, "2", "K_2"},
        {OpKind::MemcpyH2D, "2", "H2D_2"},
        {OpKind::MemcpyD2H, "", "D2H"},
        {OpKind::MemcpyD2D, "", "D2D"},
        {OpKind::MemcpyOther, "", "memcpy"},
        {OpKind::MemcpyP2P, "gather", "P2P_gather"},
        {OpKind::Memset, "poison", "memset_poison"},
    };
    for (const Case& c : cases) {
        DeviceOp op;
        op.kind = c.kind;
        op.name = "workload_kernel";  // a kernel's own name; the others are named by their kind
        op.label = c.label;
        EXPECT_EQ(streamlab::display_name(op), c.expected) << streamlab::to_string(c.kind) << " '" << c.label << "'";
    }
}

// ---------------------------------------------------------------- writing

TEST(TraceWriting, EachGpuIsAGroupOfTracksAndReadsBack) {
    Timeline timeline = sample_timeline();
    DeviceOp other = timeline.ops[0];  // the same stream id, on the second GPU
    other.device_id = 1;
    other.start_ns += 10;
    other.end_ns += 10;
    timeline.ops.push_back(other);
    const json root = json::parse(streamlab::trace_to_json_string(timeline));
    std::set<std::pair<int, int>> tracks;
    std::map<int, std::string> groups;
    for (const json& event : root["traceEvents"]) {
        if (event["ph"] == "M" && event["name"] == "thread_name" && event["pid"] != 0) {
            tracks.insert({event["pid"].get<int>(), event["tid"].get<int>()});
        } else if (event["ph"] == "M" && event["name"] == "process_name") {
            groups[event["pid"].get<int>()] = event["args"]["name"].get<std::string>();
        }
    }
    EXPECT_TRUE(tracks.count({1, 13}) == 1 && tracks.count({2, 13}) == 1);
    EXPECT_EQ(groups, (std::map<int, std::string>{{1, "GPU 0"}, {2, "GPU 1"}}));
    const Timeline read = streamlab::parse_trace(streamlab::trace_to_json_string(timeline));
    std::vector<DeviceOp> expected = timeline.ops;
    std::stable_sort(expected.begin(), expected.end(),
                     [](const DeviceOp& a, const DeviceOp& b) { return a.start_ns < b.start_ns; });
    expect_same_ops(read.ops, expected);
}

TEST(TraceWriting, OneGpusFileNamesNoGroupOfTracks) {
    const json root = json::parse(streamlab::trace_to_json_string(sample_timeline()));
    for (const json& event : root["traceEvents"]) {
        EXPECT_NE(event["name"], "process_name");
        if (event["ph"] == "X" && event.value("cat", "") != "nvtx") {
            EXPECT_EQ(event["pid"], 1);
        }
    }
}

TEST(TraceWriting, EventsAreChromeTraceEventsWithExactTimesInArgs) {
    const Timeline timeline = sample_timeline();
    const json root = json::parse(streamlab::trace_to_json_string(timeline));
    EXPECT_EQ(root["displayTimeUnit"], "ns");
    EXPECT_EQ(root["otherData"]["format"], "streamlab-trace");
    EXPECT_EQ(root["otherData"]["version"], 1);
    EXPECT_EQ(root["otherData"]["device"]["compute_capability"], "8.6");
    EXPECT_EQ(root["otherData"]["device"]["driver_version"], "12.8");
    EXPECT_EQ(root["otherData"]["device"]["runtime_version"], "13.0");
    EXPECT_EQ(root["otherData"]["origin_ns"].get<std::uint64_t>(), timeline.origin_ns);

    std::map<int, std::string> track_names;
    std::vector<json> ops;
    std::vector<json> marks;
    for (const json& event : root["traceEvents"]) {
        if (event["ph"] == "M") {
            EXPECT_EQ(event["name"], "thread_name");
            EXPECT_EQ(event["pid"], 1);
            track_names[event["tid"].get<int>()] = event["args"]["name"].get<std::string>();
        } else if (event["ph"] == "X") {
            ops.push_back(event);
        } else {
            marks.push_back(event);
        }
    }
    const std::map<int, std::string> expected_tracks = {{2, "default stream (per-thread)"},
                                                        {7, "NULL stream (legacy)"},
                                                        {13, "stream 13"},
                                                        {14, "stream 14"},
                                                        {15, "stream 15"}};
    EXPECT_EQ(track_names, expected_tracks);

    ASSERT_EQ(ops.size(), timeline.ops.size());
    const json& h2d = ops[0];
    EXPECT_EQ(h2d["pid"], 1);
    EXPECT_EQ(h2d["tid"], 13);
    EXPECT_EQ(h2d["name"], "H2D_1");
    EXPECT_EQ(h2d["cat"], "memcpy_h2d");
    EXPECT_DOUBLE_EQ(h2d["ts"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(h2d["dur"].get<double>(), 4.5);  // microseconds
    EXPECT_EQ(h2d["args"]["start_ns"], 0);
    EXPECT_EQ(h2d["args"]["end_ns"], 4500);
    EXPECT_EQ(h2d["args"]["host_memory"], "pinned");
    EXPECT_EQ(h2d["args"]["bytes"], 1 << 20);
    const json& kernel = ops[1];
    EXPECT_EQ(kernel["name"], "K_1");
    EXPECT_EQ(kernel["args"]["kernel_name"], timeline.ops[1].name);
    EXPECT_DOUBLE_EQ(kernel["ts"].get<double>(), 4.5);
    EXPECT_FALSE(kernel["args"].contains("host_memory"));
    EXPECT_EQ(kernel["args"]["graph_id"], 5);
    EXPECT_FALSE(h2d["args"].contains("graph_id")) << "ops no graph ran keep the old keys only";
    EXPECT_EQ(ops[2]["name"], "fill_kernel");
    EXPECT_EQ(ops[2]["args"]["stream_kind"], "legacy_null");
    const json& peer = ops[6];
    EXPECT_EQ(peer["name"], "P2P_gather");
    EXPECT_EQ(peer["args"]["source_device"], 1);
    EXPECT_EQ(peer["args"]["destination_device"], 0);
    EXPECT_FALSE(ops[5]["args"].contains("source_device")) << "only copies between GPUs name two devices";
    EXPECT_FALSE(ops[7]["args"].contains("host_memory")) << "memsets have bytes only";
    EXPECT_EQ(ops[7]["args"]["bytes"], 1 << 30);

    ASSERT_EQ(marks.size(), 2U);
    EXPECT_EQ(marks[0]["ph"], "i");
    EXPECT_EQ(marks[0]["s"], "p");
    EXPECT_EQ(marks[0]["pid"], 0);
    EXPECT_EQ(marks[0]["args"]["time_ns"], 1200);
    EXPECT_DOUBLE_EQ(marks[0]["ts"].get<double>(), 1.2);
}

TEST_F(TraceFileTest, WriteThenReadGivesBackTheSameTimeline) {
    const Timeline written = sample_timeline();
    const std::string path = (folder_ / "sample.json").string();
    streamlab::write_trace(path, written);
    const Timeline read = streamlab::read_trace(path);

    expect_same_ops(read.ops, written.ops);
    ASSERT_EQ(read.marks.size(), written.marks.size());
    for (std::size_t i = 0; i < written.marks.size(); ++i) {
        EXPECT_EQ(read.marks[i].name, written.marks[i].name);
        EXPECT_EQ(read.marks[i].time_ns, written.marks[i].time_ns);
    }
    EXPECT_EQ(read.program, written.program);
    EXPECT_EQ(read.date, written.date);
    EXPECT_EQ(read.origin_ns, written.origin_ns);
    EXPECT_EQ(read.dropped_records, written.dropped_records);
    EXPECT_EQ(read.device.name, written.device.name);
    EXPECT_EQ(read.device.cc_major, written.device.cc_major);
    EXPECT_EQ(read.device.cc_minor, written.device.cc_minor);
    EXPECT_EQ(read.device.sm_count, written.device.sm_count);
    EXPECT_EQ(read.device.copy_engines, written.device.copy_engines);
    EXPECT_EQ(read.device.concurrent_kernels, written.device.concurrent_kernels);
    EXPECT_EQ(read.device.total_memory_bytes, written.device.total_memory_bytes);
    EXPECT_EQ(read.device.driver_version, written.device.driver_version);
    EXPECT_EQ(read.device.runtime_version, written.device.runtime_version);

    // The text itself is stable: writing what was read gives the same file.
    EXPECT_EQ(streamlab::trace_to_json_string(read), read_text(path));
}

TEST_F(TraceFileTest, ReadingSortsOpsByStartAndMarksByTime) {
    Timeline timeline = sample_timeline();
    std::reverse(timeline.ops.begin(), timeline.ops.end());
    std::reverse(timeline.marks.begin(), timeline.marks.end());
    const Timeline read = streamlab::parse_trace(streamlab::trace_to_json_string(timeline));
    expect_same_ops(read.ops, sample_timeline().ops);
    EXPECT_EQ(read.marks.front().name, "launches returned");
}

TEST_F(TraceFileTest, WritingReplacesTheFileAndLeavesNoTemporaryFileBehind) {
    const fs::path path = folder_ / "nested" / "trace.json";
    Timeline timeline = sample_timeline();
    streamlab::write_trace(path.string(), timeline);
    timeline.program = "second recording";
    timeline.ops.resize(2);
    streamlab::write_trace(path.string(), timeline);

    const Timeline read = streamlab::read_trace(path.string());
    EXPECT_EQ(read.program, "second recording");
    EXPECT_EQ(read.ops.size(), 2U);
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(path.parent_path())) {
        files.push_back(entry.path().filename().string());
    }
    EXPECT_EQ(files, std::vector<std::string>{"trace.json"});
}

TEST_F(TraceFileTest, WritingWhereNoFileCanBeThrows) {
    const fs::path blocker = folder_ / "a-file";
    std::ofstream(blocker) << "not a folder";
    EXPECT_THROW(streamlab::write_trace((blocker / "trace.json").string(), sample_timeline()), std::runtime_error);
}

TEST_F(TraceFileTest, AnEmptyTimelineRoundTrips) {
    const std::string path = (folder_ / "empty.json").string();
    streamlab::write_trace(path, Timeline{});
    const Timeline read = streamlab::read_trace(path);
    EXPECT_TRUE(read.ops.empty());
    EXPECT_TRUE(read.marks.empty());
}

// ---------------------------------------------------------------- reading hand-made files

TEST(TraceReading, HandMadeFixtureReadsAsWritten) {
    const Timeline timeline = streamlab::read_trace(fixture("three_chunk_pipeline.json"));
    EXPECT_EQ(timeline.device.driver_version, 13000);
    EXPECT_EQ(timeline.device.runtime_version, 13000);
    EXPECT_EQ(timeline.device.cc_major, 9);
    EXPECT_EQ(timeline.device.copy_engines, 2);
    EXPECT_EQ(timeline.origin_ns, 1'700'000'000'000'000'000ULL);
    ASSERT_EQ(timeline.ops.size(), 9U);
    ASSERT_EQ(timeline.marks.size(), 2U);
    EXPECT_EQ(timeline.marks[1].name, "host work done");
    EXPECT_EQ(timeline.marks[1].time_ns, 9000U);
    for (std::size_t i = 1; i < timeline.ops.size(); ++i) {
        EXPECT_LE(timeline.ops[i - 1].start_ns, timeline.ops[i].start_ns);
    }
    const DeviceOp& kernel = timeline.ops[2];
    EXPECT_EQ(kernel.kind, OpKind::Kernel);
    EXPECT_EQ(kernel.name, "workload_kernel");
    EXPECT_EQ(kernel.label, "1");
    EXPECT_EQ(kernel.stream_id, 13U);
    EXPECT_EQ(kernel.start_ns, 2100U);
    EXPECT_EQ(kernel.end_ns, 4100U);
    EXPECT_EQ(timeline.ops[0].host_memory, HostMemory::Pinned);
    EXPECT_EQ(timeline.ops[0].name, "H2D");

    const Timeline serial = streamlab::read_trace(fixture("null_stream_serial.json"));
    EXPECT_EQ(serial.device.driver_version, 12080);
    EXPECT_EQ(serial.device.runtime_version, 12060);
    EXPECT_EQ(serial.dropped_records, 2U);
    ASSERT_EQ(serial.ops.size(), 3U);
    EXPECT_EQ(serial.ops[0].stream_kind, StreamKind::LegacyNull);
    EXPECT_EQ(serial.ops[0].host_memory, HostMemory::Pageable);
}

// ---------------------------------------------------------------- refusing broken files

// Parses `text`, which must fail with a one-line message containing `expected`.
void expect_refused(const std::string& text, const std::string& expected) {
    try {
        (void)streamlab::parse_trace(text);
        ADD_FAILURE() << "accepted; expected an error containing: " << expected;
    } catch (const TraceFormatError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find(expected), std::string::npos) << "message: " << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
    }
}

// The hand-made pipeline fixture, changed by `edit`, as text.
std::string edited_fixture(const std::function<void(json&)>& edit) {
    json root = json::parse(read_text(fixture("three_chunk_pipeline.json")));
    edit(root);
    return root.dump();
}

// In the fixture, events 0-2 name the tracks and event 4 is H2D_2.
constexpr int kH2D2 = 4;

TEST(TraceReading, RefusesTextThatIsNotJson) {
    expect_refused("{\"otherData\": ", "not JSON");
    expect_refused("", "not JSON");
    expect_refused("trace", "not JSON");
}

TEST(TraceReading, RefusesJsonThatIsNotATrace) {
    expect_refused("[1, 2, 3]", "top level must be a JSON object");
    expect_refused("{}", "missing key otherData");
    expect_refused(read_text(fixture("bandwidth_sweep.json")), "wrong format");
    expect_refused(read_text(fixture("bandwidth_sweep.json")), "streamlab-bandwidth");
    expect_refused(edited_fixture([](json& root) { root["otherData"]["version"] = 2; }), "unsupported trace version 2");
    expect_refused(edited_fixture([](json& root) { root.erase("traceEvents"); }), "missing key traceEvents");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"] = json::object(); }),
                   "traceEvents must be a JSON array");
}

TEST(TraceReading, RefusesMissingKeysNamingKeyAndEvent) {
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"].erase("start_ns"); }),
                   "missing key args.start_ns in event 4");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][5]["args"].erase("kernel_name"); }),
                   "missing key args.kernel_name in event 5");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"].erase("host_memory"); }),
                   "missing key args.host_memory in event 4");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2].erase("args"); }),
                   "missing key args in event 4");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][12]["args"].erase("time_ns"); }),
                   "missing key args.time_ns in event 12");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2].erase("ph"); }),
                   "missing key ph in event 4");
    expect_refused(edited_fixture([](json& root) { root["otherData"]["device"].erase("copy_engines"); }),
                   "missing key otherData.device.copy_engines");
    expect_refused(edited_fixture([](json& root) { root["otherData"].erase("origin_ns"); }),
                   "missing key otherData.origin_ns");
}

TEST(TraceReading, RefusesNegativeAbsurdAndMistypedValues) {
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"]["start_ns"] = -5; }),
                   "args.start_ns in event 4 must be a non-negative integer, found -5");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"]["start_ns"] = 2000.5; }),
                   "must be a non-negative integer");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"]["bytes"] = "1 MiB"; }),
                   "args.bytes in event 4 must be a non-negative integer");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"]["stream"] = 1ULL << 40U; }),
                   "args.stream in event 4 is 1099511627776, more than the largest allowed");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"]["end_ns"] = 1ULL << 60U; }),
                   "args.end_ns in event 4 is");
    expect_refused(edited_fixture([](json& root) { root["otherData"]["device"]["sm_count"] = -1; }),
                   "otherData.device.sm_count must be a non-negative integer");
    expect_refused(edited_fixture([](json& root) { root["otherData"]["device"]["driver_version"] = 13000; }),
                   "otherData.device.driver_version must be a string");
    expect_refused(edited_fixture([](json& root) { root["otherData"]["device"]["runtime_version"] = "thirteen"; }),
                   "otherData.device.runtime_version must look like \"13.0\"");
    expect_refused(edited_fixture([](json& root) { root["otherData"]["device"]["concurrent_kernels"] = 1; }),
                   "otherData.device.concurrent_kernels must be true or false");
}

TEST(TraceReading, RefusesAnOpThatEndsBeforeItStarts) {
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"]["end_ns"] = 1000; }),
                   "args.end_ns in event 4 is 1000, before start_ns 2000");
}

TEST(TraceReading, RefusesUnknownSpellingsAndMisplacedEvents) {
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"]["op"] = "memcpy_h2h"; }),
                   "args.op in event 4: unknown op kind \"memcpy_h2h\"");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"]["host_memory"] = "locked"; }),
                   "unknown host memory kind \"locked\"");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"]["stream_kind"] = "null"; }),
                   "unknown stream kind \"null\"");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["ph"] = "B"; }),
                   "event 4 has \"ph\": \"B\"");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["pid"] = 0; }),
                   "event 4 is a device op with pid 0; it must be 1");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][12]["pid"] = 1; }),
                   "event 12 is a host mark with pid 1; it must be 0");
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2] = 42; }),
                   "event 4 must be a JSON object, found 42");
}

// A range on the host's track, as the writer spells it (event appended to the fixture).
json range_event(std::uint64_t start, std::uint64_t end) {
    return json{{"ph", "X"},
                {"pid", 0},
                {"tid", 4242},
                {"name", "version 1"},
                {"cat", "nvtx"},
                {"ts", start / 1000.0},
                {"dur", (end - start) / 1000.0},
                {"args", {{"start_ns", start}, {"end_ns", end}}}};
}

TEST_F(TraceFileTest, NvtxRangesAreWrittenOnTheHostTrackAndReadBack) {
    Timeline written = sample_timeline();
    written.ranges = {{"version 2", 5000, 9500, 4242}, {"sequential", 0, 4800, 4242}, {"inner", 100, 200, 7}};
    const json root = json::parse(streamlab::trace_to_json_string(written));
    std::vector<json> ranges;
    std::map<int, std::string> host_tracks;
    for (const json& event : root["traceEvents"]) {
        if (event["pid"] != 0) {
            continue;
        }
        if (event["ph"] == "X") {
            ranges.push_back(event);
        }
        if (event["ph"] == "M") {
            host_tracks[event["tid"].get<int>()] = event["args"]["name"].get<std::string>();
        }
    }
    ASSERT_EQ(ranges.size(), 3U);
    EXPECT_EQ(ranges[0]["name"], "version 2");
    EXPECT_EQ(ranges[0]["cat"], "nvtx");
    EXPECT_EQ(ranges[0]["tid"], 4242);
    EXPECT_DOUBLE_EQ(ranges[0]["dur"].get<double>(), 4.5);
    EXPECT_EQ(ranges[0]["args"]["start_ns"], 5000);
    EXPECT_EQ(host_tracks,
              (std::map<int, std::string>{{7, "NVTX ranges, thread 7"}, {4242, "NVTX ranges, thread 4242"}}));

    const std::string path = (folder_ / "ranges.json").string();
    streamlab::write_trace(path, written);
    const Timeline read = streamlab::read_trace(path);
    ASSERT_EQ(read.ranges.size(), 3U);
    EXPECT_EQ(read.ranges[0].name, "sequential");  // sorted by start
    EXPECT_EQ(read.ranges[1].name, "inner");
    EXPECT_EQ(read.ranges[1].thread, 7U);
    EXPECT_EQ(read.ranges[2].start_ns, 5000U);
    EXPECT_EQ(read.ranges[2].end_ns, 9500U);
    expect_same_ops(read.ops, written.ops);  // the ops are untouched by the ranges beside them
}

TEST(TraceReading, OldFilesWithoutRangesStillRead) {
    const Timeline timeline = streamlab::read_trace(fixture("three_chunk_pipeline.json"));
    EXPECT_FALSE(timeline.ops.empty());
    EXPECT_TRUE(timeline.ranges.empty());
    for (const DeviceOp& op : timeline.ops) {
        EXPECT_EQ(op.graph_id, 0U) << "a file without graph ids reads as ops that no graph ran";
    }
}

TEST(TraceReading, RefusesMalformedGraphIds) {
    expect_refused(edited_fixture([](json& root) { root["traceEvents"][kH2D2]["args"]["graph_id"] = 2; }),
                   "missing key args.graph_node_id in event 4");
    expect_refused(edited_fixture([](json& root) {
                       root["traceEvents"][kH2D2]["args"]["graph_id"] = 1ULL << 40U;
                       root["traceEvents"][kH2D2]["args"]["graph_node_id"] = 1;
                   }),
                   "args.graph_id in event 4 is 1099511627776, more than the largest allowed");
}

TEST(TraceReading, RefusesMalformedRanges) {
    const auto with_range = [](std::function<void(json&)> edit) {
        return edited_fixture([&](json& root) {
            json range = range_event(1000, 3000);
            edit(range);
            root["traceEvents"].push_back(range);
        });
    };
    const std::string last = "event " + std::to_string(json::parse(edited_fixture([](json&) {}))["traceEvents"].size());
    EXPECT_EQ(streamlab::parse_trace(with_range([](json&) {})).ranges.size(), 1U);
    expect_refused(with_range([](json& r) { r["args"]["end_ns"] = 500; }),
                   "args.end_ns in " + last + " is 500, before start_ns 1000");
    expect_refused(with_range([](json& r) { r["args"].erase("start_ns"); }), "missing key args.start_ns in " + last);
    expect_refused(with_range([](json& r) { r["name"] = 3; }), "name in " + last + " must be a string");
    expect_refused(with_range([](json& r) { r["pid"] = 1; }), last + " is an NVTX range with pid 1; it must be 0");
    expect_refused(with_range([](json& r) { r["tid"] = -1; }), "tid in " + last + " must be a non-negative integer");
}

TEST(TraceReading, FileErrorsNameTheFile) {
    const std::string missing = fixture("no-such-trace.json");
    try {
        (void)streamlab::read_trace(missing);
        FAIL() << "no TraceFormatError";
    } catch (const TraceFormatError& error) {
        EXPECT_EQ(std::string(error.what()), missing + ": no such file");
    }
    try {
        (void)streamlab::read_trace(fixture("bandwidth_sweep.json"));
        FAIL() << "no TraceFormatError";
    } catch (const TraceFormatError& error) {
        const std::string message = error.what();
        EXPECT_EQ(message.rfind(fixture("bandwidth_sweep.json") + ": wrong format", 0), 0U) << message;
    }
    EXPECT_THROW((void)streamlab::read_trace(STREAMLAB_FIXTURES), TraceFormatError);
}

}  // namespace
