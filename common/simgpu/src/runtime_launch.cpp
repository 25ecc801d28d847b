// Kernel launches as nvcc compiles them, cudaLaunchKernel, the occupancy query and cudaLaunchHostFunc.
//
// What nvcc 13 makes of a .cu file, host side (crt/host_runtime.h, crt/device_functions.h):
//  - before main, a static constructor registers the file's device code (__cudaRegisterFatBinary), then every
//    __global__ function in it (__cudaRegisterFunction: the address of its host stub and its device name), and
//    ends (__cudaRegisterFatBinaryEnd); atexit unregisters it (__cudaUnregisterFatBinary);
//  - `kernel<<<grid, block, shared, stream>>>(args...)` pushes the configuration
//    (__cudaPushCallConfiguration; a non-zero answer skips the call) and calls the host stub, which pops it
//    (__cudaPopCallConfiguration), asks once for the kernel's handle (__cudaGetKernel) and launches it with a
//    pointer to each argument (__cudaLaunchKernel, or __cudaLaunchKernel_ptsz where the file was compiled with
//    a per-thread default stream).
// A program compiled with `-cudart none` (the simulated build) leaves all of these undefined, and this file
// defines them, so the program's own object files launch on the simulated GPU unchanged.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "machine.hpp"
#include "runtime.hpp"
#include "runtime_graphs.hpp"

