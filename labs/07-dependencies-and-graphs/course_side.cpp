// Lab 07's course side: see course_side.hpp.
#include "course_side.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab07::course {

namespace {

std::uint64_t relative(std::uint64_t t, std::uint64_t origin_ns) {
    return t > origin_ns ? t - origin_ns : 0;
}

}  // namespace

ResultsConsumer::ResultsConsumer(const PipelineJob& job, int chunks) : consumed(job.n), job_(job), chunks_(chunks) {
    streamlab::fill_poison(consumed.data(), consumed.size());
}

Consumer ResultsConsumer::consumer() {
    Consumer made;
    made.consume = [this](int chunk) {
        if (chunk < 0 || chunk >= chunks_) {
            throw std::out_of_range("consume(" + std::to_string(chunk) + "): the job has " + std::to_string(chunks_) +
                                    " chunks, 0 to " + std::to_string(chunks_ - 1));
        }
        Consumption call{chunk, streamlab::trace_clock_ns(), 0, streamlab::host_thread_id()};
        const streamlab::ChunkRange range = streamlab::chunk_range(job_.n, chunks_, chunk);
        std::memcpy(consumed.data() + range.offset, job_.output + range.offset, range.count * sizeof(float));
        call.end_ns = streamlab::trace_clock_ns();
        const std::lock_guard<std::mutex> lock(mutex_);
        calls_.push_back(call);
    };
    return made;
}

void ResultsConsumer::reset() {
    const std::lock_guard<std::mutex> lock(mutex_);
    calls_.clear();
    streamlab::fill_poison(consumed.data(), consumed.size());
}

std::vector<Consumption> ResultsConsumer::consumptions(std::uint64_t origin_ns) const {
    std::vector<Consumption> calls;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        calls = calls_;
    }
    for (Consumption& call : calls) {
        call.start_ns = relative(call.start_ns, origin_ns);
        call.end_ns = relative(call.end_ns, origin_ns);
    }
    std::stable_sort(calls.begin(), calls.end(),
                     [](const Consumption& a, const Consumption& b) { return a.start_ns < b.start_ns; });
    return calls;
}

HandOffConsumer::HandOffConsumer(Consumer target) : target_(std::move(target)), thread_([this] { serve(); }) {}

HandOffConsumer::~HandOffConsumer() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

Consumer HandOffConsumer::consumer() {
    Consumer made;
    made.consume = [this](int chunk) {  // runs in a host function: no CUDA call, no waiting for the work
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            waiting_.push_back(chunk);
        }
        changed_.notify_all();
    };
    return made;
}

void HandOffConsumer::wait_until_consumed() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return waiting_.empty() && !busy_; });
    if (error_) {
        std::rethrow_exception(std::exchange(error_, nullptr));
    }
}

void HandOffConsumer::serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
        if (waiting_.empty()) {
            return;  // stopping, and nothing left to consume
        }
        const int chunk = waiting_.front();
        waiting_.pop_front();
        busy_ = true;
        lock.unlock();
        try {
            target_.consume(chunk);
        } catch (...) {
            const std::lock_guard<std::mutex> relock(mutex_);
            error_ = error_ ? error_ : std::current_exception();
        }
        lock.lock();
        busy_ = false;
        changed_.notify_all();
    }
}

}  // namespace lab07::course
