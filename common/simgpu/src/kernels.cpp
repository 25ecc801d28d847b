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

// ---------------------------------------------------------------- the workload's arithmetic on the CPU

/// The single-precision constants of streamlab::workload_element (workload.hpp), which keeps them inside the
/// function; simgpu_tests' Results.WorkloadKernelGivesItsCpuReferenceBitForBit checks that both agree.
constexpr float kWorkloadCos = 0.99500417F;
constexpr float kWorkloadSin = 0.09983342F;

// Where the CPU has wider vector instructions than every x86-64 CPU has, workload_elements uses them: the
// compiler makes a version for each target named and the loader picks the widest the CPU runs. None fuses a
// multiply and an add (CMakeLists.txt compiles this file with -ffp-contract=off): a fused multiply-add rounds
// once where the reference rounds twice, and the bits would differ.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SIMGPU_WIDEST_VECTORS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SIMGPU_WIDEST_VECTORS
#endif

/// out[i] = streamlab::workload_element(x[i], iterations) for i < count, bit for bit: the same operations in
/// the same order on each element. But kLanes elements take each step together: the compiler turns the lanes
/// into vector instructions, and the CPU overlaps them, where one element alone waits for every step's result
/// before the next (some twenty to fifty times slower).
SIMGPU_WIDEST_VECTORS void workload_elements(const float* x, float* out, std::size_t count, int iterations) {
    constexpr std::size_t kLanes = 32;
    std::size_t first = 0;
    for (; first + kLanes <= count; first += kLanes) {
        float a[kLanes];
        float b[kLanes];
        for (std::size_t lane = 0; lane < kLanes; ++lane) {
            a[lane] = x[first + lane];
            b[lane] = 0.0F;
        }
        for (int step = 0; step < iterations; ++step) {
            for (std::size_t lane = 0; lane < kLanes; ++lane) {
                const float next_a = a[lane] * kWorkloadCos - b[lane] * kWorkloadSin;
                const float next_b = a[lane] * kWorkloadSin + b[lane] * kWorkloadCos;
                a[lane] = next_a;
                b[lane] = next_b;
            }
        }
        for (std::size_t lane = 0; lane < kLanes; ++lane) {
            out[first + lane] = a[lane] + b[lane];
        }
    }
    for (; first < count; ++first) {
        out[first] = workload_element(x[first], iterations);
    }
}

/// The bits of a float: the key the memo keeps it under (two NaNs of different bits are different keys).
std::uint32_t bits_of(float x) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    return bits;
}

/// workload_element's results for one iteration count, by the input's bits: each distinct input is computed
/// once for as long as the memo is kept. A lab's arrays hold up to 2^26 elements of thousands of steps each,
/// launched chunk by chunk and run after run, which the CPU would take minutes to compute one by one; but
/// fill_input gives at most 2^17 distinct values, so the steps of each are done once per iteration count.
/// A hash table (open addressing, linear probing, a key and its value side by side so that a look-up touches
/// one cache line) that grows as it fills.
class WorkloadMemo {
public:
    /// The value kept for the input whose bits are `bits`, or null.
    [[nodiscard]] const float* find(std::uint32_t bits) const {
        if (bits == kEmpty) {
            return nullptr;  // the bits that mark a free slot are never kept
        }
        for (std::size_t index = home(bits);; index = (index + 1) & (slots_.size() - 1)) {
            const Slot& slot = slots_[index];
            if (slot.key == bits) {
                return &slot.value;
            }
            if (slot.key == kEmpty) {
                return nullptr;
            }
        }
    }

    /// Keeps `value` for the input whose bits are `bits` (not kept yet).
    void add(std::uint32_t bits, float value) {
        if (bits == kEmpty) {
            return;
        }
        if ((stored_ + 1) * 4 > slots_.size() * 3) {  // three quarters full probes long: twice the slots
            grow();
        }
        place(bits, value);
    }

    [[nodiscard]] std::size_t size() const { return stored_; }

