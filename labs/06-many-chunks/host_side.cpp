// Lab 06's course side: see host_side.hpp.
#include "host_side.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab06::course {

namespace {

/// Which of `ring` `pointer` is, or -1.
int slot_of(const std::vector<streamlab::PinnedBuffer<float>>& ring, const float* pointer) {
    for (std::size_t i = 0; i < ring.size(); ++i) {
        if (ring[i].data() == pointer) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

/// Refuses a chunk that does not lie in the stream or does not fit a buffer.
void check_chunk(std::size_t offset, std::size_t count, std::size_t n, std::size_t capacity, const char* what) {
    if (offset > n || count > n - offset || count > capacity) {
        throw std::out_of_range(std::string(what) + "(" + std::to_string(offset) + ", " + std::to_string(count) +
                                "): the stream has " + std::to_string(n) + " elements and a buffer holds " +
                                std::to_string(capacity));
    }
}

/// Spins until `until` on the host clock: a host busy elsewhere, not asleep.
void busy_until(std::chrono::steady_clock::time_point until) {
    while (std::chrono::steady_clock::now() < until) {}
}

std::vector<HostUse> relative(std::vector<HostUse> uses, std::uint64_t origin_ns) {
    for (HostUse& use : uses) {
        use.start_ns = use.start_ns > origin_ns ? use.start_ns - origin_ns : 0;
        use.end_ns = use.end_ns > origin_ns ? use.end_ns - origin_ns : 0;
    }
    return uses;
}

}  // namespace

Rings::Rings(std::size_t capacity_, const RingShape& shape) : capacity(capacity_) {
    for (int s = 0; s < shape.staging; ++s) {
        staging.emplace_back(capacity);
    }
    for (int r = 0; r < shape.results; ++r) {
        results.emplace_back(capacity);
    }
    for (int k = 0; k < shape.device_sets; ++k) {
        inputs.emplace_back(capacity);
        outputs.emplace_back(capacity);
    }
}

std::size_t capacity_for(std::size_t n, const std::vector<int>& chunk_counts) {
    std::size_t capacity = 0;
    for (const int chunks : chunk_counts) {
        for (int c = 0; c < chunks; ++c) {
            capacity = std::max(capacity, streamlab::chunk_range(n, chunks, c).count);
        }
    }
    return capacity;
}

HostStream::HostStream(std::size_t n, std::uint32_t seed) : input(n), output(n) {
    streamlab::fill_input(input.data(), n, seed);
    streamlab::fill_poison(output.data(), n);
}

void HostStream::record(std::vector<HostUse>& into, const HostUse& use) {
    const std::lock_guard<std::mutex> lock(mutex_);
    into.push_back(use);
}

StreamingJob HostStream::job(Rings& rings, int chunks, int iterations) {
    StreamingJob job;
    job.n = input.size();
    job.chunks = chunks;
    job.iterations = iterations;
    job.capacity = rings.capacity;
    for (auto& buffer : rings.staging) {
        job.staging.push_back(buffer.data());
    }
    for (auto& buffer : rings.results) {
        job.results.push_back(buffer.data());
    }
    for (std::size_t k = 0; k < rings.inputs.size(); ++k) {
        job.device.push_back({rings.inputs[k].data(), rings.outputs[k].data()});
    }
    Rings* ring = &rings;
    job.produce = [this, ring](std::size_t offset, std::size_t count, float* staging) {
        check_chunk(offset, count, input.size(), ring->capacity, "produce");
        const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(extra_ns_);
        HostUse use{offset, count, slot_of(ring->staging, staging), streamlab::trace_clock_ns(), 0};
        std::memcpy(staging, input.data() + offset, count * sizeof(float));
        busy_until(until);
        use.end_ns = streamlab::trace_clock_ns();
        record(fills_, use);
    };
    job.consume = [this, ring](std::size_t offset, std::size_t count, const float* results) {
        check_chunk(offset, count, output.size(), ring->capacity, "consume");
        const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(extra_ns_);
        HostUse use{offset, count, slot_of(ring->results, results), streamlab::trace_clock_ns(), 0};
        std::memcpy(output.data() + offset, results, count * sizeof(float));
        busy_until(until);
        use.end_ns = streamlab::trace_clock_ns();
        record(drains_, use);
    };
    return job;
}

void HostStream::reset() {
    const std::lock_guard<std::mutex> lock(mutex_);
    fills_.clear();
    drains_.clear();
    streamlab::fill_poison(output.data(), output.size());
}

std::vector<HostUse> HostStream::fills(std::uint64_t origin_ns) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return relative(fills_, origin_ns);
}

std::vector<HostUse> HostStream::drains(std::uint64_t origin_ns) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return relative(drains_, origin_ns);
}

HostStream::AloneMs HostStream::measure_alone(Rings& rings, int chunks) {
    const StreamingJob alone = job(rings, chunks, 1);
    const auto time_all = [&](const auto& step) {
        const auto started = std::chrono::steady_clock::now();
        for (int c = 0; c < chunks; ++c) {
            step(c, streamlab::chunk_range(input.size(), chunks, c));
        }
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    };
    // Through the rings in turn, as a stream uses them, so that the buffers are
    // as warm or as cold in the cache as they will be then.
    const auto fill = [&](int c, streamlab::ChunkRange r) {
        alone.produce(r.offset, r.count, alone.staging[static_cast<std::size_t>(c) % alone.staging.size()]);
    };
    const auto drain = [&](int c, streamlab::ChunkRange r) {
        alone.consume(r.offset, r.count, alone.results[static_cast<std::size_t>(c) % alone.results.size()]);
    };
    AloneMs ms;
    for (int round = 0; round < 2; ++round) {  // the first round maps the pages and warms the caches up
        ms.fill = time_all(fill);
        ms.drain = time_all(drain);
    }
    reset();
    return ms;
}

}  // namespace lab06::course
