// Lab 03: pinned memory. The copy engines move data by DMA, which needs host
// memory that the operating system will not move or swap out: pinned memory.
// Ordinary (pageable) memory has to be staged through a pinned buffer first.
#include "lab03.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "streamlab/check.hpp"

namespace lab03 {

void* allocate_pinned(std::size_t bytes) {
    void* pinned = nullptr;
    // TODO(lab03): Task 1. `pinned` points at `bytes` of page-locked host memory that the
    // runtime allocated for you (lab03.hpp names the call); any failure throws.
    (void)bytes;
    // TODO(lab03) end
    return pinned;
}

void* allocate_pinned_with_flags(std::size_t bytes, unsigned int flags) {
    void* pinned = nullptr;
    // TODO(lab03): Task 1. The same, from the allocator that takes `flags`, so that the
    // caller's flags (portable, mapped, ...) apply to the memory.
    (void)bytes, (void)flags;
    // TODO(lab03) end
    return pinned;
}

void free_pinned(void* pinned) {
    // TODO(lab03): Task 1. Give memory from either allocator back to the runtime.
    (void)pinned;
    // TODO(lab03) end
}

void pin_in_place(void* data, std::size_t bytes) {
    // TODO(lab03): Task 2. The `bytes` at `data`, ordinary memory the caller owns, become
    // pinned where they are: no copy, no new allocation.
    (void)data, (void)bytes;
    // TODO(lab03) end
}

void unpin(void* data) {
    // TODO(lab03): Task 2. `data` is ordinary memory again (the caller still owns and frees it).
    (void)data;
    // TODO(lab03) end
}

void copy_both_ways(void* host, void* device, std::size_t bytes, int repetitions) {
    // TODO(lab03): Task 3. `repetitions` copies of `bytes` from `host` to `device`, then
    // `repetitions` back, each one its own copy on the GPU's timeline and finished
    // when the host moves on (the sweep reads a bandwidth off every copy).
    (void)host, (void)device, (void)bytes, (void)repetitions;
    // TODO(lab03) end
}

// ---------------------------------------------------------------- given

const char* to_string(HostBuffer kind) {
    switch (kind) {
        case HostBuffer::Pageable:
            return "pageable";
        case HostBuffer::MallocHost:
            return "cudaMallocHost";
        case HostBuffer::HostAlloc:
            return "cudaHostAlloc";
        case HostBuffer::Registered:
            return "cudaHostRegister";
    }
    return "unknown";
}

void run_copies(HostBuffer kind, const std::vector<std::size_t>& sizes, int repetitions, void* device) {
    if (sizes.empty()) {
        return;
    }
    const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());

    // Ordinary memory, for the pageable buffer and the one pinned in place.
    std::vector<unsigned char> ordinary;
    void* host = nullptr;
    switch (kind) {
        case HostBuffer::Pageable:
            ordinary.resize(largest);
            host = ordinary.data();
            break;
        case HostBuffer::MallocHost:
            host = allocate_pinned(largest);
            break;
        case HostBuffer::HostAlloc:
            host = allocate_pinned_with_flags(largest, cudaHostAllocPortable);
            break;
        case HostBuffer::Registered:
            ordinary.resize(largest);
            pin_in_place(ordinary.data(), largest);
            host = ordinary.data();
            break;
    }
    if (host == nullptr) {
        throw std::runtime_error(std::string(to_string(kind)) + " buffer: the allocation returned no memory (Task 1)");
    }
    // Writing every byte makes the system back every page now, not during the first copy.
    std::memset(host, 1, largest);

    for (const std::size_t bytes : sizes) {
        copy_both_ways(host, device, bytes, repetitions);
    }

    switch (kind) {
        case HostBuffer::Pageable:
            break;  // the vector frees itself
        case HostBuffer::MallocHost:
        case HostBuffer::HostAlloc:
            free_pinned(host);
            break;
        case HostBuffer::Registered:
            unpin(host);
            break;  // and then the vector frees itself
    }
}

}  // namespace lab03
