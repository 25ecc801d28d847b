// Lab 07's course side for Python, as the submodule streamlab.lab07 (the bindings
// of lab.json): the host that consumes each chunk's results and times every call
// on the timeline's clock (course_side.hpp), compiled in from the C++ lab, through
// the consumer the C library offers too (host_consumer.hpp); Task 4's background
// and urgent kernels (priority_side.hpp); and what the Python track's recording
// program (python/record_lab07.py) writes into its record as record_lab07.cpp does.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "course_side.hpp"
#include "host_consumer.hpp"
#include "priority_side.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/record.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

using lab07::course::Consumption;
using lab07::course::PriorityDemo;
using lab07::course::UrgentWait;

void register_lab07(nb::module_& module) {
    nb::module_ lab07 = module.def_submodule("lab07", "Lab 07's course side: the consumer of each chunk's results.");
    lab07.attr("CHUNKS") = lab07::course::kChunks;      // of every graded run
    lab07.attr("LAUNCHES") = lab07::course::kLaunches;  // of the graded run of Task 3
    nb::class_<Consumption>(lab07, "Consumption", "One call of consume, as the course saw it (ns, thread).")
        .def_ro("chunk", &Consumption::chunk)
        .def_ro("start_ns", &Consumption::start_ns)
        .def_ro("end_ns", &Consumption::end_ns)
        .def_ro("thread", &Consumption::thread);
    nb::class_<HostConsumer>(lab07, "HostConsumer",
                             "The host that takes each chunk's results out of memory.output, timing each call.")
        .def(nb::init<PipelineMemory&, int, int>(), "memory"_a, "iterations"_a, "chunks"_a, nb::keep_alive<1, 2>())
        .def_prop_ro(
            "host_function", [](const HostConsumer&) { return HostConsumer::host_function(); },
            "The address of the course's host function: cudaLaunchHostFunc's fn.")
        .def("user_data", &HostConsumer::user_data, "chunk"_a,
             "The address of chunk's delivery record: cudaLaunchHostFunc's userData for that chunk.")
        .def("consume", &HostConsumer::consume, "chunk"_a, "Consumes chunk's results now, on this thread.")
        .def_prop_ro("consumed", &HostConsumer::consumed,
                     "The address of what consume took out of memory.output (n floats): the run's output.")
        .def("reset", &HostConsumer::reset, "Forgets the calls and poisons what was consumed.")
        .def("consumptions", &HostConsumer::consumptions, "origin_ns"_a,
             "The calls since reset(), in the order they began, relative to origin_ns.");
    lab07.def(
        "put_consumptions",
        [](const std::vector<Consumption>& calls, record::Scenario& scenario) {
            lab07::course::put_consumptions(calls, scenario.values);
        },
        "calls"_a, "scenario"_a,
        "Writes the consumer's calls into a recorded scenario's values, as the judges read them back.");
    nb::class_<UrgentWait>(lab07, "UrgentWait",
                           "How long after the background kernel's start the urgent kernel started.")
        .def_ro("problem", &UrgentWait::problem)
        .def_ro("background_ns", &UrgentWait::background_ns)
        .def_ro("wait_ns", &UrgentWait::wait_ns)
        .def_prop_ro("share", &UrgentWait::share, "wait_ns / background_ns.");
    nb::class_<PriorityDemo>(lab07, "PriorityDemo",
                             "Task 4's background kernel and urgent kernel, sized from the device.")
        .def(nb::init<>())
        .def(
            "fill_gpu",
            [](PriorityDemo& demo, nb::handle stream) { demo.work().fill_gpu(pointer_of<CUstream_st>(stream)); },
            "stream"_a, "Launches the background kernel in `stream`; returns once it has begun.")
        .def(
            "launch",
            [](PriorityDemo& demo, nb::handle stream) { demo.work().launch(pointer_of<CUstream_st>(stream)); },
            "stream"_a, "Launches the urgent kernel in `stream`, noting when.")
        .def("launched_ns", &PriorityDemo::launched_ns, "origin_ns"_a,
             "When the urgent kernel was last launched, relative to origin_ns.")
        .def("describe", &PriorityDemo::describe, "The background's size, for a printout.");
    lab07.def("urgent_wait", &lab07::course::urgent_wait, "timeline"_a, "launched_ns"_a,
              "The urgent kernel's wait in the timeline (UrgentWait).");
}

}  // namespace streamlab::python
