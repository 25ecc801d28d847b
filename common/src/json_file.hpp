// The one writer of the course's JSON files (trace, bandwidth sweep, chunk
// sweep): the same `otherData` block, the same version, the same layout, and
// the same atomic write. Internal to the course's libraries (the support layer
// includes it too); the public headers name only what each file holds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/device.hpp"

namespace streamlab::detail {

/// The version every course JSON file this code writes carries, and readers require.
inline constexpr int kFileFormatVersion = 1;

/// The `otherData` block every course JSON file opens with: format, version,
/// program, date, and the device spelled one way for every file.
[[nodiscard]] nlohmann::ordered_json metadata_block(const char* format, const std::string& program,
                                                    const std::string& date, const DeviceFacts& device);

/// One top-level key of a file after `otherData`. An array value is laid out one
/// item per line; any other value on one line.
using FileSection = std::pair<std::string, nlohmann::ordered_json>;

/// A course JSON file's text: `otherData` (`metadata`), then `sections` in
/// order, laid out for reading, grepping and diffing.
[[nodiscard]] std::string json_file_text(const nlohmann::ordered_json& metadata,
                                         const std::vector<FileSection>& sections);

/// Writes `text` to `path`, creating missing parent folders. The text goes to a
/// temporary file next to `path` first and is then renamed onto it, so a reader
/// never sees half a file. `what` names the file in errors ("trace file").
/// Throws std::runtime_error when the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& text, const std::string& what);

}  // namespace streamlab::detail
