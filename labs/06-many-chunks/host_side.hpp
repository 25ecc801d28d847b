/// @file host_side.hpp
/// @brief Lab 06's course side: the buffers of a streaming job, and the host that
/// produces the input and consumes the results, timing every write and read of a
/// ring buffer on the timeline's clock. The program, the recording program (graded_jobs.hpp)
/// and the benchmark build their jobs with it; your code only calls `job.produce` and `job.consume`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "lab06.hpp"
#include "ring_timeline.hpp"
#include "streamlab/handles.hpp"

namespace lab06::course {

/// The shape of a job: how many chunks and how many buffers of each ring.
struct RingShape {
    int chunks = 16;      ///< N.
    int staging = 3;      ///< S: pinned buffers the host fills.
    int results = 3;      ///< R: pinned buffers the host drains.
    int device_sets = 3;  ///< K: device buffer sets, and streams.
};

/// The buffers of a job: S + R pinned host buffers and K device sets (an input
/// and an output buffer each), `capacity` floats each.
struct Rings {
    Rings(std::size_t capacity, const RingShape& shape);
    // The buffers are owned: a Rings moves, and is never copied.
    Rings(const Rings&) = delete;
    Rings& operator=(const Rings&) = delete;
    Rings(Rings&&) = default;
    Rings& operator=(Rings&&) = default;
    ~Rings() = default;
    std::size_t capacity;
    std::vector<streamlab::PinnedBuffer<float>> staging;  ///< The staging ring.
    std::vector<streamlab::PinnedBuffer<float>> results;  ///< The results ring.
    std::vector<streamlab::DeviceBuffer<float>> inputs;   ///< Each set's input buffer.
    std::vector<streamlab::DeviceBuffer<float>> outputs;  ///< Each set's output buffer.
};

/// The capacity that holds the largest chunk of `n` elements cut into any of `chunk_counts`.
[[nodiscard]] std::size_t capacity_for(std::size_t n, const std::vector<int>& chunk_counts);

/// The host's side of the stream: the whole input and output in pageable memory
/// (the input filled with streamlab::fill_input), and a record of every fill and
/// drain the job's produce and consume did.
class HostStream {
public:
    /// Allocates and fills the pageable input (streamlab::fill_input with `seed`,
    /// the recording's seed in graded runs); the output is poisoned (NaN).
    explicit HostStream(std::size_t n, std::uint32_t seed = 1);

    /// A job over `rings`, `chunks` chunks and the kernel's `iterations`, whose
    /// produce and consume copy from `input` and into `output` and record each call.
    [[nodiscard]] StreamingJob job(Rings& rings, int chunks, int iterations);

    /// Makes every later produce and consume take `extra_ns` longer (a deliberately slow host).
    void slow_down(std::uint64_t extra_ns) { extra_ns_ = extra_ns; }

    /// Forgets the records and poisons the output, before a recorded run.
    void reset();

    /// The fills and drains since reset(), with times relative to `origin_ns` (a timeline's origin).
    [[nodiscard]] std::vector<HostUse> fills(std::uint64_t origin_ns) const;
    [[nodiscard]] std::vector<HostUse> drains(std::uint64_t origin_ns) const;

    /// The host's time, in ms, to produce the whole stream cut into `chunks`
    /// chunks into the staging ring, and to consume it from the results ring (each
    /// buffer in turn), each alone with nothing else running: the host's stage
    /// times for the model.
    struct AloneMs {
        double fill = 0;   ///< All fills.
        double drain = 0;  ///< All drains.
    };
    [[nodiscard]] AloneMs measure_alone(Rings& rings, int chunks);

    std::vector<float> input;   ///< The whole input, pageable.
    std::vector<float> output;  ///< The whole output, pageable: what consume wrote.

private:
    void record(std::vector<HostUse>& into, const HostUse& use);
    std::uint64_t extra_ns_ = 0;
    mutable std::mutex mutex_;
    std::vector<HostUse> fills_, drains_;
};

}  // namespace lab06::course
