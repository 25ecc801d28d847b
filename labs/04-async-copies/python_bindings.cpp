// Lab 04's batches for the module streamlab (the BINDINGS of lab.cmake): the host
// buffers, the host's marked work, another stream's kernel, and the batches read
// back from a timeline (streamlab/batches.hpp), at the module's top level.
#include <cstdint>
#include <functional>

#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

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
        .def(nb::init<int, std::size_t, bool>(), "count"_a, "n"_a, "pinned"_a)
        .def_prop_ro("count", &BatchBuffers::count)
        .def_prop_ro("n", &BatchBuffers::size)
        .def_prop_ro("pinned", &BatchBuffers::pinned)
        .def(
            "input", [](const BatchBuffers& b, int batch) { return address(b.input(batch)); }, "batch"_a)
        .def(
            "output", [](const BatchBuffers& b, int batch) { return address(b.output(batch)); }, "batch"_a)
        .def("reset", &BatchBuffers::reset, "prepare_all"_a,
             "Outputs poisoned; batch 0's input prepared, and the others too when prepare_all.")
        .def("check", &BatchBuffers::check, "batch"_a, "iterations"_a, "Batch's output against the CPU reference.");
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
    module.attr("BACKGROUND_LABEL") = kBackgroundLabel;
}

void bind_found_batches(nb::module_& module) {
    nb::class_<BatchOnTimeline>(module, "BatchOnTimeline", "One batch as the timeline shows it.")
        .def_ro("h2d", &BatchOnTimeline::h2d)
        .def_ro("kernel", &BatchOnTimeline::kernel)
        .def_ro("d2h", &BatchOnTimeline::d2h)
        .def_ro("queued_ns", &BatchOnTimeline::queued_ns)
        .def_ro("host_done_ns", &BatchOnTimeline::host_done_ns)
        .def("device_busy_on_return", &BatchOnTimeline::device_busy_on_return)
        .def("host_work_ns", &BatchOnTimeline::host_work_ns)
        .def("device_span_ns", &BatchOnTimeline::device_span_ns)
        .def("host_device_overlap_ns", &BatchOnTimeline::host_device_overlap_ns);
    nb::class_<BatchesOnTimeline>(module, "BatchesOnTimeline", "The batches found in a timeline, or why none were.")
        .def_ro("batches", &BatchesOnTimeline::batches)
        .def_ro("problem", &BatchesOnTimeline::problem);
    module.def("find_batches", &find_batches, "timeline"_a, "count"_a, "bytes"_a,
               "The batches of a batch run: the b-th H2D copy, kernel and D2H copy and batch b's host marks.");
    module.def("unlabelled_ops", &unlabelled_ops, "ops"_a, "The ops without a label: the run's own, not the grader's.");
}

}  // namespace

void register_lab04(nb::module_& module) {
    bind_buffers(module);
    bind_found_batches(module);
}

}  // namespace streamlab::python
