/// @file course_side.hpp
/// @brief Lab 07's course side for Task 2: the host that consumes each chunk's
/// results, timed on the timeline's clock by the course itself. The program and the
/// tests hand it to your code; your code only calls `consumer.consume`. (Task 4's
/// side is priority_side.hpp.)
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
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

/// The design that keeps the copy-out stream free (README, "A host function holds
/// its stream"): a Consumer whose consume only hands the chunk to a thread of the
/// course's and returns, and that thread runs `target.consume` on it. The program
/// runs Task 2 with it beside the plain consumer; the graded tests do not.
class HandOffConsumer {
public:
    /// Starts the consumer thread.
    explicit HandOffConsumer(Consumer target);
    /// Consumes what was handed over, then ends the thread.
    ~HandOffConsumer();
    HandOffConsumer(const HandOffConsumer&) = delete;
    HandOffConsumer& operator=(const HandOffConsumer&) = delete;

    /// The Consumer your code calls: its consume queues the chunk and returns at once.
    [[nodiscard]] Consumer consumer();

    /// Returns once every chunk handed over so far has been consumed; rethrows what
    /// the target's consume threw.
    void wait_until_consumed();

private:
    void serve();

    Consumer target_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<int> waiting_;
    bool busy_ = false;
    bool stopping_ = false;
    std::exception_ptr error_;
    std::thread thread_;  // last: it starts once everything above exists
};

}  // namespace lab07::course
