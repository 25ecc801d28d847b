#include "streamlab/record.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "streamlab/trace_file.hpp"

namespace streamlab::record {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

/// The most elements an OutputSample spreads over the array, besides the chunks' edges.
constexpr std::uint64_t kSpreadSamples = 2048;

/// The most kernel iterations an output sample may name. The recordings size the kernel to the GPU's copies:
/// about 10^4 iterations on an H200, more where the host link is slow for the GPU's arithmetic (an eGPU's is
/// about twenty times slower). A judge recomputes each of the sample's ~2048 elements with them (about 2 s at
/// this bound), within a tolerance that grows with them (matches_reference); far more would take it minutes.
constexpr std::uint64_t kMaxIterations = std::uint64_t{1} << 20;

/// The largest count a record holds (a count of runtime calls): the largest integer a double holds exactly,
/// as for a trace's counts.
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 53;

/// The longest string of a record's own lines (a scenario's name, why it failed, how the run ended), which
/// the judges repeat in their verdicts: a few hundred characters in any real record.
constexpr std::size_t kMaxStringLength = std::size_t{1} << 16;

/// The longest message a scenario's line is written with (why it failed, in the words of the code that
/// threw): a student's exception may say anything, and a record with a longer string would be refused whole.
constexpr std::size_t kMaxWrittenMessage = 4096;
static_assert(kMaxWrittenMessage < kMaxStringLength);

/// The longest reason a refusal gives (every judge repeats it), what it quotes from the record cut short.
constexpr std::size_t kMaxMessageLength = 1000;

/// A record file larger than this is refused unread (a record is a few MiB at most).
constexpr std::streamoff kMaxRecordBytes = std::streamoff{256} << 20;

struct OutcomeName {
    Outcome outcome;
    const char* spelling;
};
constexpr OutcomeName kOutcomes[] = {{Outcome::Recorded, "recorded"},
                                     {Outcome::Skipped, "skipped"},
                                     {Outcome::Failed, "failed"},
                                     {Outcome::Crashed, "crashed"},
                                     {Outcome::Hung, "hung"}};

struct CallName {
    OrderingCall call;
    const char* spelling;
};
constexpr CallName kCalls[] = {{OrderingCall::Work, "work"},
                               {OrderingCall::EventRecord, "event_record"},
                               {OrderingCall::StreamWaitEvent, "stream_wait_event"},
                               {OrderingCall::StreamSynchronize, "stream_synchronize"},
                               {OrderingCall::EventSynchronize, "event_synchronize"},
                               {OrderingCall::DeviceSynchronize, "device_synchronize"},
                               {OrderingCall::StreamQuery, "stream_query"},
                               {OrderingCall::ImplicitSync, "implicit_sync"}};

const char* call_spelling(OrderingCall call) {
    for (const CallName& name : kCalls) {
        if (name.call == call) {
            return name.spelling;
        }
    }
    return "work";
}

/// A record's numbers as JSON: NaN (the output's poison) has no JSON spelling and becomes null.
ordered_json number_or_null(double value) {
    return std::isfinite(value) ? ordered_json(value) : ordered_json(nullptr);
}

std::string one_line(const ordered_json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

ordered_json trace_object(const Timeline& timeline) {
    return ordered_json::parse(trace_to_json_string(timeline));
}

/// Where a problem was found: "line 4 (scenario pipeline)".
class Place {
public:
    explicit Place(std::size_t line) : line_(line) {}
    void in_scenario(const std::string& name) { scenario_ = name; }
    [[nodiscard]] RecordFormatError error(const std::string& what) const {
        std::string where = "line " + std::to_string(line_);
        if (!scenario_.empty()) {
            where += " (scenario " + scenario_ + ")";
        }
        // Every judge repeats the reason: what it quotes from the record (a kernel's name, a key) stays short.
        std::string message = where + ": " + what;
        if (message.size() > kMaxMessageLength) {
            message = message.substr(0, kMaxMessageLength) + "...";
        }
        return RecordFormatError(message);
    }

private:
    std::size_t line_;
    std::string scenario_;
};

const json& require(const json& object, const char* key, const Place& place) {
    if (!object.is_object() || !object.contains(key)) {
        throw place.error(std::string("no \"") + key + "\"");
    }
    return object.at(key);
}

std::string require_string(const json& object, const char* key, const Place& place) {
    const json& value = require(object, key, place);
    if (!value.is_string()) {
        throw place.error(std::string("\"") + key + "\" is not a string");
    }
    // The judges repeat these (a scenario's name, why it failed, how the run ended) in every verdict.
    if (value.get_ref<const std::string&>().size() > kMaxStringLength) {
        throw place.error(std::string("\"") + key + "\" is " +
                          std::to_string(value.get_ref<const std::string&>().size()) +
                          " characters long, more than any record's (" + std::to_string(kMaxStringLength) + ")");
    }
    return value.get<std::string>();
}

std::uint64_t require_unsigned(const json& object, const char* key, std::uint64_t max, const Place& place) {
    const json& value = require(object, key, place);
    if (!value.is_number_unsigned() || value.get<std::uint64_t>() > max) {
        throw place.error(std::string("\"") + key + "\" is not a whole number from 0 to " + std::to_string(max));
    }
    return value.get<std::uint64_t>();
}

/// The values of a set-up (`not_a_number_allowed` false: the course's own, finite) or of a scenario,
/// where null is what a student's function returned that was not a number, read back as NaN.
std::map<std::string, double> read_values(const json& object, const Place& place, bool not_a_number_allowed) {
    std::map<std::string, double> values;
    if (!object.is_object()) {
        throw place.error("\"values\" is not an object");
    }
    for (const auto& [key, value] : object.items()) {
        if (not_a_number_allowed && value.is_null()) {
            values[key] = std::numeric_limits<double>::quiet_NaN();
            continue;
        }
        if (!value.is_number() || !std::isfinite(value.get<double>())) {
            throw place.error("value \"" + key + "\" is not a finite number");
        }
        values[key] = value.get<double>();
    }
    return values;
}

Timeline read_trace_object(const json& object, const Place& place) {
    if (!object.is_object()) {
        throw place.error("\"trace\" is not an object");
    }
    try {
        return parse_trace(object.dump());
    } catch (const TraceFormatError& error) {
        throw place.error(std::string("its trace: ") + error.what());
    }
}

std::vector<StreamCall> read_stream_calls(const json& array, const Place& place) {
    if (!array.is_array()) {
        throw place.error("\"stream_calls\" is not an array");
    }
    std::vector<StreamCall> calls;
    for (const json& item : array) {
        StreamCall call;
        const std::string spelling = require_string(item, "call", place);
        const auto known = std::find_if(std::begin(kCalls), std::end(kCalls),
                                        [&](const CallName& name) { return spelling == name.spelling; });
        if (known == std::end(kCalls)) {
            throw place.error("unknown stream call \"" + spelling + "\"");
        }
        call.call = known->call;
        call.function = require_string(item, "function", place);
        call.stream = require_unsigned(item, "stream", std::numeric_limits<std::uint64_t>::max(), place);
        call.event = require_unsigned(item, "event", std::numeric_limits<std::uint64_t>::max(), place);
        call.time_ns = require_unsigned(item, "time_ns", std::numeric_limits<std::uint64_t>::max(), place);
        if (item.contains("device")) {  // optional: records made before it was written ran on GPU 0 alone
            call.device = static_cast<std::uint32_t>(require_unsigned(item, "device", 0xFFFFFFFFU, place));
        }
        if (!calls.empty() && call.time_ns < calls.back().time_ns) {
            throw place.error("its stream calls are not in the order they were made");
        }
        calls.push_back(call);
    }
    return calls;
}

/// The optional "api_calls_by_thread": runtime calls by host thread id, the ids written as decimal keys.
std::map<std::uint64_t, std::uint64_t> read_calls_by_thread(const json& object, const Place& place) {
    if (!object.is_object()) {
        throw place.error("\"api_calls_by_thread\" is not an object");
    }
    std::map<std::uint64_t, std::uint64_t> calls;
    for (const auto& [key, count] : object.items()) {
        const bool decimal = !key.empty() && key.size() <= 19 &&
                             std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!decimal || !count.is_number_unsigned() || count.get<std::uint64_t>() > kMaxCount) {
            throw place.error("\"api_calls_by_thread\" holds \"" + key + "\", not a thread id and a count");
        }
        calls[std::stoull(key)] = count.get<std::uint64_t>();
    }
    return calls;
}

/// Every GPU of a recording on several: `first` (the set-up's trace's, GPU 0), then
/// the device of each trace of `more_gpus`, numbered in order.
std::vector<DeviceFacts> read_more_gpus(const json& more_gpus, const DeviceFacts& first, const Place& place) {
    if (!more_gpus.is_array()) {
        throw place.error("\"more_gpus\" is not an array");
    }
    std::vector<DeviceFacts> gpus{first};
    for (const json& trace : more_gpus) {
        gpus.push_back(read_trace_object(trace, place).device);
    }
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        gpus[i].ordinal = static_cast<int>(i);  // a trace file keeps no ordinal
    }
    return gpus;
}

