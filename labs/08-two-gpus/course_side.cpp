// Lab 08's course side: see course_side.hpp.
#include "course_side.hpp"

#include <cstdio>
#include <exception>

#include "streamlab/check.hpp"

namespace lab08::course {

PortableFloats::PortableFloats(std::size_t n) : data_(lab08::allocate_portable(n)) {}

PortableFloats::~PortableFloats() {
    try {
        lab08::free_portable(data_);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "free_portable: %s\n", error.what());
    } catch (...) {
        std::fprintf(stderr, "free_portable threw something that is not a std::exception\n");
    }
}

GpuMemory::GpuMemory(int gpu, std::size_t n) : device(gpu) {
    SL_CHECK(cudaSetDevice(gpu));
    input = streamlab::DeviceBuffer<float>(n);
    output = streamlab::DeviceBuffer<float>(n);
    SL_CHECK(cudaSetDevice(0));
}

}  // namespace lab08::course
