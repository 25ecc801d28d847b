#include "streamlab/trace_file.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "json_file.hpp"

namespace streamlab {

namespace {

using json = nlohmann::json;
// Keys keep the order they are written in, so a student reading the file sees
// "ph", "pid", "tid", "name" first rather than in alphabetical order.
using ordered_json = nlohmann::ordered_json;

// ---------------------------------------------------------------- writing

bool is_memcpy(OpKind kind) {
    return kind == OpKind::MemcpyH2D || kind == OpKind::MemcpyD2H || kind == OpKind::MemcpyD2D ||
           kind == OpKind::MemcpyP2P || kind == OpKind::MemcpyOther;
}

// The trace format's time unit is the microsecond; viewers read ts and dur in it.
double to_microseconds(std::uint64_t ns) {
    return static_cast<double>(ns) / 1000.0;
}

std::string track_name(std::uint32_t stream_id, StreamKind kind) {
    switch (kind) {
        case StreamKind::LegacyNull:
            return "NULL stream (legacy)";
        case StreamKind::PerThreadDefault:
            return "default stream (per-thread)";
        case StreamKind::Created:
            break;
    }
    return "stream " + std::to_string(stream_id);
}

ordered_json metadata_json(const Timeline& timeline) {
    ordered_json metadata = detail::metadata_block(kTraceFormatName, timeline.program, timeline.date, timeline.device);
    metadata["dropped_records"] = timeline.dropped_records;
    metadata["origin_ns"] = timeline.origin_ns;
    metadata["api_calls"] = timeline.api_calls;
    return metadata;
}

// Device ops of GPU d are events of pid 1 + d (pid 0 is the host): a viewer shows
// each GPU as a group of stream tracks.
std::uint64_t device_pid(std::uint32_t device_id) {
    return 1 + static_cast<std::uint64_t>(device_id);
}

// A "thread_name" metadata event: the title of one stream's track in a viewer.
ordered_json track_name_event(std::uint32_t device_id, std::uint32_t stream_id, StreamKind kind) {
    return ordered_json{{"ph", "M"},
                        {"pid", device_pid(device_id)},
                        {"tid", stream_id},
                        {"name", "thread_name"},
                        {"args", {{"name", track_name(stream_id, kind)}}}};
}

// A "process_name" metadata event: the title of one GPU's group of tracks.
ordered_json device_name_event(std::uint32_t device_id) {
    return ordered_json{{"ph", "M"},
                        {"pid", device_pid(device_id)},
                        {"name", "process_name"},
                        {"args", {{"name", "GPU " + std::to_string(device_id)}}}};
}

ordered_json op_event(const DeviceOp& op) {
    ordered_json args{
        {"op", to_string(op.kind)}, {"label", op.label},
        {"stream", op.stream_id},   {"stream_kind", to_string(op.stream_kind)},
        {"start_ns", op.start_ns},  {"end_ns", op.end_ns},
    };
    if (op.kind == OpKind::Kernel) {
        args["kernel_name"] = op.name;
    } else {
        args["bytes"] = op.bytes;
    }
    if (is_memcpy(op.kind)) {
        args["host_memory"] = to_string(op.host_memory);
    }
    if (op.kind == OpKind::MemcpyP2P) {
        args["source_device"] = op.source_device;
        args["destination_device"] = op.destination_device;
    }
    args["correlation_id"] = op.correlation_id;
    if (op.graph_id != 0) {  // only ops of a graph launch: files without graphs stay as they were
        args["graph_id"] = op.graph_id;
        args["graph_node_id"] = op.graph_node_id;
    }
    return ordered_json{{"ph", "X"},
                        {"pid", device_pid(op.device_id)},
                        {"tid", op.stream_id},
                        {"name", display_name(op)},
                        {"cat", to_string(op.kind)},
                        {"ts", to_microseconds(op.start_ns)},
                        {"dur", to_microseconds(op.duration_ns())},
                        {"args", std::move(args)}};
}

ordered_json mark_event(const HostMark& mark) {
    return ordered_json{{"ph", "i"},
                        {"s", "p"},
                        {"pid", 0},
                        {"tid", 0},
                        {"name", mark.name},
                        {"ts", to_microseconds(mark.time_ns)},
                        {"args", {{"time_ns", mark.time_ns}}}};
}

// The "cat" of an NVTX range's event; device ops have their op kind there.
constexpr const char* kRangeCategory = "nvtx";

// The title of a host thread's track of NVTX ranges.
ordered_json range_track_event(std::uint32_t thread) {
    return ordered_json{{"ph", "M"},
                        {"pid", 0},
                        {"tid", thread},
                        {"name", "thread_name"},
                        {"args", {{"name", "NVTX ranges, thread " + std::to_string(thread)}}}};
}

ordered_json range_event(const HostRange& range) {
    return ordered_json{{"ph", "X"},
                        {"pid", 0},
                        {"tid", range.thread},
                        {"name", range.name},
                        {"cat", kRangeCategory},
                        {"ts", to_microseconds(range.start_ns)},
                        {"dur", to_microseconds(range.end_ns - range.start_ns)},
                        {"args", {{"start_ns", range.start_ns}, {"end_ns", range.end_ns}}}};
}

// Strings from the program (kernel names, labels) may hold anything; invalid
// UTF-8 is replaced rather than making the whole trace unwritable.
std::string dump(const ordered_json& value, int indent = -1) {
    return value.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

// ---------------------------------------------------------------- reading

// The largest integer a double holds exactly. Viewers and many JSON readers
// keep numbers as doubles, so a time or size beyond it cannot be trusted.
constexpr std::uint64_t kMaxExactInteger = std::uint64_t{1} << 53U;
constexpr std::uint64_t kMaxUint32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMaxInt = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
constexpr std::uint64_t kMaxInt64 = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

// Where a key sits, for error messages: "args.start_ns in event 3" or "otherData.device.name".
struct Place {
    std::string prefix;  ///< Path of the enclosing object with a trailing dot, e.g. "args.".
    std::string suffix;  ///< E.g. " in event 3", or empty.

    [[nodiscard]] std::string of(const std::string& key) const { return prefix + key + suffix; }
    [[nodiscard]] Place inside(const std::string& key) const { return {prefix + key + ".", suffix}; }
};

// A short, one-line rendering of a JSON value for a message.
std::string brief(const json& value) {
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    constexpr std::size_t kMaxLength = 40;
    if (text.size() > kMaxLength) {
        text = text.substr(0, kMaxLength) + "...";
    }
    return text;
}

const json& require(const json& object, const std::string& key, const Place& place) {
    const auto found = object.find(key);
    if (found == object.end()) {
        throw TraceFormatError("missing key " + place.of(key));
    }
    return *found;
}

const json& require_object(const json& object, const std::string& key, const Place& place) {
    const json& value = require(object, key, place);
    if (!value.is_object()) {
        throw TraceFormatError(place.of(key) + " must be a JSON object, found " + brief(value));
    }
    return value;
}

std::string require_string(const json& object, const std::string& key, const Place& place) {
    const json& value = require(object, key, place);
    if (!value.is_string()) {
        throw TraceFormatError(place.of(key) + " must be a string, found " + brief(value));
    }
    return value.get<std::string>();
}

bool require_bool(const json& object, const std::string& key, const Place& place) {
    const json& value = require(object, key, place);
    if (!value.is_boolean()) {
        throw TraceFormatError(place.of(key) + " must be true or false, found " + brief(value));
    }
    return value.get<bool>();
}

// A non-negative integer no larger than `max`.
std::uint64_t require_count(const json& object, const std::string& key, const Place& place,
                            std::uint64_t max = kMaxExactInteger) {
    const json& value = require(object, key, place);
    // nlohmann keeps non-negative integers as "unsigned" and negative ones as "integer".
    if (!value.is_number_unsigned()) {
        throw TraceFormatError(place.of(key) + " must be a non-negative integer, found " + brief(value));
    }
    const auto number = value.get<std::uint64_t>();
    if (number > max) {
        throw TraceFormatError(place.of(key) + " is " + std::to_string(number) + ", more than the largest allowed, " +
                               std::to_string(max));
    }
    return number;
}

// A string spelled as an enum value, parsed by `parse` (one of the *_from_string functions).
template <typename Parse>
auto require_enum(const json& object, const std::string& key, const Place& place, Parse parse) {
    const std::string text = require_string(object, key, place);
    try {
        return parse(text);
    } catch (const TraceFormatError& error) {
        throw TraceFormatError(place.of(key) + ": " + error.what());
    }
}

// "13.0" -> {13, 0}; also used for compute capabilities ("9.0").
std::pair<int, int> require_dotted_pair(const json& object, const std::string& key, const Place& place,
                                        const char* example) {
    const std::string text = require_string(object, key, place);
    static const std::regex pattern(R"((\d{1,4})\.(\d{1,2}))");
    std::smatch match;
    if (!std::regex_match(text, match, pattern)) {
        throw TraceFormatError(place.of(key) + " must look like \"" + example + "\", found " + brief(json(text)));
    }
    return {std::stoi(match[1].str()), std::stoi(match[2].str())};
}

// The inverse of format_cuda_version: "13.0" -> 13000, "12.8" -> 12080.
int require_cuda_version(const json& object, const std::string& key, const Place& place) {
    const auto [major, minor] = require_dotted_pair(object, key, place, "13.0");
    return major * 1000 + minor * 10;
}

DeviceFacts parse_device(const json& device, const Place& place) {
    DeviceFacts facts;
    facts.name = require_string(device, "name", place);
    std::tie(facts.cc_major, facts.cc_minor) = require_dotted_pair(device, "compute_capability", place, "9.0");
    facts.sm_count = static_cast<int>(require_count(device, "sm_count", place, kMaxInt));
    facts.copy_engines = static_cast<int>(require_count(device, "copy_engines", place, kMaxInt));
    facts.concurrent_kernels = require_bool(device, "concurrent_kernels", place);
    facts.total_memory_bytes = static_cast<std::size_t>(require_count(device, "total_memory_bytes", place));
    facts.driver_version = require_cuda_version(device, "driver_version", place);
    facts.runtime_version = require_cuda_version(device, "runtime_version", place);
    return facts;
}

// Checks the format and version first, so that another kind of file (a bandwidth
// sweep, say) is named as such rather than reported as missing trace keys.
void parse_metadata(const json& root, Timeline& timeline) {
    const Place top{"", ""};
    const json& other = require_object(root, "otherData", top);
    const Place place = top.inside("otherData");
    const std::string format = require_string(other, "format", place);
    if (format != kTraceFormatName) {
        throw TraceFormatError("wrong format: otherData.format is " + brief(json(format)) + ", expected \"" +
                               kTraceFormatName + "\"");
    }
    const std::uint64_t version = require_count(other, "version", place);
    if (version != static_cast<std::uint64_t>(detail::kFileFormatVersion)) {
        throw TraceFormatError("unsupported trace version " + std::to_string(version) + " (this reader knows " +
                               std::to_string(detail::kFileFormatVersion) + ")");
    }
    timeline.program = require_string(other, "program", place);
    timeline.date = require_string(other, "date", place);
    timeline.device = parse_device(require_object(other, "device", place), place.inside("device"));
    timeline.dropped_records = require_count(other, "dropped_records", place);
    // origin_ns is a raw CUPTI timestamp (ns since some epoch), far above 2^53.
    timeline.origin_ns = require_count(other, "origin_ns", place, kMaxInt64);
    // Optional: traces of programs recorded from outside may not count calls.
    if (other.contains("api_calls")) {
        const json& calls = require_object(other, "api_calls", place);
        for (const auto& [name, count] : calls.items()) {
            timeline.api_calls[name] = require_count(calls, name, place.inside("api_calls"));
        }
    }
}

DeviceOp parse_op(const json& event, const Place& event_place) {
    const Place place = event_place.inside("args");
    const json& args = require_object(event, "args", event_place);
    DeviceOp op;
    op.kind = require_enum(args, "op", place, op_kind_from_string);
    op.label = require_string(args, "label", place);
    op.stream_id = static_cast<std::uint32_t>(require_count(args, "stream", place, kMaxUint32));
    op.stream_kind = require_enum(args, "stream_kind", place, stream_kind_from_string);
    op.start_ns = require_count(args, "start_ns", place);
    op.end_ns = require_count(args, "end_ns", place);
    if (op.end_ns < op.start_ns) {
        throw TraceFormatError(place.of("end_ns") + " is " + std::to_string(op.end_ns) + ", before start_ns " +
                               std::to_string(op.start_ns));
    }
    op.correlation_id = static_cast<std::uint32_t>(require_count(args, "correlation_id", place, kMaxUint32));
    // Optional: only ops that a graph launch ran carry them (and older files never do).
    if (args.contains("graph_id")) {
        op.graph_id = static_cast<std::uint32_t>(require_count(args, "graph_id", place, kMaxUint32));
        op.graph_node_id = require_count(args, "graph_node_id", place, kMaxInt64);
    }
    if (op.kind == OpKind::Kernel) {
        op.name = require_string(args, "kernel_name", place);
    } else {
        op.name = op_base_name(op.kind);
        op.bytes = require_count(args, "bytes", place);
    }
    if (is_memcpy(op.kind)) {
        op.host_memory = require_enum(args, "host_memory", place, host_memory_from_string);
    }
    if (op.kind == OpKind::MemcpyP2P) {
        op.source_device = static_cast<std::uint32_t>(require_count(args, "source_device", place, kMaxUint32));
        op.destination_device =
            static_cast<std::uint32_t>(require_count(args, "destination_device", place, kMaxUint32));
    }
    return op;
}

HostRange parse_range(const json& event, const Place& event_place) {
    HostRange range;
    range.name = require_string(event, "name", event_place);
    range.thread = static_cast<std::uint32_t>(require_count(event, "tid", event_place, kMaxUint32));
    const Place place = event_place.inside("args");
    const json& args = require_object(event, "args", event_place);
    range.start_ns = require_count(args, "start_ns", place);
    range.end_ns = require_count(args, "end_ns", place);
    if (range.end_ns < range.start_ns) {
        throw TraceFormatError(place.of("end_ns") + " is " + std::to_string(range.end_ns) + ", before start_ns " +
                               std::to_string(range.start_ns));
    }
    return range;
}

HostMark parse_mark(const json& event, const Place& event_place) {
    HostMark mark;
    mark.name = require_string(event, "name", event_place);
    const json& args = require_object(event, "args", event_place);
    mark.time_ns = require_count(args, "time_ns", event_place.inside("args"));
    return mark;
}

// Device ops are "X" events of pid 1 + device, NVTX ranges "X" events of pid 0 with "cat":
// "nvtx", and host
// marks "i" events of pid 0; "M" events only name tracks for viewers and carry
// nothing to read.
void parse_event(const json& event, std::size_t index, Timeline& timeline) {
    const std::string where = "event " + std::to_string(index);
    if (!event.is_object()) {
        throw TraceFormatError(where + " must be a JSON object, found " + brief(event));
    }
    const Place place{"", " in " + where};
    const std::string phase = require_string(event, "ph", place);
    if (phase == "M") {
        return;
    }
    if (phase != "X" && phase != "i") {
        throw TraceFormatError(where + " has \"ph\": " + brief(json(phase)) +
                               "; a streamlab trace holds only \"X\" (device ops, NVTX ranges), \"i\" (host "
                               "marks) and \"M\" (track names)");
    }
    const std::uint64_t pid = require_count(event, "pid", place);
    const auto refuse_pid = [&](const char* what, std::uint64_t expected) {
        throw TraceFormatError(where + " is " + what + " with pid " + std::to_string(pid) + "; it must be " +
                               std::to_string(expected));
    };
    if (phase == "i") {
        if (pid != 0) {
            refuse_pid("a host mark", 0);
        }
        timeline.marks.push_back(parse_mark(event, place));
        return;
    }
    // An "X" event is an NVTX range when its category says so, a device op otherwise.
    const bool range = event.contains("cat") && event["cat"] == kRangeCategory;
    if (range) {
        if (pid != 0) {
            refuse_pid("an NVTX range", 0);
        }
        timeline.ranges.push_back(parse_range(event, place));
    } else {
        if (pid == 0 || pid - 1 > kMaxUint32) {
            throw TraceFormatError(where + " is a device op with pid " + std::to_string(pid) +
                                   "; it must be 1 + the GPU's device id (1 for GPU 0)");
        }
        DeviceOp op = parse_op(event, place);
        op.device_id = static_cast<std::uint32_t>(pid - 1);
        timeline.ops.push_back(std::move(op));
    }
}

// nlohmann's message starts with "[json.exception.parse_error.101] "; the rest says where.
std::string without_exception_id(const std::string& message) {
    const auto end_of_id = message.find("] ");
    return end_of_id == std::string::npos ? message : message.substr(end_of_id + 2);
}

}  // namespace

std::string display_name(const DeviceOp& op) {
    if (op.kind == OpKind::Kernel) {
        return op.label.empty() ? op.name : "K_" + op.label;
    }
    const std::string base = op_base_name(op.kind);
    return op.label.empty() ? base : base + "_" + op.label;
}

std::string trace_to_json_string(const Timeline& timeline) {
    // One track per stream of each GPU, titled after the first op seen in it.
    std::map<std::pair<std::uint32_t, std::uint32_t>, StreamKind> streams;
    std::set<std::uint32_t> devices;
    for (const DeviceOp& op : timeline.ops) {
        streams.emplace(std::make_pair(op.device_id, op.stream_id), op.stream_kind);
        devices.insert(op.device_id);
    }
    std::set<std::uint32_t> range_threads;
    for (const HostRange& range : timeline.ranges) {
        range_threads.insert(range.thread);
    }
    std::vector<ordered_json> events;
    events.reserve(streams.size() + range_threads.size() + timeline.ops.size() + timeline.marks.size() +
                   timeline.ranges.size());
    if (devices.size() > 1) {  // one GPU's file names no group: it stays as it always was
        for (const std::uint32_t device_id : devices) {
            events.push_back(device_name_event(device_id));
        }
    }
    for (const auto& [stream, kind] : streams) {
        events.push_back(track_name_event(stream.first, stream.second, kind));
    }
    for (const std::uint32_t thread : range_threads) {
        events.push_back(range_track_event(thread));
    }
    for (const DeviceOp& op : timeline.ops) {
        events.push_back(op_event(op));
    }
    for (const HostMark& mark : timeline.marks) {
        events.push_back(mark_event(mark));
    }
    for (const HostRange& range : timeline.ranges) {
        events.push_back(range_event(range));
    }

    return detail::json_file_text(metadata_json(timeline),
                                  {{"displayTimeUnit", "ns"}, {"traceEvents", ordered_json(std::move(events))}});
}

void write_trace(const std::string& path, const Timeline& timeline) {
    detail::write_file_atomically(path, trace_to_json_string(timeline), "trace file");
}

Timeline parse_trace(const std::string& json_text) {
    json root;
    try {
        root = json::parse(json_text);
    } catch (const json::parse_error& error) {
        throw TraceFormatError("not JSON: " + without_exception_id(error.what()));
    }
    if (!root.is_object()) {
        throw TraceFormatError("not a streamlab trace: the top level must be a JSON object, found " + brief(root));
    }
    Timeline timeline;
    parse_metadata(root, timeline);
    const json& events = require(root, "traceEvents", Place{});
    if (!events.is_array()) {
        throw TraceFormatError("traceEvents must be a JSON array, found " + brief(events));
    }
    for (std::size_t i = 0; i < events.size(); ++i) {
        parse_event(events[i], i, timeline);
    }
    std::stable_sort(timeline.ops.begin(), timeline.ops.end(),
                     [](const DeviceOp& a, const DeviceOp& b) { return a.start_ns < b.start_ns; });
    std::stable_sort(timeline.marks.begin(), timeline.marks.end(),
                     [](const HostMark& a, const HostMark& b) { return a.time_ns < b.time_ns; });
    std::stable_sort(timeline.ranges.begin(), timeline.ranges.end(),
                     [](const HostRange& a, const HostRange& b) { return a.start_ns < b.start_ns; });
    return timeline;
}

Timeline read_trace(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code error;
    if (!fs::exists(path, error)) {
        throw TraceFormatError(path + ": no such file");
    }
    if (fs::is_directory(path, error)) {
        throw TraceFormatError(path + ": is a folder, not a trace file");
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
        throw TraceFormatError(path + ": cannot be read");
    }
    try {
        return parse_trace(text.str());
    } catch (const TraceFormatError& failure) {
        throw TraceFormatError(path + ": " + failure.what());
    }
}

}  // namespace streamlab
