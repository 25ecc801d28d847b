#include "streamlab/chunk_sweep.hpp"

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

}  // namespace streamlab
