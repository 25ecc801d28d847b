// Lab 06's grading questions about recorded times: see ring_timeline.hpp.
#include "ring_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "streamlab/workload.hpp"

namespace lab06::course {

namespace {

using streamlab::DeviceOp;

/// "H2D_3" for chunk index 2: the article's names, chunks counted from 1.
std::string op_name(const char* stage, std::size_t chunk) {
    return std::string(stage) + "_" + std::to_string(chunk + 1);
}

/// `time` in ms, for a sentence. snprintf, not an ostringstream: this file is also
/// compiled into the Python module, where formatting a double through a stream
/// crashed on the H200 (inside std::ostream's number formatting, under Python 3.12);
/// snprintf needs no stream or locale facet.
std::string ms(std::uint64_t time_ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms", static_cast<double>(time_ns) / 1e6);
    return text;
}

/// Whether `later` began before `earlier` ended, beyond the clocks' slack.
bool began_before_end(std::uint64_t later_start, std::uint64_t earlier_end) {
    return later_start + kClockSlackNs < earlier_end;
}

/// Whether the host records cover the chunks of chunk_range in order; else why not.
std::string check_host_records(const std::vector<HostUse>& uses, const char* what, std::size_t n, int chunks) {
    if (uses.size() != static_cast<std::size_t>(chunks)) {
        return "the host " + std::string(what) + " " + std::to_string(uses.size()) + " chunks, not " +
               std::to_string(chunks);
    }
    for (int c = 0; c < chunks; ++c) {
        const streamlab::ChunkRange range = streamlab::chunk_range(n, chunks, c);
        const HostUse& use = uses[static_cast<std::size_t>(c)];
        if (use.offset != range.offset || use.count != range.count) {
            return "the " + std::to_string(c + 1) + "th chunk the host " + what + " was elements [" +
                   std::to_string(use.offset) + ", " + std::to_string(use.offset + use.count) + "), not chunk " +
                   std::to_string(c + 1) + "'s [" + std::to_string(range.offset) + ", " +
                   std::to_string(range.offset + range.count) + ") (chunks go in order, cut by chunk_range)";
        }
    }
    return "";
}

/// How many chunks other than `self` held a buffer at `time`: they took it at
/// `taken(c)` <= time and gave it back at `released(c)`, after time.
template <typename Taken, typename Released>
int holders_at(const std::vector<RecordedChunk>& chunks, std::size_t self, std::uint64_t time, Taken taken,
               Released released) {
    int holders = 0;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        if (c != self && taken(chunks[c]) <= time && began_before_end(time, released(chunks[c]))) {
            ++holders;
        }
    }
    return holders;
}

/// The first chunk after `c` whose buffer `slot_of` is the same as c's, or
/// chunks.size() when none is (or c's buffer is none of the ring's).
template <typename SlotOf>
std::size_t next_in_slot(const std::vector<RecordedChunk>& chunks, std::size_t c, SlotOf slot_of) {
    const int slot = slot_of(chunks[c]);
    for (std::size_t next = c + 1; slot >= 0 && next < chunks.size(); ++next) {
        if (slot_of(chunks[next]) == slot) {
            return next;
        }
    }
    return chunks.size();
}

/// The most uses a record may hold of one run (a sweep's runs together): far
/// above any graded run, low enough that a forged count cannot exhaust memory.
constexpr double kMaxUses = 1e6;

/// "fill" or "drain": the first word of a use's keys.
const char* use_word(bool fill) {
    return fill ? "fill" : "drain";
}

/// values[key] when it is a whole number in [low, high]; else false.
bool whole_value(const std::map<std::string, double>& values, const std::string& key, double low, double high,
                 double& value) {
    const auto found = values.find(key);
    if (found == values.end() || !(found->second >= low && found->second <= high) ||
        found->second != std::floor(found->second)) {
        return false;
    }
    value = found->second;
    return true;
}

}  // namespace

void put_host_uses(std::map<std::string, double>& values, const std::vector<HostUse>& fills,
                   const std::vector<HostUse>& drains) {
    for (const bool fill : {true, false}) {
        const std::vector<HostUse>& uses = fill ? fills : drains;
        values[std::string(use_word(fill)) + "s"] = static_cast<double>(uses.size());
        for (std::size_t i = 0; i < uses.size(); ++i) {
            const std::string key = std::string(use_word(fill)) + "_" + std::to_string(i) + "_";
            values[key + "offset"] = static_cast<double>(uses[i].offset);
            values[key + "count"] = static_cast<double>(uses[i].count);
            values[key + "slot"] = uses[i].slot;
            values[key + "start_ns"] = static_cast<double>(uses[i].start_ns);
            values[key + "end_ns"] = static_cast<double>(uses[i].end_ns);
        }
    }
}