/// Whether two set-ups name the same GPUs, in the same order (gpus[0] is the device).
bool same_names(const Record& a, const Record& b) {
    if (a.gpus.size() != b.gpus.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.gpus.size(); ++i) {
        if (a.gpus[i].name != b.gpus[i].name) {
            return false;
        }
    }
    return true;
}

OutputSample read_output(const json& object, std::uint32_t seed, const Place& place) {
    OutputSample sample;
    sample.n = require_unsigned(object, "n", std::uint64_t{1} << 40, place);
    if (sample.n == 0) {  // an empty sample would match any reference
        throw place.error("its output has no elements (\"n\" is 0)");
    }
    sample.iterations = static_cast<int>(require_unsigned(object, "iterations", kMaxIterations, place));
    sample.chunks = static_cast<int>(require_unsigned(object, "chunks", 1 << 20, place));
    sample.seed = static_cast<std::uint32_t>(require_unsigned(object, "seed", 0xFFFFFFFFU, place));
    if (sample.seed != seed) {
        throw place.error("its output was made from seed " + std::to_string(sample.seed) + ", not the record's " +
                          std::to_string(seed));
    }
    const json& index = require(object, "index", place);
    const json& value = require(object, "value", place);
    if (!index.is_array() || !value.is_array() || index.size() != value.size()) {
        throw place.error("its output's \"index\" and \"value\" are not two arrays of one length");
    }
    for (std::size_t i = 0; i < index.size(); ++i) {
        if (!index[i].is_number_unsigned() || !(value[i].is_number() || value[i].is_null())) {
            throw place.error("its output's element " + std::to_string(i) + " is not an index and a number");
        }
        // A float that the run wrote: beyond float's range it is no such value (and converting it is undefined).
        const double number = value[i].is_null() ? 0.0 : value[i].get<double>();
        if (std::fabs(number) > static_cast<double>(std::numeric_limits<float>::max())) {
            throw place.error("its output's element " + std::to_string(i) + " is " + value[i].dump() +
                              ", not a float that a run can write");
        }
        sample.index.push_back(index[i].get<std::uint64_t>());
        sample.value.push_back(value[i].is_null() ? std::numeric_limits<float>::quiet_NaN()
                                                  : static_cast<float>(number));
    }
    if (sample.index != sample_indices(sample.n, sample.chunks, sample.seed)) {
        throw place.error("its output sample is not the course's sample of that run");
    }
    return sample;
}

