#include "scheduler.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace streamlab::simgpu {

namespace {

// Shares are fractions of the SMs; a little slack so that four quarters make a whole.
constexpr double kShareSlack = 1e-9;

// The least a kernel holds while it runs, whatever share its model gives: one block on one SM is some room.
constexpr double kSmallestShare = 1e-6;

double wave_width(const OpRequest& request) {
    return std::max(std::clamp(request.compute_share, 0.0, 1.0), kSmallestShare);
}

}  // namespace

Scheduler::Scheduler(int copy_engines) : copy_engine_busy_(static_cast<std::size_t>(std::max(copy_engines, 1))) {}

OpId Scheduler::add(Op op) {
    // An op can never start before the time already simulated: those decisions are taken.
    op.earliest_start_ns = std::max(op.earliest_start_ns, now_ns_);
    if (op.request.resource == Resource::Compute) {
        op.blocks_left = wave_width(op.request) * std::max(op.request.waves, 1U);
    }
    ops_.push_back(std::move(op));
    const OpId id = ops_.size();
    waiting_.push_back(id);
    return id;
}

bool Scheduler::dependencies_ended(const Op& op) const {
    return std::all_of(op.dependencies.begin(), op.dependencies.end(),
                       [this](OpId dependency) { return dependency == 0 || this->op(dependency).ended; });
}

std::uint64_t Scheduler::ready_time(const Op& op) const {
    std::uint64_t ready = op.earliest_start_ns;
    for (const OpId dependency : op.dependencies) {
        if (dependency != 0) {
            ready = std::max(ready, this->op(dependency).shown.end_ns);
        }
    }
    return ready;
}

bool Scheduler::try_start(Op& op) {
    const OpRequest& request = op.request;
    const std::size_t engines = copy_engine_busy_.size();
    switch (request.resource) {
        case Resource::None:
        case Resource::Compute:  // Kernels start through dispatch_blocks.
            break;
        case Resource::HostFunctionThread:
            if (host_function_thread_busy_) {
                return false;
            }
            host_function_thread_busy_ = true;
            break;
        case Resource::CopyEngineH2D:
        case Resource::CopyEngineD2H: {
            // With two or more copy engines, one carries each direction, so a host-to-device and a
            // device-to-host copy overlap (cudaDevAttrAsyncEngineCount); with one, copies take turns.
            const std::size_t engine = request.resource == Resource::CopyEngineH2D ? 0 : 1 % engines;
            if (copy_engine_busy_[engine]) {
                return false;
            }
            copy_engine_busy_[engine] = true;
            op.engine = static_cast<int>(engine);
            break;
        }
        case Resource::CopyEngineAny: {
            const auto free_engine = std::find(copy_engine_busy_.begin(), copy_engine_busy_.end(), false);
            if (free_engine == copy_engine_busy_.end()) {
                return false;
            }
            *free_engine = true;
            op.engine = static_cast<int>(free_engine - copy_engine_busy_.begin());
            break;
        }
    }
    if (request.run_at_start) {
        // Work that happens when the op is reached (a host function) decides how long it lasts.
        op.request.duration_ns = request.run_at_start(now_ns_);
    }
    op.started = true;
    op.shown.start_ns = now_ns_;
    op.shown.end_ns = now_ns_ + op.request.duration_ns;
    return true;
}

bool Scheduler::dispatch_blocks(OpId id) {
    Op& op = ops_[id - 1];
    // As many blocks as the free room holds, never more than one wave of the grid at once (a grid holds no
    // more room than its blocks), never more than are left.
    const double room = 1.0 - compute_in_use_;
    const double take = std::min({room, op.blocks_left, wave_width(op.request) - op.share_held});
    if (take <= kShareSlack) {
        return false;
    }
    // Blocks handed out together run for one wave's time, however few of them there are.
    const std::uint64_t end_ns = now_ns_ + op.request.duration_ns / std::max(op.request.waves, 1U);
    blocks_running_.push_back({id, take, end_ns});
    compute_in_use_ += take;
    op.share_held += take;
    op.blocks_left = op.blocks_left - take <= kShareSlack ? 0.0 : op.blocks_left - take;
    if (!op.started) {
        op.started = true;
        op.shown.start_ns = now_ns_;
    }
    op.shown.end_ns = std::max(op.shown.end_ns, end_ns);
    return true;
}

void Scheduler::release(const Op& op) {
    if (op.request.resource == Resource::HostFunctionThread) {
        host_function_thread_busy_ = false;
    } else if (op.engine >= 0) {
        copy_engine_busy_[static_cast<std::size_t>(op.engine)] = false;
    }
}

