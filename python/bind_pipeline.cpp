// The course's workload and the chunked pipeline, for the Python labs. Every buffer
// and stream is taken as an address (bindings.hpp, address_of).
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include <nanobind/stl/function.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "streamlab/device.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/ordering.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/workload.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

void bind_device(nb::module_& module) {
    module.def(
        "gpu_presence",
        [] {
            const GpuPresence presence = query_gpu_presence();
            return std::make_pair(presence.available, presence.reason);
        },
        "(True, \"\") where a GPU is usable, else (False, why not). Never raises.");
    module.def("device_facts", &query_device_facts, "ordinal"_a = 0,
               "The device's facts: name, compute capability, SMs, copy engines.");
}

void bind_workload(nb::module_& module) {
    nb::class_<ResultCheck>(module, "ResultCheck", "Output checked against the CPU reference.")
        .def_ro("ok", &ResultCheck::ok)
        .def_ro("compared", &ResultCheck::compared)
        .def_ro("mismatches", &ResultCheck::mismatches)
        .def("message", &ResultCheck::message, "One line: all elements match, or where it went wrong.");
    module.def(
        "launch_workload",
        [](nb::handle input, nb::handle output, std::size_t n, int iterations, nb::handle stream, int max_blocks) {
            launch_workload(pointer_of<const float>(input), pointer_of<float>(output), n, iterations,
                            pointer_of<CUstream_st>(stream), max_blocks);
        },
        "input"_a, "output"_a, "n"_a, "iterations"_a, "stream"_a = 0, "max_blocks"_a = 0,
        "Queues the course's workload kernel: output[i] from input[i], `iterations` times over, for n floats "
        "at these device addresses, in `stream` (0: the legacy NULL stream).");
    module.def(
        "fill_input",
        [](nb::handle data, std::size_t n, std::uint32_t seed, std::size_t first) {
            fill_input(pointer_of<float>(data), n, seed, first);
        },
        "data"_a, "n"_a, "seed"_a = 1, "first"_a = 0,
        "Fills n host floats at this address with the course's input values: elements first to first + n - 1 "
        "of the input `seed` gives, so that buffers filled with consecutive `first` hold one input's slices.");
    module.def(
        "fill_poison", [](nb::handle data, std::size_t n) { fill_poison(pointer_of<float>(data), n); }, "data"_a, "n"_a,
        "Fills n host floats with a value no correct run produces.");
    module.def(
        "check_workload_output",
        [](nb::handle input, nb::handle output, std::size_t n, int iterations, int chunks) {
            return check_workload_output(pointer_of<const float>(input), pointer_of<const float>(output), n, iterations,
                                         chunks);
        },
        "input"_a, "output"_a, "n"_a, "iterations"_a, "chunks"_a = 1,
        "Checks n host floats of output against the CPU reference of the workload.");
    module.def(
        "count_differing",
        [](nb::handle a, nb::handle b, std::size_t n) {
            return count_differing(pointer_of<const float>(a), pointer_of<const float>(b), n);
        },
        "a"_a, "b"_a, "n"_a, "How many of n host floats at these two addresses differ bit for bit.");
    module.def(
        "chunk_range",
        [](std::size_t n, int chunks, int index) {
            const ChunkRange range = chunk_range(n, chunks, index);
            return std::make_pair(range.offset, range.count);
        },
        "n"_a, "chunks"_a, "index"_a, "(offset, count) in elements of chunk `index` (from 0) of `chunks` over n.");
    module.def("iterations_for_kernel_ms", &iterations_for_kernel_ms, "n"_a, "target_ms"_a, "max_blocks"_a = 0,
               "Workload iterations that make the kernel over n floats take about target_ms on this GPU.");
    module.def("measure_h2d_ms", &measure_h2d_ms, "bytes"_a, "One pinned H2D copy of this many bytes, timed.");
}