/// What no recording of real hardware can show: ops after the scenario's end
/// mark, copies larger than the run's buffers.
void check_consistent(const Scenario& scenario, const Place& place) {
    const Timeline& timeline = *scenario.timeline;
    const auto end_mark = std::find_if(timeline.marks.begin(), timeline.marks.end(),
                                       [](const HostMark& mark) { return mark.name == kRecordingEndsMark; });
    if (end_mark == timeline.marks.end()) {
        throw place.error(std::string("its trace has no \"") + kRecordingEndsMark + "\" mark");
    }
    for (const DeviceOp& op : timeline.ops) {
        if (op.end_ns > end_mark->time_ns) {
            throw place.error("an op (" + display_name(op) + ") ends after the recording ended");
        }
    }
    for (std::size_t i = 1; i < timeline.ops.size(); ++i) {
        if (timeline.ops[i].start_ns < timeline.ops[i - 1].start_ns) {
            throw place.error("its ops are not in the order they started");
        }
    }
    if (scenario.output) {
        const std::uint64_t buffer_bytes = scenario.output->n * sizeof(float);
        for (const DeviceOp& op : timeline.ops) {
            if ((op.kind == OpKind::MemcpyH2D || op.kind == OpKind::MemcpyD2H) && op.bytes > buffer_bytes) {
                throw place.error("a copy (" + display_name(op) + ") of " + std::to_string(op.bytes) +
                                  " bytes, more than the run's buffers hold (" + std::to_string(buffer_bytes) + ")");
            }
        }
    }
}

