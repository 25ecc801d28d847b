#include "streamlab/chunk_sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "json_file.hpp"
#include "streamlab/trace_file.hpp"

namespace streamlab {

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json point_json(const ChunkSweepPoint& point) {
    return ordered_json{
        {"chunks", point.chunks},       {"intensity", point.intensity}, {"makespan_ms", point.makespan_ms},
        {"serial_ms", point.serial_ms}, {"model_ms", point.model_ms},   {"link_model_ms", point.link_model_ms},
        {"bound_ms", point.bound_ms},   {"h2d_ms", point.h2d_ms},       {"kernel_ms", point.kernel_ms},
        {"d2h_ms", point.d2h_ms},
    };
}

}  // namespace

std::string chunk_sweep_to_json_string(const ChunkSweep& sweep) {
    ordered_json points = ordered_json::array();
    for (const ChunkSweepPoint& point : sweep.points) {
        points.push_back(point_json(point));
    }
    return detail::json_file_text(
        detail::metadata_block(kChunkSweepFormatName, sweep.program, sweep.date, sweep.device),
        {{"summary", ordered_json(sweep.summary)}, {"points", std::move(points)}});
}

void write_chunk_sweep(const std::string& path, const ChunkSweep& sweep) {
    detail::write_file_atomically(path, chunk_sweep_to_json_string(sweep), "chunk sweep file");
}

double note_tracer_overheads(ChunkSweep& sweep, const std::vector<int>& chunk_counts,
                             const std::vector<TracerOverhead>& overheads) {
    double worst = 0;
    for (std::size_t i = 0; i < overheads.size() && i < chunk_counts.size(); ++i) {
        const double fraction = overheads[i].traced_ms / overheads[i].untraced_ms - 1.0;
        worst = std::max(worst, fraction);
        sweep.summary["tracer_overhead_" + std::to_string(chunk_counts[i]) + "_chunks"] = fraction;
        const int ops = 3 * chunk_counts[i];  // an H2D copy, a kernel and a D2H copy per chunk
        const double per_op_us = 1000.0 * (overheads[i].traced_ms - overheads[i].untraced_ms) / ops;
        std::printf("  %3d chunks: %8.3f ms untraced, %8.3f ms traced: %+.1f%% (%+.2f us per recorded op)\n",
                    chunk_counts[i], overheads[i].untraced_ms, overheads[i].traced_ms, 100.0 * fraction, per_op_us);
    }
    sweep.summary["tracer_overhead_worst"] = worst;
    std::printf("tracer overhead at worst %+.1f%% (target: < 3%%): %s\n", 100.0 * worst,
                worst < 0.03 ? "met" : "NOT met");
    return worst;
}

}  // namespace streamlab
