// lab05_bench: what `course bench` runs. Lab 05's reference solution, cut into
// 1 to 256 chunks, with a light, a balanced and a heavy kernel, each set against
// the serial run on the same data, against the ideal pipeline model, and against
// the model in which H2D and D2H copies slow each other down (the interference
// between directions) as measured in the same run. Also measures how much recording a timeline slows the pipeline down,
// against what CUPTI's activity records alone cost.
//
// Usage: lab05_bench [--out FILE.json] [--repeats R]
//   FILE.json: the chunk sweep (common/TRACE_FORMAT.md, "streamlab-chunks"),
//   which `course plot FILE.json` draws as speedup against chunks.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab05.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/chunk_sweep.hpp"
#include "streamlab/device.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/tracer.hpp"

namespace {

using namespace streamlab;

const std::vector<int> kChunkCounts{1, 2, 3, 4, 8, 16, 32, 64, 128, 256};

/// How heavy the kernel is: its time over the whole H2D copy's time.
struct Intensity {
    const char* name;
    double kernel_to_copy;
};
constexpr Intensity kIntensities[] = {{"copy-bound", 0.25}, {"balanced", 1.0}, {"compute-bound", 4.0}};
/// The article's case, which the efficiency target is about: kernel and copies about equal.
constexpr const char* kArticleIntensity = "balanced";
/// The target for it at 3 chunks: this share of the speed of the model in which
/// the copy directions slow each other as measured (the interference model).
constexpr double kTargetOfInterferenceModel = 0.98;

/// Runs of the pipeline that the tracer overhead is the median of.
constexpr int kOverheadRepeats = 21;

/// The pipeline's time on the host clock: from the first call to the last wait, in ms.
double host_ms(const lab05::PipelineJob& job, int chunks) {
    const auto started = std::chrono::steady_clock::now();
    (void)lab05::run_pipeline(job, chunks);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
}

/// The sweep's points for one kernel intensity; every configuration is run
/// `repeats` times and the run with the median makespan is kept. Each point is set
/// against two models: the ideal one (copy directions independent) and the one in
/// which H2D and D2H slow each other down as measured here (the interference
/// between directions), next to the serial runs.
std::vector<ChunkSweepPoint> sweep_intensity(PipelineMemory& memory, int iterations, const Intensity& intensity,
                                             int repeats, int copy_engines, std::string& date,
                                             LinkSharing& link_measured) {
    std::vector<Timeline> serial_runs;
    for (int r = 0; r < repeats; ++r) {
        serial_runs.push_back(run_serial_reference(memory, iterations).timeline);
    }
    const Timeline serial = median_run(serial_runs);
    date = serial.date;
    const LinkSharing link = measure_link_sharing(memory);
    link_measured = link;
    std::printf("  %-13s H2D and D2H together keep %.1f%% and %.1f%% of their speed alone\n", intensity.name,
                100.0 * link.h2d, 100.0 * link.d2h);
    const lab05::PipelineJob job = job_over<lab05::PipelineJob>(memory, iterations);
    for (const int chunks : kChunkCounts) {
        (void)lab05::run_pipeline(job, chunks);  // warm-up: creates this many streams once
    }
    // Each round records every chunk count once, so the repeats of one configuration
    // are spread over the whole sweep: a moment when something else loads the
    // machine spoils at most one of them, and the median leaves it out.
    std::map<int, std::vector<Timeline>> runs;
    for (int r = 0; r < repeats; ++r) {
        for (const int chunks : kChunkCounts) {
            fill_poison(memory.output.data(), memory.size());
            runs[chunks].push_back(record_timeline("lab05_bench", [&] { (void)lab05::run_pipeline(job, chunks); }));
            const ResultCheck check =
                check_workload_output(memory.input.data(), memory.output.data(), memory.size(), iterations, chunks);
            if (!check.ok) {
                throw std::runtime_error(std::to_string(chunks) + " chunks gave a wrong result: " + check.message());
            }
        }
    }
    std::vector<ChunkSweepPoint> points;
    for (const int chunks : kChunkCounts) {
        const PipelineComparison c = compare_with_model(serial, median_run(runs[chunks]), chunks, copy_engines, link);
        points.push_back({chunks, intensity.name, c.pipelined_ms, c.serial_ms, c.model_ms, c.link_model_ms, c.bound_ms,
                          c.stages.h2d, c.stages.kernel, c.stages.d2h});
        std::printf(
            "  %-13s %3d chunks: %8.3f ms  model %8.3f  interference %8.3f  bound %8.3f  speedup %5.2fx "
            "(model %5.2fx)  efficiency %5.1f%% (interference %5.1f%%)\n",
            intensity.name, chunks, c.pipelined_ms, c.model_ms, c.link_model_ms, c.bound_ms, c.speedup(),
            c.model_speedup(), 100.0 * c.efficiency(), 100.0 * c.link_efficiency());
    }
    return points;
}

/// The balanced three-chunk run once more, against the model fed with its own
/// op durations rather than with the stages measured alone: what is left is
/// time lost between operations, not operations slowed down by running together.
double scheduling_efficiency(PipelineMemory& memory, int iterations, int copy_engines) {
    const lab05::PipelineJob job = job_over<lab05::PipelineJob>(memory, iterations);
    const Timeline run = record_timeline("lab05_bench", [&] { (void)lab05::run_pipeline(job, lab05::kChunks); });
    const std::vector<SimulatedOp> modelled =
        simulate_pipeline(stage_times(run.ops), lab05::kChunks, lab05::kChunks, copy_engines, issue_order(run.ops));
    return simulated_makespan(modelled) / (static_cast<double>(makespan_ns(run.ops)) / 1e6);
}

int run_bench(const std::string& out_path, int repeats) {
    const DeviceFacts facts = query_device_facts(0);
    PipelineMemory memory(pipeline_elements(facts.total_memory_bytes));
    fill_input(memory.input.data(), memory.size());
    const double h2d_ms = measure_h2d_ms(memory.input.bytes());
    std::printf("%s, %d copy engine(s): %zu MiB each way, the whole H2D copy takes %.3f ms\n", facts.name.c_str(),
                facts.copy_engines, memory.input.bytes() >> 20, h2d_ms);

    ChunkSweep sweep;
    sweep.program = "lab05_bench: lab 05's solution, 1 to 256 chunks";
    sweep.device = facts;
    const int balanced_iterations = iterations_for_kernel_ms(memory.size(), h2d_ms);
    const lab05::PipelineJob overhead_job = job_over<lab05::PipelineJob>(memory, balanced_iterations);
    // The tracer's cost at every chunk count, measured before anything else records (measure_tracer_overheads).
    std::vector<std::function<double()>> pipelines;
    for (const int chunks : kChunkCounts) {
        pipelines.push_back([&overhead_job, chunks] { return host_ms(overhead_job, chunks); });
    }
    const std::vector<TracerOverhead> overheads =
        measure_tracer_overheads("lab05_bench: tracer overhead", kOverheadRepeats, pipelines);

    double efficiency_3 = 0;
    double link_efficiency_3 = 0;
    LinkSharing link_balanced;
    for (const Intensity& intensity : kIntensities) {
        const int iterations = iterations_for_kernel_ms(memory.size(), intensity.kernel_to_copy * h2d_ms);
        LinkSharing link;
        for (const ChunkSweepPoint& point :
             sweep_intensity(memory, iterations, intensity, repeats, facts.copy_engines, sweep.date, link)) {
            sweep.points.push_back(point);
            if (point.chunks == lab05::kChunks && point.intensity == kArticleIntensity) {
                efficiency_3 = point.model_ms / point.makespan_ms;
                link_efficiency_3 = point.link_model_ms / point.makespan_ms;
                link_balanced = link;
            }
        }
    }
    const double scheduling_3 = scheduling_efficiency(memory, balanced_iterations, facts.copy_engines);

    const auto chunk_index = static_cast<std::size_t>(
        std::find(kChunkCounts.begin(), kChunkCounts.end(), lab05::kChunks) - kChunkCounts.begin());
    const TracerOverhead& overhead = overheads[chunk_index];
    const double overhead_fraction = overhead.traced_ms / overhead.untraced_ms - 1.0;
    sweep.summary = {{"bytes", static_cast<double>(memory.input.bytes())},
                     {"repeats", static_cast<double>(repeats)},
                     {"efficiency_3_chunks_balanced", efficiency_3},
                     {"efficiency_3_chunks_balanced_shared_link", link_efficiency_3},
                     {"link_h2d_speed_kept", link_balanced.h2d},
                     {"link_d2h_speed_kept", link_balanced.d2h},
                     {"efficiency_3_chunks_balanced_own_stage_times", scheduling_3},
                     {"tracer_untraced_ms", overhead.untraced_ms},
                     {"tracer_cupti_only_ms", overhead.cupti_only_ms},
                     {"tracer_traced_ms", overhead.traced_ms},
                     {"tracer_overhead", overhead_fraction}};
    const bool target_met = link_efficiency_3 >= kTargetOfInterferenceModel;
    std::printf(
        "3 chunks, balanced: %.1f%% of the interference model's speed (the copy directions slowing each other as "
        "measured; target: >= %.0f%%): %s;\n  %.1f%% of the ideal model (copy directions independent); "
        "%.1f%% against its own op durations\n",
        100.0 * link_efficiency_3, 100.0 * kTargetOfInterferenceModel, target_met ? "met" : "NOT met",
        100.0 * efficiency_3, 100.0 * scheduling_3);
    std::printf(
        "the recording's cost, balanced kernel (host clock, median of %d runs each way): CUPTI's own cost of "
        "timing every op, and what the course's recorder adds to it\n",
        kOverheadRepeats);
    note_tracer_overheads(sweep, kChunkCounts, overheads);
    if (!out_path.empty()) {
        write_chunk_sweep(out_path, sweep);
        std::printf("chunk sweep written to %s\n", out_path.c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // Each line as it is printed, into a file too: a sweep of minutes shows how far it got.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::string out_path;
    int repeats = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--out" && i + 1 < argc) {
            out_path = argv[++i];
        } else if (arg == "--repeats" && i + 1 < argc) {
            repeats = std::atoi(argv[++i]);
        } else {
            repeats = 0;  // marks a bad command line
        }
        if (repeats < 1) {
            std::fprintf(stderr, "usage: %s [--out FILE.json] [--repeats R >= 1]\n", argv[0]);
            return 2;
        }
    }
    const GpuPresence presence = query_gpu_presence();
    if (!presence.available) {
        std::fprintf(stderr, "%s: the benchmark needs an NVIDIA GPU: %s\n", argv[0], presence.reason.c_str());
        return 1;
    }
    try {
        return run_bench(out_path, repeats);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "%s: %s\n", argv[0], error.what());
        return 1;
    }
}