Scenario read_scenario(const json& line, std::uint32_t seed, Place& place) {
    Scenario scenario;
    scenario.name = require_string(line, "scenario", place);
    place.in_scenario(scenario.name);
    const std::string outcome = require_string(line, "outcome", place);
    const auto known = std::find_if(std::begin(kOutcomes), std::end(kOutcomes),
                                    [&](const OutcomeName& name) { return outcome == name.spelling; });
    if (known == std::end(kOutcomes)) {
        throw place.error("unknown outcome \"" + outcome + "\"");
    }
    scenario.outcome = known->outcome;
    if (scenario.outcome != Outcome::Recorded) {
        scenario.message = require_string(line, "message", place);
        if (scenario.message.empty()) {
            throw place.error("it was not recorded and does not say why");
        }
        return scenario;
    }
    scenario.values = read_values(require(line, "values", place), place, /*not_a_number_allowed=*/true);
    scenario.timeline = read_trace_object(require(line, "trace", place), place);
    scenario.timeline->stream_calls = read_stream_calls(require(line, "stream_calls", place), place);
    if (line.contains("api_calls_by_thread")) {
        scenario.timeline->api_calls_by_thread = read_calls_by_thread(line.at("api_calls_by_thread"), place);
    }
    if (line.contains("output")) {
        scenario.output = read_output(line.at("output"), seed, place);
    }
    check_consistent(scenario, place);
    return scenario;
}

/// The header's optional "job_salt": a whole number from kMinJobSalt to kMaxJobSalt.
std::uint32_t read_job_salt(const json& header, const Place& place) {
    const json& salt = header.at("job_salt");
    if (!salt.is_number_unsigned() || salt.get<std::uint64_t>() < kMinJobSalt ||
        salt.get<std::uint64_t>() > kMaxJobSalt) {
        throw place.error("\"job_salt\" is not a whole number from " + std::to_string(kMinJobSalt) + " to " +
                          std::to_string(kMaxJobSalt));
    }
    return salt.get<std::uint32_t>();
}

/// A refusal of the end line's "observed", naming it and what in it is wrong.
RecordFormatError malformed_observed(const Place& place, const std::string& what) {
    return place.error("its \"observed\" is malformed: " + what);
}

/// A string of "observed" (`what` names it in a refusal), no longer than any record's.
std::string observed_string(const json& value, const std::string& what, const Place& place) {
    if (!value.is_string() || value.get_ref<const std::string&>().size() > kMaxStringLength) {
        throw malformed_observed(
            place, what + " is not a string of at most " + std::to_string(kMaxStringLength) + " characters");
    }
    return value.get<std::string>();
}