HostUses host_uses_of(const std::map<std::string, double>& values) {
    constexpr double kExact = 9007199254740992.0;  // 2^53: the largest whole number a double holds exactly
    HostUses found;
    for (const bool fill : {true, false}) {
        std::vector<HostUse>& into = fill ? found.fills : found.drains;
        const std::string what = std::string(use_word(fill)) + "s";
        double count = 0;
        if (!whole_value(values, what, 0, kMaxUses, count)) {
            found.problem = "the record's values hold no count of the host's " + what;
            return found;
        }
        for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
            const std::string key = std::string(use_word(fill)) + "_" + std::to_string(i) + "_";
            double offset = 0, elements = 0, slot = 0, start = 0, end = 0;
            if (!whole_value(values, key + "offset", 0, kExact, offset) ||
                !whole_value(values, key + "count", 0, kExact, elements) ||
                !whole_value(values, key + "slot", -1, 1e6, slot) ||
                !whole_value(values, key + "start_ns", 0, kExact, start) ||
                !whole_value(values, key + "end_ns", start, kExact, end)) {
                found.problem = "the record's values of the host's " + std::string(use_word(fill)) + " " +
                                std::to_string(i) + " are missing or out of range";
                return found;
            }
            into.push_back({static_cast<std::size_t>(offset), static_cast<std::size_t>(elements),
                            static_cast<int>(slot), static_cast<std::uint64_t>(start),
                            static_cast<std::uint64_t>(end)});
        }
    }
    return found;
}

RecordedRun pair_chunks(const std::vector<HostUse>& fills, const std::vector<HostUse>& drains,
                        const std::vector<DeviceOp>& ops, std::size_t n, int chunks) {
    RecordedRun run;
    for (const auto& [uses, what] : {std::pair{&fills, "produced"}, std::pair{&drains, "consumed"}}) {
        run.problem = check_host_records(*uses, what, n, chunks);
        if (!run.problem.empty()) {
            return run;
        }
    }
    const streamlab::PipelineChunks found = streamlab::chunks_by_issue_order(ops, chunks);
    if (!found.problem.empty()) {
        run.problem = found.problem;
        return run;
    }
    for (std::size_t c = 0; c < found.chunks.size(); ++c) {
        run.chunks.push_back({fills[c], found.chunks[c], drains[c]});
    }
    return run;
}

