// The streams, events and pinned-in-place host ranges a lab program created and
// never released. compute-sanitizer's leak check names leaked memory
// allocations (cudaMalloc, cudaMallocHost) but not these, so `course check NN
// --sanitize` asks the lab program for this census as well.
//
// On the simulated GPU (STREAMLAB_CENSUS_COUNTS_MEMORY, set by the simulated
// build), where no compute-sanitizer runs, the census counts device memory and
// pinned buffers too: `course check NN` previews its leaks there.
//
// The lab programs are linked with `--wrap=cudaStreamCreate` and the like
// (cmake/StreamLab.cmake): every such call in the program, the student's code
// included, comes here first (__wrap_...), is passed on to the runtime
// (__real_...), and the handle it made is noted with the return addresses of
// the call. At exit, when the environment variable STREAMLAB_LEAK_REPORT names
// a file, every handle still alive is written to it, one JSON object per line:
//   {"kind": "stream", "api": "cudaStreamCreateWithFlags", "frames": [["/path/exe", "0x1f2e"], ...]}
// where each frame is a module and an address within it (addr2line reads them).
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "resource_census.hpp"
#include "tracing_switch.hpp"

namespace {

struct Creation {
    const char* kind;  // "stream", "event", "registered host memory"
    const char* api;   // the call that created it
    std::vector<void*> return_addresses;
};

struct Census {
    std::mutex mutex;
    std::map<const void*, Creation> alive;  // handle (or pointer) -> how it was made

    void created(const void* handle, const char* kind, const char* api) {
        // The first frames are this file's own; the reader skips them by their file name.
        void* frames[12] = {};
        const int count = backtrace(frames, 12);
        Creation creation{kind, api, std::vector<void*>(frames, frames + count)};
        const std::lock_guard<std::mutex> lock(mutex);
        alive[handle] = std::move(creation);
    }

    void released(const void* handle) {
        const std::lock_guard<std::mutex> lock(mutex);
        alive.erase(handle);
    }

    /// One JSON line per handle still alive.
    std::string report() {
        const std::lock_guard<std::mutex> lock(mutex);
        std::string lines;
        for (const auto& [handle, creation] : alive) {
            lines +=
                std::string("{\"kind\": \"") + creation.kind + "\", \"api\": \"" + creation.api + "\", \"frames\": [";
            const char* separator = "";
            for (void* address : creation.return_addresses) {
                Dl_info info{};
                if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
                    continue;
                }
                // A return address, as compute-sanitizer's frames give them (the reader steps back one byte).
                const auto offset =
                    reinterpret_cast<std::uintptr_t>(address) - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
                char text[64];
                std::snprintf(text, sizeof text, "0x%jx", static_cast<std::uintmax_t>(offset));
                lines += std::string(separator) + "[\"" + info.dli_fname + "\", \"" + text + "\"]";
                separator = ", ";
            }
            lines += "]}\n";
        }
        return lines;
    }

    /// Writes what is still alive, when the report was asked for. Runs at exit.
    ~Census() {
        const std::string path = streamlab::detail::start_environment("STREAMLAB_LEAK_REPORT");
        if (path.empty()) {
            return;
        }
        if (std::FILE* out = std::fopen(path.c_str(), "w")) {
            const std::string lines = report();
            std::fwrite(lines.data(), 1, lines.size(), out);
            std::fclose(out);
        }
    }
};

Census& census() {
    static Census instance;  // destroyed at exit, after main returned
    return instance;
}

// Made before main, so that the report is written even when nothing was created:
// an empty report says "nothing left behind", a missing one "no census".
[[maybe_unused]] const Census& g_census_from_the_start = census();

template <typename Handle>
cudaError_t note_creation(cudaError_t status, Handle* handle, const char* kind, const char* api) {
    if (status == cudaSuccess && handle != nullptr) {
        census().created(*handle, kind, api);
    }
    return status;
}

}  // namespace

namespace streamlab::detail {

std::string resource_census_report() {
    return census().report();
}

}  // namespace streamlab::detail

