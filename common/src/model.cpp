#include "streamlab/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace streamlab {

namespace {

void require_valid_times(const StageTimes& whole) {
    for (const double time : {whole.h2d, whole.kernel, whole.d2h}) {
        if (!std::isfinite(time) || time < 0) {
            throw std::invalid_argument("stage times must be finite and non-negative, found " + std::to_string(time));
        }
    }
}

void require_at_least_one(int value, const char* what) {
    if (value < 1) {
        throw std::invalid_argument(std::string(what) + " must be at least 1, found " + std::to_string(value));
    }
}

void require_valid_sharing(const LinkSharing& link) {
    for (const double fraction : {link.h2d, link.d2h}) {
        if (!(fraction > 0 && fraction <= 1)) {
            throw std::invalid_argument("a link sharing fraction must be in (0, 1], found " + std::to_string(fraction));
        }
    }
}

// The hardware units an op can wait for.
enum UnitIndex { kCompute = 0, kH2DEngine = 1, kD2HEngine = 2, kUnitCount = 3 };

UnitIndex unit_for(Stage stage, int copy_engines) {
    switch (stage) {
        case Stage::Kernel:
            return kCompute;
        case Stage::H2D:
            return kH2DEngine;
        case Stage::D2H:
            break;
    }
    // With a single copy engine both directions queue on the same one.
    return copy_engines >= 2 ? kD2HEngine : kH2DEngine;
}

// The (chunk, stage) pairs in the order the host issues them.
std::vector<std::pair<int, Stage>> issue_sequence(int chunks, IssueOrder order) {
    constexpr std::array<Stage, 3> kStages{Stage::H2D, Stage::Kernel, Stage::D2H};
    std::vector<std::pair<int, Stage>> sequence;
    if (order == IssueOrder::ChunkByChunk) {
        for (int chunk = 0; chunk < chunks; ++chunk) {
            for (const Stage stage : kStages) {
                sequence.emplace_back(chunk, stage);
            }
        }
    } else {
        for (const Stage stage : kStages) {
            for (int chunk = 0; chunk < chunks; ++chunk) {
                sequence.emplace_back(chunk, stage);
            }
        }
    }
    return sequence;
}

}  // namespace

PipelineEstimate pipeline_model(const StageTimes& whole, int chunks, int copy_engines) {
    require_valid_times(whole);
    require_at_least_one(chunks, "chunks");
    require_at_least_one(copy_engines, "copy_engines");

    const double n = chunks;
    const double h = whole.h2d / n;
    const double k = whole.kernel / n;
    const double d = whole.d2h / n;

    PipelineEstimate estimate;
    estimate.serial = whole.h2d + whole.kernel + whole.d2h;
    if (copy_engines >= 2) {
        estimate.ideal = h + k + d + (n - 1) * std::max({h, k, d});
        estimate.bound = std::max({whole.h2d, whole.kernel, whole.d2h});
    } else {
        // One engine does both copies of a chunk, so per chunk it is busy h + d.
        estimate.ideal = h + k + d + (n - 1) * std::max(h + d, k);
        estimate.bound = std::max(whole.h2d + whole.d2h, whole.kernel);
    }
    estimate.speedup = estimate.ideal > 0 ? estimate.serial / estimate.ideal : 1.0;
    return estimate;
}

IssueOrder issue_order_from_string(const std::string& spelling) {
    if (spelling == "chunk") {
        return IssueOrder::ChunkByChunk;
    }
    if (spelling == "stage") {
        return IssueOrder::StageByStage;
    }
    throw std::invalid_argument("order must be \"chunk\" or \"stage\", not \"" + spelling + "\"");
}

const char* to_string(Stage stage) {
    switch (stage) {
        case Stage::H2D:
            return "H2D";
        case Stage::Kernel:
            return "K";
        case Stage::D2H:
            return "D2H";
    }
    return "invalid";
}

