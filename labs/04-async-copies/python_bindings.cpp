// Lab 04's batches for the module streamlab (the bindings of lab.json), what its
// recording program (python/record_lab04.py) sets up around the student's batch
// loop: the host buffers and their output sampled for the record, the host's marked
// work, another stream's kernel (streamlab/batches.hpp), at the module's top level.
// The judges read the batches back from the record in C++ (test_lab04.cpp).
#include <cstddef>
#include <cstdint>
#include <functional>

#include "bindings.hpp"
#include "streamlab/batches.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

/// marked_host_work's function, as an object Python can call and keep the buffers alive for.
struct HostWork {
    std::function<void(int)> work;
};

void bind_buffers(nb::module_& module) {
    nb::class_<BatchBuffers>(module, "BatchBuffers", "Host input and output of `count` batches, n floats each.")
        .def(nb::init<int, std::size_t, bool, std::uint32_t>(), "count"_a, "n"_a, "pinned"_a, "seed"_a = 1,
             "The inputs are consecutive slices of one input filled from `seed`.")
        .def_prop_ro("count", &BatchBuffers::count)
        .def_prop_ro("n", &BatchBuffers::size)
        .def_prop_ro("pinned", &BatchBuffers::pinned)
        .def_prop_ro("seed", &BatchBuffers::seed)
        .def(
            "input", [](const BatchBuffers& b, int batch) { return address(b.input(batch)); }, "batch"_a)
        .def(
            "output", [](const BatchBuffers& b, int batch) { return address(b.output(batch)); }, "batch"_a)
        .def("reset", &BatchBuffers::reset, "prepare_all"_a,
             "Outputs poisoned; batch 0's input prepared, and the others too when prepare_all.")
        .def("check", &BatchBuffers::check, "batch"_a, "iterations"_a, "Batch's output against the CPU reference.")
        .def("sample_outputs", &BatchBuffers::sample_outputs, "iterations"_a,
             "Every batch's output, one after the other, sampled for a record (a recording.OutputSample).");
    // A class, not a bare function: keep_alive needs a returned object that can hold
    // a reference, and the work refers to the buffers, which must live as long as it does.
    nb::class_<HostWork>(module, "HostWork", "The host's work for a batch run; call it as host_work(b).")
        .def("__call__", [](const HostWork& host_work, int batch) { host_work.work(batch); }, "batch"_a);
    module.def(
        "marked_host_work",
        [](BatchBuffers& buffers, bool prepare_next) { return HostWork{marked_host_work(buffers, prepare_next)}; },
        "buffers"_a, "prepare_next"_a, nb::keep_alive<0, 1>(),
        "The host's work for a batch run, host_work(b): marks when control came back and when the work "
        "ended, on the timeline's clock; prepares batch b + 1's input when prepare_next.");
    nb::class_<BackgroundKernel>(module, "BackgroundKernel",
                                 "A kernel of about `ms` milliseconds in a stream of its own, labelled \"background\".")
        .def(nb::init<double, const DeviceFacts&>(), "ms"_a, "facts"_a)
        .def("launch", &BackgroundKernel::launch, "Queues the kernel and returns at once.");
}

}  // namespace

void register_lab04(nb::module_& module) {
    bind_buffers(module);
}

}  // namespace streamlab::python