/// The end line's optional "observed": what the harness saw itself, every field of its type.
HarnessObservations read_observed(const json& object, const Place& place) {
    if (!object.is_object()) {
        throw malformed_observed(place, "not an object");
    }
    for (const char* key : {"starts", "scenario_wall_ms", "gpus", "gpu_reading"}) {
        if (!object.contains(key)) {
            throw malformed_observed(place, std::string("no \"") + key + "\"");
        }
    }
    HarnessObservations observed;
    const json& starts = object.at("starts");
    if (!starts.is_array()) {
        throw malformed_observed(place, "\"starts\" is not an array");
    }
    for (const json& start : starts) {
        if (!start.is_object() || !start.contains("ended") || !start.contains("finished") ||
            !start.at("finished").is_boolean()) {
            throw malformed_observed(place, "a start is not {\"ended\": text, \"finished\": true or false}");
        }
        observed.starts.push_back(
            {observed_string(start.at("ended"), "a start's \"ended\"", place), start.at("finished").get<bool>()});
    }
    const json& wall = object.at("scenario_wall_ms");
    if (!wall.is_object()) {
        throw malformed_observed(place, "\"scenario_wall_ms\" is not an object");
    }
    for (const auto& [scenario, ms] : wall.items()) {
        if (!ms.is_number() || !std::isfinite(ms.get<double>()) || ms.get<double>() < 0) {
            throw malformed_observed(
                place, "the wall time of scenario \"" + scenario + "\" is not a finite number of milliseconds from 0");
        }
        observed.scenario_wall_ms[scenario] = ms.get<double>();
    }
    const json& gpus = object.at("gpus");
    if (!gpus.is_array()) {
        throw malformed_observed(place, "\"gpus\" is not an array");
    }
    for (const json& name : gpus) {
        observed.gpus.push_back(observed_string(name, "a GPU's name", place));
    }
    observed.gpu_reading = observed_string(object.at("gpu_reading"), "\"gpu_reading\"", place);
    return observed;
}

}  // namespace

const char* to_string(Outcome outcome) {
    for (const OutcomeName& name : kOutcomes) {
        if (name.outcome == outcome) {
            return name.spelling;
        }
    }
    return "recorded";
}

std::vector<std::uint64_t> sample_indices(std::uint64_t n, int chunks, std::uint32_t seed) {
    std::vector<std::uint64_t> indices;
    if (n == 0) {
        return indices;
    }
    const std::uint64_t stride = std::max<std::uint64_t>(1, (n + kSpreadSamples - 1) / kSpreadSamples);
    for (std::uint64_t i = seed % stride; i < n; i += stride) {
        indices.push_back(i);
    }
    for (int c = 0; c < std::max(chunks, 1); ++c) {
        const ChunkRange range = chunk_range(n, std::max(chunks, 1), c);
        if (range.count > 0) {
            indices.push_back(range.offset);
            indices.push_back(range.offset + range.count - 1);
        }
    }
    indices.push_back(n - 1);
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    return indices;
}

OutputSample sample_output(const float* out, std::uint64_t n, int iterations, int chunks, std::uint32_t seed) {
    OutputSample sample{n, iterations, chunks, seed, sample_indices(n, chunks, seed), {}};
    for (const std::uint64_t i : sample.index) {
        sample.value.push_back(out[i]);
    }
    return sample;
}

ResultCheck check_output_sample(const OutputSample& sample) {
    ResultCheck result;
    if (sample.index != sample_indices(sample.n, sample.chunks, sample.seed) ||
        sample.value.size() != sample.index.size()) {
        result.ok = false;
        result.mismatches = 1;
        return result;
    }
    for (std::size_t k = 0; k < sample.index.size(); ++k) {
        const std::uint64_t i = sample.index[k];
        const float expected = workload_reference(input_element(i, sample.seed), sample.iterations);
        ++result.compared;
        if (!matches_reference(sample.value[k], expected, sample.iterations)) {
            if (result.ok) {
                result.first_bad = i;
                result.expected = expected;
                result.actual = sample.value[k];
            }
            result.ok = false;
            ++result.mismatches;
        }
    }
    return result;
}

