/// @file chunk_sweep.hpp
/// @brief The chunk sweep file (`streamlab-chunks`) that `course bench` writes and
/// `course plot` draws: makespan against chunk count, with the model and the bound.
///
/// The format is in common/TRACE_FORMAT.md: the metadata block every course file
/// starts with (`otherData`), then one point per measured configuration.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "streamlab/device.hpp"
#include "streamlab/tracer.hpp"

namespace streamlab {

/// The `otherData.format` of a chunk sweep file.
inline constexpr const char* kChunkSweepFormatName = "streamlab-chunks";

/// One measured configuration: a chunk count at a kernel intensity. Times in ms.
struct ChunkSweepPoint {
    int chunks = 1;          ///< Chunks (one stream each).
    std::string intensity;   ///< The kernel's weight against the copies, e.g. "balanced".
    double makespan_ms = 0;  ///< Pipelined makespan, from the recorded timeline.
    double serial_ms = 0;    ///< Serial makespan of the same data.
    double model_ms = 0;     ///< The ideal model's makespan for this configuration.
    /// The model's makespan with H2D and D2H slowing each other down as measured (the
    /// interference between directions); 0 where the sweep has no second model (a model
    /// of a streaming run with its host has the interference already), and then the file leaves it out.
    double link_model_ms = 0;
    double bound_ms = 0;   ///< The busiest unit's total time.
    double h2d_ms = 0;     ///< Stage time of the whole H2D copy, alone.
    double kernel_ms = 0;  ///< Stage time of the whole kernel, alone.
    double d2h_ms = 0;     ///< Stage time of the whole D2H copy, alone.
};

/// A whole sweep, ready to be written.
struct ChunkSweep {
    std::string program;                  ///< What produced it, e.g. "lab05_bench".
    std::string date;                     ///< UTC ISO 8601 time of the measurement.
    DeviceFacts device;                   ///< The GPU it ran on.
    std::vector<ChunkSweepPoint> points;  ///< The measurements.
    /// Single numbers about the whole run (`"summary"` in the file), e.g.
    /// "tracer_overhead": 0.012. Readers that do not know them ignore them.
    std::map<std::string, double> summary;
};

/// The file's text: one JSON object, one point per line.
[[nodiscard]] std::string chunk_sweep_to_json_string(const ChunkSweep& sweep);

/// Writes `sweep` to `path`, creating missing parent folders.
/// Throws std::runtime_error when the file cannot be written.
void write_chunk_sweep(const std::string& path, const ChunkSweep& sweep);

/// Prints the recording's cost at each chunk count (`overheads[i]` at
/// `chunk_counts[i]`, from measure_tracer_overheads): CUPTI's activity records alone
/// against nothing recorded, and the course's recorder beyond CUPTI, each as a share
/// and per op (each chunk is an H2D copy, a kernel and a D2H copy: CUPTI times each).
/// Stores them in the sweep's summary ("cupti_overhead_N_chunks",
/// "tracer_overhead_N_chunks", "tracer_beyond_cupti_N_chunks", "cupti_us_per_op_N_chunks",
/// "tracer_beyond_cupti_us_per_op_N_chunks", and the worst shares as
/// "tracer_overhead_worst" and "tracer_beyond_cupti_worst"), and ends with both costs
/// per op at the last (largest) chunk count.
void note_tracer_overheads(ChunkSweep& sweep, const std::vector<int>& chunk_counts,
                           const std::vector<TracerOverhead>& overheads);

}  // namespace streamlab
