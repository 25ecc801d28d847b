/// @file course_side.hpp
/// @brief Lab 07's course side for Task 2: the host that consumes each chunk's
/// results, timed on the timeline's clock by the course itself. The program and the
/// tests hand it to your code; your code only calls `consumer.consume`. (Task 4's
/// side is priority_side.hpp.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "lab07.hpp"

namespace lab07::course {

/// One call of Consumer::consume, as the course saw it.
struct Consumption {
    int chunk = 0;               ///< Which chunk it took.
    std::uint64_t start_ns = 0;  ///< When it began, ns, relative to a timeline's origin.
    std::uint64_t end_ns = 0;    ///< When it returned.
    std::uint64_t thread = 0;    ///< The host thread it ran on (streamlab::host_thread_id()).
};

/// The host that takes each chunk's results out of the job's pinned output into
/// pageable memory of its own, and notes when and on which thread it did.
class ResultsConsumer {
public:
    /// For `job` cut into `chunks` chunks; `consumed` starts poisoned (NaN).
    ResultsConsumer(const PipelineJob& job, int chunks);

    /// The Consumer your code calls. Refuses (std::out_of_range) a chunk outside 0 to chunks - 1.
    [[nodiscard]] Consumer consumer();

    /// Forgets the records and poisons `consumed`, before a recorded run.
    void reset();

    /// The calls since reset(), in the order they began, with times relative to `origin_ns`.
    [[nodiscard]] std::vector<Consumption> consumptions(std::uint64_t origin_ns) const;

    std::vector<float> consumed;  ///< What consume took out of job.output, pageable.

private:
    PipelineJob job_;
    int chunks_;
    mutable std::mutex mutex_;
    std::vector<Consumption> calls_;
};

}  // namespace lab07::course