double Scenario::value(const std::string& key) const {
    const auto found = values.find(key);
    if (found == values.end()) {
        throw RecordFormatError("scenario " + name + " has no value \"" + key + "\"");
    }
    return found->second;
}

std::uint64_t salted_elements(std::uint64_t usual, std::optional<std::uint32_t> job_salt) {
    if (!job_salt) {
        return usual;
    }
    // Never below one whole modulus before the salt is added: a count of at least 1.
    const std::uint64_t whole = std::max<std::uint64_t>(usual / kJobSaltModulus, 2) * kJobSaltModulus;
    return whole - kJobSaltModulus + *job_salt;
}

const Scenario* Record::find(const std::string& name) const {
    const auto found = std::find_if(scenarios.begin(), scenarios.end(),
                                    [&](const Scenario& scenario) { return scenario.name == name; });
    return found == scenarios.end() ? nullptr : &*found;
}

Timeline untraced_timeline(const DeviceFacts& device, const std::string& program) {
    Timeline timeline;
    timeline.device = device;
    timeline.program = program;
    timeline.marks.push_back(HostMark{kRecordingEndsMark, 0});
    return timeline;
}

void discount_course_calls(Timeline& timeline, std::uint64_t thread,
                           const std::map<std::string, std::uint64_t>& calls) {
    for (const auto& [function, made] : calls) {
        const auto counted = timeline.api_calls.find(function);
        if (counted == timeline.api_calls.end()) {
            continue;
        }
        const std::uint64_t taken = std::min(made, counted->second);
        counted->second -= taken;
        if (counted->second == 0) {
            timeline.api_calls.erase(counted);
        }
        if (const auto mine = timeline.api_calls_by_thread.find(thread); mine != timeline.api_calls_by_thread.end()) {
            mine->second -= std::min(taken, mine->second);
        }
        if (function != "cudaDeviceSynchronize") {
            continue;
        }
        for (std::uint64_t i = 0; i < taken; ++i) {
            const auto last =
                std::find_if(timeline.stream_calls.rbegin(), timeline.stream_calls.rend(),
                             [](const StreamCall& call) { return call.call == OrderingCall::DeviceSynchronize; });
            if (last != timeline.stream_calls.rend()) {
                timeline.stream_calls.erase(std::next(last).base());
            }
        }
    }
}

void discount_closing_synchronize(Timeline& timeline, std::uint64_t thread) {
    discount_course_calls(timeline, thread, {{"cudaDeviceSynchronize", 1}});
}

