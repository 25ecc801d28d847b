// Lab 06's rings by address, for the module (python_bindings.cpp). In Python a buffer is only an integer, so
// an address that is not one of the ring's is refused before anything is written
// or read there: a wrong one would crash the whole test.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace streamlab::python {

/// The buffer of `ring` (a job's staging or results buffers) at `address`;
/// std::invalid_argument, naming `call` and `ring_name`, when none is there.
inline float* ring_buffer_at(const std::vector<float*>& ring, std::uintptr_t address, const char* call,
                             const char* ring_name) {
    float* buffer = reinterpret_cast<float*>(address);  // NOLINT: checked against the ring below
    if (std::find(ring.begin(), ring.end(), buffer) == ring.end()) {
        throw std::invalid_argument(std::string(call) + ": " + std::to_string(address) + " is not one of " + ring_name);
    }
    return buffer;
}

/// The ring's buffers as the integers Python code passes to cuda-bindings.
inline std::vector<std::uintptr_t> ring_addresses(const std::vector<float*>& ring) {
    std::vector<std::uintptr_t> found;
    for (const float* buffer : ring) {
        found.push_back(reinterpret_cast<std::uintptr_t>(buffer));
    }
    return found;
}

}  // namespace streamlab::python
