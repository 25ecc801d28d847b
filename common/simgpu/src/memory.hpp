/// @file memory.hpp
/// @brief The simulated GPU's memory registry: which addresses are "device" memory, which host memory is
/// page-locked, and everything else is pageable.
///
/// Device memory is ordinary host memory the simulator allocates (so kernels' CPU references and copies
/// can use it); the registry is what tells it apart, as unified virtual addressing lets the real runtime
/// tell a pointer's kind (cudaPointerGetAttributes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace streamlab::simgpu {

/// What a pointer points into.
enum class MemoryKind {
    Pageable,        ///< Host memory the runtime does not know (malloc, new, the stack).
    PinnedHost,      ///< Page-locked host memory the runtime allocated (cudaMallocHost, cudaHostAlloc).
    RegisteredHost,  ///< Host memory the program page-locked (cudaHostRegister).
    Device,          ///< Device memory (cudaMalloc, cudaMallocAsync).
};

/// The simulator keeps the GPU's memory in the host's, and does the GPU's copies and kernels on the CPU: what
/// they write would stay in the CPU's caches and push the host program's own data out of them, which a real
/// GPU's copy engines and SMs, writing to memory of their own, never do (the host program's next copy of a
/// buffer would then take it longer than it does beside a GPU). So they write past the caches, with the
/// CPU's non-temporal stores where it has them.

/// Copies `count` bytes from `src` to `dst` (ranges that may overlap, as memmove) past the CPU's caches.
void copy_past_the_caches(void* dst, const void* src, std::size_t count);

/// Writes `value` at `address` past the CPU's caches; fence_stores_past_the_caches() after the last.
void store_past_the_caches(float* address, float value);

/// Orders the stores past the caches this thread made before its later loads and stores (they are weakly
/// ordered); before the thread hands its results on.
void fence_stores_past_the_caches();

/// One range the registry knows.
struct MemoryRange {
    std::uintptr_t begin = 0;
    std::size_t bytes = 0;
    MemoryKind kind = MemoryKind::Pageable;
    unsigned int flags = 0;  ///< cudaHostAlloc's or cudaHostRegister's flags (cudaHostGetFlags).
};

/// The address ranges the runtime allocated or registered.
class MemoryRegistry {
public:
    MemoryRegistry() = default;
    ~MemoryRegistry();
    MemoryRegistry(const MemoryRegistry&) = delete;
    MemoryRegistry& operator=(const MemoryRegistry&) = delete;

    /// New memory of `kind` (Device or PinnedHost) of at least one byte, zero-filled and page-aligned (so
    /// 256-byte aligned, as cudaMalloc's is); null where the host has none left.
    void* allocate(std::size_t bytes, MemoryKind kind, unsigned int flags = 0);
    /// Releases memory `allocate` returned with this `kind`; false where `pointer` is not the start of such
    /// an allocation (freed already, never allocated, another kind).
    bool release(void* pointer, MemoryKind kind);
    /// Marks host memory page-locked (cudaHostRegister); false where it overlaps a known range.
    bool register_host(void* pointer, std::size_t bytes, unsigned int flags);
    /// Unmarks it; false where `pointer` does not start a registered range.
    bool unregister_host(void* pointer);

    /// The range holding `pointer`, or a Pageable range of 0 bytes where the registry knows none.
    [[nodiscard]] MemoryRange find(const void* pointer) const;
    /// Whether [pointer, pointer + bytes) lies inside one range of `kind`.
    [[nodiscard]] bool holds(const void* pointer, std::size_t bytes, MemoryKind kind) const;
    /// Bytes of device memory allocated now (cudaMemGetInfo).
    [[nodiscard]] std::uint64_t device_bytes_in_use() const;

    /// Frees everything (reset_for_tests).
    void clear();

private:
    std::map<std::uintptr_t, MemoryRange> ranges_;  ///< By start address.
};

}  // namespace streamlab::simgpu
