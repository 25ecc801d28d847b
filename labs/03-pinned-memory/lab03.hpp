/// @file lab03.hpp
/// @brief Lab 03, pinned memory: what you implement in pinned_memory.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

/// Lab 03: pinned memory.
namespace lab03 {

/// Task 1. Allocates `bytes` of pinned (page-locked) host memory with
/// cudaMallocHost. Released with free_pinned.
void* allocate_pinned(std::size_t bytes);

/// Task 1. Allocates `bytes` of pinned host memory with cudaHostAlloc and
/// `flags` (cudaHostAllocDefault, cudaHostAllocPortable, ...). Released with free_pinned.
void* allocate_pinned_with_flags(std::size_t bytes, unsigned int flags);

/// Task 1. Releases memory from allocate_pinned or allocate_pinned_with_flags (cudaFreeHost).
void free_pinned(void* pinned);

/// Task 2. Pins `bytes` of existing, ordinary host memory at `data` where it is
/// (cudaHostRegister). Undone with unpin.
void pin_in_place(void* data, std::size_t bytes);

/// Task 2. Undoes pin_in_place (cudaHostUnregister); the memory is ordinary again.
void unpin(void* data);

/// Task 3. Copies the first `bytes` of `host` to `device` `repetitions` times
/// (cudaMemcpy, host to device), then `device` back to `host` `repetitions`
/// times (device to host). Every copy is one cudaMemcpy call.
void copy_both_ways(void* host, void* device, std::size_t bytes, int repetitions);

/// Where the host buffer of run_copies comes from.
enum class HostBuffer {
    Pageable,    ///< Ordinary memory (a std::vector): pageable.
    MallocHost,  ///< allocate_pinned (cudaMallocHost).
    HostAlloc,   ///< allocate_pinned_with_flags (cudaHostAlloc, cudaHostAllocPortable).
    Registered,  ///< Ordinary memory, pinned in place with pin_in_place (cudaHostRegister).
};

/// Given. Gets one host buffer of `kind`, as large as the largest of `sizes`;
/// copies every size both ways with copy_both_ways; releases the buffer.
/// `device` must hold the largest size. Throws std::runtime_error when a Task 1
/// function returns no memory.
void run_copies(HostBuffer kind, const std::vector<std::size_t>& sizes, int repetitions, void* device);

/// "pageable", "cudaMallocHost", "cudaHostAlloc" or "cudaHostRegister": how `kind` gets its memory.
[[nodiscard]] const char* to_string(HostBuffer kind);

}  // namespace lab03
