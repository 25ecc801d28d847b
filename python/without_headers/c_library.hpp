// libstreamlab_c.so: the course's C++ library behind a C interface, for a Python
// that cannot build the module `streamlab` (no Python headers, or no nanobind).
//
// The Python package python/without_headers/streamlab loads it with ctypes and
// offers the module's names on top of it, so that the Python labs and their tests
// run unchanged. Every call goes through one C function, by name, with its
// arguments and its result as JSON text:
//
//     char* streamlab_call(const char* name, const char* arguments);   // {"value": ...} or {"error": ...}
//     void streamlab_free(char* text);
//
// Plain values (numbers, lists, timelines, results) travel as JSON. Objects that
// own memory or threads stay here and travel as handles (keep, kept, release).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace streamlab::without_headers {

using Json = nlohmann::json;

/// One call: its arguments by name (as the module names them), its result.
using Call = std::function<Json(const Json& arguments)>;

/// Makes `call` reachable from Python as `name` ("chunk_range", "lab06.pair_chunks", ...).
void add_call(const std::string& name, Call call);

// ---------------------------------------------------------------- objects kept here

/// The kept object behind `handle`, whatever its type, and that type's name.
struct KeptObject {
    std::string type;
    std::shared_ptr<void> object;
};

/// Keeps `object` until Python releases it; returns `fields` with its handle and
/// type added ({"__handle__": 7, "__class__": "PipelineMemory", ...}).
Json keep_object(const std::string& type, std::shared_ptr<void> object, Json fields = Json::object());

/// The object kept under the handle in `value` (a kept object's JSON, or the bare
/// handle); std::invalid_argument when there is none of that type.
KeptObject kept_object(const Json& value, const std::string& type);

/// Lets go of the object kept under the handle in `value` (nothing when there is none).
void release_object(const Json& value);

template <typename T>
Json keep(const std::string& type, std::shared_ptr<T> object, Json fields = Json::object()) {
    return keep_object(type, std::static_pointer_cast<void>(std::move(object)), std::move(fields));
}

template <typename T>
T& kept(const Json& value, const std::string& type) {
    return *static_cast<T*>(kept_object(value, type).object.get());
}

/// A pointer as the integer Python code passes to cuda-bindings.
inline std::uintptr_t address(const void* pointer) {
    return reinterpret_cast<std::uintptr_t>(pointer);
}

/// The address in `value`, as a pointer to T (cuda-bindings' buffers and streams are integers).
template <typename T>
T* pointer(const Json& value) {
    return reinterpret_cast<T*>(value.get<std::uintptr_t>());  // NOLINT: the address comes from CUDA
}

// ---------------------------------------------------------------- the calls, by area (one file each)

void add_timeline_calls();      ///< trace files, the analysis, the model (calls_timeline.cpp)
void add_pipeline_calls();      ///< device, workload, pipeline memory, chunks, runs (calls_pipeline.cpp)
void add_tracer_calls();        ///< the recording behind streamlab.record (calls_tracer.cpp)
void add_batches_calls();       ///< lab 04's batches (calls_batches.cpp)
void add_many_chunks_calls();   ///< lab 06's course side (calls_many_chunks.cpp)
void add_dependencies_calls();  ///< lab 07's course side (calls_dependencies.cpp)

}  // namespace streamlab::without_headers
