// Lab 08's grader questions: see two_gpu_timeline.hpp.
#include "two_gpu_timeline.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

#include "streamlab/analysis.hpp"

namespace lab08::course {

namespace {

using streamlab::DeviceOp;
using streamlab::Interval;
using streamlab::OpKind;

std::vector<Interval> intervals_of(const std::vector<DeviceOp>& ops, std::uint32_t device, bool copies_in_only) {
    std::vector<Interval> intervals;
    for (const DeviceOp& op : ops) {
        if (op.device_id == device && (!copies_in_only || op.kind == OpKind::MemcpyH2D)) {
            intervals.push_back({op.start_ns, op.end_ns});
        }
    }
    return intervals;
}

double together_share(const std::vector<DeviceOp>& ops, std::uint32_t a, std::uint32_t b, bool copies_in_only) {
    const std::vector<Interval> on_a = intervals_of(ops, a, copies_in_only);
    const std::vector<Interval> on_b = intervals_of(ops, b, copies_in_only);
    const std::uint64_t shorter = std::min(streamlab::total_length(on_a), streamlab::total_length(on_b));
    if (shorter == 0) {
        return 0.0;
    }
    return static_cast<double>(streamlab::intersection_length(on_a, on_b)) / static_cast<double>(shorter);
}

/// The ops of `kind` (on `device`, or on any GPU when `any_device`), in the order they were issued.
std::vector<DeviceOp> issued(const std::vector<DeviceOp>& ops, OpKind kind, std::uint32_t device, bool any_device) {
    std::vector<DeviceOp> selected;
    for (const DeviceOp& op : ops) {
        if (op.kind == kind && (any_device || op.device_id == device)) {
            selected.push_back(op);
        }
    }
    std::stable_sort(selected.begin(), selected.end(),
                     [](const DeviceOp& x, const DeviceOp& y) { return x.correlation_id < y.correlation_id; });
    return selected;
}

/// Whether `later` started no earlier than `earlier` ended, give or take `slack_ns`.
bool waited(const DeviceOp& earlier, const DeviceOp& later, std::uint64_t slack_ns) {
    return later.start_ns + slack_ns >= earlier.end_ns;
}

std::string gpu(std::uint32_t device) {
    return "GPU " + std::to_string(device);
}

}  // namespace

std::vector<GpuWork> work_by_gpu(const std::vector<DeviceOp>& ops) {
    std::vector<GpuWork> all;
    for (const std::uint32_t device : streamlab::devices_of(ops)) {
        const std::vector<DeviceOp> mine = streamlab::ops_on_device(ops, device);
        GpuWork work;
        work.device = device;
        work.streams = streamlab::distinct_streams(mine);
        work.null_stream_ops = streamlab::null_stream_ops(mine);
        std::vector<Interval> intervals;
        for (const DeviceOp& op : mine) {
            intervals.push_back({op.start_ns, op.end_ns});
            const bool host_copy = op.kind == OpKind::MemcpyH2D || op.kind == OpKind::MemcpyD2H;
            if (host_copy && op.host_memory != streamlab::HostMemory::Pinned) {
                ++work.unpinned_copies;
            }
            switch (op.kind) {
                case OpKind::MemcpyH2D:
                    ++work.h2d;
                    work.h2d_bytes += op.bytes;
                    break;
                case OpKind::MemcpyD2H:
                    ++work.d2h;
                    work.d2h_bytes += op.bytes;
                    break;
                case OpKind::Kernel:
                    ++work.kernels;
                    break;
                case OpKind::MemcpyP2P:
                    ++work.peer_copies;
                    break;
                default:
                    break;
            }
        }
        work.busy_ns = streamlab::total_length(intervals);
        work.first_start_ns = mine.front().start_ns;
        for (const DeviceOp& op : mine) {
            work.last_end_ns = std::max(work.last_end_ns, op.end_ns);
        }
        all.push_back(work);
    }
    return all;
}

GpuWork work_of(const std::vector<GpuWork>& work, std::uint32_t device) {
    for (const GpuWork& one : work) {
        if (one.device == device) {
            return one;
        }
    }
    GpuWork none;
    none.device = device;
    return none;
}

double busy_together_share(const std::vector<DeviceOp>& ops, std::uint32_t a, std::uint32_t b) {
    return together_share(ops, a, b, false);
}

double copies_in_together_share(const std::vector<DeviceOp>& ops, std::uint32_t a, std::uint32_t b) {
    return together_share(ops, a, b, true);
}

HandoffRun find_handoff(const std::vector<DeviceOp>& ops, std::uint32_t from, std::uint32_t to, int chunks) {
    HandoffRun run;
    const std::vector<DeviceOp> h2d = issued(ops, OpKind::MemcpyH2D, from, false);
    const std::vector<DeviceOp> peer = issued(ops, OpKind::MemcpyP2P, 0, true);
    const std::vector<DeviceOp> kernels = issued(ops, OpKind::Kernel, to, false);
    const std::vector<DeviceOp> d2h = issued(ops, OpKind::MemcpyD2H, to, false);
    const auto count = static_cast<std::size_t>(chunks);
    const auto wrong = [&](const std::vector<DeviceOp>& found, const std::string& what) {
        return std::to_string(found.size()) + " " + what + " (one per chunk: " + std::to_string(chunks) + ")";
    };
    if (h2d.size() != count) {
        run.problem = wrong(h2d, "copies in on " + gpu(from));
    } else if (kernels.size() != count) {
        run.problem = wrong(kernels, "kernels on " + gpu(to));
    } else if (d2h.size() != count) {
        run.problem = wrong(d2h, "copies back from " + gpu(to));
    } else if (!peer.empty() && peer.size() != count) {
        run.problem = wrong(peer, "copies between the GPUs");
    }
    for (const DeviceOp& op : peer) {
        if (run.problem.empty() && (op.source_device != from || op.destination_device != to)) {
            run.problem = "a copy went from " + gpu(op.source_device) + " to " + gpu(op.destination_device) +
                          "; the hand-off copies from " + gpu(from) + " to " + gpu(to);
        }
    }
    if (!run.problem.empty()) {
        return run;
    }
    run.peer_copies = !peer.empty();
    for (std::size_t c = 0; c < count; ++c) {
        run.chunks.push_back({h2d[c], run.peer_copies ? peer[c] : DeviceOp{}, kernels[c], d2h[c]});
    }
    return run;
}

std::vector<std::string> handoff_wait_problems(const HandoffRun& run, std::uint64_t clock_slack_ns) {
    std::vector<std::string> problems;
    for (std::size_t c = 0; c < run.chunks.size(); ++c) {
        const HandoffChunk& chunk = run.chunks[c];
        const std::string n = std::to_string(c + 1);
        const std::string h2d = "H2D_" + n + " on " + gpu(chunk.h2d.device_id);
        if (run.peer_copies) {
            if (!waited(chunk.h2d, chunk.peer, clock_slack_ns)) {
                problems.push_back("the copy between the GPUs of chunk " + n + " began before " + h2d + " ended");
            }
            if (!waited(chunk.peer, chunk.kernel, clock_slack_ns)) {
                problems.push_back("K_" + n + " began before chunk " + n + "'s copy between the GPUs ended");
            }
        } else if (!waited(chunk.h2d, chunk.kernel, clock_slack_ns)) {
            problems.push_back("K_" + n + " began before " + h2d + " ended");
        }
        if (!waited(chunk.kernel, chunk.d2h, 0)) {
            problems.push_back("D2H_" + n + " began before K_" + n + " ended");
        }
    }
    return problems;
}

double split_model_speedup(double on_first_ms, double on_second_ms) {
    if (!(on_first_ms > 0) || !(on_second_ms > 0)) {
        throw std::invalid_argument("split_model_speedup: the one-GPU times must be positive");
    }
    return on_first_ms / (std::max(on_first_ms, on_second_ms) / 2.0);
}

}  // namespace lab08::course
