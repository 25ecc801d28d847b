#include "log.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

namespace streamlab::simgpu {

std::uint64_t this_thread_id() {
    return static_cast<std::uint64_t>(::syscall(SYS_gettid));
}

void CallLog::count(const char* function, std::uint64_t thread, std::uint64_t time_ns) {
    const std::lock_guard<std::mutex> lock(mutex_);
    calls_.push_back(Call{time_ns, function, thread});
}

void CallLog::add_stream_call(const StreamCall& call) {
    const std::lock_guard<std::mutex> lock(mutex_);
    stream_calls_.push_back(call);
}

void CallLog::fill(Log& log, std::uint64_t since_ns) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const Call& call : calls_) {
        if (call.time_ns >= since_ns) {
            ++log.api_calls[call.function];
            ++log.api_calls_by_thread[call.thread];
        }
    }
    std::copy_if(stream_calls_.begin(), stream_calls_.end(), std::back_inserter(log.stream_calls),
                 [since_ns](const StreamCall& call) { return call.time_ns >= since_ns; });
    // One simulated GPU, device 0: the calls ran in it where there were any.
    if (!log.api_calls.empty()) {
        log.devices = {0};
    }
}

void CallLog::clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    calls_.clear();
    stream_calls_.clear();
}

}  // namespace streamlab::simgpu