std::vector<std::string> reuse_hazards(const std::vector<RecordedChunk>& chunks, int device_sets) {
    std::vector<std::string> found;
    const auto say = [&](const std::string& sentence) { found.push_back(sentence); };
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        const RecordedChunk& chunk = chunks[c];
        const DeviceOp& h2d = chunk.ops.h2d;
        const DeviceOp& kernel = chunk.ops.kernel;
        const DeviceOp& d2h = chunk.ops.d2h;
        if (chunk.fill.slot < 0) {
            say("chunk " + std::to_string(c + 1) + " was produced into a buffer that is not one of job.staging");
        }
        if (chunk.drain.slot < 0) {
            say("chunk " + std::to_string(c + 1) + " was consumed from a buffer that is not one of job.results");
        }
        // Each step of a chunk reads what the step before wrote.
        if (began_before_end(h2d.start_ns, chunk.fill.end_ns)) {
            say(op_name("H2D", c) + " began at " + ms(h2d.start_ns) + ", before the host had written chunk " +
                std::to_string(c + 1) + " (done at " + ms(chunk.fill.end_ns) + ")");
        }
        if (began_before_end(kernel.start_ns, h2d.end_ns)) {
            say(op_name("K", c) + " began at " + ms(kernel.start_ns) + ", before " + op_name("H2D", c) + " ended at " +
                ms(h2d.end_ns));
        }
        if (began_before_end(d2h.start_ns, kernel.end_ns)) {
            say(op_name("D2H", c) + " began at " + ms(d2h.start_ns) + ", before " + op_name("K", c) + " ended at " +
                ms(kernel.end_ns));
        }
        if (began_before_end(chunk.drain.start_ns, d2h.end_ns)) {
            say("the host read chunk " + std::to_string(c + 1) + "'s results at " + ms(chunk.drain.start_ns) +
                ", before " + op_name("D2H", c) + " ended at " + ms(d2h.end_ns));
        }
        // The next chunk in the same ring buffer may begin only after this one's last use.
        const std::size_t next_fill = next_in_slot(chunks, c, [](const RecordedChunk& x) { return x.fill.slot; });
        if (next_fill < chunks.size() && began_before_end(chunks[next_fill].fill.start_ns, h2d.end_ns)) {
            say("the host began writing chunk " + std::to_string(next_fill + 1) + " into staging buffer " +
                std::to_string(chunk.fill.slot) + " at " + ms(chunks[next_fill].fill.start_ns) + ", before " +
                op_name("H2D", c) + " had read chunk " + std::to_string(c + 1) + " from it (ended at " +
                ms(h2d.end_ns) + ")");
        }
        const std::size_t next_drain = next_in_slot(chunks, c, [](const RecordedChunk& x) { return x.drain.slot; });
        if (next_drain < chunks.size() && began_before_end(chunks[next_drain].ops.d2h.start_ns, chunk.drain.end_ns)) {
            say(op_name("D2H", next_drain) + " began writing results buffer " + std::to_string(chunk.drain.slot) +
                " at " + ms(chunks[next_drain].ops.d2h.start_ns) + ", before the host had read chunk " +
                std::to_string(c + 1) + " from it (done at " + ms(chunk.drain.end_ns) + ")");
        }
        // The device sets, whichever set each chunk took: more holders than sets means a shared one.
        const int inputs_held = holders_at(
            chunks, c, h2d.start_ns, [](const RecordedChunk& x) { return x.ops.h2d.start_ns; },
            [](const RecordedChunk& x) { return x.ops.kernel.end_ns; });
        if (inputs_held >= device_sets) {
            say(op_name("H2D", c) + " began at " + ms(h2d.start_ns) + " while " + std::to_string(inputs_held) +
                " other chunks still held a device input buffer (copied in, kernel not ended), with " +
                std::to_string(device_sets) + " device sets: it overwrote one still in use");
        }
        const int outputs_held = holders_at(
            chunks, c, kernel.start_ns, [](const RecordedChunk& x) { return x.ops.kernel.start_ns; },
            [](const RecordedChunk& x) { return x.ops.d2h.end_ns; });
        if (outputs_held >= device_sets) {
            say(op_name("K", c) + " began at " + ms(kernel.start_ns) + " while " + std::to_string(outputs_held) +
                " other chunks still held a device output buffer (kernel begun, D2H not ended), with " +
                std::to_string(device_sets) + " device sets: it overwrote one still in use");
        }
    }
    return found;
}

std::vector<RunSpan> run_spans(const std::vector<HostUse>& fills, const std::vector<HostUse>& drains) {
    std::vector<RunSpan> runs;
    for (const HostUse& fill : fills) {
        if (fill.offset == 0 || runs.empty()) {
            runs.push_back({0, fill.start_ns, fill.end_ns});
        }
        ++runs.back().fills;
    }
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const std::uint64_t next_start = r + 1 < runs.size() ? runs[r + 1].start_ns : UINT64_MAX;
        for (const HostUse& drain : drains) {
            if (drain.start_ns >= runs[r].start_ns && drain.start_ns < next_start) {
                runs[r].end_ns = std::max(runs[r].end_ns, drain.end_ns);
            }
        }
    }
    return runs;
}

double streaming_model_ms(const streamlab::StageTimes& gpu, double fill_ms, double drain_ms, int chunks, int sets,
                          int copy_engines, streamlab::IssueOrder order, const streamlab::LinkSharing& link) {
    const double gpu_ms =
        streamlab::simulated_makespan(streamlab::simulate_pipeline(gpu, chunks, sets, copy_engines, order, link));
    const double n = static_cast<double>(chunks);
    const double first_fill = fill_ms / n, last_drain = drain_ms / n;
    const double one_chunk_through_gpu = (gpu.h2d + gpu.kernel + gpu.d2h) / n;
    return std::max(
        {first_fill + gpu_ms + last_drain, fill_ms + drain_ms, fill_ms + one_chunk_through_gpu + last_drain});
}

double host_busy_ms(const std::vector<HostUse>& uses) {
    std::uint64_t busy_ns = 0;
    for (const HostUse& use : uses) {
        busy_ns += use.end_ns - use.start_ns;
    }
    return static_cast<double>(busy_ns) / 1e6;
}

double streaming_bound_ms(const streamlab::StageTimes& gpu, double host_ms, int copy_engines) {
    return std::max(host_ms, streamlab::pipeline_model(gpu, 1, copy_engines).bound);
}

}  // namespace lab06::course
