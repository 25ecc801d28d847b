// The parts of the Python module `streamlab`, one file each (module.cpp puts them together).
#pragma once

#include <nanobind/nanobind.h>

namespace streamlab::python {

/// DeviceOp, HostMark, Timeline, DeviceFacts and trace files (read, parse, write).
void bind_timeline(nanobind::module_& module);

/// The timeline measures of analysis.hpp, over lists of DeviceOp.
void bind_analysis(nanobind::module_& module);

/// The pipeline model of model.hpp: the formulas and the simulation, shared link included.
void bind_model(nanobind::module_& module);

/// The course's workload kernel and the chunked pipeline (memory, serial reference,
/// chunks found in a timeline, the comparison with the model), for the Python labs.
void bind_pipeline(nanobind::module_& module);

/// Lab 04's batches: host buffers, the host's marked work, a background kernel, batches on a timeline.
void bind_batches(nanobind::module_& module);

/// The tracer as a context manager: `with streamlab.record("lab05") as timeline:`.
void bind_tracer(nanobind::module_& module);

}  // namespace streamlab::python
