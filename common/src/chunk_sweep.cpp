#include "streamlab/chunk_sweep.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "streamlab/trace_file.hpp"

namespace streamlab {

namespace {

using ordered_json = nlohmann::ordered_json;

/// The metadata block, with the device spelled exactly as a trace file spells it.
ordered_json metadata_json(const ChunkSweep& sweep) {
    ordered_json metadata;
    metadata["format"] = kChunkSweepFormatName;
    metadata["version"] = kTraceFormatVersion;
    metadata["program"] = sweep.program;
    metadata["date"] = sweep.date;
    metadata["device"] = ordered_json::parse(device_facts_to_json_string(sweep.device));
    return metadata;
}

ordered_json point_json(const ChunkSweepPoint& point) {
    return ordered_json{
        {"chunks", point.chunks},          {"intensity", point.intensity}, {"makespan_ms", point.makespan_ms},
        {"serial_ms", point.serial_ms},    {"model_ms", point.model_ms},   {"link_model_ms", point.link_model_ms},
        {"bound_ms", point.bound_ms},      {"h2d_ms", point.h2d_ms},       {"kernel_ms", point.kernel_ms},
        {"d2h_ms", point.d2h_ms},
    };
}

}  // namespace

std::string chunk_sweep_to_json_string(const ChunkSweep& sweep) {
    // Laid out by hand: the metadata indented, then one point per line, easy to read and diff.
    std::ostringstream text;
    text << "{\n\"otherData\": " << metadata_json(sweep).dump() << ",\n";
    text << "\"summary\": " << ordered_json(sweep.summary).dump() << ",\n";
    text << "\"points\": [";
    for (std::size_t i = 0; i < sweep.points.size(); ++i) {
        text << (i == 0 ? "\n  " : ",\n  ") << point_json(sweep.points[i]).dump();
    }
    text << (sweep.points.empty() ? "]\n}\n" : "\n]\n}\n");
    return text.str();
}

void write_chunk_sweep(const std::string& path, const ChunkSweep& sweep) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    std::error_code ignored;  // a folder that cannot be made shows up when opening the file
    if (target.has_parent_path()) {
        fs::create_directories(target.parent_path(), ignored);
    }
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out << chunk_sweep_to_json_string(sweep);
    out.close();
    if (!out) {
        throw std::runtime_error("cannot write chunk sweep file " + path);
    }
}

}  // namespace streamlab