Record parse_record(const std::string& text) {
    Record record;
    std::istringstream lines(text);
    std::string line_text;
    std::size_t number = 0;
    bool header = false, set_up = false, ended = false;
    std::string started;  // the scenario whose last line is awaited
    while (std::getline(lines, line_text)) {
        ++number;
        Place place(number);
        if (line_text.empty()) {
            continue;
        }
        if (ended) {
            throw place.error("a line after the record's end");
        }
        json line;
        try {
            line = json::parse(line_text);
        } catch (const json::parse_error&) {
            throw place.error("not one JSON object (a truncated record?)");
        }
        if (!line.is_object()) {
            throw place.error("not a JSON object");
        }
        if (!header) {
            if (line.value("format", std::string()) != kRecordFormatName) {
                throw place.error(std::string("not a ") + kRecordFormatName + " file");
            }
            if (require_unsigned(line, "version", 1000, place) != kRecordVersion) {
                throw place.error("version " + line.at("version").dump() + "; this course reads version " +
                                  std::to_string(kRecordVersion));
            }
            record.lab = require_string(line, "lab", place);
            record.program = require_string(line, "program", place);
            record.date = require_string(line, "date", place);
            record.seed = static_cast<std::uint32_t>(require_unsigned(line, "seed", 0xFFFFFFFFU, place));
            if (line.contains("job_salt")) {  // optional: records made before it have none
                record.job_salt = read_job_salt(line, place);
            }
            if (line.contains("simulated")) {  // optional: only the simulated build's harness writes it
                if (!line.at("simulated").is_boolean()) {
                    throw place.error("\"simulated\" is not true or false");
                }
                record.simulated = line.at("simulated").get<bool>();
            }
            header = true;
        } else if (line.contains("setup")) {
            if (!started.empty()) {
                throw place.error("a set-up line inside scenario " + started);
            }
            const json& setup = line.at("setup");
            Record seen;
            if (setup.contains("no_gpu")) {
                seen.no_gpu_reason = require_string(setup, "no_gpu", place);
            } else {
                seen.gpu = true;
                seen.device = read_trace_object(require(setup, "trace", place), place).device;
                seen.gpus = {seen.device};
                seen.gpus.back().ordinal = 0;
                if (setup.contains("more_gpus")) {  // optional: a recording on several GPUs at once
                    seen.gpus = read_more_gpus(setup.at("more_gpus"), seen.device, place);
                }
                seen.setup = read_values(require(setup, "values", place), place, /*not_a_number_allowed=*/false);
            }
            if (set_up && (seen.gpu != record.gpu || seen.setup != record.setup || !same_names(seen, record))) {
                throw place.error("the set-up after a restart differs from the first one");
            }
            record.gpu = seen.gpu;
            record.no_gpu_reason = seen.no_gpu_reason;
            record.device = seen.device;
            record.gpus = seen.gpus;
            record.setup = seen.setup;
            set_up = true;
        } else if (line.contains("started")) {
            if (!set_up || !started.empty()) {
                throw place.error(set_up ? "scenario " + started + " has no last line"
                                         : "a scenario before the set-up");
            }
            started = require_string(line, "started", place);
            if (record.find(started) != nullptr) {
                throw place.error("scenario " + started + " was recorded twice");
            }
        } else if (line.contains("scenario")) {
            Scenario scenario = read_scenario(line, record.seed, place);
            if (scenario.name != started) {
                throw place.error("the last line of a scenario that was not started");
            }
            record.scenarios.push_back(std::move(scenario));
            started.clear();
        } else if (line.contains("end")) {
            if (!started.empty()) {
                throw place.error("scenario " + started + " has no last line");
            }
            record.ended = require_string(line, "end", place);
            if (line.contains("observed")) {  // optional: records made before it have none
                record.observed = read_observed(line.at("observed"), place);
            }
            ended = true;
        } else {
            throw place.error("a line that is none of header, setup, started, scenario or end");
        }
    }
    if (!header) {
        throw RecordFormatError("the record is empty");
    }
    if (!ended) {
        throw RecordFormatError("line " + std::to_string(number) +
                                ": the record stops before its end line (truncated?)");
    }
    return record;
}

Record read_record(const std::string& path) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) {
        throw RecordFormatError(path + ": cannot be read (no such file?)");
    }
    if (file.tellg() > kMaxRecordBytes) {
        throw RecordFormatError(path + ": larger than any record (" + std::to_string(file.tellg()) + " bytes)");
    }
    file.seekg(0);
    std::ostringstream text;
    text << file.rdbuf();
    try {
        return parse_record(text.str());
    } catch (const RecordFormatError& error) {
        throw RecordFormatError(path + ", " + error.what());
    }
}

std::string header_line(const std::string& lab, const std::string& program, const std::string& date, std::uint32_t seed,
                        std::optional<std::uint32_t> job_salt, bool simulated) {
    ordered_json header{{"format", kRecordFormatName},
                        {"version", kRecordVersion},
                        {"lab", lab},
                        {"program", program},
                        {"date", date},
                        {"seed", seed}};
    if (job_salt) {
        header["job_salt"] = *job_salt;
    }
    if (simulated) {
        header["simulated"] = true;
    }
    return one_line(header);
}

