#include "streamlab/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
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

// The hardware units an op can wait for.
enum UnitIndex { kCompute = 0, kH2DEngine = 1, kD2HEngine = 2, kUnitCount = 3 };

UnitIndex unit_for(Stage stage, int copy_engines) {
    switch (stage) {
        case Stage::Kernel: return kCompute;
        case Stage::H2D: return kH2DEngine;
        case Stage::D2H: break;
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

const char* to_string(Stage stage) {
    switch (stage) {
        case Stage::H2D: return "H2D";
        case Stage::Kernel: return "K";
        case Stage::D2H: return "D2H";
    }
    return "invalid";
}

std::vector<SimulatedOp> simulate_pipeline(const StageTimes& whole, int chunks, int streams, int copy_engines,
                                           IssueOrder order) {
    require_valid_times(whole);
    require_at_least_one(chunks, "chunks");
    require_at_least_one(streams, "streams");
    require_at_least_one(copy_engines, "copy_engines");

    const auto duration_of = [&](Stage stage) {
        switch (stage) {
            case Stage::H2D: return whole.h2d / chunks;
            case Stage::Kernel: return whole.kernel / chunks;
            case Stage::D2H: break;
        }
        return whole.d2h / chunks;
    };

    // Ops are placed in issue order, so when an op is placed, the previous op of its
    // stream and the previous op of its unit (FIFO) are already placed: their end
    // times are all it waits for.
    std::vector<double> stream_free(static_cast<std::size_t>(streams), 0.0);
    std::array<double, kUnitCount> unit_free{};
    std::vector<SimulatedOp> ops;
    for (const auto& [chunk, stage] : issue_sequence(chunks, order)) {
        SimulatedOp op;
        op.chunk = chunk;
        op.stage = stage;
        op.stream = chunk % streams;
        double& stream_ready = stream_free[static_cast<std::size_t>(op.stream)];
        double& unit_ready = unit_free[unit_for(stage, copy_engines)];
        op.start = std::max(stream_ready, unit_ready);
        op.end = op.start + duration_of(stage);
        stream_ready = op.end;
        unit_ready = op.end;
        ops.push_back(op);
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
