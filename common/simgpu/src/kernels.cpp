// The kernel registry and the models of the course's kernels (see kernels.hpp).
//
// The kernels of common/ have their models here, in the simulator's own sources: streamlab::workload_kernel
// and the tracer's warm-up kernel (common/src). A kernel that lives elsewhere in the course has its model
// beside it, registered with register_kernel and written with what simgpu_kernel_model.hpp offers, which is
// defined here. A model does what the kernel's device code does, element by element, on the CPU, and times it
// from the model GPU's figures.
#include "kernels.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "machine.hpp"
#include "streamlab/simgpu_kernel_model.hpp"
#include "streamlab/workload.hpp"

namespace streamlab::simgpu {

namespace {

// ---------------------------------------------------------------- the registry

/// What the registry holds: nvcc's host stubs and the course's models, behind one lock (registration runs
/// before main, launches on any thread).
struct Registry {
    std::mutex lock;
    std::map<const void*, std::string> device_name_by_host_function;  ///< From __cudaRegisterFunction.
    std::map<std::string, KernelModel> model_by_readable_name;        ///< From register_kernel.
};

void register_course_kernels(Registry& registry);

/// The one registry, made on first use (nvcc's registration code runs in static constructors, in an order
/// no one chooses) and never destroyed (nvcc's unregistration runs from atexit, in an order no one chooses
/// either).
Registry& registry() {
    static Registry* const made = [] {
        auto* fresh = new Registry;
        register_course_kernels(*fresh);
        return fresh;
    }();
    return *made;
}

// ---------------------------------------------------------------- what every model shares

/// Compute capability 9.0 (Hopper, the H100 and H200), from the CUDA Programming Guide's table of technical
/// specifications per compute capability: the most threads and the most blocks one SM holds at once, and
/// the most threads of one block.
constexpr unsigned int kMaxThreadsPerSm = 2048;
constexpr unsigned int kMaxBlocksPerSm = 32;
constexpr unsigned int kMaxThreadsPerBlock = 1024;

/// Whether the GPU can reach [address, address + bytes): device memory, or page-locked host memory, which
/// unified virtual addressing maps into the GPU's address space (the Runtime API's cudaHostAlloc and
/// cudaHostRegister: with unified addressing, the device pointer of page-locked memory is its host pointer).
/// Called from a launch, with the machine's lock held.
bool device_can_access(const void* address, std::size_t bytes) {
    const MemoryRegistry& memory = Machine::instance().memory();
    return memory.holds(address, bytes, MemoryKind::Device) || memory.holds(address, bytes, MemoryKind::PinnedHost) ||
           memory.holds(address, bytes, MemoryKind::RegisteredHost);
}

/// streamlab::workload_element(x, iterations) for many x, each distinct x computed once. A lab's arrays hold
/// up to 2^26 elements of several hundred steps each, which the CPU would take tens of seconds to compute
/// one by one; but fill_input gives at most 2^17 distinct values, so the steps of each are done once. The
/// results are the reference's own, bit for bit.
class WorkloadMemo {
public:
    explicit WorkloadMemo(int iterations) : iterations_(iterations), slots_(kSlots, Slot{kEmpty, 0.0F}) {}

    float operator()(float x) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &x, sizeof bits);
        if (bits == kEmpty) {
            return workload_element(x, iterations_);
        }
        // Open addressing with linear probing over a multiplicative hash of the value's bits; a key and its
        // value side by side, so that a look-up touches one cache line.
        for (std::size_t index = (bits * 2654435761U) >> (32 - kSlotBits);; index = (index + 1) & (kSlots - 1)) {
            Slot& slot = slots_[index];
            if (slot.key == bits) {
                return slot.value;
            }
            if (slot.key == kEmpty) {
                const float value = workload_element(x, iterations_);
                // A table three quarters full probes long: further values are computed each time instead.
                if (stored_ < kSlots / 4 * 3) {
                    slot = Slot{bits, value};
                    ++stored_;
                }
                return value;
            }
        }
    }

private:
    struct Slot {
        std::uint32_t key;
        float value;
    };
    static constexpr int kSlotBits = 18;
    static constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;
    /// A NaN's bits that marks a free slot (an input with these very bits is computed every time).
    static constexpr std::uint32_t kEmpty = 0xFFFFFFFFU;
    int iterations_;
    std::vector<Slot> slots_;
    std::size_t stored_ = 0;
};