// The rules of the simulation:
// - Chunk i goes to stream i % `streams`; ops are issued in `order`.
// - A stream runs its ops in order: an op starts after the previous op of its stream ended.
// - Units: one compute unit (one kernel at a time) and, with `copy_engines` >= 2,
//   an H2D engine and a D2H engine; with 1, a single copy engine both directions share.
// - A unit takes ops in the order they were issued to it (first in, first out):
//   an op waits for every op issued to its unit before it, even one that is itself
//   still waiting for its stream. This is why, on one copy engine, chunk-by-chunk
//   issue makes H2D_2 wait behind D2H_1.
//
// - While an H2D and a D2H copy run at the same time, each goes at the fraction of
//   its speed that `link` gives (the default, 1 and 1, is the ideal model's).
//
// So an op starts at max(end of its stream's previous op, end of its unit's previous op).
std::vector<SimulatedOp> simulate_pipeline(const StageTimes& whole, int chunks, int streams, int copy_engines,
                                           IssueOrder order, const LinkSharing& link) {
    require_valid_times(whole);
    require_at_least_one(chunks, "chunks");
    require_at_least_one(streams, "streams");
    require_at_least_one(copy_engines, "copy_engines");
    require_valid_sharing(link);

    const auto duration_of = [&](Stage stage) {
        switch (stage) {
            case Stage::H2D:
                return whole.h2d / chunks;
            case Stage::Kernel:
                return whole.kernel / chunks;
            case Stage::D2H:
                break;
        }
        return whole.d2h / chunks;
    };

    // Every op, in issue order, with the work it has left: the time it would still
    // take at its full speed.
    struct PendingOp {
        SimulatedOp op;
        UnitIndex unit;
        double work_left;
        bool started = false;
        bool done = false;
    };
    std::vector<PendingOp> pending;
    for (const auto& [chunk, stage] : issue_sequence(chunks, order)) {
        SimulatedOp op;
        op.chunk = chunk;
        op.stage = stage;
        op.stream = chunk % streams;
        pending.push_back({op, unit_for(stage, copy_engines), duration_of(stage)});
    }

    // An op runs when it is the first unfinished op of its stream (streams run in
    // order) and of its unit (units serve ops first in, first out). Between two
    // moments where an op starts or ends, the speeds do not change, so time jumps
    // from one such moment to the next.
    // first_unfinished: whether op i is the first unfinished one among the ops `same_queue` groups with it.
    const auto first_unfinished = [&](std::size_t i, auto same_queue) {
        return std::none_of(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(i),
                            [&](const PendingOp& earlier) { return !earlier.done && same_queue(earlier, pending[i]); });
    };
    const auto same_stream = [](const PendingOp& a, const PendingOp& b) { return a.op.stream == b.op.stream; };
    const auto same_unit = [](const PendingOp& a, const PendingOp& b) { return a.unit == b.unit; };
    double now = 0;
    for (;;) {
        std::vector<std::size_t> running;
        for (std::size_t i = 0; i < pending.size(); ++i) {
            if (!pending[i].done && first_unfinished(i, same_stream) && first_unfinished(i, same_unit)) {
                running.push_back(i);
            }
        }
        if (running.empty()) {
            break;  // everything has run
        }
        // Copies in opposite directions running together slow each other (LinkSharing).
        const auto running_stage = [&](Stage stage) {
            return std::any_of(running.begin(), running.end(),
                               [&](std::size_t i) { return pending[i].op.stage == stage; });
        };
        const bool both_directions = running_stage(Stage::H2D) && running_stage(Stage::D2H);
        const auto speed_of = [&](const PendingOp& p) {
            if (!both_directions || p.op.stage == Stage::Kernel) {
                return 1.0;
            }
            return p.op.stage == Stage::H2D ? link.h2d : link.d2h;
        };
        double step = std::numeric_limits<double>::infinity();
        for (const std::size_t i : running) {
            PendingOp& p = pending[i];
            if (!p.started) {
                p.started = true;
                p.op.start = now;
            }
            step = std::min(step, p.work_left / speed_of(p));
        }
        now += step;
        for (const std::size_t i : running) {
            PendingOp& p = pending[i];
            const double speed = speed_of(p);
            if (p.work_left / speed <= step) {  // the op, or one of the ops, that set the step
                p.work_left = 0;
                p.done = true;
                p.op.end = now;
            } else {
                p.work_left -= step * speed;
            }
        }
    }

    std::vector<SimulatedOp> ops;
    for (const PendingOp& p : pending) {
        ops.push_back(p.op);
    }
    return ops;
}

double simulated_makespan(const std::vector<SimulatedOp>& ops) {
    if (ops.empty()) {
        return 0.0;
    }
    double first_start = ops.front().start;
    double last_end = ops.front().end;
    for (const SimulatedOp& op : ops) {
        first_start = std::min(first_start, op.start);
        last_end = std::max(last_end, op.end);
    }
    return last_end - first_start;
}

}  // namespace streamlab
