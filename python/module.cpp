// The Python module `streamlab`: the course's C++ library for Python, so that the
// Python tools and the C++ graders share one implementation of timelines, their
// analysis and the pipeline model.
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "streamlab/trace_file.hpp"
#include "streamlab/tracer.hpp"

namespace nb = nanobind;

NB_MODULE(streamlab, module) {
    module.doc() =
        "The CUDA Streams Lab library: timelines and trace files, their analysis, the pipeline model, "
        "and the tracer (with streamlab.record(name) as timeline: ...).";
    // A malformed trace file or spelling is bad input: ValueError, with the C++ message.
    nb::exception<streamlab::TraceFormatError>(module, "TraceFormatError", PyExc_ValueError);
    // No GPU, CUPTI taken by another tool: nothing can be recorded here.
    nb::exception<streamlab::TimelineUnavailable>(module, "TimelineUnavailable", PyExc_RuntimeError);
    streamlab::python::bind_timeline(module);
    streamlab::python::bind_analysis(module);
    streamlab::python::bind_model(module);
    streamlab::python::bind_pipeline(module);
    streamlab::python::bind_tracer(module);
    streamlab::python::bind_words(module);
    streamlab::python::bind_recording(module);
    // Last, as they build on the names above; a copy of the course without a lab has none of its names.
    streamlab::python::register_labs(module);
#ifdef STREAMLAB_SIMULATED_GPU
    // The simulated build: cuda-bindings' runtime calls go to the simulated GPU this module links, the one
    // the course's kernel and tracer use (python/simulated_cuda_runtime.py).
    streamlab::python::bind_simulated_runtime(module);
    nb::module_::import_("simulated_cuda_runtime").attr("install")(module.attr("simulated_runtime"));
#endif
}
