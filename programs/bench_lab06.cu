// lab06_bench: what `course bench --lab 06` runs. Lab 06's reference solution
// streams the data through rings of 4 staging and 4 results buffers, cut into 4
// to 256 chunks over 2 and 4 streams, with a kernel as long as the whole H2D
// copy; each run is set against the serial run on the same data and against the
// model (ring_timeline.hpp: the host's fills and drains and the GPU's stages,
// each measured alone, the copies sharing the link as measured).
//
// Usage: lab06_bench [--out FILE.json] [--repeats R]
//   FILE.json: the chunk sweep (common/TRACE_FORMAT.md, "streamlab-chunks"),
//   which `course plot FILE.json` draws as speedup against chunks.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "host_side.hpp"
#include "lab06.hpp"
#include "ring_timeline.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/chunk_sweep.hpp"
#include "streamlab/device.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/tracer.hpp"

namespace {

using namespace streamlab;
using namespace lab06::course;

const std::vector<int> kChunkCounts{4, 8, 16, 32, 64, 128, 256};
const std::vector<int> kStreamCounts{2, 4};
constexpr int kRingBuffers = 4;       ///< Staging buffers, and results buffers.
constexpr int kOverheadRepeats = 11;  ///< Runs each way that the tracer's overhead is the median of.

/// The H200 targets at each stream count's best N (the course's issue 14).
constexpr double kTargetSpeedup = 2.5;
constexpr double kTargetEfficiency = 0.97;

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

struct Measured {
    double makespan_ms = 0;   ///< Median, first fill to last drain.
    std::size_t hazards = 0;  ///< Early reuses found over all repeats (the solution must have none).
};

/// `repeats` recorded runs of the solution with `chunks` chunks.
Measured measure(HostStream& host, Rings& rings, const RingShape& shape, int iterations, int repeats) {
    const lab06::StreamingJob job = host.job(rings, shape.chunks, iterations);
    lab06::run_stream(job);  // warm-up
    Measured measured;
    std::vector<double> spans;
    for (int r = 0; r < repeats; ++r) {
        host.reset();
        const Timeline timeline = record_timeline("lab06_bench", [&] { lab06::run_stream(job); });
        const ResultCheck check =
            check_workload_output(host.input.data(), host.output.data(), host.input.size(), iterations, shape.chunks);
        if (!check.ok) {
            throw std::runtime_error(std::to_string(shape.chunks) + " chunks: " + check.message());
        }
        const std::vector<HostUse> fills = host.fills(timeline.origin_ns), drains = host.drains(timeline.origin_ns);
        const RecordedRun run = pair_chunks(fills, drains, timeline.ops, host.input.size(), shape.chunks);
        if (!run.problem.empty()) {
            throw std::runtime_error(run.problem);
        }
        measured.hazards += reuse_hazards(run.chunks, shape.device_sets).size();
        spans.push_back(run_spans(fills, drains).front().ms());
    }
    measured.makespan_ms = median(spans);
    return measured;
}

/// The tracer's cost for the ring at every chunk count (the most streams), on the host
/// clock. It must come before anything else records (measure_tracer_overheads).
std::vector<TracerOverhead> ring_overheads(HostStream& host, std::size_t n, int iterations) {
    Rings rings(capacity_for(n, kChunkCounts),
                {kChunkCounts.front(), kRingBuffers, kRingBuffers, kStreamCounts.back()});
    std::vector<lab06::StreamingJob> jobs;
    for (const int chunks : kChunkCounts) {
        jobs.push_back(host.job(rings, chunks, iterations));
    }
    std::vector<std::function<double()>> runs;
    for (const lab06::StreamingJob& job : jobs) {
        runs.push_back([&host, &job] {
            host.reset();
            const auto started = std::chrono::steady_clock::now();
            lab06::run_stream(job);
            return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        });
    }
    return measure_tracer_overheads("lab06_bench: tracer overhead", kOverheadRepeats, runs);
}

int run_bench(const std::string& out_path, int repeats) {
    const DeviceFacts facts = query_device_facts(0);
    HostStream host(pipeline_elements(facts.total_memory_bytes));
    const std::size_t n = host.input.size();
    const double h2d_ms = measure_h2d_ms(n * sizeof(float));
    const int iterations = iterations_for_kernel_ms(n, h2d_ms);  // the kernel as long as the whole H2D copy
    const std::vector<TracerOverhead> overheads = ring_overheads(host, n, iterations);

    PipelineMemory memory(n);
    std::copy(host.input.begin(), host.input.end(), memory.input.data());
    std::vector<Timeline> serial_runs;
    for (int r = 0; r < repeats; ++r) {
        serial_runs.push_back(run_serial_reference(memory, iterations).timeline);
    }
    const Timeline serial = median_run(serial_runs);
    const StageTimes stages = stage_times(serial.ops);
    const double serial_ms = static_cast<double>(makespan_ns(serial.ops)) / 1e6;
    const LinkSharing link = measure_link_sharing(memory);
    std::printf(
        "%s, %d copy engine(s), %zu MiB: alone H2D %.3f ms, kernel %.3f ms, D2H %.3f ms; serial %.3f ms; "
        "H2D and D2H together keep %.0f%% and %.0f%% of their speed\n",
        facts.name.c_str(), facts.copy_engines, n * sizeof(float) >> 20, stages.h2d, stages.kernel, stages.d2h,
        serial_ms, 100 * link.h2d, 100 * link.d2h);

    ChunkSweep sweep;
    sweep.program = "lab06_bench: lab 06's solution, 4 to 256 chunks over 2 and 4 streams";
    sweep.device = facts;
    sweep.date = serial.date;
    sweep.summary = {{"bytes", static_cast<double>(n * sizeof(float))}, {"repeats", static_cast<double>(repeats)}};
    bool targets_met = true;
    std::size_t hazards = 0;
    for (const int streams : kStreamCounts) {
        const std::string name = std::to_string(streams) + " streams";
        Rings rings(capacity_for(n, kChunkCounts), {kChunkCounts.front(), kRingBuffers, kRingBuffers, streams});
        double best_ms = 0, best_model_ms = 0;
        int best_chunks = 0;
        for (const int chunks : kChunkCounts) {
            const RingShape shape{chunks, kRingBuffers, kRingBuffers, streams};
            const HostStream::AloneMs alone = host.measure_alone(rings, chunks);
            const Measured measured = measure(host, rings, shape, iterations, repeats);
            hazards += measured.hazards;
            const double gpu_model =
                streaming_model_ms(stages, 0, 0, chunks, streams, facts.copy_engines, IssueOrder::ChunkByChunk, link);
            const double model = streaming_model_ms(stages, alone.fill, alone.drain, chunks, streams,
                                                    facts.copy_engines, IssueOrder::ChunkByChunk, link);
            const double bound = std::max({alone.fill + alone.drain, stages.h2d, stages.kernel, stages.d2h});
            sweep.points.push_back({chunks, name, measured.makespan_ms, serial_ms, model, gpu_model, bound, stages.h2d,
                                    stages.kernel, stages.d2h});
            std::printf(
                "  %-9s %4d chunks: %8.3f ms  speedup %5.2fx  model %8.3f (efficiency %5.1f%%)  GPU-only "
                "shared-link model %8.3f  host alone: fills %7.3f, drains %7.3f ms\n",
                name.c_str(), chunks, measured.makespan_ms, serial_ms / measured.makespan_ms, model,
                100 * model / measured.makespan_ms, gpu_model, alone.fill, alone.drain);
            if (best_chunks == 0 || measured.makespan_ms < best_ms) {
                best_chunks = chunks;
                best_ms = measured.makespan_ms;
                best_model_ms = model;
            }
        }
        const double speedup = serial_ms / best_ms, efficiency = best_model_ms / best_ms;
        targets_met = targets_met && speedup >= kTargetSpeedup && efficiency >= kTargetEfficiency;
        std::printf(
            "%s: best at %d chunks, %.3f ms: %.2fx over serial (target on the H200: >= %.1fx), %.1f%% of "
            "the model (target: >= %.0f%%)\n",
            name.c_str(), best_chunks, best_ms, speedup, kTargetSpeedup, 100 * efficiency, 100 * kTargetEfficiency);
        sweep.summary["best_chunks_" + std::to_string(streams) + "_streams"] = best_chunks;
        sweep.summary["best_speedup_" + std::to_string(streams) + "_streams"] = speedup;
        sweep.summary["best_efficiency_" + std::to_string(streams) + "_streams"] = efficiency;
    }
    std::printf(
        "tracer overhead, %d streams (host clock, median of %d runs each way; target: < 3%% at every "
        "chunk count):\n",
        kStreamCounts.back(), kOverheadRepeats);
    targets_met = note_tracer_overheads(sweep, kChunkCounts, overheads) < 0.03 && targets_met;
    std::printf("buffers reused before their previous use ended, over every run: %zu (must be 0)\n", hazards);
    std::printf("targets %s\n", targets_met ? "met" : "NOT met");
    if (!out_path.empty()) {
        write_chunk_sweep(out_path, sweep);
        std::printf("chunk sweep written to %s\n", out_path.c_str());
    }
    return hazards == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    // Each line as it is printed, into a file too: a sweep of minutes shows how far it got.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::string out_path;
    int repeats = 5;
    bool usage_ok = true;
    for (int i = 1; i < argc && usage_ok; ++i) {
        const std::string option = argv[i];
        const bool has_value = i + 1 < argc;
        if (option == "--out" && has_value) {
            out_path = argv[++i];
        } else if (option == "--repeats" && has_value) {
            repeats = std::atoi(argv[++i]);
            usage_ok = repeats >= 1;
        } else {
            usage_ok = false;
        }
    }
    if (!usage_ok) {
        std::fprintf(stderr, "usage: %s [--out FILE.json] [--repeats R >= 1]\n", argv[0]);
        return 2;
    }
    return run_with_gpu(argv[0], [&] { return run_bench(out_path, repeats); });
}
