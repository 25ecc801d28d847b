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

/// The tracer as a context manager: `with streamlab.record("pipeline") as timeline:`.
void bind_tracer(nanobind::module_& module);

/// A lab's recording program (streamlab/recording.hpp), as the submodule `recording`.
void bind_recording(nanobind::module_& module);

/// The words the grader trusts (streamlab/grader_words.hpp), as the submodule `words`.
void bind_words(nanobind::module_& module);

/// The simulated GPU's runtime calls, as the submodule `simulated_runtime` (the simulated build only).
void bind_simulated_runtime(nanobind::module_& module);

/// What each lab adds (the bindings of its lab.json): calls every lab's
/// register_labNN(module), in a file CMake generates (python/CMakeLists.txt).
void register_labs(nanobind::module_& module);

}  // namespace streamlab::python
