// lab06 program: streams the data through your run_stream (16 chunks, rings of
// 3 staging buffers, 3 results buffers and 3 device sets), checks the result,
// lists every buffer reused too early, sets the makespan against the model, and
// runs your sweep_chunks.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "host_side.hpp"
#include "lab06.hpp"
#include "ring_timeline.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/device.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/tracer.hpp"

namespace {

using namespace streamlab;
using namespace lab06::course;

constexpr RingShape kShape{16, 3, 3, 3};
const std::vector<int> kSweepCounts{2, 4, 8, 16, 32, 64, 128};

int run(const LabOptions& options) {
    const DeviceFacts facts = query_device_facts(0);
    HostStream host(pipeline_elements(facts.total_memory_bytes));
    const std::size_t n = host.input.size();
    std::vector<int> counts = kSweepCounts;
    counts.push_back(kShape.chunks);
    Rings rings(capacity_for(n, counts), kShape);
    const double h2d_ms = measure_h2d_ms(n * sizeof(float));
    const HostStream::AloneMs alone = host.measure_alone(rings, kShape.chunks);
    const int iterations = iterations_for_kernel_ms(n, std::max(h2d_ms, alone.fill + alone.drain));
    std::printf(
        "%s: %d copy engine(s), %zu MiB streamed; %d chunks, %d staging, %d results buffers, %d device sets\n"
        "alone: the host fills it in %.3f ms and drains it in %.3f ms; the whole H2D copy takes %.3f ms\n",
        facts.name.c_str(), facts.copy_engines, n * sizeof(float) >> 20, kShape.chunks, kShape.staging, kShape.results,
        kShape.device_sets, alone.fill, alone.drain, h2d_ms);

    const lab06::StreamingJob job = host.job(rings, kShape.chunks, iterations);
    SerialReference serial;
    LinkSharing link;
    if (tracing_off_reason().empty()) {
        PipelineMemory memory(n);
        std::copy(host.input.begin(), host.input.end(), memory.input.data());
        serial = run_serial_reference(memory, iterations);
        link = measure_link_sharing(memory);
        report_timeline(serial.timeline, "serial reference (pinned, whole data)", options, "serial");
    }
    lab06::run_stream(job);  // warm-up
    host.reset();
    const Timeline timeline = record_timeline("lab06 run_stream", [&] { lab06::run_stream(job); });
    const ResultCheck result =
        check_workload_output(host.input.data(), host.output.data(), n, iterations, kShape.chunks);
    report_timeline(timeline, "run_stream, 16 chunks", options);
    std::printf("run_stream: result: %s\n", result.message().c_str());

    if (timeline.recorded()) {
        const std::vector<HostUse> fills = host.fills(timeline.origin_ns), drains = host.drains(timeline.origin_ns);
        const RecordedRun run = pair_chunks(fills, drains, timeline.ops, n, kShape.chunks);
        if (!run.problem.empty()) {
            std::printf("the records do not show %d chunks: %s\n", kShape.chunks, run.problem.c_str());
        } else {
            const std::vector<std::string> hazards = reuse_hazards(run.chunks, kShape.device_sets);
            std::printf("buffer uses that began before the previous use ended: %zu\n", hazards.size());
            for (std::size_t i = 0; i < std::min<std::size_t>(hazards.size(), 5); ++i) {
                std::printf("  %s\n", hazards[i].c_str());
            }
            const double makespan = run_spans(fills, drains).front().ms();
            const double model =
                streaming_model_ms(serial.stages, alone.fill, alone.drain, kShape.chunks, kShape.device_sets,
                                   facts.copy_engines, issue_order(timeline.ops), link);
            std::printf(
                "first fill to last drain: %.3f ms; the model (host and GPU stages alone, interference between "
                "directions): %.3f ms; efficiency %.1f%%\nserial reference (pinned, GPU only): %.3f ms\n",
                makespan, model, 100.0 * model / makespan, static_cast<double>(makespan_ns(serial.timeline.ops)) / 1e6);
        }
    }

    host.reset();
    lab06::Sweep sweep;
    // Without the tracer (under compute-sanitizer) two counts call sweep_chunks, at a fraction of the time.
    const std::vector<int> sweep_counts = timeline.recorded() ? kSweepCounts : std::vector<int>{4, 16};
    const Timeline swept =
        record_timeline("lab06 sweep_chunks", [&] { sweep = lab06::sweep_chunks(job, sweep_counts); });
    const std::vector<RunSpan> spans = swept.recorded()
                                           ? run_spans(host.fills(swept.origin_ns), host.drains(swept.origin_ns))
                                           : std::vector<RunSpan>{};
    std::printf("sweep_chunks: your best N is %d\n", sweep.best_chunks);
    for (std::size_t i = 0; i < sweep.points.size(); ++i) {
        std::printf("  %4d chunks: you measured %8.3f ms", sweep.points[i].chunks, sweep.points[i].ms);
        if (i < spans.size()) {
            std::printf(", recorded first fill to last drain %8.3f ms", spans[i].ms());
        }
        std::printf("\n");
    }
    return result.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    return run_lab_program(argc, argv, "Lab 06: many chunks, few streams", run);
}