// ---------------------------------------------------------------- streamlab::workload_kernel (common/src/workload.cu)

/// workload_kernel(const float* in, float* out, std::size_t n, int iterations): out[i] = f(in[i]) for i < n.
std::string run_workload(void** args, unsigned int /*grid_blocks*/, unsigned int /*block_threads*/) {
    const auto* in = argument<const float*>(args, 0);
    auto* out = argument<float*>(args, 1);
    const auto n = argument<std::size_t>(args, 2);
    const int iterations = argument<int>(args, 3);
    const std::size_t bytes = n * sizeof(float);
    for (const std::string& why : {unreachable("in", in, bytes), unreachable("out", out, bytes)}) {
        if (!why.empty()) {
            return why;
        }
    }
    compute_workload(in, out, n, iterations, n);
    return "";
}

std::uint64_t workload_ns(void** args, unsigned int grid_blocks, unsigned int block_threads, const GpuModel& model) {
    return grid_stride_ns(argument<std::size_t>(args, 2), argument<int>(args, 3), grid_blocks, block_threads, model);
}

// ---------------------------------------------------------------- the tracer's warm-up kernel
// (common/src/tracer_warm_up.cu)

/// tracer_warm_up_kernel(): an empty kernel, so that CUPTI's first records come before the program's.
std::string run_nothing(void** /*args*/, unsigned int /*grid_blocks*/, unsigned int /*block_threads*/) {
    return "";
}

std::uint64_t shortest_ns(void** /*args*/, unsigned int /*grid_blocks*/, unsigned int /*block_threads*/,
                          const GpuModel& /*model*/) {
    return kShortestKernelNs;
}

void register_course_kernels(Registry& registry) {
    const auto add = [&registry](const char* mangled_name, const KernelModel& model) {
        registry.model_by_readable_name[readable_kernel_name(mangled_name)] = model;
    };
    // The mangled names g++ gives the same declarations; nvcc's differ only in how it names an anonymous
    // namespace, which demangles the same (kernels.hpp).
    add("_ZN9streamlab15workload_kernelEPKfPfmi", {run_workload, workload_ns, grid_share});
    add("_ZN9streamlab6detail12_GLOBAL__N_121tracer_warm_up_kernelEv", {run_nothing, shortest_ns, grid_share});
}

}  // namespace

// ---------------------------------------------------------------- simgpu_kernel_model.hpp

std::string unreachable(const std::string& what, const void* address, std::size_t bytes) {
    if (bytes == 0 || device_can_access(address, bytes)) {
        return "";
    }
    char text[160];
    std::snprintf(text, sizeof text, "%s (%p, %zu bytes) is neither device memory nor page-locked host memory",
                  what.c_str(), address, bytes);
    return text;
}

// Split over the CPU's cores as a GPU splits it over its SMs: each core its own slice and memo. The
// simulator's time does not depend on it (the host clock leaves out the CPU's time in a call); the student's
// wait does.
void compute_workload(const float* in, float* out, std::size_t n, int iterations, std::size_t skipped) {
    // Below this, starting threads costs more than it saves.
    constexpr std::size_t kElementsWorthAThread = std::size_t{1} << 20;
    const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
    const std::size_t workers = std::min(cores, std::max<std::size_t>(1, n / kElementsWorthAThread));
    const auto slice = [&](std::size_t begin, std::size_t end) {
        WorkloadMemo element(iterations);
        for (std::size_t i = begin; i < end; ++i) {
            if (i != skipped) {
                out[i] = element(in[i]);
            }
        }
    };
    std::vector<std::thread> helpers;
    const std::size_t per_worker = (n + workers - 1) / workers;
    for (std::size_t w = 1; w < workers; ++w) {
        helpers.emplace_back(slice, std::min(n, w * per_worker), std::min(n, (w + 1) * per_worker));
    }
    slice(0, std::min(n, per_worker));
    for (std::thread& helper : helpers) {
        helper.join();
    }
}

