/// @file kernels.hpp
/// @brief The kernels the simulated GPU knows: the __global__ functions nvcc's registration code names, and the
/// models (simgpu.hpp's KernelModel) that run them on the CPU and time them.
///
/// A program compiled by nvcc registers every __global__ function of every .cu file before main
/// (__cudaRegisterFunction, runtime_launch.cpp): the address of its host stub, the function a `<<<...>>>` launch
/// calls, and the device function's mangled name. A launch names the host stub; this file finds the device
/// function's name for it, and the model registered for that name.
///
/// Models are matched by the demangled name: nvcc mangles a kernel in an anonymous namespace with a hash of its
/// file (`_GLOBAL__N__d587a7a6_4_k_cu_9a890f5d`), different in every build, which demangles to
/// "(anonymous namespace)" like any compiler's mangling does.
#pragma once

#include <optional>
#include <string>

#include "streamlab/simgpu.hpp"
#include "streamlab/simgpu_kernel_model.hpp"  // resident_blocks_per_sm, for the occupancy query

namespace streamlab::simgpu {

/// A __global__ function as the simulator knows it.
struct KnownKernel {
    std::string mangled_name;          ///< As nvcc registered it.
    std::string readable_name;         ///< Demangled: how CUPTI's records (and so the trace) name it.
    std::optional<KernelModel> model;  ///< How to run and time it, where the course registered one.
};

/// Remembers that the host stub at `host_function` launches the device function `mangled_name`
/// (what __cudaRegisterFunction tells).
void remember_host_function(const void* host_function, const char* mangled_name);

/// The kernel a launch of `host_function` runs, or nullopt when nvcc registered no such function (the address
/// is no __global__ function's).
[[nodiscard]] std::optional<KnownKernel> kernel_for_host_function(const void* host_function);

/// `mangled_name` as a C++ programmer writes it ("streamlab::workload_kernel(float const*, float*, unsigned
/// long, int)"), or itself where it is no mangled C++ name (an extern "C" kernel).
[[nodiscard]] std::string readable_kernel_name(const std::string& mangled_name);

}  // namespace streamlab::simgpu