bool Scheduler::end_what_ends_now() {
    bool any = false;
    // Blocks that end give their room back...
    for (auto it = blocks_running_.begin(); it != blocks_running_.end();) {
        if (it->end_ns <= now_ns_) {
            Op& kernel = ops_[it->op - 1];
            kernel.share_held = std::max(0.0, kernel.share_held - it->share);
            compute_in_use_ = std::max(0.0, compute_in_use_ - it->share);
            it = blocks_running_.erase(it);
            any = true;
        } else {
            ++it;
        }
    }
    // ...and a kernel ends with its last blocks; any other op at its end.
    for (auto it = running_.begin(); it != running_.end();) {
        Op& op = ops_[*it - 1];
        const bool ends = op.request.resource == Resource::Compute
                              ? op.blocks_left == 0.0 && op.share_held <= kShareSlack
                              : op.shown.end_ns <= now_ns_;
        if (ends) {
            op.ended = true;
            release(op);
            it = running_.erase(it);
            any = true;
        } else {
            ++it;
        }
    }
    return any;
}

void Scheduler::process_now() {
    bool changed = true;
    while (changed) {
        // What ends now frees its engine before anything is dispatched at the same moment.
        changed = end_what_ends_now();
        // What may start now, and the kernels already running with blocks still to hand out...
        std::vector<OpId> ready;
        for (const OpId id : waiting_) {
            const Op& op = ops_[id - 1];
            if (dependencies_ended(op) && ready_time(op) <= now_ns_) {
                ready.push_back(id);
            }
        }
        for (const OpId id : running_) {
            if (ops_[id - 1].blocks_left > 0.0) {
                ready.push_back(id);
            }
        }
        // ...highest priority first, then in the order they were issued.
        std::sort(ready.begin(), ready.end(), [this](OpId a, OpId b) {
            const int priority_a = ops_[a - 1].priority;
            const int priority_b = ops_[b - 1].priority;
            return priority_a != priority_b ? priority_a < priority_b : a < b;
        });
        for (const OpId id : ready) {
            Op& op = ops_[id - 1];
            const bool was_started = op.started;
            const bool began = op.request.resource == Resource::Compute ? dispatch_blocks(id) : try_start(op);
            if (began) {
                changed = true;
                if (!was_started) {
                    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), id));
                    running_.push_back(id);
                }
            }
        }
    }
}

bool Scheduler::next_event_time(std::uint64_t& time_ns) const {
    std::uint64_t next = std::numeric_limits<std::uint64_t>::max();
    for (const OpId id : running_) {
        // A kernel ends with its blocks, counted below.
        if (ops_[id - 1].request.resource != Resource::Compute) {
            next = std::min(next, ops_[id - 1].shown.end_ns);
        }
    }
    for (const BlocksRunning& blocks : blocks_running_) {
        next = std::min(next, blocks.end_ns);
    }
    // Ops waiting for their earliest start (their dependencies done); those ready now but without an
    // engine start when a running op ends, which the loop above already counts.
    for (const OpId id : waiting_) {
        const Op& op = ops_[id - 1];
        if (dependencies_ended(op)) {
            const std::uint64_t ready = ready_time(op);
            if (ready > now_ns_) {
                next = std::min(next, ready);
            }
        }
    }
    if (next == std::numeric_limits<std::uint64_t>::max()) {
        return false;
    }
    time_ns = next;
    return true;
}

void Scheduler::advance_to(std::uint64_t time_ns) {
    process_now();
    std::uint64_t next = 0;
    while (next_event_time(next) && next <= time_ns) {
        now_ns_ = next;
        process_now();
    }
    now_ns_ = std::max(now_ns_, time_ns);
}

std::uint64_t Scheduler::run_until_ended(OpId id) {
    if (id == 0) {
        return now_ns_;
    }
    process_now();
    std::uint64_t next = 0;
    while (!op(id).ended) {
        if (!next_event_time(next)) {
            // Every op depends only on ops added before it, so this cannot happen; say so if it does.
            throw std::logic_error("simulated GPU: an op waits for something that never ends");
        }
        now_ns_ = next;
        process_now();
    }
    return op(id).shown.end_ns;
}

std::uint64_t Scheduler::run_until_idle() {
    process_now();
    std::uint64_t next = 0;
    while (!waiting_.empty() || !running_.empty()) {
        if (!next_event_time(next)) {
            throw std::logic_error("simulated GPU: an op waits for something that never ends");
        }
        now_ns_ = next;
        process_now();
    }
    return now_ns_;
}

std::vector<OpId> Scheduler::unfinished() const {
    std::vector<OpId> ids = waiting_;
    ids.insert(ids.end(), running_.begin(), running_.end());
    return ids;
}

void Scheduler::clear() {
    ops_.clear();
    waiting_.clear();
    running_.clear();
    blocks_running_.clear();
    host_function_thread_busy_ = false;
    std::fill(copy_engine_busy_.begin(), copy_engine_busy_.end(), false);
    compute_in_use_ = 0.0;
    now_ns_ = 0;
}

}  // namespace streamlab::simgpu
