/// @file course_side.hpp
/// @brief Lab 08's course side: the memory the program and the tests hand your
/// code, host memory from your own allocate_portable and each GPU's device
/// buffers, allocated by the course and released when it is done.
#pragma once

#include <cstddef>

#include "lab08.hpp"
#include "streamlab/handles.hpp"

namespace lab08::course {

/// The shape of the runs the program and the tests make: chunks of each GPU's share,
/// and streams per GPU, in the split pipeline; chunks of the hand-off.
constexpr int kChunks = 8;
constexpr int kStreams = 3;
constexpr int kHandoffChunks = 8;

/// `n` floats of host memory from your allocate_portable, released with your
/// free_portable when the object goes (an exception from it is reported on
/// stderr, never thrown from the destructor).
class PortableFloats {
public:
    /// Calls lab08::allocate_portable(n); what it throws passes through.
    explicit PortableFloats(std::size_t n);
    ~PortableFloats();
    PortableFloats(const PortableFloats&) = delete;
    PortableFloats& operator=(const PortableFloats&) = delete;

    /// What allocate_portable returned.
    [[nodiscard]] float* data() const noexcept { return data_; }

private:
    float* data_;
};

/// One GPU's device memory for `n` floats of input and `n` of results,
/// allocated with that GPU current (device 0 is current again afterwards).
struct GpuMemory {
    /// Allocates both buffers on device `gpu`. Throws streamlab::CudaError on failure.
    GpuMemory(int gpu, std::size_t n);

    int device;                             ///< The CUDA device ordinal.
    streamlab::DeviceBuffer<float> input;   ///< `n` floats on `device`.
    streamlab::DeviceBuffer<float> output;  ///< `n` floats on `device`.

    /// The GpuPart your code is handed for this GPU.
    [[nodiscard]] GpuPart part() const { return {device, input.data(), output.data()}; }
};

}  // namespace lab08::course
