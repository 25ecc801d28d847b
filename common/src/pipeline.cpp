#include "streamlab/pipeline.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>

#include "streamlab/analysis.hpp"
#include "streamlab/check.hpp"
#include "streamlab/device.hpp"
#include "streamlab/tracer.hpp"

namespace streamlab {

namespace {

double ms(std::uint64_t ns) { return static_cast<double>(ns) / 1e6; }

bool by_correlation(const DeviceOp& a, const DeviceOp& b) { return a.correlation_id < b.correlation_id; }

/// "H2D copy", "kernel", "D2H copy", or the op's own name for anything else.
std::string describe_kind(const DeviceOp& op) {
    switch (op.kind) {
        case OpKind::MemcpyH2D: return "an H2D copy";
        case OpKind::Kernel: return "a kernel";
        case OpKind::MemcpyD2H: return "a D2H copy";
        default: return "a " + std::string(op_base_name(op.kind));
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

SerialReference run_serial_reference(PipelineMemory& memory, int iterations) {
    const std::size_t n = memory.size();
    const std::size_t bytes = memory.input.bytes();
    SerialReference serial;
    Event start(cudaEventDefault), stop(cudaEventDefault);
    serial.timeline = record_timeline("serial reference: H2D, kernel, D2H in the NULL stream", [&] {
        start.record();
        SL_CHECK(cudaMemcpy(memory.device_input.data(), memory.input.data(), bytes, cudaMemcpyHostToDevice));
        launch_workload(memory.device_input.data(), memory.device_output.data(), n, iterations, /*stream=*/nullptr);
        SL_CHECK(cudaMemcpy(memory.output.data(), memory.device_output.data(), bytes, cudaMemcpyDeviceToHost));
        stop.record();
        stop.synchronize();
    });
    serial.event_ms = elapsed_ms(start, stop);
    serial.stages = stage_times(serial.timeline.ops);
    return serial;
}

StageTimes stage_times(const std::vector<DeviceOp>& ops) {
    StageTimes stages;
    for (const DeviceOp& op : ops) {
        const double duration = ms(op.duration_ns());
        switch (unit_of(op.kind)) {
            case Unit::CopyH2D: stages.h2d += duration; break;
            case Unit::Compute: stages.kernel += duration; break;
            case Unit::CopyD2H: stages.d2h += duration; break;
            case Unit::Other: break;
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

PipelineComparison compare_with_model(const Timeline& serial, const Timeline& pipelined, int chunks,
                                      int copy_engines) {
    PipelineComparison c;
    c.chunks = chunks;
    c.copy_engines = copy_engines;
    c.order = issue_order(pipelined.ops);
    c.stages = stage_times(serial.ops);
    c.serial_ms = ms(makespan_ns(serial.ops));
    c.pipelined_ms = ms(makespan_ns(pipelined.ops));
    // One stream per chunk, as lab 05 asks; the simulation also follows the copy
    // engines' order of service, which matters when there is only one engine.
    c.model_ms = simulated_makespan(simulate_pipeline(c.stages, chunks, chunks, copy_engines, c.order));
    c.bound_ms = pipeline_model(c.stages, chunks, copy_engines).bound;
    return c;
}

std::string describe(const PipelineComparison& c) {
    char text[1024];
    std::snprintf(text, sizeof text,
                  "  each stage alone: H2D %.3f ms, kernel %.3f ms, D2H %.3f ms\n"
                  "  serial (NULL stream): %.3f ms; %d chunks in %d streams: %.3f ms\n"
                  "  speedup %.2fx; the model's: %.2fx (%.3f ms with %d copy engine%s, issued %s)\n"
                  "  efficiency against the model: %.1f%%; no chunk count beats the bound, %.3f ms\n",
                  c.stages.h2d, c.stages.kernel, c.stages.d2h, c.serial_ms, c.chunks, c.chunks, c.pipelined_ms,
                  c.speedup(), c.model_speedup(), c.model_ms, c.copy_engines, c.copy_engines == 1 ? "" : "s",
                  describe_order(c.order), 100.0 * c.efficiency(), c.bound_ms);
    return text;
}

PipelineRun record_pipeline_run(int chunks, const std::function<void(PipelineMemory&, int)>& pipelined,
                                double kernel_to_copy) {
    const DeviceFacts facts = query_device_facts(0);
    PipelineMemory memory(pipeline_elements(facts.total_memory_bytes));
    const std::size_t n = memory.size();
    fill_input(memory.input.data(), n);
    const int iterations = iterations_for_kernel_ms(n, kernel_to_copy * measure_h2d_ms(memory.input.bytes()));

    PipelineRun run;
    run.serial = run_serial_reference(memory, iterations);
    pipelined(memory, iterations);  // warm-up: the first run of a program pays one-time costs
    fill_poison(memory.output.data(), n);
    run.pipelined = record_timeline("pipeline: " + std::to_string(chunks) + " chunks in " + std::to_string(chunks) +
                                        " streams",
                                    [&] { pipelined(memory, iterations); });
    run.result = check_workload_output(memory.input.data(), memory.output.data(), n, iterations, chunks);
    run.comparison = compare_with_model(run.serial.timeline, run.pipelined, chunks, facts.copy_engines);
    return run;
}

}  // namespace streamlab
