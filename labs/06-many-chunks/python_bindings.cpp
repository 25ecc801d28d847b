// Lab 06's course side for Python, as the submodule streamlab.lab06 (the BINDINGS
// of lab.cmake): the rings of pinned and device buffers, the host that fills and
// drains them and times every use on the timeline's clock (host_side.hpp), and the
// grader's questions about those records (ring_timeline.hpp). The C++ lab's own
// files are compiled in, so both languages are graded by the same code.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "host_side.hpp"
#include "ring_addresses.hpp"
#include "ring_timeline.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/workload.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

using lab06::StreamingJob;
using lab06::course::HostStream;
using lab06::course::HostUse;
using lab06::course::RecordedChunk;
using lab06::course::RecordedRun;
using lab06::course::Rings;
using lab06::course::RingShape;
using lab06::course::RunSpan;

void bind_rings(nb::module_& lab06) {
    nb::class_<RingShape>(lab06, "RingShape", "How many chunks, and how many buffers of each ring.")
        .def(nb::init<>())
        .def(
            "__init__",
            [](RingShape* shape, int chunks, int staging, int results, int device_sets) {
                new (shape) RingShape{chunks, staging, results, device_sets};
            },
            "chunks"_a, "staging"_a, "results"_a, "device_sets"_a)
        .def_rw("chunks", &RingShape::chunks)
        .def_rw("staging", &RingShape::staging)
        .def_rw("results", &RingShape::results)
        .def_rw("device_sets", &RingShape::device_sets);
    nb::class_<Rings>(lab06, "Rings", "The job's buffers: S + R pinned ones and K device sets, `capacity` floats each.")
        .def(nb::init<std::size_t, const RingShape&>(), "capacity"_a, "shape"_a)
        .def_ro("capacity", &Rings::capacity);
    lab06.def("capacity_for", &lab06::course::capacity_for, "n"_a, "chunk_counts"_a,
              "Floats a buffer needs for the largest chunk of n elements cut into any of these counts.");
}

void bind_job(nb::module_& lab06) {
    nb::class_<StreamingJob>(lab06, "CourseJob",
                             "The course's streaming job: the rings' addresses and the host's produce and consume.")
        .def_ro("n", &StreamingJob::n)
        .def_ro("chunks", &StreamingJob::chunks)
        .def_ro("iterations", &StreamingJob::iterations)
        .def_ro("capacity", &StreamingJob::capacity)
        .def_prop_ro("staging", [](const StreamingJob& job) { return ring_addresses(job.staging); })
        .def_prop_ro("results", [](const StreamingJob& job) { return ring_addresses(job.results); })
        .def_prop_ro("device",
                     [](const StreamingJob& job) {
                         std::vector<std::pair<std::uintptr_t, std::uintptr_t>> sets;
                         for (const lab06::DeviceSet& set : job.device) {
                             sets.emplace_back(address(set.input), address(set.output));
                         }
                         return sets;
                     })
        .def(
            "produce",
            [](const StreamingJob& job, std::size_t offset, std::size_t count, nb::handle staging) {
                job.produce(offset, count, ring_buffer_at(job.staging, address_of(staging), "produce", "job.staging"));
            },
            "offset"_a, "count"_a, "staging"_a)
        .def(
            "consume",
            [](const StreamingJob& job, std::size_t offset, std::size_t count, nb::handle results) {
                job.consume(offset, count, ring_buffer_at(job.results, address_of(results), "consume", "job.results"));
            },
            "offset"_a, "count"_a, "results"_a);
}