    void clear() {
        slots_.assign(kFirstSlots, Slot{kEmpty, 0.0F});
        stored_ = 0;
    }

private:
    struct Slot {
        std::uint32_t key;
        float value;
    };
    /// Room for fill_input's 2^17 distinct values without growing.
    static constexpr std::size_t kFirstSlots = std::size_t{1} << 18;
    /// A NaN's bits that mark a free slot (an input with these very bits is computed every time).
    static constexpr std::uint32_t kEmpty = 0xFFFFFFFFU;

    /// Where a key's probe starts: a multiplicative hash of its bits, as many high bits as the slots need.
    [[nodiscard]] std::size_t home(std::uint32_t bits) const {
        const std::uint64_t spread = std::uint64_t{bits} * 0x9E3779B97F4A7C15ULL;
        return static_cast<std::size_t>(spread >> 32U) & (slots_.size() - 1);
    }

    void place(std::uint32_t bits, float value) {
        std::size_t index = home(bits);
        while (slots_[index].key != kEmpty && slots_[index].key != bits) {
            index = (index + 1) & (slots_.size() - 1);
        }
        stored_ += slots_[index].key == kEmpty ? 1 : 0;
        slots_[index] = Slot{bits, value};
    }

    void grow() {
        std::vector<Slot> old(slots_.size() * 2, Slot{kEmpty, 0.0F});
        old.swap(slots_);
        stored_ = 0;
        for (const Slot& slot : old) {
            if (slot.key != kEmpty) {
                place(slot.key, slot.value);
            }
        }
    }

    std::vector<Slot> slots_ = std::vector<Slot>(kFirstSlots, Slot{kEmpty, 0.0F});
    std::size_t stored_ = 0;
};

/// The memos of the iteration counts launched last, kept for the process's life (a lab times its kernels by
/// choosing an iteration count, then launches it chunk after chunk), behind one lock: compute_workload runs
/// one launch at a time.
class WorkloadMemos {
public:
    /// The memo of `iterations`, made where it is not kept; the least recently used goes where too many are.
    WorkloadMemo& of(int iterations) {
        ++uses_;
        auto found = memos_.find(iterations);
        if (found == memos_.end()) {
            if (memos_.size() == kKept) {
                const auto oldest = std::min_element(memos_.begin(), memos_.end(), [](const auto& x, const auto& y) {
                    return x.second.last_use < y.second.last_use;
                });
                memos_.erase(oldest);
            }
            found = memos_.emplace(iterations, Kept{}).first;
        }
        found->second.last_use = uses_;
        return found->second.memo;
    }

    std::mutex lock;  ///< Held for a whole compute_workload.

private:
    struct Kept {
        WorkloadMemo memo;
        std::uint64_t last_use = 0;
    };
    static constexpr std::size_t kKept = 8;  // 2 MiB each for fill_input's values
    std::map<int, Kept> memos_;
    std::uint64_t uses_ = 0;
};

WorkloadMemos& workload_memos() {
    static WorkloadMemos memos;
    return memos;
}

/// Runs `work(worker, begin, end)` over [0, count) split into consecutive slices, one per CPU core (the calling
/// thread takes the first), as a GPU splits a grid over its SMs; a single slice where `count` is below
/// `worth_a_thread` per core, for starting a thread costs more than it saves there.
template <typename Work>
void over_cores(std::size_t count, std::size_t worth_a_thread, const Work& work) {
    const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
    const std::size_t workers =
        std::min(cores, std::max<std::size_t>(1, count / std::max<std::size_t>(1, worth_a_thread)));
    const std::size_t per_worker = (count + workers - 1) / workers;
    std::vector<std::thread> helpers;
    for (std::size_t w = 1; w < workers; ++w) {
        helpers.emplace_back(work, w, std::min(count, w * per_worker), std::min(count, (w + 1) * per_worker));
    }
    work(std::size_t{0}, std::size_t{0}, std::min(count, per_worker));
    for (std::thread& helper : helpers) {
        helper.join();
    }
}

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

