// Timelines for Python: ops, host marks, device facts, trace files. Enumerations
// are spelled as the trace file spells them ("memcpy_h2d", "pinned", "legacy_null"),
// which is also how streamlab_tools.trace spells them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "streamlab/timeline.hpp"
#include "streamlab/trace_file.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

void bind_device_op(nb::module_& module) {
    nb::class_<DeviceOp>(module, "DeviceOp", "One operation the GPU ran, with the GPU's own timestamps (ns).")
        .def(
            "__init__",
            [](DeviceOp* op, const std::string& kind, std::uint64_t start_ns, std::uint64_t end_ns,
               std::uint32_t stream, const std::string& stream_kind, std::uint64_t bytes, const std::string& name,
               const std::string& label, const std::string& host_memory, std::uint32_t correlation_id,
               std::uint32_t graph_id, std::uint64_t graph_node_id, std::uint32_t device, std::uint32_t source_device,
               std::uint32_t destination_device) {
                DeviceOp made;  // filled first: a spelling that throws leaves `op` unbuilt
                made.kind = op_kind_from_string(kind);
                made.name = name;
                made.label = label;
                made.stream_id = stream;
                made.stream_kind = stream_kind_from_string(stream_kind);
                made.start_ns = start_ns;
                made.end_ns = end_ns;
                made.bytes = bytes;
                made.host_memory = host_memory_from_string(host_memory);
                made.correlation_id = correlation_id;
                made.graph_id = graph_id;
                made.graph_node_id = graph_node_id;
                made.device_id = device;
                made.source_device = source_device;
                made.destination_device = destination_device;
                new (op) DeviceOp(std::move(made));
            },
            "kind"_a, "start_ns"_a, "end_ns"_a, "stream"_a = 0, "stream_kind"_a = "created", "bytes"_a = 0,
            "name"_a = "", "label"_a = "", "host_memory"_a = "not_applicable", "correlation_id"_a = 0, "graph_id"_a = 0,
            "graph_node_id"_a = 0, "device"_a = 0, "source_device"_a = 0, "destination_device"_a = 0)
        .def_prop_ro("kind", [](const DeviceOp& op) { return to_string(op.kind); })
        .def_ro("name", &DeviceOp::name, "Kernel name, or H2D, D2H, ... for the others.")
        .def_prop_ro(
            "display_name", [](const DeviceOp& op) { return display_name(op); },
            "What a viewer shows: the kernel's name or H2D, D2H, ..., then _label (H2D_1, K_1).")
        .def_ro("label", &DeviceOp::label)
        .def_ro("stream", &DeviceOp::stream_id)
        .def_prop_ro("stream_kind", [](const DeviceOp& op) { return to_string(op.stream_kind); })
        .def_ro("start_ns", &DeviceOp::start_ns)
        .def_ro("end_ns", &DeviceOp::end_ns)
        .def_prop_ro("duration_ns", &DeviceOp::duration_ns)
        .def_ro("bytes", &DeviceOp::bytes)
        .def_prop_ro("host_memory", [](const DeviceOp& op) { return to_string(op.host_memory); })
        .def_ro("correlation_id", &DeviceOp::correlation_id)
        .def_ro("graph_id", &DeviceOp::graph_id, "The CUDA graph whose launch ran the op, or 0.")
        .def_ro("graph_node_id", &DeviceOp::graph_node_id, "Its node in that graph, or 0.")
        .def_ro("device", &DeviceOp::device_id, "The GPU that ran it (CUDA's device ordinal).")
        .def_ro("source_device", &DeviceOp::source_device, "For a copy between GPUs: the GPU it copied from.")
        .def_ro("destination_device", &DeviceOp::destination_device, "For a copy between GPUs: the GPU it copied to.")
        .def("__repr__", [](const DeviceOp& op) {
            return "DeviceOp(" + display_name(op) + ", " + to_string(op.kind) + ", stream " +
                   std::to_string(op.stream_id) + ", " + std::to_string(op.start_ns) + "-" + std::to_string(op.end_ns) +
                   " ns)";
        });
}

void bind_timeline_class(nb::module_& module) {
    nb::class_<HostMark>(module, "HostMark", "An instant the host recorded, on the ops' clock.")
        .def_ro("name", &HostMark::name)
        .def_ro("time_ns", &HostMark::time_ns);
    nb::class_<HostRange>(module, "HostRange", "A stretch of host time named with an NVTX range.")
        .def_ro("name", &HostRange::name)
        .def_ro("start_ns", &HostRange::start_ns)
        .def_ro("end_ns", &HostRange::end_ns);
    nb::class_<DeviceFacts>(module, "DeviceFacts", "The device a timeline ran on.")
        .def_ro("name", &DeviceFacts::name)
        .def_prop_ro("compute_capability", &DeviceFacts::compute_capability)
        .def_ro("sm_count", &DeviceFacts::sm_count)
        .def_ro("copy_engines", &DeviceFacts::copy_engines)
        .def_ro("total_memory_bytes", &DeviceFacts::total_memory_bytes)
        .def_ro("concurrent_kernels", &DeviceFacts::concurrent_kernels);
    nb::class_<Timeline>(module, "Timeline", "A recorded timeline: ops sorted by start, host marks, device facts.")
        .def(nb::init<>())
        .def(
            "__init__",
            [](Timeline* timeline, std::vector<DeviceOp> ops) {
                new (timeline) Timeline();
                timeline->ops = std::move(ops);
            },
            "ops"_a, "A timeline of these ops, made by hand (as the tools' tests make them).")
        .def_ro("ops", &Timeline::ops, "The device operations (a copy of the list).")
        .def_ro("marks", &Timeline::marks)
        .def_ro("ranges", &Timeline::ranges)
        .def_ro("device", &Timeline::device)
        .def_ro("program", &Timeline::program)
        .def_ro("date", &Timeline::date)
        .def_ro("origin_ns", &Timeline::origin_ns, "The trace clock's value that the times are relative to.")
        .def_ro("dropped_records", &Timeline::dropped_records)
        .def_ro("api_calls", &Timeline::api_calls, "Runtime calls seen while recording, by function name.")
        .def_ro("api_calls_by_thread", &Timeline::api_calls_by_thread,
                "Runtime calls seen while recording, by host thread (streamlab.host_thread_id()).")
        .def_prop_ro("recorded", &Timeline::recorded, "False when the work ran with the tracer off.")
        .def_ro("not_recorded", &Timeline::not_recorded, "Why nothing was recorded, or \"\".")
        .def("__repr__", [](const Timeline& timeline) {
            return "Timeline(" + timeline.program + ", " + std::to_string(timeline.ops.size()) + " ops)";
        });
}

}  // namespace

void bind_timeline(nb::module_& module) {
    bind_device_op(module);
    bind_timeline_class(module);
    module.def("read_trace", &read_trace, "path"_a, "The trace file at `path` (TraceFormatError if it is not one).");
    module.def("parse_trace", &parse_trace, "text"_a, "The trace in JSON text `text`.");
    module.def("trace_to_json", &trace_to_json_string, "timeline"_a, "The trace file text for `timeline`.");
    module.def("write_trace", &write_trace, "path"_a, "timeline"_a,
               "Writes `timeline` to `path` (whole or not at all), creating missing folders.");
}

}  // namespace streamlab::python
