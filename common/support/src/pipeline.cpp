#include "streamlab/pipeline.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/analysis.hpp"
#include "streamlab/check.hpp"
#include "streamlab/device.hpp"
#include "streamlab/tracer.hpp"

namespace streamlab {

namespace {

bool by_correlation(const DeviceOp& a, const DeviceOp& b) {
    return a.correlation_id < b.correlation_id;
}

/// "H2D copy", "kernel", "D2H copy", or the op's own name for anything else.
std::string describe_kind(const DeviceOp& op) {
    switch (op.kind) {
        case OpKind::MemcpyH2D:
            return "an H2D copy";
        case OpKind::Kernel:
            return "a kernel";
        case OpKind::MemcpyD2H:
            return "a D2H copy";
        default:
            return "a " + std::string(op_base_name(op.kind));
    }
}

const char* describe_order(IssueOrder order) {
    return order == IssueOrder::ChunkByChunk ? "chunk by chunk" : "stage by stage";
}

}  // namespace

std::size_t pipeline_elements(std::size_t total_memory_bytes) {
    constexpr std::size_t kMiB = std::size_t{1} << 20;
    const std::size_t eighth = total_memory_bytes / 8 / kMiB * kMiB;  // whole MiB
    const std::size_t bytes = std::max(kMiB, std::min(kPipelineMaxBytes, eighth));
    return bytes / sizeof(float);
}

namespace {

/// The course's own measurements mean nothing without a timeline: with the
/// tracer off, they stop before doing any work.
void require_tracer() {
    if (const std::string off = tracing_off_reason(); !off.empty()) {
        throw TimelineUnavailable(off);
    }
}

}  // namespace

double run_serial_once(PipelineMemory& memory, int iterations) {
    const std::size_t n = memory.size();
    const std::size_t bytes = memory.input.bytes();
    Event start(cudaEventDefault), stop(cudaEventDefault);
    start.record();
    SL_CHECK(cudaMemcpy(memory.device_input.data(), memory.input.data(), bytes, cudaMemcpyHostToDevice));
    launch_workload(memory.device_input.data(), memory.device_output.data(), n, iterations, /*stream=*/nullptr);
    SL_CHECK(cudaMemcpy(memory.output.data(), memory.device_output.data(), bytes, cudaMemcpyDeviceToHost));
    stop.record();
    stop.synchronize();
    return elapsed_ms(start, stop);
}

SerialReference run_serial_reference(PipelineMemory& memory, int iterations) {
    require_tracer();
    SerialReference serial;
    serial.timeline = record_timeline("serial reference: H2D, kernel, D2H in the NULL stream",
                                      [&] { serial.event_ms = run_serial_once(memory, iterations); });
    serial.stages = stage_times(serial.timeline.ops);
    return serial;
}

namespace {

/// The fraction of its speed alone that a copy kept while the other direction ran
/// for `together_ms` of its `took_ms`: the work it did beside the other copy is
/// what was left after the part it ran alone, at full speed.
double kept_speed(double alone_ms, double took_ms, double together_ms) {
    const double fraction = (alone_ms - (took_ms - together_ms)) / together_ms;
    return std::clamp(fraction, 0.01, 1.0);
}

/// Of the two ops of `kind` in `ops`, the `index`-th in issue order; throws when
/// there are not exactly two.
DeviceOp nth_op(const std::vector<DeviceOp>& ops, OpKind kind, std::size_t index) {
    std::vector<DeviceOp> found = ops_of_kind(ops, kind);
    std::sort(found.begin(), found.end(), by_correlation);
    if (found.size() != 2) {
        throw std::runtime_error("measuring the shared link: expected two " + std::string(op_base_name(kind)) +
                                 " copies, the GPU ran " + std::to_string(found.size()));
    }
    return found[index];
}

}  // namespace

LinkSharing measure_link_sharing(PipelineMemory& memory) {
    require_tracer();
    const std::size_t bytes = memory.input.bytes();
    Stream to_device(cudaStreamNonBlocking);
    Stream to_host(cudaStreamNonBlocking);
    const auto copy_in = [&] {
        SL_CHECK(cudaMemcpyAsync(memory.device_input.data(), memory.input.data(), bytes, cudaMemcpyHostToDevice,
                                 to_device.get()));
    };
    const auto copy_out = [&] {
        SL_CHECK(cudaMemcpyAsync(memory.output.data(), memory.device_output.data(), bytes, cudaMemcpyDeviceToHost,
                                 to_host.get()));
    };
    // Each try times both copies alone and then together, a few milliseconds
    // apart, so that whatever else the machine is doing at that moment weighs on
    // both sides of the comparison.
    constexpr int kTries = 5;
    std::vector<double> h2d_kept, d2h_kept;
    for (int attempt = 0; attempt < kTries; ++attempt) {
        const Timeline timeline = record_timeline("H2D and D2H alone, then at the same time", [&] {
            copy_in();
            SL_CHECK(cudaStreamSynchronize(to_device.get()));
            copy_out();
            SL_CHECK(cudaStreamSynchronize(to_host.get()));
            copy_in();
            copy_out();
            SL_CHECK(cudaStreamSynchronize(to_device.get()));
            SL_CHECK(cudaStreamSynchronize(to_host.get()));
        });
        const DeviceOp h2d_alone = nth_op(timeline.ops, OpKind::MemcpyH2D, 0);
        const DeviceOp d2h_alone = nth_op(timeline.ops, OpKind::MemcpyD2H, 0);
        const DeviceOp h2d = nth_op(timeline.ops, OpKind::MemcpyH2D, 1);
        const DeviceOp d2h = nth_op(timeline.ops, OpKind::MemcpyD2H, 1);
        const double together_ms =
            std::max(0.0, ms(std::min(h2d.end_ns, d2h.end_ns)) - ms(std::max(h2d.start_ns, d2h.start_ns)));
        if (together_ms < 0.5 * std::min(ms(h2d.duration_ns()), ms(d2h.duration_ns()))) {
            return {};  // the copies took turns (one copy engine): nothing to share
        }
        h2d_kept.push_back(kept_speed(ms(h2d_alone.duration_ns()), ms(h2d.duration_ns()), together_ms));
        d2h_kept.push_back(kept_speed(ms(d2h_alone.duration_ns()), ms(d2h.duration_ns()), together_ms));
    }
    return {median(h2d_kept), median(d2h_kept)};
}

Timeline median_run(std::vector<Timeline> runs) {
    if (runs.empty()) {
        throw std::invalid_argument("median_run: no runs");
    }
    std::sort(runs.begin(), runs.end(),
              [](const Timeline& a, const Timeline& b) { return makespan_ns(a.ops) < makespan_ns(b.ops); });
    return runs[runs.size() / 2];
}

StageTimes stage_times(const std::vector<DeviceOp>& ops) {
    StageTimes stages;
    for (const DeviceOp& op : ops) {
        const double duration = ms(op.duration_ns());
        switch (unit_of(op.kind)) {
            case Unit::CopyH2D:
                stages.h2d += duration;
                break;
            case Unit::Compute:
                stages.kernel += duration;
                break;
            case Unit::CopyD2H:
                stages.d2h += duration;
                break;
            case Unit::Other:
                break;
        }
    }
    return stages;
}

IssueOrder issue_order(const std::vector<DeviceOp>& ops) {
    const std::vector<DeviceOp> copies = ops_of_kind(ops, OpKind::MemcpyH2D);
    const std::vector<DeviceOp> kernels = ops_of_kind(ops, OpKind::Kernel);
    if (copies.size() < 2 || kernels.empty()) {
        return IssueOrder::ChunkByChunk;
    }
    const auto last_copy = std::max_element(copies.begin(), copies.end(), by_correlation);
    const auto first_kernel = std::min_element(kernels.begin(), kernels.end(), by_correlation);
    return by_correlation(*last_copy, *first_kernel) ? IssueOrder::StageByStage : IssueOrder::ChunkByChunk;
}

PipelineChunks find_chunks(const std::vector<DeviceOp>& ops) {
    PipelineChunks found;
    if (ops.empty()) {
        found.problem = "the GPU ran nothing";
        return found;
    }
    std::map<std::uint32_t, std::vector<DeviceOp>> by_stream;
    for (const DeviceOp& op : ops) {
        if (op.stream_kind != StreamKind::Created) {
            found.problem = describe_kind(op) + " ran in the NULL stream; every chunk belongs in a stream you created";
            return found;
        }
        by_stream[op.stream_id].push_back(op);
    }
    for (auto& [stream, stream_ops] : by_stream) {
        std::sort(stream_ops.begin(), stream_ops.end(), by_correlation);  // issue order
        const bool shaped = stream_ops.size() == 3 && stream_ops[0].kind == OpKind::MemcpyH2D &&
                            stream_ops[1].kind == OpKind::Kernel && stream_ops[2].kind == OpKind::MemcpyD2H;
        if (!shaped) {
            std::string kinds;
            for (const DeviceOp& op : stream_ops) {
                kinds += (kinds.empty() ? "" : ", ") + describe_kind(op);
            }
            found.problem = "stream " + std::to_string(stream) + " ran " + kinds +
                            "; each stream should run one chunk: an H2D copy, a kernel, a D2H copy, in that order";
            return found;
        }
        found.chunks.push_back({stream_ops[0], stream_ops[1], stream_ops[2]});
    }
    std::sort(found.chunks.begin(), found.chunks.end(),
              [](const ChunkOps& a, const ChunkOps& b) { return by_correlation(a.h2d, b.h2d); });
    return found;
}

std::vector<DeviceOp> modelled_ops(const std::vector<SimulatedOp>& simulated) {
    std::vector<DeviceOp> ops;
    for (const SimulatedOp& op : simulated) {
        DeviceOp device_op;
        device_op.kind = op.stage == Stage::H2D   ? OpKind::MemcpyH2D
                         : op.stage == Stage::D2H ? OpKind::MemcpyD2H
                                                  : OpKind::Kernel;
        device_op.start_ns = static_cast<std::uint64_t>(op.start * 1e6);
        device_op.end_ns = static_cast<std::uint64_t>(op.end * 1e6);
        ops.push_back(device_op);
    }
    return ops;
}

PipelineChunks chunks_by_issue_order(const std::vector<DeviceOp>& ops, int chunks) {
    PipelineChunks found;
    std::vector<DeviceOp> stages[3] = {ops_of_kind(ops, OpKind::MemcpyH2D), ops_of_kind(ops, OpKind::Kernel),
                                       ops_of_kind(ops, OpKind::MemcpyD2H)};
    const char* names[3] = {"H2D copies", "kernels", "D2H copies"};
    for (int s = 0; s < 3; ++s) {
        if (stages[s].size() != static_cast<std::size_t>(chunks)) {
            found.problem = "the GPU ran " + std::to_string(stages[s].size()) + " " + names[s] + " for " +
                            std::to_string(chunks) +
                            " chunks; each chunk needs one H2D copy, one kernel and one D2H copy";
            return found;
        }
        std::sort(stages[s].begin(), stages[s].end(), by_correlation);  // issue order
    }
    for (int i = 0; i < chunks; ++i) {
        found.chunks.push_back({stages[0][i], stages[1][i], stages[2][i]});
    }
    return found;
}

PipelineComparison compare_with_model(const Timeline& serial, const Timeline& pipelined, int chunks, int copy_engines,
                                      const LinkSharing& link) {
    PipelineComparison c;
    c.chunks = chunks;
    c.streams = static_cast<int>(distinct_streams(pipelined.ops));
    c.copy_engines = copy_engines;
    c.order = issue_order(pipelined.ops);
    c.stages = stage_times(serial.ops);
    c.serial_ms = ms(makespan_ns(serial.ops));
    c.pipelined_ms = ms(makespan_ns(pipelined.ops));
    // One stream per chunk, as the three-chunk pipeline has; the simulation also follows the copy
    // engines' order of service, which matters when there is only one engine.
    c.model_ms = simulated_makespan(simulate_pipeline(c.stages, chunks, chunks, copy_engines, c.order));
    c.link = link;
    c.link_model_ms = simulated_makespan(simulate_pipeline(c.stages, chunks, chunks, copy_engines, c.order, link));
    c.bound_ms = pipeline_model(c.stages, chunks, copy_engines).bound;
    return c;
}

std::string describe(const PipelineComparison& c) {
    char text[1024];
    std::snprintf(text, sizeof text,
                  "  each stage alone: H2D %.3f ms, kernel %.3f ms, D2H %.3f ms\n"
                  "  serial (NULL stream): %.3f ms; %d chunks in %d stream%s: %.3f ms\n"
                  "  speedup %.2fx; the model's: %.2fx (%.3f ms with %d copy engine%s, issued %s)\n"
                  "  efficiency against the model: %.1f%%; bound %.3f ms (the busiest engine's total: no chunk count "
                  "goes faster)\n",
                  c.stages.h2d, c.stages.kernel, c.stages.d2h, c.serial_ms, c.chunks, c.streams,
                  c.streams == 1 ? "" : "s", c.pipelined_ms, c.speedup(), c.model_speedup(), c.model_ms, c.copy_engines,
                  c.copy_engines == 1 ? "" : "s", describe_order(c.order), 100.0 * c.efficiency(), c.bound_ms);
    std::string described = text;
    if (c.link.h2d < 1 || c.link.d2h < 1) {
        std::snprintf(text, sizeof text,
                      "  H2D and D2H at the same time keep %.0f%% and %.0f%% of their speed alone (each slows the "
                      "other);\n  with that, the model allows %.3f ms: efficiency %.1f%%\n",
                      100.0 * c.link.h2d, 100.0 * c.link.d2h, c.link_model_ms, 100.0 * c.link_efficiency());
        described += text;
    }
    return described;
}

PreparedPipeline prepare_pipeline(const DeviceFacts& facts, double kernel_to_copy) {
    PreparedPipeline prepared{PipelineMemory(pipeline_elements(facts.total_memory_bytes)), 1};
    PipelineMemory& memory = prepared.memory;
    fill_input(memory.input.data(), memory.size());
    prepared.iterations =
        iterations_for_kernel_ms(memory.size(), kernel_to_copy * measure_h2d_ms(memory.input.bytes()));
    return prepared;
}

// How: sizes the data (pipeline_elements) and the kernel (about as long as the
// whole H2D copy, times `kernel_to_copy`), runs the serial reference, measures how
// the copy directions share the link (measure_link_sharing), then runs `pipelined`
// once to warm up and three times while a Tracer records, checks the output of
// each (every chunk's first and last element among others) and keeps the run
// with the median makespan.
PipelineRun record_pipeline_run(int chunks, const std::function<void(PipelineMemory&, int)>& pipelined,
                                double kernel_to_copy) {
    const DeviceFacts facts = query_device_facts(0);
    PreparedPipeline prepared = prepare_pipeline(facts, kernel_to_copy);
    PipelineMemory& memory = prepared.memory;
    const std::size_t n = memory.size();
    const int iterations = prepared.iterations;

    PipelineRun run;
    // Without the tracer (--no-trace, for compute-sanitizer) there is nothing to
    // compare: the pipeline runs once after its warm-up and its output is checked.
    const bool traced = tracing_off_reason().empty();
    LinkSharing link;
    if (traced) {
        run.serial = run_serial_reference(memory, iterations);
        link = measure_link_sharing(memory);
    }
    pipelined(memory, iterations);  // warm-up: the first run of a program pays one-time costs
    const int recorded_runs = traced ? 3 : 1;
    std::vector<Timeline> runs;
    for (int r = 0; r < recorded_runs; ++r) {
        fill_poison(memory.output.data(), n);
        runs.push_back(
            record_timeline("pipeline: " + std::to_string(chunks) + " chunks", [&] { pipelined(memory, iterations); }));
        const ResultCheck result =
            check_workload_output(memory.input.data(), memory.output.data(), n, iterations, chunks);
        if (r == 0 || (run.result.ok && !result.ok)) {
            run.result = result;  // the first problem found, or the first run's all-clear
        }
    }
    run.pipelined = median_run(std::move(runs));
    // Named after the run, by the streams it really used: not every pipeline gives each chunk its own stream.
    if (run.pipelined.recorded()) {
        const std::size_t streams = distinct_streams(run.pipelined.ops);
        run.pipelined.program += " in " + std::to_string(streams) + (streams == 1 ? " stream" : " streams");
    }
    if (traced) {
        run.comparison = compare_with_model(run.serial.timeline, run.pipelined, chunks, facts.copy_engines, link);
    }
    return run;
}

}  // namespace streamlab
