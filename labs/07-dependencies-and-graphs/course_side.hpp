/// @file course_side.hpp
/// @brief Lab 07's course side for Task 2: the host that consumes each chunk's
/// results, timed on the timeline's clock by the course itself. The program and the
/// recording hand it to your code; your code only calls `consumer.consume`. (Task 4's
/// side is priority_side.hpp.)
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "lab07.hpp"
#include "streamlab/record.hpp"

namespace lab07::course {

/// Chunks of every graded run (record_lab07.cpp runs them, test_lab07.cpp judges
/// them): enough that a missing wait or a late consumer shows.
inline constexpr int kChunks = 8;

/// How many times the graded run of Task 3 asks run_graph to launch its graph.
inline constexpr int kLaunches = 4;

/// One call of Consumer::consume, as the course saw it.
struct Consumption {
    int chunk = 0;               ///< Which chunk it took.
    std::uint64_t start_ns = 0;  ///< When it began, ns, relative to a timeline's origin.
    std::uint64_t end_ns = 0;    ///< When it returned.
    std::uint64_t thread = 0;    ///< The host thread it ran on (streamlab::host_thread_id()).
};

/// The scenario value that holds how many calls put_consumptions wrote.
inline constexpr const char* kConsumeCallsKey = "consume_calls";

/// The scenario value of call `call`'s `field` ("chunk", "start_ns", "end_ns", "thread").
inline std::string consumption_key(std::size_t call, const char* field) {
    return "consume_" + std::to_string(call) + "_" + field;
}

/// Writes `calls` into a recorded scenario's values (streamlab/record.hpp):
/// kConsumeCallsKey, then each call's chunk, times and thread (consumption_key).
inline void put_consumptions(const std::vector<Consumption>& calls, std::map<std::string, double>& values) {
    values[kConsumeCallsKey] = static_cast<double>(calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i) {
        values[consumption_key(i, "chunk")] = calls[i].chunk;
        values[consumption_key(i, "start_ns")] = static_cast<double>(calls[i].start_ns);
        values[consumption_key(i, "end_ns")] = static_cast<double>(calls[i].end_ns);
        values[consumption_key(i, "thread")] = static_cast<double>(calls[i].thread);
    }
}

/// The calls put_consumptions wrote into `values`, read back by a judge from a
/// record, which it does not trust: throws std::runtime_error where a value is
/// missing; a value out of range (or NaN) reads as the nearest in range, chunk -1 below.
inline std::vector<Consumption> consumptions_from(const std::map<std::string, double>& values) {
    const auto value = [&](const std::string& key) {
        const auto found = values.find(key);
        if (found == values.end()) {
            throw std::runtime_error("the record's consumer scenario has no value \"" + key + "\"");
        }
        return found->second;
    };
    using streamlab::record::whole_number;
    constexpr double kMostNs = 1e18;  // far beyond any run, and within std::uint64_t
    std::vector<Consumption> calls(whole_number<std::size_t>(value(kConsumeCallsKey), 0, 1e6));
    for (std::size_t i = 0; i < calls.size(); ++i) {
        calls[i].chunk = whole_number<int>(value(consumption_key(i, "chunk")), -1, 1e6);
        calls[i].start_ns = whole_number<std::uint64_t>(value(consumption_key(i, "start_ns")), 0, kMostNs);
        calls[i].end_ns = whole_number<std::uint64_t>(value(consumption_key(i, "end_ns")), 0, kMostNs);
        calls[i].thread = whole_number<std::uint64_t>(value(consumption_key(i, "thread")), 0, kMostNs);
    }
    return calls;
}

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