namespace streamlab::simgpu {
namespace {

// ---------------------------------------------------------------- launch configurations

/// What `<<<grid, block, shared, stream>>>` said, between the push and the host stub's pop.
struct LaunchConfiguration {
    dim3 grid;
    dim3 block;
    std::size_t shared_bytes = 0;
    cudaStream_t stream = nullptr;
};

/// Each thread's pushed configurations: a stack, because an argument of a launch may itself launch a kernel
/// (`a<<<1, 1>>>(launch_b())` pushes a's configuration before b's).
std::vector<LaunchConfiguration>& pushed_configurations() {
    thread_local std::vector<LaunchConfiguration> stack;
    return stack;
}

// ---------------------------------------------------------------- checking a launch

/// Compute capability 9.0's limits on a launch's shape (CUDA Programming Guide, technical specifications per
/// compute capability): a block's threads and dimensions, a grid's dimensions.
constexpr unsigned int kMaxBlockThreads = 1024;
constexpr unsigned int kMaxBlockX = 1024;
constexpr unsigned int kMaxBlockY = 1024;
constexpr unsigned int kMaxBlockZ = 64;
constexpr unsigned int kMaxGridX = 0x7FFFFFFF;
constexpr unsigned int kMaxGridYZ = 65535;
/// The dynamic shared memory a block gets without opting in to more through cudaFuncSetAttribute
/// (cudaFuncAttributeMaxDynamicSharedMemorySize): 48 KiB, the Programming Guide's default for every GPU.
constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

/// The error the runtime documents for a launch of this shape, or cudaSuccess. A grid or block with a zero or
/// too large dimension is cudaErrorInvalidConfiguration ("this indicates that a kernel launch is requesting
/// resources that can never be satisfied by the current device"); more shared memory than the block may have
/// is cudaErrorInvalidValue.
cudaError_t shape_error(dim3 grid, dim3 block, std::size_t shared_bytes) {
    const unsigned long long block_threads = 1ULL * block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block_threads == 0) {
        return cudaErrorInvalidConfiguration;
    }
    if (block_threads > kMaxBlockThreads || block.x > kMaxBlockX || block.y > kMaxBlockY || block.z > kMaxBlockZ) {
        return cudaErrorInvalidConfiguration;
    }
    if (grid.x > kMaxGridX || grid.y > kMaxGridYZ || grid.z > kMaxGridYZ) {
        return cudaErrorInvalidConfiguration;
    }
    return shared_bytes > kDefaultSharedBytes ? cudaErrorInvalidValue : cudaSuccess;
}

/// Says on stderr what went wrong inside the simulator where no return code can say it all (a kernel without
/// a model, a kernel that faulted), as the real runtime's errors say nothing of which kernel it was.
void tell(const std::string& message) {
    std::fprintf(stderr, "simgpu: %s\n", message.c_str());
}

/// The kernel's CPU work and its fault, where it faulted.
std::string run_kernel(const KernelModel& model, void** args, unsigned int grid_blocks, unsigned int block_threads,
                       const std::string& name) {
    std::string why = model.run(args, grid_blocks, block_threads);
    if (!why.empty()) {
        why = name + " faulted: " + why;
    }
    return why;
}

/// A launch's arguments kept past the launch: a captured kernel runs at each graph launch, long after the host
/// stub's argument array has gone. `values` holds each argument's bytes, `pointers` the `void** args` that
/// the model reads.
struct KeptArguments {
    std::vector<std::vector<unsigned char>> values;
    std::vector<void*> pointers;
};

/// The size of a kernel parameter of type `type` as a demangled name spells it, or 0 where it is no pointer
/// and no scalar this file knows.
std::size_t parameter_bytes(const std::string& type) {
    if (!type.empty() && (type.back() == '*' || type.back() == '&')) {
        return sizeof(void*);
    }
    static const std::map<std::string, std::size_t> scalars = {
        {"bool", 1},           {"char", 1},      {"signed char", 1},        {"unsigned char", 1}, {"short", 2},
        {"unsigned short", 2}, {"int", 4},       {"unsigned int", 4},       {"float", 4},         {"long", 8},
        {"unsigned long", 8},  {"long long", 8}, {"unsigned long long", 8}, {"double", 8},
    };
    const auto found = scalars.find(type);
    return found == scalars.end() ? 0 : found->second;
}

/// A copy of the arguments `args` holds for the kernel `readable_name`, or null where its parameter types
/// cannot be read from the name: an extern "C" kernel's name has none, and a parameter of a type of the
/// program's own has no size the name tells. The real runtime reads the sizes from the device code, which
/// the simulator never has.
std::shared_ptr<KeptArguments> keep_arguments(const std::string& readable_name, void** args) {
    const std::size_t open = readable_name.rfind('(');
    if (open == std::string::npos || readable_name.back() != ')') {
        return nullptr;
    }
    auto kept = std::make_shared<KeptArguments>();
    const std::string list = readable_name.substr(open + 1, readable_name.size() - open - 2);
    int depth = 0;  // inside template brackets, a comma separates no parameters
    std::string type;
    const auto keep = [&]() {
        const std::size_t bytes = parameter_bytes(type);
        if (bytes == 0) {
            return false;
        }
        const auto* from = static_cast<const unsigned char*>(args[kept->values.size()]);
        kept->values.emplace_back(from, from + bytes);
        type.clear();
        return true;
    };
    for (const char c : list) {
        depth += c == '<' ? 1 : c == '>' ? -1 : 0;
        if (c == ',' && depth == 0) {
            if (!keep()) {
                return nullptr;
            }
        } else if (c != ' ' || !type.empty()) {
            type += c;
        }
    }
    if (!list.empty() && !keep()) {
        return nullptr;
    }
    for (auto& value : kept->values) {
        kept->pointers.push_back(value.data());
    }
    return kept;
}

/// How many waves of blocks a grid runs in on an idle GPU: its blocks over what all SMs hold at once (for the
/// course's kernels, their threads decide how many blocks an SM holds: resident_blocks_per_sm), rounded up.
std::uint32_t grid_waves(unsigned int grid_blocks, unsigned int block_threads, const GpuModel& model) {
    const std::uint64_t resident = static_cast<std::uint64_t>(std::max(model.sm_count, 1)) *
                                   static_cast<std::uint64_t>(std::max(resident_blocks_per_sm(block_threads), 1));
    return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (grid_blocks + resident - 1) / resident));
}

