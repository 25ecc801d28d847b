// The course's values as JSON, both ways (json_values.hpp).
#include "json_values.hpp"

#include "streamlab/trace_file.hpp"

#include <stdexcept>
#include <string>

namespace streamlab {

namespace {

// Reads `field` into `value` when the JSON has it; values made in Python may leave fields out.
template <typename T>
void read_if_there(const Json& json, const char* field, T& value) {
    if (json.contains(field)) {
        json.at(field).get_to(value);
    }
}

Stage stage_from_string(const std::string& text) {
    for (const Stage stage : {Stage::H2D, Stage::Kernel, Stage::D2H}) {
        if (text == to_string(stage)) {
            return stage;
        }
    }
    throw std::invalid_argument("stage must be H2D, K or D2H, not \"" + text + "\"");
}

}  // namespace

void to_json(Json& json, const DeviceOp& op) {
    json = Json{{"__class__", "DeviceOp"},
                {"kind", to_string(op.kind)},
                {"name", op.name},
                {"display_name", display_name(op)},
                {"label", op.label},
                {"stream", op.stream_id},
                {"stream_kind", to_string(op.stream_kind)},
                {"start_ns", op.start_ns},
                {"end_ns", op.end_ns},
                {"duration_ns", op.duration_ns()},
                {"bytes", op.bytes},
                {"host_memory", to_string(op.host_memory)},
                {"correlation_id", op.correlation_id},
                {"graph_id", op.graph_id},
                {"graph_node_id", op.graph_node_id},
                {"device", op.device_id},
                {"source_device", op.source_device},
                {"destination_device", op.destination_device}};
}

void from_json(const Json& json, DeviceOp& op) {
    op.kind = op_kind_from_string(json.at("kind").get<std::string>());
    op.start_ns = json.at("start_ns").get<std::uint64_t>();
    op.end_ns = json.at("end_ns").get<std::uint64_t>();
    read_if_there(json, "name", op.name);
    read_if_there(json, "label", op.label);
    read_if_there(json, "stream", op.stream_id);
    if (json.contains("stream_kind")) {
        op.stream_kind = stream_kind_from_string(json.at("stream_kind").get<std::string>());
    }
    read_if_there(json, "bytes", op.bytes);
    if (json.contains("host_memory")) {
        op.host_memory = host_memory_from_string(json.at("host_memory").get<std::string>());
    }
    read_if_there(json, "correlation_id", op.correlation_id);
    read_if_there(json, "graph_id", op.graph_id);
    read_if_there(json, "graph_node_id", op.graph_node_id);
    read_if_there(json, "device", op.device_id);
    read_if_there(json, "source_device", op.source_device);
    read_if_there(json, "destination_device", op.destination_device);
}

void to_json(Json& json, const HostMark& mark) {
    json = Json{{"__class__", "HostMark"}, {"name", mark.name}, {"time_ns", mark.time_ns}};
}

void from_json(const Json& json, HostMark& mark) {
    json.at("name").get_to(mark.name);
    json.at("time_ns").get_to(mark.time_ns);
}

void to_json(Json& json, const HostRange& range) {
    json = Json{{"__class__", "HostRange"},
                {"name", range.name},
                {"start_ns", range.start_ns},
                {"end_ns", range.end_ns},
                {"thread", range.thread}};
}

void from_json(const Json& json, HostRange& range) {
    json.at("name").get_to(range.name);
    json.at("start_ns").get_to(range.start_ns);
    json.at("end_ns").get_to(range.end_ns);
    read_if_there(json, "thread", range.thread);
}

// Stream calls are the grader's, never read in Python: they only go there and back.
void to_json(Json& json, const StreamCall& call) {
    json = Json{{"call", static_cast<int>(call.call)},
                {"function", call.function},
                {"stream", call.stream},
                {"event", call.event},
                {"time_ns", call.time_ns}};
}

void from_json(const Json& json, StreamCall& call) {
    call.call = static_cast<OrderingCall>(json.at("call").get<int>());
    json.at("function").get_to(call.function);
    json.at("stream").get_to(call.stream);
    json.at("event").get_to(call.event);
    json.at("time_ns").get_to(call.time_ns);
}

void to_json(Json& json, const DeviceFacts& facts) {
    json = Json{{"__class__", "DeviceFacts"},
                {"ordinal", facts.ordinal},
                {"name", facts.name},
                {"cc_major", facts.cc_major},
                {"cc_minor", facts.cc_minor},
                {"compute_capability", facts.compute_capability()},
                {"sm_count", facts.sm_count},
                {"copy_engines", facts.copy_engines},
                {"concurrent_kernels", facts.concurrent_kernels},
                {"total_memory_bytes", facts.total_memory_bytes},
                {"driver_version", facts.driver_version},
                {"runtime_version", facts.runtime_version}};
}

void from_json(const Json& json, DeviceFacts& facts) {
    read_if_there(json, "ordinal", facts.ordinal);
    read_if_there(json, "name", facts.name);
    read_if_there(json, "cc_major", facts.cc_major);
    read_if_there(json, "cc_minor", facts.cc_minor);
    read_if_there(json, "sm_count", facts.sm_count);
    read_if_there(json, "copy_engines", facts.copy_engines);
    read_if_there(json, "concurrent_kernels", facts.concurrent_kernels);
    read_if_there(json, "total_memory_bytes", facts.total_memory_bytes);
    read_if_there(json, "driver_version", facts.driver_version);
    read_if_there(json, "runtime_version", facts.runtime_version);
}

void to_json(Json& json, const Timeline& timeline) {
    // Python's dict keys are the thread ids themselves, as integers: pairs, not a JSON object.
    Json by_thread = Json::array();
    for (const auto& [thread, calls] : timeline.api_calls_by_thread) {
        by_thread.push_back(Json::array({thread, calls}));
    }
    json = Json{{"__class__", "Timeline"},
                {"ops", timeline.ops},
                {"marks", timeline.marks},
                {"ranges", timeline.ranges},
                {"device", timeline.device},
                {"program", timeline.program},
                {"date", timeline.date},
                {"origin_ns", timeline.origin_ns},
                {"dropped_records", timeline.dropped_records},
                {"api_calls", timeline.api_calls},
                {"api_calls_by_thread", by_thread},
                {"stream_calls", timeline.stream_calls},
                {"recorded", timeline.recorded()},
                {"not_recorded", timeline.not_recorded}};
}

void from_json(const Json& json, Timeline& timeline) {
    read_if_there(json, "ops", timeline.ops);
    read_if_there(json, "marks", timeline.marks);
    read_if_there(json, "ranges", timeline.ranges);
    read_if_there(json, "device", timeline.device);
    read_if_there(json, "program", timeline.program);
    read_if_there(json, "date", timeline.date);
    read_if_there(json, "origin_ns", timeline.origin_ns);
    read_if_there(json, "dropped_records", timeline.dropped_records);
    read_if_there(json, "api_calls", timeline.api_calls);
    if (json.contains("api_calls_by_thread")) {
        for (const Json& pair : json.at("api_calls_by_thread")) {
            timeline.api_calls_by_thread[pair.at(0).get<std::uint64_t>()] = pair.at(1).get<std::uint64_t>();
        }
    }
    read_if_there(json, "stream_calls", timeline.stream_calls);
    read_if_there(json, "not_recorded", timeline.not_recorded);
}

void to_json(Json& json, const ResultCheck& check) {
    json = Json{{"__class__", "ResultCheck"},
                {"ok", check.ok},
                {"compared", check.compared},
                {"mismatches", check.mismatches},
                {"message()", check.message()}};
}

void to_json(Json& json, const LinkSharing& link) {
    json = Json{{"__class__", "LinkSharing"}, {"h2d", link.h2d}, {"d2h", link.d2h}};
}

void from_json(const Json& json, LinkSharing& link) {
    read_if_there(json, "h2d", link.h2d);
    read_if_there(json, "d2h", link.d2h);
}

void to_json(Json& json, const SimulatedOp& op) {
    json = Json{{"__class__", "SimulatedOp"}, {"chunk", op.chunk}, {"stage", to_string(op.stage)},
                {"stream", op.stream},        {"start", op.start}, {"end", op.end}};
}

void from_json(const Json& json, SimulatedOp& op) {
    json.at("chunk").get_to(op.chunk);
    op.stage = stage_from_string(json.at("stage").get<std::string>());
    json.at("stream").get_to(op.stream);
    json.at("start").get_to(op.start);
    json.at("end").get_to(op.end);
}

void to_json(Json& json, const ChunkOps& chunk) {
    json = Json{{"__class__", "ChunkOps"}, {"h2d", chunk.h2d}, {"kernel", chunk.kernel}, {"d2h", chunk.d2h}};
}

void to_json(Json& json, const PipelineChunks& found) {
    json = Json{{"__class__", "PipelineChunks"}, {"chunks", found.chunks}, {"problem", found.problem}};
}

void to_json(Json& json, const PipelineComparison& comparison) {
    json = Json{{"__class__", "PipelineComparison"},       {"chunks", comparison.chunks},
                {"streams", comparison.streams},           {"copy_engines", comparison.copy_engines},
                {"serial_ms", comparison.serial_ms},       {"pipelined_ms", comparison.pipelined_ms},
                {"model_ms", comparison.model_ms},         {"bound_ms", comparison.bound_ms},
                {"speedup()", comparison.speedup()},       {"model_speedup()", comparison.model_speedup()},
                {"efficiency()", comparison.efficiency()}, {"__str__()", describe(comparison)}};
}

Json stage_tuple(const StageTimes& stages) {
    return Json::array({stages.h2d, stages.kernel, stages.d2h});
}

void to_json(Json& json, const SerialReference& serial) {
    json = Json{{"__class__", "SerialReference"},
                {"timeline", serial.timeline},
                {"event_ms", serial.event_ms},
                {"stages", stage_tuple(serial.stages)}};
}

}  // namespace streamlab
