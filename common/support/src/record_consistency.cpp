#include "streamlab/record_consistency.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <utility>

#include "streamlab/device_links.hpp"
#include "streamlab/trace_file.hpp"

namespace streamlab::record {

namespace {

/// What every refusal ends with.
constexpr const char* kNotARealRun = ": this record was not made by a real run";

/// How much faster than calibrated a kernel may run. Every committed H200 and H100 record's kernels ran
/// within 3% of the set-up's calibration (and at most 7090 element-iterations per ns, the table's rate);
/// a GPU that raised its clocks after a calibration made while it was cold gains less than 1.7x (base to
/// boost clock). Nothing bounds a kernel from above: an honest kernel is slower where kernels of several
/// streams share the SMs, on a small GPU, or with a grid of its own. A record that claims far more work
/// than its kernels had time for (2^20 iterations where the run had 500) is off by a thousand times.
constexpr double kKernelSpeedMargin = 2.0;

/// How far a scenario's traced span may exceed the wall time the harness measured for it: the harness
/// reads the scenario's "started" line when the scheduler lets it run, a little after it was written (a
/// tenth for a load that slows it in proportion, and a few scheduling slices). An honest wall time holds
/// far more than the trace: the course's set-up of the scenario and the sampling of its output.
constexpr double kWallRatioSlack = 1.1;
constexpr double kWallSlackMs = 5.0;

/// How the harness words a start that ended as the recording program means to end (record_harness.cpp).
constexpr const char* kExitedCleanly = "exit status 0";
constexpr const char* kAskedForRestart = "exit status 75";

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

std::string milliseconds(double ns) {
    return number(ns / 1e6) + " ms";
}

std::string megabytes(std::uint64_t bytes) {
    return number(static_cast<double>(bytes) / 1e6) + " MB";
}

std::string in_scenario(const Scenario& scenario) {
    return "scenario " + scenario.name + "'s ";
}

// ------------------------------------------------------------------ the device and the harness's reading

/// The names of the GPUs the harness read itself, in one line.
std::string gpus_the_harness_read(const Record& record) {
    std::string names;
    for (const std::string& name : record.observed->gpus) {
        names += (names.empty() ? "" : ", ") + name;
    }
    return names;
}

bool names_a_gpu_of(const Record& record, const std::string& name) {
    return std::any_of(record.gpus.begin(), record.gpus.end(),
                       [&](const DeviceFacts& gpu) { return gpu.name == name; });
}

/// Every scenario ran on a GPU of the set-up; a known kind has no more SMs than its whole chip; the
/// harness's own reading of the GPUs names every GPU the record names.
std::string check_device(const Record& record) {
    for (const Scenario& scenario : record.scenarios) {
        if (scenario.timeline && !scenario.timeline->device.name.empty() &&
            !names_a_gpu_of(record, scenario.timeline->device.name)) {
            return in_scenario(scenario) + "trace ran on an " + scenario.timeline->device.name +
                   ", which is not a GPU of its set-up (" + record.device.name + ")";
        }
    }
    for (const DeviceFacts& gpu : record.gpus) {
        const DeviceLinks& known = links_of(gpu.name);
        if (known.sm_count > 0 && gpu.sm_count > known.sm_count) {
            return "its GPU, an " + gpu.name + ", has " + std::to_string(gpu.sm_count) + " SMs; no " + known.name_part +
                   " has more than " + std::to_string(known.sm_count);
        }
    }
    if (!record.observed || record.observed->gpus.empty()) {
        return "";  // a record made before the harness read them, or a machine where it could not
    }
    const std::vector<std::string>& read = record.observed->gpus;
    for (const DeviceFacts& gpu : record.gpus) {
        if (std::find(read.begin(), read.end(), gpu.name) == read.end()) {
            return "the record names an " + gpu.name + ", but the harness read this machine's GPUs as " +
                   gpus_the_harness_read(record);
        }
    }
    return "";
}

std::size_t count_outcomes(const Record& record, std::initializer_list<Outcome> outcomes) {
    return static_cast<std::size_t>(std::count_if(record.scenarios.begin(), record.scenarios.end(), [&](const auto& s) {
        return std::find(outcomes.begin(), outcomes.end(), s.outcome) != outcomes.end();
    }));
}

/// Whether a start ended as the recording program ends it: the last with exit status 0 after its
/// finished line, every earlier one with exit status 75 (after a failed scenario, or asking for a fresh
/// process). Any other end is a crash or a hang the record must show.
bool ended_as_planned(const ProgramStart& start, bool last) {
    return last ? start.ended == kExitedCleanly && start.finished : start.ended == kAskedForRestart;
}

/// Each start ended in a way the record explains.
std::string check_starts(const Record& record, const HarnessObservations& observed) {
    if (observed.starts.empty()) {
        return "the harness saw no start of the recording program, yet the record holds a set-up";
    }
    const ProgramStart& last = observed.starts.back();
    if (record.ended == "complete" && !ended_as_planned(last, true)) {
        return "the record says it is complete, but its program's last start ended with " + last.ended +
               (last.finished ? "" : " before its finished line");
    }
    // Each crash or hang ends one start; a run that stopped may end its last start in any way.
    std::size_t explained =
        count_outcomes(record, {Outcome::Crashed, Outcome::Hung}) + (record.ended == "complete" ? 0 : 1);
    for (std::size_t i = 0; i < observed.starts.size(); ++i) {
        const ProgramStart& start = observed.starts[i];
        if (ended_as_planned(start, i + 1 == observed.starts.size())) {
            continue;
        }
        if (explained == 0) {
            return "start " + std::to_string(i + 1) + " of its program ended with " + start.ended +
                   (start.finished || start.ended != kExitedCleanly ? "" : " before its finished line") +
                   ", which no crashed or hung scenario explains";
        }
        --explained;
    }
    const auto restarts =
        static_cast<std::size_t>(std::count_if(observed.starts.begin(), observed.starts.end(),
                                               [](const ProgramStart& s) { return s.ended == kAskedForRestart; }));
    if (count_outcomes(record, {Outcome::Failed}) > restarts) {
        return "a scenario failed, but no start of its program ended with " + std::string(kAskedForRestart) +
               " after it, as the program ends after every failure";
    }
    return "";
}

/// From the first to the last instant a timeline holds, in ns.
double traced_span_ns(const Timeline& timeline) {
    std::vector<std::uint64_t> times;
    for (const DeviceOp& op : timeline.ops) {
        times.insert(times.end(), {op.start_ns, op.end_ns});
    }
    for (const StreamCall& call : timeline.stream_calls) {
        times.push_back(call.time_ns);
    }
    for (const HostMark& mark : timeline.marks) {
        times.push_back(mark.time_ns);
    }
    if (times.empty()) {
        return 0;
    }
    const auto [first, last] = std::minmax_element(times.begin(), times.end());
    return static_cast<double>(*last - *first);
}

/// Each recorded scenario's timeline fits in the wall time the harness measured for it.
std::string check_wall_times(const Record& record, const HarnessObservations& observed) {
    for (const Scenario& scenario : record.scenarios) {
        if (scenario.outcome != Outcome::Recorded || !scenario.timeline) {
            continue;
        }
        const auto wall = observed.scenario_wall_ms.find(scenario.name);
        if (wall == observed.scenario_wall_ms.end()) {
            return "the harness measured no wall time for scenario " + scenario.name + ", which it recorded";
        }
        const double span_ns = traced_span_ns(*scenario.timeline);
        if (span_ns / 1e6 > wall->second * kWallRatioSlack + kWallSlackMs) {
            return in_scenario(scenario) + "trace spans " + milliseconds(span_ns) +
                   ", but the harness saw it run for " + number(wall->second) + " ms";
        }
    }
    return "";
}

std::string check_observations(const Record& record) {
    if (!record.observed) {
        return "";  // a record made before the harness observed anything
    }
    std::string problem = check_starts(record, *record.observed);
    // A simulated record's times are the simulated GPU's model, not the harness's clock: the simulator
    // charges the host what the model says each call costs, which real time on this CPU need not match.
    if (!problem.empty() || record.simulated) {
        return problem;
    }
    return check_wall_times(record, *record.observed);
}

// ------------------------------------------------------------------ output samples

/// The elements `count` is in `record`'s run, or why the record cannot give them.
std::string expected_elements(const Record& record, const ElementCount& count, std::uint64_t& n) {
    if (count.setup_key.empty()) {
        n = (count.salted ? salted_elements(count.usual, record.job_salt) : count.usual) * count.times;
        return "";
    }
    const auto value = record.setup.find(count.setup_key);
    if (value == record.setup.end()) {
        return "its set-up has no value \"" + count.setup_key + "\", which every real run's set-up has";
    }
    n = whole_number<std::uint64_t>(value->second, 0, 1e15) * count.times;
    return "";
}

std::string expected_iterations(const Record& record, const Scenario& scenario, const IterationCount& count,
                                int& iterations) {
    const std::map<std::string, double>& values = count.of_scenario ? scenario.values : record.setup;
    const auto value = values.find(count.key);
    if (value == values.end()) {
        return (count.of_scenario ? in_scenario(scenario) + "values have" : std::string("its set-up has")) + " no \"" +
               count.key + "\", which every real run's has";
    }
    iterations = whole_number<int>(value->second, 0, 1e9);
    return "";
}

/// Every scenario that must carry an output sample carries one of the run its recording program made.
/// The sample's tolerance (matches_reference) grows with its iterations: they must be the run's.
std::string check_samples(const Record& record, const RecordedRuns& runs) {
    for (const ExpectedSample& expected : runs.samples) {
        const Scenario* scenario = record.find(expected.scenario);
        if (scenario == nullptr || scenario->outcome != Outcome::Recorded) {
            continue;  // its judges fail with the recording's own words
        }
        if (!scenario->output) {
            return "scenario " + scenario->name + " carries no output sample, which every real run of it sends";
        }
        const OutputSample& sample = *scenario->output;
        std::uint64_t n = 0;
        int iterations = 0;
        std::string problem = expected_elements(record, expected.n, n);
        if (problem.empty()) {
            problem = expected_iterations(record, *scenario, expected.iterations, iterations);
        }
        if (!problem.empty()) {
            return problem;
        }
        const std::string whose = in_scenario(*scenario) + "output sample";
        if (sample.n != n) {
            return whose + " covers " + std::to_string(sample.n) + " elements; its run had " + std::to_string(n);
        }
        if (sample.iterations != iterations) {
            return whose + " names " + std::to_string(sample.iterations) + " kernel iterations; its run's kernel had " +
                   std::to_string(iterations) + " (\"" + expected.iterations.key + "\")";
        }
        if (sample.chunks != expected.chunks) {
            return whose + " is of " + std::to_string(sample.chunks) + " chunks; its run had " +
                   std::to_string(expected.chunks);
        }
    }
    const auto n = record.setup.find("n");
    if (record.job_salt && n != record.setup.end()) {
        const std::uint64_t elements = whole_number<std::uint64_t>(n->second, 0, 1e15);
        if (elements % kJobSaltModulus != *record.job_salt) {
            return "its set-up's n (" + std::to_string(elements) + ") is not bound to this run's job salt " +
                   std::to_string(*record.job_salt) + " (n % " + std::to_string(kJobSaltModulus) + " is " +
                   std::to_string(elements % kJobSaltModulus) + "): it was made for another run";
        }
    }
    return "";
}

// ------------------------------------------------------------------ runtime calls against ops

/// The ops a runtime call can make, by kind.
enum class Family { Kernel, Copy, Memset, None };

Family family_of(OpKind kind) {
    switch (kind) {
        case OpKind::Kernel:
            return Family::Kernel;
        case OpKind::Memset:
            return Family::Memset;
        case OpKind::MemcpyH2D:
        case OpKind::MemcpyD2H:
        case OpKind::MemcpyD2D:
        case OpKind::MemcpyP2P:
        case OpKind::MemcpyOther:
            return Family::Copy;
    }
    return Family::None;
}

const char* plural(Family family) {
    switch (family) {
        case Family::Kernel:
            return "kernels";
        case Family::Copy:
            return "copies";
        case Family::Memset:
            return "memsets";
        case Family::None:
            break;
    }
    return "ops";
}

/// The family of ops a runtime function makes (cudaLaunchKernel: a kernel; cudaMemcpy2DAsync: a copy).
Family family_made_by(const std::string& function) {
    if (function.rfind("cudaLaunch", 0) == 0 && function != "cudaLaunchHostFunc") {
        return Family::Kernel;
    }
    if (function.rfind("cudaMemcpy", 0) == 0) {
        return Family::Copy;
    }
    if (function.rfind("cudaMemset", 0) == 0) {
        return Family::Memset;
    }
    return Family::None;
}

/// The functions whose calls the tracer keeps as stream calls ("work"), with their stream.
bool traced_as_work(const std::string& function) {
    return function == "cudaLaunchKernel" || function == "cudaMemcpyAsync" || function == "cudaMemcpyPeerAsync";
}

/// A graph launch makes many ops with one call, and a captured call makes none: counts say nothing there.
bool uses_graphs(const Timeline& timeline) {
    for (const auto& [function, count] : timeline.api_calls) {
        if (count > 0 && (function == "cudaGraphLaunch" || function.rfind("cudaStreamBeginCapture", 0) == 0)) {
            return true;
        }
    }
    return std::any_of(timeline.ops.begin(), timeline.ops.end(), [](const DeviceOp& op) { return op.graph_id != 0; });
}

/// The stream calls count exactly the calls the trace counted, by function and by thread.
std::string check_call_counts(const Scenario& scenario) {
    const Timeline& timeline = *scenario.timeline;
    std::map<std::string, std::uint64_t> called;
    for (const StreamCall& call : timeline.stream_calls) {
        ++called[call.function];
    }
    for (const auto& [function, count] : called) {
        const auto counted = timeline.api_calls.find(function);
        const std::uint64_t in_trace = counted == timeline.api_calls.end() ? 0 : counted->second;
        if (count != in_trace) {
            return in_scenario(scenario) + "stream calls hold " + std::to_string(count) + " calls of " + function +
                   ", but its trace counted " + std::to_string(in_trace);
        }
    }
    if (!timeline.api_calls_by_thread.empty()) {
        std::uint64_t by_thread = 0, in_all = 0;
        for (const auto& [thread, count] : timeline.api_calls_by_thread) {
            by_thread += count;
        }
        for (const auto& [function, count] : timeline.api_calls) {
            in_all += count;
        }
        if (by_thread != in_all) {
            return in_scenario(scenario) + "runtime calls by thread add up to " + std::to_string(by_thread) +
                   ", but its trace counted " + std::to_string(in_all);
        }
    }
    return "";
}

/// The kind of stream a call's stream handle names (activity_recorder.cpp's stream_key).
StreamKind kind_of_handle(std::uint64_t handle) {
    if (handle == 0) {
        return StreamKind::LegacyNull;
    }
    return handle == 2 ? StreamKind::PerThreadDefault : StreamKind::Created;  // 2: cudaStreamPerThread
}

const char* stream_words(StreamKind kind) {
    switch (kind) {
        case StreamKind::LegacyNull:
            return "the legacy NULL stream";
        case StreamKind::PerThreadDefault:
            return "the per-thread default stream";
        case StreamKind::Created:
            break;
    }
    return "a created stream";
}

/// Ops of one family paired with the work calls that made them: the runtime numbers its calls in the
/// order they are made (correlation ids), so the i-th op by correlation id is the i-th call's. Each op
/// starts after its call, in a stream of the kind the call named, and one stream is one handle.
std::string check_pairs(const Scenario& scenario, std::vector<const DeviceOp*> ops,
                        const std::vector<const StreamCall*>& calls) {
    std::sort(ops.begin(), ops.end(),
              [](const DeviceOp* a, const DeviceOp* b) { return a->correlation_id < b->correlation_id; });
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> handle_of_stream;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const DeviceOp& op = *ops[i];
        const StreamCall& call = *calls[i];
        if (i > 0 && op.correlation_id == ops[i - 1]->correlation_id) {
            return in_scenario(scenario) + display_name(op) + " and " + display_name(*ops[i - 1]) +
                   " name one call, and no call but a graph's launch makes two ops";
        }
        if (op.start_ns < call.time_ns) {
            return in_scenario(scenario) + display_name(op) + " started at " + milliseconds(op.start_ns) +
                   ", before the " + call.function + " that made it (at " + milliseconds(call.time_ns) + ")";
        }
        if (op.stream_kind != kind_of_handle(call.stream)) {
            return in_scenario(scenario) + display_name(op) + " ran in " + stream_words(op.stream_kind) + ", but the " +
                   call.function + " that made it named " + stream_words(kind_of_handle(call.stream));
        }
        const auto [known, added] = handle_of_stream.emplace(std::make_pair(op.device_id, op.stream_id), call.stream);
        if (!added && known->second != call.stream) {
            return in_scenario(scenario) + "stream " + std::to_string(op.stream_id) +
                   " ran the work of calls that named two different streams";
        }
    }
    return "";
}

/// Every op was made by a runtime call the trace counted, and, where the tracer kept every call that
/// makes such ops, by one of its stream calls.
std::string check_ops_against_calls(const Scenario& scenario) {
    const Timeline& timeline = *scenario.timeline;
    if (uses_graphs(timeline)) {
        return "";
    }
    for (const Family family : {Family::Kernel, Family::Copy, Family::Memset}) {
        std::vector<const DeviceOp*> ops;
        for (const DeviceOp& op : timeline.ops) {
            if (family_of(op.kind) == family) {
                ops.push_back(&op);
            }
        }
        std::uint64_t made = 0;
        bool all_traced = true;
        for (const auto& [function, count] : timeline.api_calls) {
            if (family_made_by(function) == family && count > 0) {
                made += count;
                all_traced = all_traced && traced_as_work(function);
            }
        }
        if (ops.size() > made) {
            return in_scenario(scenario) + "trace holds " + std::to_string(ops.size()) + " " + plural(family) +
                   ", but its program made " + std::to_string(made) + " runtime calls that make them";
        }
        std::vector<const StreamCall*> calls;
        for (const StreamCall& call : timeline.stream_calls) {
            if (call.call == OrderingCall::Work && family_made_by(call.function) == family) {
                calls.push_back(&call);
            }
        }
        // A call that fails makes no op: pairs only where every call made its op.
        if (all_traced && ops.size() == calls.size()) {
            if (std::string problem = check_pairs(scenario, ops, calls); !problem.empty()) {
                return problem;
            }
        }
    }
    return "";
}

std::string check_calls(const Record& record) {
    for (const Scenario& scenario : record.scenarios) {
        if (scenario.outcome != Outcome::Recorded || !scenario.timeline) {
            continue;
        }
        std::string problem = check_call_counts(scenario);
        if (problem.empty()) {
            problem = check_ops_against_calls(scenario);
        }
        if (!problem.empty()) {
            return problem;
        }
    }
    return "";
}

// ------------------------------------------------------------------ durations against links and rates

const DeviceFacts& gpu_of(const Record& record, std::uint32_t ordinal) {
    return ordinal < record.gpus.size() ? record.gpus[ordinal] : record.device;
}

/// "an NVIDIA H200 has", or, for a kind the table does not know, "any GPU has".
std::string who_has(const DeviceLinks& links, const DeviceFacts& gpu) {
    return links.name_part[0] != '\0' ? "an " + gpu.name + " has" : "any GPU has";
}

/// The fastest link a copy of `kind` can take on `links`' kind of GPU, in GB/s, and its name; 0 for none.
std::pair<double, const char*> link_of(OpKind kind, const DeviceLinks& links) {
    switch (kind) {
        case OpKind::MemcpyH2D:
        case OpKind::MemcpyD2H:
            return {links.host_link_gb_s, "host link"};
        case OpKind::MemcpyP2P:
            return {links.peer_link_gb_s, "link between GPUs"};
        case OpKind::MemcpyD2D:
            return {links.memory_gb_s, "device memory"};
        default:
            return {0, ""};
    }
}

/// No copy moved its bytes faster than the fastest link its kind of GPU has.
std::string check_copies(const Record& record, const Scenario& scenario) {
    for (const DeviceOp& op : scenario.timeline->ops) {
        const DeviceFacts& gpu = gpu_of(record, op.device_id);
        const DeviceLinks& links = links_of(gpu.name);
        const auto [gb_s, link] = link_of(op.kind, links);
        if (gb_s > 0 && static_cast<double>(op.duration_ns()) < static_cast<double>(op.bytes) / gb_s) {
            return in_scenario(scenario) + display_name(op) + " of " + megabytes(op.bytes) + " took " +
                   milliseconds(static_cast<double>(op.duration_ns())) + ", faster than the fastest " + link + " " +
                   who_has(links, gpu) + " (" + number(gb_s) + " GB/s)";
        }
    }
    return "";
}

/// The workload kernel's element-iterations per ns that `gpu` does at most (device_links.hpp).
double device_rate(const DeviceFacts& gpu) {
    const DeviceLinks& links = links_of(gpu.name);
    const double per_sm =
        links.workload_per_sm_per_ns > 0 ? links.workload_per_sm_per_ns : kUnknownDevice.workload_per_sm_per_ns;
    const int sms = links.sm_count > 0 ? std::min(gpu.sm_count, links.sm_count) : gpu.sm_count;
    return per_sm * std::max(sms, 1);
}

/// The rate the set-up calibrated: a kernel over its "n" elements with its "iterations" took about its
/// "h2d_ms"; 0 where the set-up calibrated no kernel so.
double setup_rate(const Record& record) {
    const auto value = [&](const char* key) {
        const auto found = record.setup.find(key);
        return found == record.setup.end() ? 0.0 : found->second;
    };
    const double n = value("n"), iterations = value("iterations"), h2d_ms = value("h2d_ms");
    return n > 0 && iterations > 0 && h2d_ms > 0 ? n * iterations / (h2d_ms * 1e6) : 0.0;
}

/// The set-up's own measurements are a real GPU's: its copy of the input no faster than the host
/// link, its kernel no faster than this kind of GPU.
std::string check_setup(const Record& record) {
    const DeviceLinks& links = links_of(record.device.name);
    const auto n = record.setup.find("n");
    const auto h2d_ms = record.setup.find("h2d_ms");
    if (n != record.setup.end() && h2d_ms != record.setup.end()) {
        const double bytes = n->second * sizeof(float);
        if (h2d_ms->second * 1e6 < bytes / links.host_link_gb_s) {
            return "its set-up's copy of " + megabytes(static_cast<std::uint64_t>(bytes)) + " took " +
                   number(h2d_ms->second) + " ms, faster than the fastest host link " + who_has(links, record.device) +
                   " (" + number(links.host_link_gb_s) + " GB/s)";
        }
    }
    const double calibrated = setup_rate(record);
    if (calibrated > kKernelSpeedMargin * device_rate(record.device)) {
        return "its set-up calibrated the kernel at " + number(calibrated) +
               " element-iterations per ns, more than twice what " + record.device.name + " can do (" +
               number(device_rate(record.device)) + ")";
    }
    return "";
}

/// How long at least one of `ops`' kernels ran, in ns (the union of their spans).
double busy_ns(std::vector<std::pair<std::uint64_t, std::uint64_t>> spans) {
    std::sort(spans.begin(), spans.end());
    double busy = 0;
    std::uint64_t covered = 0;
    for (const auto& [start, end] : spans) {
        const std::uint64_t from = std::max(start, covered);
        if (end > from) {
            busy += static_cast<double>(end - from);
            covered = end;
        }
    }
    return busy;
}

/// The kernels of a scenario whose output sample shows its work done had time for that work at the
/// calibrated rate. (An output that does not match the reference claims no work: the judges fail it.)
std::string check_kernels(const Record& record, const Scenario& scenario) {
    if (!check_output_sample(*scenario.output).ok) {
        return "";
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    std::set<std::uint32_t> gpus;
    for (const DeviceOp& op : scenario.timeline->ops) {
        if (op.kind == OpKind::Kernel) {
            spans.emplace_back(op.start_ns, op.end_ns);
            gpus.insert(op.device_id);
        }
    }
    const double calibrated = setup_rate(record);
    const double rate = (calibrated > 0 ? calibrated : device_rate(record.device)) *
                        static_cast<double>(std::max<std::size_t>(gpus.size(), 1));
    const OutputSample& sample = *scenario.output;
    const double work = static_cast<double>(sample.n) * sample.iterations;
    const double least_ns = work / (rate * kKernelSpeedMargin);
    const double busy = busy_ns(spans);
    if (busy < least_ns) {
        return in_scenario(scenario) + "kernels ran " + milliseconds(busy) + " for " + std::to_string(sample.n) +
               " elements of " + std::to_string(sample.iterations) + " iterations, which take at least " +
               milliseconds(least_ns) + " at twice the rate " +
               (calibrated > 0 ? std::string("the set-up calibrated") : "an " + record.device.name + " has") + " (" +
               number(rate) + " element-iterations per ns)";
    }
    return "";
}

std::string check_durations(const Record& record, const RecordedRuns& runs) {
    if (std::string problem = check_setup(record); !problem.empty()) {
        return problem;
    }
    for (const Scenario& scenario : record.scenarios) {
        if (scenario.outcome != Outcome::Recorded || !scenario.timeline) {
            continue;
        }
        if (std::string problem = check_copies(record, scenario); !problem.empty()) {
            return problem;
        }
        const bool sampled = std::any_of(runs.samples.begin(), runs.samples.end(), [&](const ExpectedSample& expected) {
            return expected.scenario == scenario.name;
        });
        if (sampled && scenario.output) {
            if (std::string problem = check_kernels(record, scenario); !problem.empty()) {
                return problem;
            }
        }
    }
    return "";
}

}  // namespace

ElementCount setup_elements(const std::string& key, std::uint64_t times) {
    return ElementCount{key, 0, false, times};
}

ElementCount fixed_elements(std::uint64_t usual, bool salted, std::uint64_t times) {
    return ElementCount{"", usual, salted, times};
}

IterationCount scenario_iterations(const std::string& key) {
    return IterationCount{key, true};
}

std::string why_no_gpu_is_not_believed(const Record& record) {
    if (record.gpu || !record.observed || record.observed->gpus.empty()) {
        return "";
    }
    return "the recording says it found no GPU (" + record.no_gpu_reason +
           "), but the harness read this machine's GPUs as " + gpus_the_harness_read(record) + kNotARealRun;
}

std::string why_not_a_real_run(const Record& record, const RecordedRuns& runs) {
    // In this order: the durations are weighed against samples already found to be of the run.
    const std::function<std::string()> checks[] = {
        [&] { return check_device(record); }, [&] { return check_observations(record); },
        [&] { return check_samples(record, runs); }, [&] { return check_calls(record); },
        [&] { return check_durations(record, runs); }};
    for (const auto& check : checks) {
        if (std::string problem = check(); !problem.empty()) {
            return problem + kNotARealRun;
        }
    }
    return "";
}

}  // namespace streamlab::record