std::string setup_line(const DeviceFacts& device, const std::map<std::string, double>& values,
                       const std::vector<DeviceFacts>& more_gpus) {
    // Each GPU's facts as the trace format spells them: the otherData.device of a trace with no events.
    const auto facts_of = [](const DeviceFacts& gpu) {
        Timeline empty;
        empty.device = gpu;
        empty.program = "set-up";
        return trace_object(empty);
    };
    ordered_json setup{{"values", values}, {"trace", facts_of(device)}};
    if (!more_gpus.empty()) {  // optional: a set-up without it is a recording on one GPU
        setup["more_gpus"] = ordered_json::array();
        for (const DeviceFacts& gpu : more_gpus) {
            setup["more_gpus"].push_back(facts_of(gpu));
        }
    }
    return one_line(ordered_json{{"setup", setup}});
}

std::string no_gpu_line(const std::string& reason) {
    return one_line(ordered_json{{"setup", {{"no_gpu", reason}}}});
}

std::string started_line(const std::string& scenario) {
    return one_line(ordered_json{{"started", scenario}});
}

std::string scenario_line(const Scenario& scenario) {
    ordered_json line{{"scenario", scenario.name}, {"outcome", to_string(scenario.outcome)}};
    if (scenario.outcome != Outcome::Recorded) {
        line["message"] = scenario.message.size() > kMaxWrittenMessage
                              ? scenario.message.substr(0, kMaxWrittenMessage) + "... (cut short)"
                              : scenario.message;
        return one_line(line);
    }
    // A value a student's function returned may be NaN or infinite: null, which
    // fails the judge that reads it and no other.
    line["values"] = ordered_json::object();
    for (const auto& [key, value] : scenario.values) {
        line["values"][key] = number_or_null(value);
    }
    if (scenario.output) {
        const OutputSample& sample = *scenario.output;
        ordered_json values = ordered_json::array();
        for (const float value : sample.value) {
            values.push_back(number_or_null(value));
        }
        line["output"] = {{"n", sample.n},       {"iterations", sample.iterations}, {"chunks", sample.chunks},
                          {"seed", sample.seed}, {"index", sample.index},           {"value", values}};
    }
    const Timeline& timeline = scenario.timeline ? *scenario.timeline : Timeline{};
    line["trace"] = trace_object(timeline);
    ordered_json calls = ordered_json::array();
    for (const StreamCall& call : timeline.stream_calls) {
        calls.push_back({{"call", call_spelling(call.call)},
                         {"function", call.function},
                         {"stream", call.stream},
                         {"event", call.event},
                         {"time_ns", call.time_ns},
                         {"device", call.device}});
    }
    line["stream_calls"] = calls;
    if (!timeline.api_calls_by_thread.empty()) {  // optional: records without it read as before
        ordered_json by_thread = ordered_json::object();
        for (const auto& [thread, count] : timeline.api_calls_by_thread) {
            by_thread[std::to_string(thread)] = count;
        }
        line["api_calls_by_thread"] = by_thread;
    }
    return one_line(line);
}

std::string end_line(const std::string& how, const std::optional<HarnessObservations>& observed) {
    ordered_json line{{"end", how}};
    if (observed) {
        ordered_json starts = ordered_json::array();
        for (const ProgramStart& start : observed->starts) {
            starts.push_back({{"ended", start.ended}, {"finished", start.finished}});
        }
        line["observed"] = {{"starts", starts},
                            {"scenario_wall_ms", observed->scenario_wall_ms},
                            {"gpus", observed->gpus},
                            {"gpu_reading", observed->gpu_reading}};
    }
    return one_line(line);
}

std::string finished_line() {
    return one_line(ordered_json{{"finished", true}});
}

std::string restart_at_line(const std::string& scenario, const std::map<std::string, std::string>& environment) {
    return one_line(ordered_json{{"restart_at", scenario}, {"environment", environment}});
}

}  // namespace streamlab::record