template <typename Buffer>
void bind_buffer(nb::module_& module, const char* name, const char* doc) {
    nb::class_<Buffer>(module, name, doc)
        .def(nb::init<std::size_t>(), "n"_a)
        .def_prop_ro("address", [](const Buffer& b) { return address(b.data()); })
        .def_prop_ro("n", &Buffer::size)
        .def_prop_ro("nbytes", &Buffer::bytes);
}

void bind_pipeline_memory(nb::module_& module) {
    bind_buffer<PinnedBuffer<float>>(module, "PinnedFloats", "n floats of pinned host memory, freed with the object.");
    bind_buffer<DeviceBuffer<float>>(module, "DeviceFloats", "n floats of device memory, freed with the object.");
    module.def("pipeline_elements", &pipeline_elements, "total_memory_bytes"_a,
               "How many floats a pipeline run uses on a GPU with this much memory.");
    nb::class_<PipelineMemory>(module, "PipelineMemory",
                               "Pinned host input and output and device input and output, n floats each.")
        .def(nb::init<std::size_t>(), "n"_a)
        .def_prop_ro("input", [](const PipelineMemory& m) { return address(m.input.data()); })
        .def_prop_ro("output", [](const PipelineMemory& m) { return address(m.output.data()); })
        .def_prop_ro("device_input", [](const PipelineMemory& m) { return address(m.device_input.data()); })
        .def_prop_ro("device_output", [](const PipelineMemory& m) { return address(m.device_output.data()); })
        .def_prop_ro("n", &PipelineMemory::size);
    nb::class_<PreparedPipeline>(module, "PreparedPipeline", "A pipeline run's memory and the work to put through it.")
        .def_prop_ro(
            "memory", [](PreparedPipeline& p) -> PipelineMemory& { return p.memory; },
            nb::rv_policy::reference_internal)
        .def_ro("iterations", &PreparedPipeline::iterations);
    module.def("prepare_pipeline", &prepare_pipeline, "facts"_a, "kernel_to_copy"_a = 1.0,
               "A pipeline run's memory for this GPU, its input filled, and the workload iterations that make the "
               "kernel kernel_to_copy times as long as the whole H2D copy, measured now.");
    nb::class_<SerialReference>(module, "SerialReference", "The whole job in the NULL stream, one stage after another.")
        .def_ro("timeline", &SerialReference::timeline)
        .def_ro("event_ms", &SerialReference::event_ms)
        .def_prop_ro("stages", [](const SerialReference& s) {
            return std::make_tuple(s.stages.h2d, s.stages.kernel, s.stages.d2h);
        });
    module.def("run_serial_reference", &run_serial_reference, "memory"_a, "iterations"_a,
               "Runs and records the serial reference on `memory` (its output is overwritten).");
    module.def("measure_link_sharing", &measure_link_sharing, "memory"_a,
               "How much of its own speed each copy direction keeps while the other copies too, measured on "
               "`memory` now (LinkSharing).");
}

