#include "memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace streamlab::simgpu {

namespace {

bool owned_by_registry(MemoryKind kind) {
    return kind == MemoryKind::Device || kind == MemoryKind::PinnedHost;
}

// The bytes a mapping of `bytes` takes: whole pages.
std::size_t mapped_bytes(std::size_t bytes) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
}

}  // namespace

void copy_past_the_caches(void* dst, const void* src, std::size_t count) {
#if defined(__SSE2__)
    // Below a few pages, or between overlapping ranges, an ordinary copy (what stays cached is little).
    constexpr std::size_t kWorthStreaming = std::size_t{1} << 16;
    auto* to = static_cast<unsigned char*>(dst);
    const auto* from = static_cast<const unsigned char*>(src);
    const bool overlap = to < from + count && from < to + count;
    if (count >= kWorthStreaming && !overlap) {
        // The first bytes up to a 16-byte boundary of the destination, then 16 at a time, then the rest.
        const std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(to) % 16) % 16;
        std::memcpy(to, from, head);
        std::size_t done = head;
        for (; done + 16 <= count; done += 16) {
            const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + done));
            _mm_stream_si128(reinterpret_cast<__m128i*>(to + done), bytes);
        }
        std::memcpy(to + done, from + done, count - done);
        _mm_sfence();
        return;
    }
#endif
    std::memmove(dst, src, count);
}

void store_past_the_caches(float* address, float value) {
#if defined(__SSE2__)
    int bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    _mm_stream_si32(reinterpret_cast<int*>(address), bits);
#else
    *address = value;
#endif
}

void fence_stores_past_the_caches() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

MemoryRegistry::~MemoryRegistry() {
    clear();
}

void* MemoryRegistry::allocate(std::size_t bytes, MemoryKind kind, unsigned int flags) {
    // A private anonymous mapping: page-aligned, and zero-filled by the kernel only where it is touched, so
    // the course's 256 MiB buffers cost the host nothing until used. Zero-filled means a kernel reading
    // memory the program never wrote gives the same answer every run (a real GPU gives whatever was there).
    // Page-locked host memory is the exception: it is resident from its allocation on (cudaMallocHost and
    // cudaHostAlloc page-lock it; the allocation's cost is the model's, GpuModel::pinned_alloc_ns_per_byte),
    // so the program's first reads of it read memory, not the one page of zeros every untouched page shares.
    const int populated = kind == MemoryKind::PinnedHost ? MAP_POPULATE : 0;
    void* memory =
        ::mmap(nullptr, mapped_bytes(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | populated, -1, 0);
    if (memory == MAP_FAILED) {
        return nullptr;
    }
    const auto begin = reinterpret_cast<std::uintptr_t>(memory);
    ranges_[begin] = MemoryRange{begin, bytes, kind, flags};
    return memory;
}

bool MemoryRegistry::release(void* pointer, MemoryKind kind) {
    const auto found = ranges_.find(reinterpret_cast<std::uintptr_t>(pointer));
    if (found == ranges_.end() || found->second.kind != kind) {
        return false;
    }
    ::munmap(pointer, mapped_bytes(found->second.bytes));
    ranges_.erase(found);
    return true;
}

bool MemoryRegistry::register_host(void* pointer, std::size_t bytes, unsigned int flags) {
    const auto begin = reinterpret_cast<std::uintptr_t>(pointer);
    // The first range starting after `pointer`, and the one before it: either may overlap.
    const auto after = ranges_.upper_bound(begin);
    if (after != ranges_.end() && after->first < begin + bytes) {
        return false;
    }
    if (after != ranges_.begin()) {
        const MemoryRange& before = std::prev(after)->second;
        if (before.begin + before.bytes > begin || before.begin == begin) {
            return false;
        }
    }
    ranges_[begin] = MemoryRange{begin, bytes, MemoryKind::RegisteredHost, flags};
    return true;
}

bool MemoryRegistry::unregister_host(void* pointer) {
    const auto found = ranges_.find(reinterpret_cast<std::uintptr_t>(pointer));
    if (found == ranges_.end() || found->second.kind != MemoryKind::RegisteredHost) {
        return false;
    }
    ranges_.erase(found);
    return true;
}

MemoryRange MemoryRegistry::find(const void* pointer) const {
    const auto address = reinterpret_cast<std::uintptr_t>(pointer);
    const auto after = ranges_.upper_bound(address);
    if (after != ranges_.begin()) {
        const MemoryRange& candidate = std::prev(after)->second;
        if (address < candidate.begin + candidate.bytes) {
            return candidate;
        }
    }
    return MemoryRange{address, 0, MemoryKind::Pageable, 0};
}

bool MemoryRegistry::holds(const void* pointer, std::size_t bytes, MemoryKind kind) const {
    const MemoryRange range = find(pointer);
    const auto address = reinterpret_cast<std::uintptr_t>(pointer);
    // Written so that no sum overflows: a "negative" size is a huge size_t.
    return range.kind == kind && range.bytes != 0 && bytes <= range.bytes &&
           address - range.begin <= range.bytes - bytes;
}

std::uint64_t MemoryRegistry::device_bytes_in_use() const {
    std::uint64_t total = 0;
    for (const auto& [begin, range] : ranges_) {
        if (range.kind == MemoryKind::Device) {
            total += range.bytes;
        }
    }
    return total;
}

void MemoryRegistry::clear() {
    for (const auto& [begin, range] : ranges_) {
        if (owned_by_registry(range.kind)) {
            ::munmap(reinterpret_cast<void*>(begin), mapped_bytes(range.bytes));
        }
    }
    ranges_.clear();
}

}  // namespace streamlab::simgpu
