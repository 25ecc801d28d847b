/// @file trace_file.hpp
/// @brief Writing a Timeline to a trace file and reading it back.
///
/// The file is Chrome Trace Event JSON, as common/TRACE_FORMAT.md describes:
/// Perfetto and chrome://tracing open it, and the Python tools read it.
#pragma once

#include <string>

#include "streamlab/timeline.hpp"
#include "streamlab/trace_format_error.hpp"

namespace streamlab {

/// The `otherData.format` value every trace file carries; readers refuse other files.
inline constexpr const char* kTraceFormatName = "streamlab-trace";

/// What a viewer shows for `op`: the kernel's name, or `H2D`, `D2H`, `D2D`,
/// `memcpy`, `memset` for the others, followed by `_label` when the op has a
/// label. A labelled kernel is shown as `K_label`.
[[nodiscard]] std::string display_name(const DeviceOp& op);

/// The trace file text for `timeline`: one JSON object, one event per line.
[[nodiscard]] std::string trace_to_json_string(const Timeline& timeline);

/// Writes `timeline` to `path`, creating missing parent folders, atomically (as
/// every course JSON file): a reader never sees half a trace.
/// Throws std::runtime_error when the file cannot be written.
void write_trace(const std::string& path, const Timeline& timeline);

/// Reads a trace from JSON text. Ops come back sorted by start, marks by time.
/// A copy's or memset's `name` comes back as its kind's base name (`H2D`, ...,
/// `memset`); `device.ordinal` is not stored in the file and comes back as 0.
/// Throws TraceFormatError when the text is not a valid streamlab trace.
[[nodiscard]] Timeline parse_trace(const std::string& json_text);

/// Reads the trace file at `path`. Throws TraceFormatError, its message starting
/// with the path, when the file cannot be read or is not a valid streamlab trace.
[[nodiscard]] Timeline read_trace(const std::string& path);

}  // namespace streamlab