int resident_blocks_per_sm(unsigned int block_threads) {
    if (block_threads == 0 || block_threads > kMaxThreadsPerBlock) {
        return 0;
    }
    return static_cast<int>(std::min(kMaxBlocksPerSm, kMaxThreadsPerSm / block_threads));
}

double grid_share(unsigned int grid_blocks, unsigned int block_threads, const GpuModel& model) {
    const int per_sm = resident_blocks_per_sm(block_threads);
    if (per_sm == 0 || model.sm_count <= 0) {
        return 1.0;
    }
    const double resident = static_cast<double>(model.sm_count) * per_sm;
    return std::min(1.0, static_cast<double>(grid_blocks) / resident);
}

// Every thread does ceil(n / threads) elements one after another, at the pace one thread gets when the whole
// GPU is busy (the model's rate spread over every thread the SMs hold). A grid that the SMs hold at once lasts
// as long as one thread's elements; a larger one runs in waves of blocks, which the GPU hands out as room
// frees, so its threads' elements are spread over all the SMs' threads (the model's rate was measured so, on a
// grid of 262144 blocks).
std::uint64_t grid_stride_ns(std::size_t n, int iterations, unsigned int grid_blocks, unsigned int block_threads,
                             const GpuModel& model) {
    const double threads = static_cast<double>(grid_blocks) * block_threads;
    const double resident_threads = static_cast<double>(model.sm_count) * kMaxThreadsPerSm;
    const double elements_per_thread = std::ceil(static_cast<double>(n) / threads);
    const double per_thread_rate = model.workload_element_iterations_per_ns / resident_threads;
    const double elements_per_resident_thread = elements_per_thread * threads / std::min(threads, resident_threads);
    const double ns = elements_per_resident_thread * std::max(iterations, 0) / per_thread_rate;
    return std::max(kShortestKernelNs, static_cast<std::uint64_t>(ns));
}

std::string readable_kernel_name(const std::string& mangled_name) {
    int status = 0;
    const std::unique_ptr<char, decltype(&std::free)> readable(
        abi::__cxa_demangle(mangled_name.c_str(), nullptr, nullptr, &status), &std::free);
    return status == 0 && readable ? std::string(readable.get()) : mangled_name;
}

void remember_host_function(const void* host_function, const char* mangled_name) {
    Registry& known = registry();
    const std::lock_guard<std::mutex> hold(known.lock);
    known.device_name_by_host_function[host_function] = mangled_name;
}

std::optional<KnownKernel> kernel_for_host_function(const void* host_function) {
    Registry& known = registry();
    const std::lock_guard<std::mutex> hold(known.lock);
    const auto found = known.device_name_by_host_function.find(host_function);
    if (found == known.device_name_by_host_function.end()) {
        return std::nullopt;
    }
    KnownKernel kernel{found->second, readable_kernel_name(found->second), std::nullopt};
    const auto model = known.model_by_readable_name.find(kernel.readable_name);
    if (model != known.model_by_readable_name.end()) {
        kernel.model = model->second;
    }
    return kernel;
}

void register_kernel(const std::string& mangled_name, const KernelModel& model) {
    Registry& known = registry();
    const std::lock_guard<std::mutex> hold(known.lock);
    known.model_by_readable_name[readable_kernel_name(mangled_name)] = model;
}

}  // namespace streamlab::simgpu