/// The launch, once its configuration is known: what cudaLaunchKernel, __cudaLaunchKernel and their _ptsz
/// versions all do. `per_thread_default`: a null stream names the thread's default stream (_ptsz).
cudaError_t launch(const void* function, dim3 grid, dim3 block, void** args, std::size_t shared_bytes,
                   cudaStream_t handle, bool per_thread_default) {
    // CUPTI names every launch cudaLaunchKernel, whichever entry point nvcc's code called.
    ApiCall call("cudaLaunchKernel");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    Stream* stream = machine.find_stream(handle, per_thread_default);
    if (stream == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    const std::optional<KnownKernel> kernel = kernel_for_host_function(function);
    if (!kernel) {
        // "The requested device function does not exist or is not compiled for the proper device architecture."
        return call.result(cudaErrorInvalidDeviceFunction);
    }
    const cudaError_t shape = shape_error(grid, block, shared_bytes);
    if (shape != cudaSuccess) {
        return call.result(shape);
    }
    if (!kernel->model) {
        tell("no model of kernel " + kernel->readable_name +
             " is registered (simgpu::register_kernel), so the simulated GPU cannot run it");
        return call.result(cudaErrorNotSupported);
    }
    // A null stream in a _ptsz call is the thread's default stream, as the tracer counts it.
    const cudaStream_t named = handle == nullptr && per_thread_default ? cudaStreamPerThread : handle;
    machine.log_stream_call(OrderingCall::Work, "cudaLaunchKernel", stream_key(named), 0);

    const KernelModel model = *kernel->model;
    const auto grid_blocks = static_cast<unsigned int>(1ULL * grid.x * grid.y * grid.z);
    const unsigned int block_threads = block.x * block.y * block.z;
    OpRequest request;
    request.kind = OpKind::Kernel;
    request.name = kernel->readable_name;
    request.duration_ns = model.duration_ns(args, grid_blocks, block_threads, machine.model());
    request.resource = Resource::Compute;
    request.compute_share = model.share(grid_blocks, block_threads, machine.model());
    request.waves = grid_waves(grid_blocks, block_threads, machine.model());

    // In a capture the kernel runs at each graph launch, on a copy of its arguments. Where they cannot be
    // copied (see keep_arguments), its CPU work is done now, once, and the graph replays only its time.
    if (stream->capture) {
        if (const std::shared_ptr<KeptArguments> kept = keep_arguments(kernel->readable_name, args)) {
            defer_to_capture(*stream, [model, kept, grid_blocks, block_threads,
                                       name = kernel->readable_name](OpRequest& /*request*/) {
                return run_kernel(model, kept->pointers.data(), grid_blocks, block_threads, name);
            });
            machine.enqueue(*stream, std::move(request));
            return call.result(cudaSuccess);
        }
    }
    const std::string fault = run_kernel(model, args, grid_blocks, block_threads, kernel->readable_name);
    const OpId launched = machine.enqueue(*stream, std::move(request));
    if (!fault.empty()) {
        // A fault ends the kernel with cudaErrorIllegalAddress, which the launch, asynchronous, knows nothing
        // of: the host learns of it at the first call after the kernel has ended on the GPU (a wait for it,
        // or any later call), and from then on at every call (a sticky error: ApiCall::result).
        tell(fault);
        machine.fault_when_ended(launched, cudaErrorIllegalAddress);
    }
    if (machine.launches_block()) {
        // CUDA_LAUNCH_BLOCKING=1: the launch returns once its kernel has run, so its error (the call's result)
        // is the kernel's own.
        machine.wait_host_for(launched);
    }
    return call.result(cudaSuccess);
}

}  // namespace
}  // namespace streamlab::simgpu

using streamlab::simgpu::launch;
using streamlab::simgpu::pushed_configurations;

// ---------------------------------------------------------------- nvcc's registration entry points

extern "C" {

void** __cudaRegisterFatBinary(void* fat_cubin) {
    // The handle only has to be distinct per module and live until unregistration; the device code itself
    // is never read (the kernels run as their models).
    return new void*(fat_cubin);
}

void __cudaRegisterFatBinaryEnd(void** /*handle*/) {}

void __cudaUnregisterFatBinary(void** handle) {
    // The module's host stubs stay known: a static destructor of another file may still launch after this.
    delete handle;
}

void __cudaRegisterFunction(void** /*handle*/, const char* host_function, char* /*device_function*/,
                            const char* device_name, int /*thread_limit*/, uint3* /*tid*/, uint3* /*bid*/,
                            dim3* /*block_dim*/, dim3* /*grid_dim*/, int* /*warp_size*/) {
    streamlab::simgpu::remember_host_function(host_function, device_name);
}

// A file's __device__ and __managed__ variables are registered too. No course kernel has one; a program's own
// kernel that uses one has no model either, so its launch is refused with a message (launch above). Taking
// the registration lets such a program link and say so, rather than fail to link.
void __cudaRegisterVar(void** /*handle*/, char* /*host_variable*/, char* /*device_address*/,
                       const char* /*device_name*/, int /*ext*/, std::size_t /*size*/, int /*constant*/,
                       int /*global*/) {}

void __cudaRegisterManagedVar(void** /*handle*/, void** /*host_variable_address*/, char* /*device_address*/,
                              const char* /*device_name*/, int /*ext*/, std::size_t /*size*/, int /*constant*/,
                              int /*global*/) {}

char __cudaInitModule(void** /*handle*/) {
    return 1;  // nothing to load: success
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared_bytes, CUstream_st* stream) {
    pushed_configurations().push_back({grid, block, shared_bytes, stream});
    return 0;  // 0: go on with the call
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, std::size_t* shared_bytes, void* stream) {
    auto& stack = pushed_configurations();
    if (stack.empty()) {
        return cudaErrorMissingConfiguration;
    }
    const auto configuration = stack.back();
    stack.pop_back();
    *grid = configuration.grid;
    *block = configuration.block;
    *shared_bytes = configuration.shared_bytes;
    *static_cast<cudaStream_t*>(stream) = configuration.stream;
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* function) {
    // A kernel's handle is its host stub's address: cudaLaunchKernel takes either (the Runtime API accepts a
    // cudaKernel_t cast to a function pointer), and both name the same registered function.
    if (kernel == nullptr || !streamlab::simgpu::kernel_for_host_function(function)) {
        return cudaErrorInvalidDeviceFunction;
    }
    *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(function));
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t shared_bytes,
                               cudaStream_t stream) {
    return launch(kernel, grid, block, args, shared_bytes, stream, false);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t shared_bytes,
                                    cudaStream_t stream) {
    return launch(kernel, grid, block, args, shared_bytes, stream, true);
}

}  // extern "C"

