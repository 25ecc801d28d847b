#include "memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>

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

MemoryRegistry::~MemoryRegistry() {
    clear();
}

void* MemoryRegistry::allocate(std::size_t bytes, MemoryKind kind, unsigned int flags) {
    // A private anonymous mapping: page-aligned, and zero-filled by the kernel only where it is touched, so
    // the course's 256 MiB buffers cost the host nothing until used. Zero-filled means a kernel reading
    // memory the program never wrote gives the same answer every run (a real GPU gives whatever was there).
    void* memory = ::mmap(nullptr, mapped_bytes(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
