// The parts of the Python module `streamlab`, one file each (module.cpp puts them together).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nanobind/nanobind.h>

#include "streamlab/model.hpp"

namespace streamlab::python {

/// The address an integer-like Python object holds. cuda-bindings hands out device
/// and pinned host pointers as plain integers, and streams as objects whose int()
/// is the handle; anything int() accepts is taken, checked to be non-negative.
inline std::uintptr_t address_of(nanobind::handle object) {
    const nanobind::int_ value(nanobind::borrow(object));
    const long long address = nanobind::cast<long long>(value);
    if (address < 0) {
        throw std::invalid_argument("an address cannot be negative: " + std::to_string(address));
    }
    return static_cast<std::uintptr_t>(address);
}

/// address_of(object) as a pointer to T.
template <typename T>
T* pointer_of(nanobind::handle object) {
    return reinterpret_cast<T*>(address_of(object));  // NOLINT: the address comes from CUDA
}

/// A pointer as the integer Python code passes to cuda-bindings.
inline std::uintptr_t address(const void* pointer) {
    return reinterpret_cast<std::uintptr_t>(pointer);
}

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

/// Lab 06's course side: the rings, the host that fills and drains them, and the
/// grader's questions about their records (labs/06-many-chunks/host_side.hpp, ring_timeline.hpp).
void bind_many_chunks(nanobind::module_& module);

/// Lab 07's course side: the consumer of each chunk's results and its host function
/// (labs/07-dependencies-and-graphs/course_side.hpp).
void bind_dependencies(nanobind::module_& module);

/// The tracer as a context manager: `with streamlab.record("lab05") as timeline:`.
void bind_tracer(nanobind::module_& module);

}  // namespace streamlab::python