// ---------------------------------------------------------------- the runtime's launch functions

cudaError_t cudaLaunchKernel(const void* function, dim3 grid, dim3 block, void** args, std::size_t shared_bytes,
                             cudaStream_t stream) {
    return launch(function, grid, block, args, shared_bytes, stream, false);
}

cudaError_t cudaLaunchKernel_ptsz(const void* function, dim3 grid, dim3 block, void** args, std::size_t shared_bytes,
                                  cudaStream_t stream) {
    return launch(function, grid, block, args, shared_bytes, stream, true);
}

namespace {

/// cudaOccupancyMaxActiveBlocksPerMultiprocessor(WithFlags) under the name `function`: how many blocks of
/// `block_threads` threads of the kernel one SM holds at once.
cudaError_t blocks_per_sm(const char* function_name, int* blocks, const void* function, int block_threads) {
    streamlab::simgpu::ApiCall call(function_name);
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (blocks == nullptr || block_threads <= 0) {
        return call.result(cudaErrorInvalidValue);
    }
    if (!streamlab::simgpu::kernel_for_host_function(function)) {
        return call.result(cudaErrorInvalidDeviceFunction);
    }
    // Threads limit the course's kernels (kernels.hpp); a block larger than any SM holds gives 0.
    *blocks = streamlab::simgpu::resident_blocks_per_sm(static_cast<unsigned int>(block_threads));
    return call.result(cudaSuccess);
}

}  // namespace

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* function, int block_threads,
                                                          std::size_t /*dynamic_shared_bytes*/) {
    return blocks_per_sm("cudaOccupancyMaxActiveBlocksPerMultiprocessor", blocks, function, block_threads);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* function, int block_threads,
                                                                   std::size_t /*dynamic_shared_bytes*/,
                                                                   unsigned int /*flags*/) {
    return blocks_per_sm("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", blocks, function, block_threads);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t handle, cudaHostFn_t function, void* user_data) {
    using namespace streamlab::simgpu;
    ApiCall call("cudaLaunchHostFunc");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    Stream* stream = machine.find_stream(handle);
    if (stream == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    if (function == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    // A host function is no GPU work (CUPTI records no activity for it), but the stream's later work waits for
    // it to return: an invisible op that lasts as long as the function ran, on no engine.
    OpRequest request;
    request.marker = Marker::HostFunction;
    request.resource = Resource::HostFunctionThread;
    // The runtime calls it once the work issued to the stream before it has completed (the Runtime API on
    // cudaLaunchHostFunc), on a thread of its own, one host function at a time: so it runs when the
    // simulation reaches the op, its clock reading that moment, and lasts as long as it ran.
    OpWork work = [function, user_data](OpRequest& op) {
        op.run_at_start = [function, user_data](std::uint64_t start_ns) {
            return Machine::instance().run_host_function([function, user_data] { function(user_data); }, start_ns);
        };
        return std::string();
    };
    if (!defer_to_capture(*stream, work)) {
        work(request);
    }
    machine.enqueue(*stream, std::move(request));
    return call.result(cudaSuccess);
}