// The elements go through in blocks, each in three steps: the elements whose input the memo holds, over the
// cores, the others noted; the distinct inputs among those, computed over the cores and kept; the noted
// elements. A block bounds what is noted, and what the memo holds: where a block's new inputs would take it
// past kMostKept (an input of millions of distinct values, which no memo helps), it starts afresh. The
// simulator's time does not depend on any of it (the host clock leaves out the CPU's time in a call); the
// student's wait does.
void compute_workload(const float* in, float* out, std::size_t n, int iterations, std::size_t skipped) {
    constexpr std::size_t kBlock = std::size_t{1} << 20;
    constexpr std::size_t kMostKept = std::size_t{1} << 21;
    // Below these, starting a thread costs more than it saves: look-ups are cheap, steps are not.
    constexpr std::size_t kLookUpsWorthAThread = std::size_t{1} << 18;
    constexpr std::size_t kInputsWorthAThread = 64;

    WorkloadMemos& memos = workload_memos();
    const std::lock_guard<std::mutex> hold(memos.lock);
    WorkloadMemo& memo = memos.of(iterations);
    const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
    std::vector<std::vector<std::size_t>> missed(cores);  // per core, the elements the memo did not hold
    for (std::size_t block = 0; block < n; block += kBlock) {
        const std::size_t block_end = std::min(n, block + kBlock);
        // 1. The elements the memo holds.
        for (std::vector<std::size_t>& elements : missed) {
            elements.clear();
        }
        const auto look_up = [&](std::size_t worker, std::size_t begin, std::size_t end) {
            const float* previous = nullptr;  // an input like the element before's costs no look-up
            std::uint32_t previous_bits = 0;  // (a memset input is all zeros)
            for (std::size_t i = block + begin; i < block + end; ++i) {
                if (i == skipped) {
                    continue;
                }
                const std::uint32_t bits = bits_of(in[i]);
                const float* value = previous != nullptr && bits == previous_bits ? previous : memo.find(bits);
                if (value == nullptr) {
                    missed[worker].push_back(i);
                    continue;
                }
                store_past_the_caches(&out[i], *value);  // as the GPU writes its own memory (memory.hpp)
                previous = value;
                previous_bits = bits;
            }
            fence_stores_past_the_caches();
        };
        over_cores(block_end - block, kLookUpsWorthAThread, look_up);
        // 2. The distinct inputs of the others, each computed once, and kept.
        std::vector<std::uint32_t> fresh_bits;
        for (const std::vector<std::size_t>& elements : missed) {
            for (const std::size_t i : elements) {
                fresh_bits.push_back(bits_of(in[i]));
            }
        }
        if (fresh_bits.empty()) {
            continue;
        }
        std::sort(fresh_bits.begin(), fresh_bits.end());
        fresh_bits.erase(std::unique(fresh_bits.begin(), fresh_bits.end()), fresh_bits.end());
        std::vector<float> fresh(fresh_bits.size());
        std::memcpy(fresh.data(), fresh_bits.data(), fresh.size() * sizeof(float));
        std::vector<float> values(fresh.size());
        over_cores(fresh.size(), kInputsWorthAThread, [&](std::size_t /*worker*/, std::size_t begin, std::size_t end) {
            workload_elements(fresh.data() + begin, values.data() + begin, end - begin, iterations);
        });
        if (memo.size() + fresh.size() > kMostKept) {
            memo.clear();
        }
        for (std::size_t k = 0; k < fresh.size(); ++k) {
            memo.add(fresh_bits[k], values[k]);
        }
        // 3. The elements that missed (the one input the memo cannot hold computed alone).
        for (const std::vector<std::size_t>& elements : missed) {
            for (const std::size_t i : elements) {
                const float* value = memo.find(bits_of(in[i]));
                out[i] = value != nullptr ? *value : workload_element(in[i], iterations);
            }
        }
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