void bind_chunks(nb::module_& module) {
    nb::class_<ChunkOps>(module, "ChunkOps", "One chunk's three operations, as the GPU ran them.")
        .def_ro("h2d", &ChunkOps::h2d)
        .def_ro("kernel", &ChunkOps::kernel)
        .def_ro("d2h", &ChunkOps::d2h);
    nb::class_<PipelineChunks>(module, "PipelineChunks", "The chunks found in a timeline, or why none were.")
        .def_ro("chunks", &PipelineChunks::chunks)
        .def_ro("problem", &PipelineChunks::problem);
    module.def("find_chunks", &find_chunks, "ops"_a,
               "The chunks of a pipelined run, one per created stream with one H2D, kernel and D2H each.");
    module.def("chunks_by_issue_order", &chunks_by_issue_order, "ops"_a, "chunks"_a,
               "The chunks of a pipelined run from the ops themselves, whatever streams they ran in.");
    module.def(
        "issue_order",
        [](const std::vector<DeviceOp>& ops) {
            return issue_order(ops) == IssueOrder::StageByStage ? std::string("stage") : std::string("chunk");
        },
        "ops"_a,
        "How the run's work was queued: \"chunk\" (each chunk's three steps together) or \"stage\" (every "
        "H2D first), the spelling simulate_pipeline takes.");
    module.def("modelled_ops", &modelled_ops, "simulated"_a,
               "Simulated ops (simulate_pipeline) as DeviceOps, to be measured as a recorded run is.");
    nb::class_<PipelineComparison>(module, "PipelineComparison",
                                   "A pipelined run against its serial run and the model.")
        .def_ro("chunks", &PipelineComparison::chunks)
        .def_ro("streams", &PipelineComparison::streams)
        .def_ro("copy_engines", &PipelineComparison::copy_engines)
        .def_ro("serial_ms", &PipelineComparison::serial_ms)
        .def_ro("pipelined_ms", &PipelineComparison::pipelined_ms)
        .def_ro("model_ms", &PipelineComparison::model_ms)
        .def_ro("bound_ms", &PipelineComparison::bound_ms)
        .def("speedup", &PipelineComparison::speedup)
        .def("model_speedup", &PipelineComparison::model_speedup)
        .def("efficiency", &PipelineComparison::efficiency)
        .def("__str__", [](const PipelineComparison& c) { return describe(c); });
    module.def(
        "last_event_waits_for_all",
        [](const Timeline& timeline) {
            const LastEventOrder order = order_of_last_event(timeline.stream_calls);
            return std::make_pair(order.recorded && order.not_ordered.empty(), order.describe(timeline.stream_calls));
        },
        "timeline"_a,
        "(True, why) when the last event recorded (a timing's `stop`) waits for all the work queued before it, "
        "read from the runtime calls the timeline recorded; otherwise (False, which work it does not wait for).");
    module.def(
        "compare_with_model",
        [](const Timeline& serial, const Timeline& pipelined, int chunks, int copy_engines) {
            return compare_with_model(serial, pipelined, chunks, copy_engines);
        },
        "serial"_a, "pipelined"_a, "chunks"_a, "copy_engines"_a,
        "Sets a pipelined run of `chunks` chunks against its serial reference and the model.");
}

void bind_pipeline_run(nb::module_& module) {
    nb::class_<PipelineRun>(module, "PipelineRun", "A pipelined run recorded next to its serial reference.")
        .def_ro("serial", &PipelineRun::serial)
        .def_ro("pipelined", &PipelineRun::pipelined)
        .def_ro("result", &PipelineRun::result)
        .def_ro("comparison", &PipelineRun::comparison);
    module.def(
        "record_pipeline_run",
        [](int chunks, const std::function<void(PipelineMemory*, int)>& pipelined, double kernel_to_copy) {
            // A pointer, not a reference: nanobind hands a C++ reference to Python as
            // a copy, and PipelineMemory (it owns pinned and device memory) has none.
            return record_pipeline_run(
                chunks, [&](PipelineMemory& memory, int iterations) { pipelined(&memory, iterations); },
                kernel_to_copy);
        },
        "chunks"_a, "pipelined"_a, "kernel_to_copy"_a = 1.0,
        "Runs pipelined(memory, iterations), which splits the data into `chunks` chunks, next to the serial "
        "reference on the same data, sized for this GPU: the recorded run with the median makespan, its output "
        "checked, set against the model (the lab programs' way).");
    module.def(
        "report_timeline",
        [](const Timeline& timeline, const std::string& title, const std::string& trace_path,
           const std::string& variant) {
            LabOptions options;
            options.trace_path = trace_path;
            report_timeline(timeline, title, options, variant);
            std::fflush(stdout);  // before Python prints again
        },
        "timeline"_a, "title"_a, "trace_path"_a = "", "variant"_a = "",
        "Prints a timeline's summary the lab programs' way and, with trace_path, writes its trace there "
        "(with `-variant` before the extension when variant is given).");
}

}  // namespace

void bind_pipeline(nb::module_& module) {
    bind_device(module);
    bind_workload(module);
    bind_pipeline_memory(module);
    bind_chunks(module);
    bind_pipeline_run(module);
}

}  // namespace streamlab::python
