/// @file log.hpp
/// @brief The runtime calls the program made, as CUPTI's callbacks would count them: by function, by
/// thread, and the calls that queue or order stream work (Timeline::stream_calls).
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "streamlab/simgpu.hpp"

namespace streamlab::simgpu {

/// The calls' log. It has a lock of its own: a host function's CUDA call is counted (graders check that
/// host functions make none) while the machine's lock is held by the call that runs the host function.
class CallLog {
public:
    /// Counts a call of `function` (a string literal) by host thread `thread` at `time_ns` (host clock).
    void count(const char* function, std::uint64_t thread, std::uint64_t time_ns);
    /// Logs a call that queues or orders stream work.
    void add_stream_call(const StreamCall& call);
    /// Fills `log`'s calls, calls by thread, stream calls and devices with those made at or after `since_ns`.
    void fill(Log& log, std::uint64_t since_ns) const;
    void clear();

private:
    struct Call {
        std::uint64_t time_ns;
        const char* function;
        std::uint64_t thread;
    };
    mutable std::mutex mutex_;
    std::vector<Call> calls_;
    std::vector<StreamCall> stream_calls_;
};

/// The calling thread's id as the course's tracer counts threads (streamlab::host_thread_id(): the OS
/// thread id), without linking the tracer.
[[nodiscard]] std::uint64_t this_thread_id();

}  // namespace streamlab::simgpu
