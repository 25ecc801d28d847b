// Lab 09's course side for Python, as the submodule streamlab.lab09 (the BINDINGS
// of lab.cmake), compiled in from the C++ lab: Task 2's faulty kernel and its
// tripwire (faulty_workload.cu).
#include <cstddef>

#include "bindings.hpp"
#include "lab09.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

// ---------------------------------------------------------------- Task 2: a late error

void bind_late_error(nb::module_& lab09) {
    lab09.attr("KTRIPWIRE") = lab09::kTripwire;
    lab09.def(
        "launch_faulty_workload",
        [](nb::handle input, nb::handle output, std::size_t n, int iterations, nb::handle stream) {
            lab09::launch_faulty_workload(pointer_of<const float>(input), pointer_of<float>(output), n, iterations,
                                          pointer_of<CUstream_st>(stream));
        },
        "input"_a, "output"_a, "n"_a, "iterations"_a, "stream"_a,
        "Queues the course's faulty kernel in `stream`: the workload kernel's work on n floats at these device "
        "addresses, except that the thread whose input is KTRIPWIRE writes outside any allocation (the kernel fails "
        "with cudaErrorIllegalAddress). Does not check the launch: ask cudart.cudaGetLastError() after it.");
    nb::class_<lab09::Tripwire>(lab09, "Tripwire", "Where the course planted the tripwire.")
        .def_ro("chunk", &lab09::Tripwire::chunk, "Its chunk (0-based).")
        .def_ro("index", &lab09::Tripwire::index, "Its element.");
    lab09.def(
        "plant_tripwire",
        [](nb::handle input, std::size_t n, int chunks) {
            return lab09::plant_tripwire(pointer_of<float>(input), n, chunks);
        },
        "input"_a, "n"_a, "chunks"_a,
        "Puts KTRIPWIRE at a random element of a random one of `chunks` chunks (streamlab.chunk_range) of the n "
        "host floats at `input`, and says where (Tripwire).");
}

// ---------------------------------------------------------------- Task 2 end

}  // namespace

void register_lab09(nb::module_& module) {
    nb::module_ lab09 = module.def_submodule("lab09", "Lab 09's course side: Task 2's faulty kernel and tripwire.");
    bind_late_error(lab09);
}

}  // namespace streamlab::python
