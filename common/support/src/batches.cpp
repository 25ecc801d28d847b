#include "streamlab/batches.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "streamlab/analysis.hpp"
#include "streamlab/tracer.hpp"

namespace streamlab {

// ---------------------------------------------------------------- the host buffers

BatchBuffers::BatchBuffers(int count, std::size_t n, bool pinned, std::uint32_t seed)
    : n_(n), pinned_(pinned), seed_(seed) {
    if (count < 1) {
        throw std::invalid_argument("BatchBuffers needs at least one batch");
    }
    for (int i = 0; i < 2 * count; ++i) {  // inputs first, then outputs
        float* data = nullptr;
        if (pinned) {
            pinned_memory_.emplace_back(n);
            data = pinned_memory_.back().data();
        } else {
            pageable_memory_.emplace_back(n);
            data = pageable_memory_.back().data();
        }
        (i < count ? inputs_ : outputs_).push_back(data);
    }
    reset(true);
}

void BatchBuffers::prepare_input(int batch) {
    fill_input(input(batch), n_, seed_, static_cast<std::size_t>(batch) * n_);
}

void BatchBuffers::reset(bool prepare_all) {
    for (int b = 0; b < count(); ++b) {
        fill_poison(output(b), n_);
        if (b == 0 || prepare_all) {
            prepare_input(b);
        } else {
            fill_poison(input(b), n_);
        }
    }
}

ResultCheck BatchBuffers::check(int batch, int iterations) const {
    return check_workload_output(input(batch), output(batch), n_, iterations);
}

record::OutputSample BatchBuffers::sample_outputs(int iterations) const {
    std::vector<float> joined(static_cast<std::size_t>(count()) * n_);
    for (int b = 0; b < count(); ++b) {
        std::copy_n(output(b), n_, joined.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b) * n_));
    }
    return record::sample_output(joined.data(), joined.size(), iterations, count(), seed_);
}

// ---------------------------------------------------------------- the host's own work

std::string batch_queued_mark(int batch) {
    return "batch " + std::to_string(batch) + " queued";
}

std::string host_work_done_mark(int batch) {
    return "host work " + std::to_string(batch) + " done";
}

std::function<void(int)> marked_host_work(BatchBuffers& buffers, bool prepare_next) {
    return [&buffers, prepare_next](int batch) {
        host_mark(batch_queued_mark(batch));
        if (prepare_next && batch + 1 < buffers.count()) {
            buffers.prepare_input(batch + 1);
        }
        host_mark(host_work_done_mark(batch));
    };
}

// ---------------------------------------------------------------- another stream's work

BackgroundKernel::BackgroundKernel(double ms, const DeviceFacts& facts)
    : stream_(cudaStreamNonBlocking), input_(kElements), output_(kElements) {
    SL_CHECK(cudaMemset(input_.data(), 0, input_.bytes()));
    // A quarter of the SMs: the rest of the GPU stays free for other streams.
    max_blocks_ = std::max(1, facts.sm_count / 4);
    iterations_ = iterations_for_kernel_ms(kElements, ms, max_blocks_);
}

void BackgroundKernel::launch() const {
    const OpLabel label(kBackgroundLabel);
    launch_workload(input_.data(), output_.data(), kElements, iterations_, stream_.get(), max_blocks_);
}

// ---------------------------------------------------------------- reading a batch run's timeline

std::uint64_t BatchOnTimeline::host_device_overlap_ns() const {
    if (host_done_ns <= queued_ns) {
        return 0;
    }
    return intersection_length(
        {{queued_ns, host_done_ns}},
        {{h2d.start_ns, h2d.end_ns}, {kernel.start_ns, kernel.end_ns}, {d2h.start_ns, d2h.end_ns}});
}

std::vector<DeviceOp> unlabelled_ops(const std::vector<DeviceOp>& ops) {
    std::vector<DeviceOp> mine;
    std::copy_if(ops.begin(), ops.end(), std::back_inserter(mine), [](const DeviceOp& op) { return op.label.empty(); });
    return mine;
}

namespace {

const HostMark* find_mark(const Timeline& timeline, const std::string& name) {
    for (const HostMark& mark : timeline.marks) {
        if (mark.name == name) {
            return &mark;
        }
    }
    return nullptr;
}

}  // namespace

BatchesOnTimeline find_batches(const Timeline& timeline, int count, std::uint64_t bytes) {
    BatchesOnTimeline found;
    const std::vector<DeviceOp> ops = unlabelled_ops(timeline.ops);
    const auto h2d = ops_of_kind(ops, OpKind::MemcpyH2D);
    const auto kernels = ops_of_kind(ops, OpKind::Kernel);
    const auto d2h = ops_of_kind(ops, OpKind::MemcpyD2H);
    const auto expected = static_cast<std::size_t>(count);
    if (h2d.size() != expected || kernels.size() != expected || d2h.size() != expected) {
        found.problem = "expected " + std::to_string(count) +
                        " H2D copies, kernels and D2H copies (one of each per "
                        "batch); the GPU ran " +
                        std::to_string(h2d.size()) + " H2D, " + std::to_string(kernels.size()) + " kernel(s), " +
                        std::to_string(d2h.size()) + " D2H";
        return found;
    }
    for (std::size_t b = 0; b < expected; ++b) {
        if (h2d[b].bytes != bytes || d2h[b].bytes != bytes) {
            found.problem = "batch " + std::to_string(b) + "'s copies moved " + std::to_string(h2d[b].bytes) + " and " +
                            std::to_string(d2h[b].bytes) + " bytes; each must move " + std::to_string(bytes);
            return found;
        }
        const HostMark* queued = find_mark(timeline, batch_queued_mark(static_cast<int>(b)));
        const HostMark* done = find_mark(timeline, host_work_done_mark(static_cast<int>(b)));
        if (queued == nullptr || done == nullptr) {
            found.problem = "host_work(" + std::to_string(b) + ") was not called once per batch";
            return found;
        }
        found.batches.push_back({h2d[b], kernels[b], d2h[b], queued->time_ns, done->time_ns});
    }
    return found;
}

}  // namespace streamlab
