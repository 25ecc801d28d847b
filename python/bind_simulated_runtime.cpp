// The simulated GPU's runtime calls for Python, in the simulated build only (cmake/StreamLabSimulatedGpu.cmake):
// the submodule streamlab.simulated_runtime, one function per runtime call that the Python labs make, each
// calling the stand-in runtime this module links (common/simgpu) with plain numbers for handles, pointers
// and flags. Nothing calls it directly: simulated_cuda_runtime.py puts these calls in the place of
// cuda-bindings' own, with cuda-bindings' types around them, so that a lab's Python code runs unchanged.
//
// It also gives the simulated host clock, which Python's clocks read in the simulated build, as a C++
// program's do.
//
// Every call returns a tuple whose first member is the cudaError_t, as cuda-bindings' calls do. The GIL is
// released for the call itself: a synchronization waits for the simulated GPU, whose host functions run on
// threads of their own.
#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/tuple.h>

#include <cstdint>
#include <ctime>
#include <tuple>

#include "bindings.hpp"

namespace nb = nanobind;

namespace streamlab::python {
namespace {

using Handle = std::uint64_t;  // a stream, event, graph or pointer as the integer Python passes
using Status = std::tuple<int>;
using WithHandle = std::tuple<int, Handle>;
using WithNumber = std::tuple<int, long long>;

template <typename T>
T as(Handle value) {
    return reinterpret_cast<T>(static_cast<std::uintptr_t>(value));  // NOLINT: a handle made by the simulator
}

template <typename T>
Handle plain(T handle) {
    return static_cast<Handle>(reinterpret_cast<std::uintptr_t>(handle));  // NOLINT
}

Status status(cudaError_t error) {
    return {static_cast<int>(error)};
}

/// A call that makes a handle (stream, event, graph, allocation): its error and the handle.
template <typename T, typename Call>
WithHandle made(Call call) {
    T handle{};
    const cudaError_t error = call(&handle);
    return {static_cast<int>(error), plain(handle)};
}

/// A call that reads a number (a flag word, a priority, a count): its error and the number.
template <typename T, typename Call>
WithNumber read(Call call) {
    T value{};
    const cudaError_t error = call(&value);
    return {static_cast<int>(error), static_cast<long long>(value)};
}

void bind_device_calls(nb::module_& runtime, const nb::call_guard<nb::gil_scoped_release>& released) {
    runtime.def("cudaGetDeviceCount", [] { return read<int>([](int* n) { return cudaGetDeviceCount(n); }); }, released);
    runtime.def("cudaGetDevice", [] { return read<int>([](int* d) { return cudaGetDevice(d); }); }, released);
    runtime.def("cudaSetDeviceFlags", [](unsigned flags) { return status(cudaSetDeviceFlags(flags)); }, released);
    runtime.def(
        "cudaGetDeviceFlags", [] { return read<unsigned>([](unsigned* f) { return cudaGetDeviceFlags(f); }); },
        released);
    runtime.def("cudaDeviceSynchronize", [] { return status(cudaDeviceSynchronize()); }, released);
    runtime.def(
        "cudaDeviceGetStreamPriorityRange",
        [] {
            int least = 0;
            int greatest = 0;
            const cudaError_t error = cudaDeviceGetStreamPriorityRange(&least, &greatest);
            return std::tuple<int, int, int>{static_cast<int>(error), least, greatest};
        },
        released);
    runtime.def("cudaGetLastError", [] { return status(cudaGetLastError()); }, released);
    runtime.def("cudaPeekAtLastError", [] { return status(cudaPeekAtLastError()); }, released);
    runtime.def("cudaGetErrorName", [](int error) { return cudaGetErrorName(static_cast<cudaError_t>(error)); });
    runtime.def("cudaGetErrorString", [](int error) { return cudaGetErrorString(static_cast<cudaError_t>(error)); });
}

void bind_stream_calls(nb::module_& runtime, const nb::call_guard<nb::gil_scoped_release>& released) {
    runtime.def(
        "cudaStreamCreate", [] { return made<cudaStream_t>([](cudaStream_t* s) { return cudaStreamCreate(s); }); },
        released);
    runtime.def(
        "cudaStreamCreateWithFlags",
        [](unsigned flags) {
            return made<cudaStream_t>([&](cudaStream_t* s) { return cudaStreamCreateWithFlags(s, flags); });
        },
        released);
    runtime.def(
        "cudaStreamCreateWithPriority",
        [](unsigned flags, int priority) {
            return made<cudaStream_t>(
                [&](cudaStream_t* s) { return cudaStreamCreateWithPriority(s, flags, priority); });
        },
        released);
    runtime.def("cudaStreamDestroy", [](Handle s) { return status(cudaStreamDestroy(as<cudaStream_t>(s))); }, released);
    runtime.def(
        "cudaStreamSynchronize", [](Handle s) { return status(cudaStreamSynchronize(as<cudaStream_t>(s))); }, released);
    runtime.def("cudaStreamQuery", [](Handle s) { return status(cudaStreamQuery(as<cudaStream_t>(s))); }, released);
    runtime.def(
        "cudaStreamGetFlags",
        [](Handle s) {
            return read<unsigned>([&](unsigned* f) { return cudaStreamGetFlags(as<cudaStream_t>(s), f); });
        },
        released);
    runtime.def(
        "cudaStreamGetPriority",
        [](Handle s) { return read<int>([&](int* p) { return cudaStreamGetPriority(as<cudaStream_t>(s), p); }); },
        released);
    runtime.def(
        "cudaStreamWaitEvent",
        [](Handle s, Handle event, unsigned flags) {
            return status(cudaStreamWaitEvent(as<cudaStream_t>(s), as<cudaEvent_t>(event), flags));
        },
        released);
    runtime.def(
        "cudaLaunchHostFunc",
        [](Handle s, Handle function, Handle data) {
            return status(cudaLaunchHostFunc(as<cudaStream_t>(s), as<cudaHostFn_t>(function), as<void*>(data)));
        },
        released);
}

void bind_capture_calls(nb::module_& runtime, const nb::call_guard<nb::gil_scoped_release>& released) {
    runtime.def(
        "cudaStreamBeginCapture",
        [](Handle s, int mode) {
            return status(cudaStreamBeginCapture(as<cudaStream_t>(s), static_cast<cudaStreamCaptureMode>(mode)));
        },
        released);
    runtime.def(
        "cudaStreamEndCapture",
        [](Handle s) {
            return made<cudaGraph_t>([&](cudaGraph_t* g) { return cudaStreamEndCapture(as<cudaStream_t>(s), g); });
        },
        released);
    runtime.def(
        "cudaStreamIsCapturing",
        [](Handle s) {
            return read<cudaStreamCaptureStatus>(
                [&](cudaStreamCaptureStatus* c) { return cudaStreamIsCapturing(as<cudaStream_t>(s), c); });
        },
        released);
    runtime.def(
        "cudaGraphInstantiate",
        [](Handle graph, unsigned long long flags) {
            return made<cudaGraphExec_t>(
                [&](cudaGraphExec_t* x) { return cudaGraphInstantiate(x, as<cudaGraph_t>(graph), flags); });
        },
        released);
    runtime.def(
        "cudaGraphLaunch",
        [](Handle executable, Handle s) {
            return status(cudaGraphLaunch(as<cudaGraphExec_t>(executable), as<cudaStream_t>(s)));
        },
        released);
    runtime.def(
        "cudaGraphDestroy", [](Handle graph) { return status(cudaGraphDestroy(as<cudaGraph_t>(graph))); }, released);
    runtime.def(
        "cudaGraphExecDestroy",
        [](Handle executable) { return status(cudaGraphExecDestroy(as<cudaGraphExec_t>(executable))); }, released);
}

void bind_event_calls(nb::module_& runtime, const nb::call_guard<nb::gil_scoped_release>& released) {
    runtime.def(
        "cudaEventCreate", [] { return made<cudaEvent_t>([](cudaEvent_t* e) { return cudaEventCreate(e); }); },
        released);
    runtime.def(
        "cudaEventCreateWithFlags",
        [](unsigned flags) {
            return made<cudaEvent_t>([&](cudaEvent_t* e) { return cudaEventCreateWithFlags(e, flags); });
        },
        released);
    runtime.def("cudaEventDestroy", [](Handle e) { return status(cudaEventDestroy(as<cudaEvent_t>(e))); }, released);
    runtime.def("cudaEventQuery", [](Handle e) { return status(cudaEventQuery(as<cudaEvent_t>(e))); }, released);
    runtime.def(
        "cudaEventSynchronize", [](Handle e) { return status(cudaEventSynchronize(as<cudaEvent_t>(e))); }, released);
    runtime.def(
        "cudaEventRecord",
        [](Handle e, Handle s) { return status(cudaEventRecord(as<cudaEvent_t>(e), as<cudaStream_t>(s))); }, released);
    runtime.def(
        "cudaEventElapsedTime",
        [](Handle start, Handle end) {
            float ms = 0.0F;
            const cudaError_t error = cudaEventElapsedTime(&ms, as<cudaEvent_t>(start), as<cudaEvent_t>(end));
            return std::tuple<int, float>{static_cast<int>(error), ms};
        },
        released);
}

void bind_memory_calls(nb::module_& runtime, const nb::call_guard<nb::gil_scoped_release>& released) {
    runtime.def(
        "cudaMalloc", [](std::size_t size) { return made<void*>([&](void** p) { return cudaMalloc(p, size); }); },
        released);
    runtime.def("cudaFree", [](Handle p) { return status(cudaFree(as<void*>(p))); }, released);
    runtime.def(
        "cudaMallocAsync",
        [](std::size_t size, Handle s) {
            return made<void*>([&](void** p) { return cudaMallocAsync(p, size, as<cudaStream_t>(s)); });
        },
        released);
    runtime.def(
        "cudaFreeAsync", [](Handle p, Handle s) { return status(cudaFreeAsync(as<void*>(p), as<cudaStream_t>(s))); },
        released);
    runtime.def(
        "cudaMallocHost",
        [](std::size_t size) { return made<void*>([&](void** p) { return cudaMallocHost(p, size); }); }, released);
    runtime.def(
        "cudaHostAlloc",
        [](std::size_t size, unsigned flags) {
            return made<void*>([&](void** p) { return cudaHostAlloc(p, size, flags); });
        },
        released);
    runtime.def("cudaFreeHost", [](Handle p) { return status(cudaFreeHost(as<void*>(p))); }, released);
    runtime.def(
        "cudaHostRegister",
        [](Handle p, std::size_t size, unsigned flags) { return status(cudaHostRegister(as<void*>(p), size, flags)); },
        released);
    runtime.def("cudaHostUnregister", [](Handle p) { return status(cudaHostUnregister(as<void*>(p))); }, released);
    runtime.def(
        "cudaMemcpy",
        [](Handle to, Handle from, std::size_t count, int kind) {
            return status(cudaMemcpy(as<void*>(to), as<const void*>(from), count, static_cast<cudaMemcpyKind>(kind)));
        },
        released);
    runtime.def(
        "cudaMemcpyAsync",
        [](Handle to, Handle from, std::size_t count, int kind, Handle s) {
            return status(cudaMemcpyAsync(as<void*>(to), as<const void*>(from), count,
                                          static_cast<cudaMemcpyKind>(kind), as<cudaStream_t>(s)));
        },
        released);
    runtime.def(
        "cudaMemset",
        [](Handle p, int value, std::size_t count) { return status(cudaMemset(as<void*>(p), value, count)); },
        released);
    runtime.def(
        "cudaMemsetAsync",
        [](Handle p, int value, std::size_t count, Handle s) {
            return status(cudaMemsetAsync(as<void*>(p), value, count, as<cudaStream_t>(s)));
        },
        released);
}

}  // namespace

void bind_simulated_runtime(nb::module_& module) {
    nb::module_ runtime = module.def_submodule(
        "simulated_runtime",
        "The simulated GPU's runtime calls, with plain numbers for handles (simulated_cuda_runtime.py puts them "
        "in the place of cuda-bindings' calls).");
    const nb::call_guard<nb::gil_scoped_release> released;
    // The program's clocks: the simulated build's clock_gettime, which this module holds (host_clocks.cpp)
    // and which Python's time module, calling the C library's, never reaches.
    runtime.def(
        "host_clock_ns",
        [](int clock) {
            timespec now{};
            clock_gettime(static_cast<clockid_t>(clock), &now);
            return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
        },
        "clock_gettime(clock) in ns: the simulated host clock for CLOCK_MONOTONIC and CLOCK_REALTIME.");
    bind_device_calls(runtime, released);
    bind_stream_calls(runtime, released);
    bind_capture_calls(runtime, released);
    bind_event_calls(runtime, released);
    bind_memory_calls(runtime, released);
}

}  // namespace streamlab::python
