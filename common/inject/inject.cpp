// libstreamlab_inject.so: records the GPU timeline of an unmodified CUDA program.
//
//   CUDA_INJECTION64_PATH=/path/to/libstreamlab_inject.so STREAMLAB_TRACE_OUT=trace.json ./program args...
//
// The CUDA driver loads the library named by CUDA_INJECTION64_PATH while it
// initializes (inside the program's first cuInit) and calls InitializeInjection.
// Recording starts there and the trace is written when the process exits
// (returning from main or calling exit(), with any status).
//
// Environment:
//   STREAMLAB_TRACE_OUT      trace file to write (default: streamlab-trace.json)
//   STREAMLAB_TRACE_PROGRAM  what to call the program in the trace
//                            (default: its command line)
//
// `python3 -m streamlab_tools.trace_cmd` (or `./course trace`) sets both, and
// also NVTX_INJECTION64_PATH to this library: NVTX then hands the program's
// range calls to CUPTI (InitializeInjectionNvtx2 below), which records them.
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>

#include "activity_recorder.hpp"
#include "streamlab/timeline.hpp"
#include "streamlab/trace_file.hpp"

namespace {

using streamlab::detail::ActivityRecorder;

// The injection's state. The recorder is created once and never deleted:
// the at-exit handler runs after static objects may already be destroyed.
std::mutex g_mutex;
ActivityRecorder* g_recorder = nullptr;
std::string* g_output_path = nullptr;
std::string* g_program = nullptr;
std::string* g_date = nullptr;

std::string environment_or(const char* name, const std::string& fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && value[0] != '\0' ? std::string(value) : fallback;
}

// The command line from /proc/self/cmdline, arguments separated by spaces.
std::string command_line() {
    std::ifstream file("/proc/self/cmdline", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    while (!text.empty() && text.back() == '\0') {
        text.pop_back();
    }
    for (char& c : text) {
        if (c == '\0') {
            c = ' ';
        }
    }
    return text.empty() ? std::string("unknown program") : text;
}

// Device facts from the driver API. The program's own CUDA runtime is not
// ours to call (it may be linked statically), so runtime_version stays 0.
streamlab::DeviceFacts device_facts_from_driver() {
    streamlab::DeviceFacts facts;
    CUdevice device = 0;
    if (cuCtxGetDevice(&device) != CUDA_SUCCESS && cuDeviceGet(&device, 0) != CUDA_SUCCESS) {
        return facts;
    }
    facts.ordinal = static_cast<int>(device);
    char name[256] = {};
    if (cuDeviceGetName(name, sizeof(name), device) == CUDA_SUCCESS) {
        facts.name = name;
    }
    int concurrent_kernels = 0;
    cuDeviceGetAttribute(&facts.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    cuDeviceGetAttribute(&facts.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    cuDeviceGetAttribute(&facts.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
    cuDeviceGetAttribute(&facts.copy_engines, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, device);
    cuDeviceGetAttribute(&concurrent_kernels, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, device);
    facts.concurrent_kernels = concurrent_kernels != 0;
    std::size_t total_memory = 0;
    if (cuDeviceTotalMem(&total_memory, device) == CUDA_SUCCESS) {
        facts.total_memory_bytes = total_memory;
    }
    cuDriverGetVersion(&facts.driver_version);
    return facts;
}

// Runs when the program exits: waits for its GPU work, collects the records
// and writes the trace.
void write_trace_at_exit() {
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (g_recorder == nullptr) {
        return;
    }
    try {
        // Work the program left running gets its timestamps when it completes.
        CUcontext context = nullptr;
        if (cuCtxGetCurrent(&context) == CUDA_SUCCESS && context != nullptr) {
            cuCtxSynchronize();
        }
        g_recorder->flush();
        streamlab::Timeline timeline = g_recorder->collect();
        g_recorder->stop();

        timeline.program = *g_program;
        timeline.date = *g_date;
        timeline.device = device_facts_from_driver();
        streamlab::write_trace(*g_output_path, timeline);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "streamlab: no trace written to %s: %s\n", g_output_path->c_str(), error.what());
    }
}

}  // namespace

/// Called by NVTX, the first time the program uses it, when NVTX_INJECTION64_PATH
/// names this library. CUPTI implements NVTX's side of the hand-over; this finds
/// the libcupti this library is linked with (the one recording) and passes the
/// call on. Returns 0 (NVTX stays a no-op) when it cannot.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void* get_export_table) {
    using Initialize = int (*)(const void*);
    Dl_info cupti{};
    if (dladdr(reinterpret_cast<void*>(&cuptiGetTimestamp), &cupti) == 0 || cupti.dli_fname == nullptr) {
        return 0;
    }
    void* library = dlopen(cupti.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (library == nullptr) {
        return 0;
    }
    const auto initialize = reinterpret_cast<Initialize>(dlsym(library, "InitializeInjectionNvtx2"));
    return initialize != nullptr ? initialize(get_export_table) : 0;
}

/// Called by the CUDA driver when it loads this library (CUDA_INJECTION64_PATH).
/// It must not call the CUDA runtime: the driver is still initializing.
/// Returns 1 (initialized) even when recording cannot start, so that the
/// program runs either way; the reason is printed and no trace is written.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (g_recorder != nullptr) {
        return 1;
    }
    try {
        g_output_path = new std::string(environment_or("STREAMLAB_TRACE_OUT", "streamlab-trace.json"));
        g_program = new std::string(environment_or("STREAMLAB_TRACE_PROGRAM", command_line()));
        g_date = new std::string(streamlab::detail::utc_now_iso8601());
        g_recorder = new ActivityRecorder();
        std::atexit(write_trace_at_exit);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "streamlab: cannot record this program's timeline: %s\n", error.what());
    }
    return 1;
}
