// Lab 07's course side for Python, as the submodule streamlab.lab07: the host that
// consumes each chunk's results and times every call on the timeline's clock
// (labs/07-dependencies-and-graphs/course_side.hpp), compiled in from the C++ lab,
// through the consumer the C library offers too (host_consumer.hpp).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "course_side.hpp"
#include "host_consumer.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/workload.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

using lab07::course::Consumption;

void bind_dependencies(nb::module_& module) {
    nb::module_ lab07 = module.def_submodule("lab07", "Lab 07's course side: the consumer of each chunk's results.");
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
        .def("reset", &HostConsumer::reset, "Forgets the calls and poisons what was consumed.")
        .def("consumptions", &HostConsumer::consumptions, "origin_ns"_a,
             "The calls since reset(), in the order they began, relative to origin_ns.")
        .def("check", &HostConsumer::check, "chunks"_a, "What was consumed, against the CPU reference.");
}

}  // namespace streamlab::python