void bind_host(nb::module_& lab06) {
    nb::class_<HostUse>(lab06, "HostUse", "One fill or drain of a ring buffer, on the timeline's clock (ns).")
        // Made from Python only to ask the grader's questions of chosen times (its CPU tests).
        .def(
            "__init__",
            [](HostUse* use, std::size_t offset, std::size_t count, int slot, std::uint64_t start_ns,
               std::uint64_t end_ns) { new (use) HostUse{offset, count, slot, start_ns, end_ns}; },
            "offset"_a, "count"_a, "slot"_a, "start_ns"_a, "end_ns"_a)
        .def_ro("offset", &HostUse::offset)
        .def_ro("count", &HostUse::count)
        .def_ro("slot", &HostUse::slot)
        .def_ro("start_ns", &HostUse::start_ns)
        .def_ro("end_ns", &HostUse::end_ns);
    nb::class_<HostStream>(lab06, "HostStream",
                           "The host's side: the whole input and output, and every fill and drain.")
        .def(nb::init<std::size_t>(), "n"_a)
        .def_prop_ro("n", [](const HostStream& host) { return host.input.size(); })
        // The job's produce and consume refer to the host and to the rings: both live as long as it does.
        .def("job", &HostStream::job, "rings"_a, "chunks"_a, "iterations"_a, nb::keep_alive<0, 1>(),
             nb::keep_alive<0, 2>(), "A job over `rings` whose produce and consume record each call.")
        .def("slow_down", &HostStream::slow_down, "extra_ns"_a, "Every later fill and drain takes extra_ns longer.")
        .def("reset", &HostStream::reset, "Forgets the records and poisons the output.")
        .def("fills", &HostStream::fills, "origin_ns"_a, "The fills since reset(), relative to origin_ns.")
        .def("drains", &HostStream::drains, "origin_ns"_a, "The drains since reset(), relative to origin_ns.")
        .def(
            "measure_alone",
            [](HostStream& host, Rings& rings, int chunks) {
                const HostStream::AloneMs alone = host.measure_alone(rings, chunks);
                return std::make_pair(alone.fill, alone.drain);
            },
            "rings"_a, "chunks"_a, "(fill_ms, drain_ms): the host's time for all fills, and for all drains, alone.")
        .def(
            "check_output",
            [](const HostStream& host, int iterations, int chunks) {
                return check_workload_output(host.input.data(), host.output.data(), host.input.size(), iterations,
                                             chunks);
            },
            "iterations"_a, "chunks"_a, "What consume wrote, against the CPU reference.")
        .def(
            "measure_gpu_alone",
            [](const HostStream& host, int iterations) {
                PipelineMemory memory(host.input.size());
                std::memcpy(memory.input.data(), host.input.data(), memory.input.bytes());
                SerialReference serial = run_serial_reference(memory, iterations);
                const LinkSharing link = measure_link_sharing(memory);
                return std::make_pair(std::move(serial), link);
            },
            "iterations"_a,
            "(SerialReference, LinkSharing) of the whole input on this GPU: the stage times and the shared link "
            "the model needs.");
}

void bind_questions(nb::module_& lab06) {
    nb::class_<RecordedChunk>(lab06, "RecordedChunk", "One chunk's fill, GPU ops and drain.")
        .def_ro("fill", &RecordedChunk::fill)
        .def_ro("ops", &RecordedChunk::ops)
        .def_ro("drain", &RecordedChunk::drain);
    nb::class_<RecordedRun>(lab06, "RecordedRun", "A run's chunks paired from the records, or why they cannot be.")
        .def_ro("chunks", &RecordedRun::chunks)
        .def_ro("problem", &RecordedRun::problem);
    lab06.def("pair_chunks", &lab06::course::pair_chunks, "fills"_a, "drains"_a, "ops"_a, "n"_a, "chunks"_a,
              "Pairs each chunk's fill, H2D copy, kernel, D2H copy and drain, in the order they were issued.");
    lab06.def("reuse_hazards", &lab06::course::reuse_hazards, "chunks"_a, "device_sets"_a,
              "Every buffer use that began before the previous use of that buffer ended, one sentence each.");
    nb::class_<RunSpan>(lab06, "RunSpan", "One run of a sweep: its fills and its span on the host.")
        .def_ro("fills", &RunSpan::fills)
        .def_ro("start_ns", &RunSpan::start_ns)
        .def_ro("end_ns", &RunSpan::end_ns)
        .def("ms", &RunSpan::ms, "From the first fill to the last drain, in ms.");
    lab06.def("run_spans", &lab06::course::run_spans, "fills"_a, "drains"_a,
              "The runs found in a sweep's records (each starts with a fill at offset 0).");
    lab06.def(
        "streaming_model_ms",
        [](const std::tuple<double, double, double>& gpu, double fill_ms, double drain_ms, int chunks, int sets,
           int copy_engines, const std::string& order, const LinkSharing& link) {
            const auto [h2d, kernel, d2h] = gpu;
            return lab06::course::streaming_model_ms({h2d, kernel, d2h}, fill_ms, drain_ms, chunks, sets, copy_engines,
                                                     issue_order_from_string(order), link);
        },
        "gpu_stages"_a, "fill_ms"_a, "drain_ms"_a, "chunks"_a, "sets"_a, "copy_engines"_a, "order"_a,
        "link"_a = LinkSharing{},
        "The model's makespan of a streaming run, host included (gpu_stages: the whole data's H2D, kernel and D2H "
        "times alone, as SerialReference.stages gives them).");
}

}  // namespace

void register_lab06(nb::module_& module) {
    nb::module_ lab06 =
        module.def_submodule("lab06", "Lab 06's course side: rings, the host, and the grader's questions.");
    bind_rings(lab06);
    bind_job(lab06);
    bind_host(lab06);
    bind_questions(lab06);
}

}  // namespace streamlab::python
