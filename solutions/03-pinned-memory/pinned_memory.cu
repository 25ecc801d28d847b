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
    SL_CHECK(cudaMallocHost(&pinned, bytes));
    return pinned;
}

void* allocate_pinned_with_flags(std::size_t bytes, unsigned int flags) {
    void* pinned = nullptr;
    SL_CHECK(cudaHostAlloc(&pinned, bytes, flags));
    return pinned;
}

void free_pinned(void* pinned) {
    SL_CHECK(cudaFreeHost(pinned));
}

void pin_in_place(void* data, std::size_t bytes) {
    SL_CHECK(cudaHostRegister(data, bytes, cudaHostRegisterDefault));
}

void unpin(void* data) {
    SL_CHECK(cudaHostUnregister(data));
}

void copy_both_ways(void* host, void* device, std::size_t bytes, int repetitions) {
    for (int i = 0; i < repetitions; ++i) {
        SL_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
    }
    for (int i = 0; i < repetitions; ++i) {
        SL_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
    }
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