extern "C" {

cudaError_t __real_cudaStreamCreate(cudaStream_t* stream);
cudaError_t __real_cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t __real_cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t __real_cudaStreamDestroy(cudaStream_t stream);
cudaError_t __real_cudaEventCreate(cudaEvent_t* event);
cudaError_t __real_cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t __real_cudaEventDestroy(cudaEvent_t event);
cudaError_t __real_cudaHostRegister(void* pointer, size_t bytes, unsigned int flags);
cudaError_t __real_cudaHostUnregister(void* pointer);

cudaError_t __wrap_cudaStreamCreate(cudaStream_t* stream) {
    return note_creation(__real_cudaStreamCreate(stream), stream, "stream", "cudaStreamCreate");
}

cudaError_t __wrap_cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    return note_creation(__real_cudaStreamCreateWithFlags(stream, flags), stream, "stream",
                         "cudaStreamCreateWithFlags");
}

cudaError_t __wrap_cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
    return note_creation(__real_cudaStreamCreateWithPriority(stream, flags, priority), stream, "stream",
                         "cudaStreamCreateWithPriority");
}

cudaError_t __wrap_cudaStreamDestroy(cudaStream_t stream) {
    const cudaError_t status = __real_cudaStreamDestroy(stream);
    if (status == cudaSuccess) {
        census().released(stream);
    }
    return status;
}

cudaError_t __wrap_cudaEventCreate(cudaEvent_t* event) {
    return note_creation(__real_cudaEventCreate(event), event, "event", "cudaEventCreate");
}

cudaError_t __wrap_cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    return note_creation(__real_cudaEventCreateWithFlags(event, flags), event, "event", "cudaEventCreateWithFlags");
}

cudaError_t __wrap_cudaEventDestroy(cudaEvent_t event) {
    const cudaError_t status = __real_cudaEventDestroy(event);
    if (status == cudaSuccess) {
        census().released(event);
    }
    return status;
}

cudaError_t __wrap_cudaHostRegister(void* pointer, size_t bytes, unsigned int flags) {
    void* handle = pointer;
    return note_creation(__real_cudaHostRegister(pointer, bytes, flags), &handle, "registered host memory",
                         "cudaHostRegister");
}

cudaError_t __wrap_cudaHostUnregister(void* pointer) {
    const cudaError_t status = __real_cudaHostUnregister(pointer);
    if (status == cudaSuccess) {
        census().released(pointer);
    }
    return status;
}

#ifdef STREAMLAB_CENSUS_COUNTS_MEMORY
cudaError_t __real_cudaMalloc(void** pointer, size_t bytes);
cudaError_t __real_cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t stream);
cudaError_t __real_cudaFree(void* pointer);
cudaError_t __real_cudaFreeAsync(void* pointer, cudaStream_t stream);
cudaError_t __real_cudaMallocHost(void** pointer, size_t bytes);
cudaError_t __real_cudaHostAlloc(void** pointer, size_t bytes, unsigned int flags);
cudaError_t __real_cudaFreeHost(void* pointer);

/// Notes `pointer` released when the call that frees it succeeded.
static cudaError_t note_release(cudaError_t status, const void* pointer) {
    if (status == cudaSuccess) {
        census().released(pointer);
    }
    return status;
}

cudaError_t __wrap_cudaMalloc(void** pointer, size_t bytes) {
    return note_creation(__real_cudaMalloc(pointer, bytes), pointer, "device allocation", "cudaMalloc");
}

cudaError_t __wrap_cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t stream) {
    return note_creation(__real_cudaMallocAsync(pointer, bytes, stream), pointer, "device allocation",
                         "cudaMallocAsync");
}

cudaError_t __wrap_cudaFree(void* pointer) {
    return note_release(__real_cudaFree(pointer), pointer);
}

cudaError_t __wrap_cudaFreeAsync(void* pointer, cudaStream_t stream) {
    return note_release(__real_cudaFreeAsync(pointer, stream), pointer);
}

cudaError_t __wrap_cudaMallocHost(void** pointer, size_t bytes) {
    return note_creation(__real_cudaMallocHost(pointer, bytes), pointer, "pinned buffer", "cudaMallocHost");
}

cudaError_t __wrap_cudaHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
    return note_creation(__real_cudaHostAlloc(pointer, bytes, flags), pointer, "pinned buffer", "cudaHostAlloc");
}

cudaError_t __wrap_cudaFreeHost(void* pointer) {
    return note_release(__real_cudaFreeHost(pointer), pointer);
}
#endif

}  // extern "C"
