/// @file course_side.hpp
/// @brief Lab 08's course side: the memory the program and the recording hand
/// your code, host memory from your own allocate_portable and each GPU's device
/// buffers, allocated by the course and released when it is done; and the shape
/// and names of the recorded runs, which the judges read too.
#pragma once

#include <cstddef>
#include <string>

#include "lab08.hpp"
#include "streamlab/handles.hpp"

namespace lab08::course {

/// The shape of the runs the program and the recording make: chunks of each GPU's share,
/// and streams per GPU, in the split pipeline; chunks of the hand-off.
constexpr int kChunks = 8;
constexpr int kStreams = 3;
constexpr int kHandoffChunks = 8;

/// Recorded runs of each one-GPU and two-GPU pipeline in the speed test: the median counts.
constexpr int kRepeats = 3;

/// The scenarios of lab 08's record: record_lab08.cpp records them, test_lab08.cpp judges them.
namespace scenarios {

/// Your run_split over both GPUs, its output sampled, and what the course asked
/// CUDA afterwards: the device current after it returned, how CUDA knows the host memory.
inline constexpr const char* kSplit = "split";
/// Your run_handoff from GPU 0 to GPU 1, its output sampled.
inline constexpr const char* kHandoff = "handoff";
/// The GPUs of the speed test's runs, by the name their scenarios begin with.
inline constexpr const char* kGpu0Alone = "gpu0_alone";
inline constexpr const char* kGpu1Alone = "gpu1_alone";  ///< See kGpu0Alone.
inline constexpr const char* kBothGpus = "both_gpus";    ///< See kGpu0Alone.

/// The speed test's `repeat`-th run (from 1 to kRepeats) of your run_split on
/// `gpus` (kGpu0Alone, ...): "gpu0_alone_1".
[[nodiscard]] inline std::string timed(const std::string& gpus, int repeat) {
    return gpus + "_" + std::to_string(repeat);
}

}  // namespace scenarios

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
