// The course's values as JSON, both ways, for libstreamlab_c.so (c_library.hpp).
// Field names and spellings are the module's (python/bind_*.cpp), so that Python
// code reads a value the same way whichever of the two it came from. A method of
// the module's class travels as its result, under the method's name with "()"
// ("speedup()"); the Python side turns those back into methods.
#pragma once

#include <nlohmann/json.hpp>

#include "streamlab/analysis.hpp"
#include "streamlab/device.hpp"
#include "streamlab/model.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/timeline.hpp"
#include "streamlab/workload.hpp"

namespace streamlab {

using Json = nlohmann::json;

void to_json(Json& json, const DeviceOp& op);
void from_json(const Json& json, DeviceOp& op);
void to_json(Json& json, const HostMark& mark);
void from_json(const Json& json, HostMark& mark);
void to_json(Json& json, const HostRange& range);
void from_json(const Json& json, HostRange& range);
void to_json(Json& json, const StreamCall& call);
void from_json(const Json& json, StreamCall& call);
void to_json(Json& json, const DeviceFacts& facts);
void from_json(const Json& json, DeviceFacts& facts);
void to_json(Json& json, const Timeline& timeline);
void from_json(const Json& json, Timeline& timeline);

void to_json(Json& json, const ResultCheck& check);
void to_json(Json& json, const LinkSharing& link);
void from_json(const Json& json, LinkSharing& link);
void to_json(Json& json, const SimulatedOp& op);
void from_json(const Json& json, SimulatedOp& op);
void to_json(Json& json, const ChunkOps& chunk);
void to_json(Json& json, const PipelineChunks& found);
void to_json(Json& json, const PipelineComparison& comparison);
void to_json(Json& json, const SerialReference& serial);

/// The (a, b, c) of a stage-times tuple, as the module gives SerialReference.stages.
[[nodiscard]] Json stage_tuple(const StageTimes& stages);

}  // namespace streamlab
