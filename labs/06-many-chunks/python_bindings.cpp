// Lab 06's course side for Python, as the submodule streamlab.lab06 (the bindings
// of lab.json): the graded jobs (graded_jobs.hpp) over the host that fills and
// drains the rings and times every use on the timeline's clock (host_side.hpp),
// and what a recording puts into a scenario (recorded_runs.hpp). The C++ lab's
// own files are compiled in, so the Python track's recording program
// (python/record_lab06.py) runs the same scenarios and writes the same record as
// record_lab06.cpp, for the same judges.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "graded_jobs.hpp"
#include "host_side.hpp"
#include "recorded_runs.hpp"
#include "ring_addresses.hpp"
#include "streamlab/record.hpp"
#include "streamlab/recording.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

using lab06::StreamingJob;
using lab06::course::GradedJob;
using lab06::course::HostStream;
using lab06::course::RecordedHost;
using lab06::course::RingShape;

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
    nb::class_<HostStream>(lab06, "HostStream",
                           "The host's side: the whole input and output, and every fill and drain.")
        .def(nb::init<std::size_t>(), "n"_a)
        .def_prop_ro("n", [](const HostStream& host) { return host.input.size(); })
        .def("slow_down", &HostStream::slow_down, "extra_ns"_a, "Every later fill and drain takes extra_ns longer.")
        .def("reset", &HostStream::reset, "Forgets the records and poisons the output.");
    nb::class_<RecordedHost>(lab06, "RecordedHost",
                             "A recording's set-up (the set-up values n and h2d_ms), as record_lab06.cpp has it.")
        .def(nb::init<recording::Session&>(), "session"_a)
        .def_prop_ro(
            "host", [](RecordedHost& recorded) -> HostStream& { return recorded.host; },
            nb::rv_policy::reference_internal, "The host, its input filled from the recording's seed.")
        .def_ro("h2d_ms", &RecordedHost::h2d_ms, "The whole input's H2D copy, measured alone.");
}

void bind_graded_jobs(nb::module_& lab06) {
    nb::module_ scenarios = lab06.def_submodule("scenarios", "The record's scenarios (graded_jobs.hpp).");
    namespace names = lab06::course::scenarios;
    scenarios.attr("RESULTS") = names::kResults;
    scenarios.attr("SLOW_HOST") = names::kSlowHost;
    scenarios.attr("HAZARDS") = names::kHazards;
    scenarios.attr("PIPELINE") = names::kPipeline;
    scenarios.attr("SWEEP") = names::kSweep;

    nb::class_<RingShape>(lab06, "RingShape", "How many chunks, and how many buffers of each ring.")
        .def_ro("chunks", &RingShape::chunks)
        .def_ro("staging", &RingShape::staging)
        .def_ro("results", &RingShape::results)
        .def_ro("device_sets", &RingShape::device_sets);
    // Copies: Python never writes into the course's constants.
    lab06.attr("RESULTS_SHAPE") = nb::cast(lab06::course::kResultsShape, nb::rv_policy::copy);
    lab06.attr("SLOW_HOST_SHAPE") = nb::cast(lab06::course::kSlowHostShape, nb::rv_policy::copy);
    lab06.attr("HAZARD_SHAPE") = nb::cast(lab06::course::kHazardShape, nb::rv_policy::copy);
    lab06.attr("MODEL_SHAPE") = nb::cast(lab06::course::kModelShape, nb::rv_policy::copy);
    lab06.attr("BALANCED") = lab06::course::kBalanced;
    lab06.attr("HOST_RUNS_AHEAD") = lab06::course::kHostRunsAhead;
    lab06.attr("SWEEP_COUNTS") = nb::cast(lab06::course::kSweepCounts, nb::rv_policy::copy);

    nb::class_<GradedJob>(lab06, "GradedJob",
                          "One graded job over the host: its rings, the host's fills and drains timed alone, the "
                          "kernel sized to `weight`, and the job (graded_jobs.hpp).")
        // The job's produce and consume refer to the host: it lives as long as the graded job does.
        .def(nb::init<HostStream&, const RingShape&, double, double, const std::vector<int>&>(), "host"_a, "shape"_a,
             "weight"_a, "h2d_ms"_a, "counts"_a = std::vector<int>{}, nb::keep_alive<1, 2>())
        .def_ro("shape", &GradedJob::shape)
        .def_ro("iterations", &GradedJob::iterations)
        .def_prop_ro(
            "job", [](GradedJob& graded) -> StreamingJob& { return graded.job; }, nb::rv_policy::reference_internal,
            "What your run_stream and sweep_chunks are given (lab06.job_over makes yours of it).");
    lab06.def("slow_host_extra_ns", &lab06::course::slow_host_extra_ns, "graded"_a,
              "How much longer the slow host takes over each fill and drain of `graded`.");
}

/// `value`, something your code returned, as a T, or a TypeError that says what it is.
template <typename T>
T returned_as(nb::handle value, const std::string& what, const char* type) {
    T converted{};
    if (!nb::try_cast(value, converted)) {
        throw nb::type_error((what + " is " + nb::cast<std::string>(nb::repr(value)) + ", not " + type).c_str());
    }
    return converted;
}

void bind_recorded_runs(nb::module_& lab06) {
    lab06.def("put_recorded_run", &lab06::course::put_recorded_run, "scenario"_a, "recorded"_a, "graded"_a,
              "After a run of graded.job was recorded into `scenario`: the host's fills and drains, and what the "
              "course measured of the job.");
    lab06.def("put_output_sample", &lab06::course::put_output_sample, "scenario"_a, "recorded"_a, "graded"_a,
              "The output the host's consume wrote, sampled for the judges.");
    lab06.def("put_gpu_alone", &lab06::course::put_gpu_alone, "scenario"_a, "recorded"_a, "graded"_a,
              "The GPU's stages alone and the link's sharing, measured now; False where no timeline can be "
              "recorded on this machine.");
    lab06.def(
        "put_sweep",
        [](record::Scenario& scenario, nb::handle returned) {
            lab06::Sweep sweep;
            const nb::object best = returned.attr("best_chunks"), points = returned.attr("points");
            sweep.best_chunks = returned_as<int>(best, "sweep_chunks' best_chunks", "an int");
            for (nb::handle point : points) {
                const nb::object chunks = point.attr("chunks"), ms = point.attr("ms");
                sweep.points.push_back({returned_as<int>(chunks, "a sweep point's chunks", "an int"),
                                        returned_as<double>(ms, "a sweep point's ms", "a number")});
            }
            lab06::course::put_sweep(scenario, sweep);
        },
        "scenario"_a, "sweep"_a, "What your sweep_chunks returned (a lab06.Sweep): its points and its best N.");
}

}  // namespace

void register_lab06(nb::module_& module) {
    nb::module_ lab06 = module.def_submodule(
        "lab06", "Lab 06's course side: the graded jobs, the host, and what a recording puts into a scenario.");
    bind_job(lab06);
    bind_host(lab06);
    bind_graded_jobs(lab06);
    bind_recorded_runs(lab06);
}

}  // namespace streamlab::python
