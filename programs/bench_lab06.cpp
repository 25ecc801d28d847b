// lab06_bench: what `course bench --lab 06` runs. Lab 06's reference solution
// streams the data through rings of 4 staging and 4 results buffers, cut into 4
// to 256 chunks over 2 and 4 streams, with a kernel as long as the whole H2D
// copy. Each run is set against the serial run of the same work (the host fills
// everything, then the copy in, the kernel and the copy out, then the host drains
// everything), run a moment before; against the bound (the busiest unit's total,
// where the host's unit is its one thread: the fills, the drains and the CUDA
// calls that hand out the work, but not its waits for the GPU); and against the
// model (ring_timeline.hpp, with the interference between the copy directions as
// measured). The host's stages come from the run's own fills, drains and waits,
// the GPU's from the serial run.
// The ring runs with nothing recorded for these (the recorder slows every CUDA
// call the host makes, a cost reported on its own at the end); a recorded run of
// each configuration checks that no buffer is reused before its last use ended.
//
// Usage: lab06_bench [--out FILE.json] [--repeats R]
//   FILE.json: the chunk sweep (common/TRACE_FORMAT.md, "streamlab-chunks"),
//   which `course plot FILE.json` draws as speedup against chunks.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

/// The host's time inside the CUDA calls that wait for the GPU, summed, in ns.
std::atomic<long long> waited_ns{0};

}  // namespace

// How long the ring's host thread waits for the GPU, measured without touching the
// solution: lab06_bench is linked with --wrap for the two waiting calls (see
// programs/CMakeLists.txt), so every call of cudaEventSynchronize or
// cudaStreamSynchronize in it reaches these, which time the real call. The names
// are the linker's convention.
extern "C" cudaError_t __real_cudaEventSynchronize(cudaEvent_t event);
extern "C" cudaError_t __real_cudaStreamSynchronize(cudaStream_t stream);

extern "C" cudaError_t __wrap_cudaEventSynchronize(cudaEvent_t event) {
    const auto started = std::chrono::steady_clock::now();
    const cudaError_t status = __real_cudaEventSynchronize(event);
    waited_ns +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count();
    return status;
}

extern "C" cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t stream) {
    const auto started = std::chrono::steady_clock::now();
    const cudaError_t status = __real_cudaStreamSynchronize(stream);
    waited_ns +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count();
    return status;
}

namespace {

using namespace streamlab;
using namespace lab06::course;

const std::vector<int> kChunkCounts{4, 8, 16, 32, 64, 128, 256};
const std::vector<int> kStreamCounts{2, 4};
constexpr int kRingBuffers = 4;       ///< Staging buffers, and results buffers.
constexpr int kOverheadRepeats = 11;  ///< Runs each way that the tracer's overhead is the median of.

/// The target at each stream count's best N: this share of the bound's speed.
constexpr double kTargetOfBound = 0.95;

double ms_between(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// The serial run of the same work: the host fills the whole input into pinned
/// memory, the GPU copies it in, runs the kernel and copies it out (lab 01's way),
/// and the host drains the whole output, each step after the one before.
struct SerialWork {
    double fill_ms = 0;   ///< The host writing the whole input.
    double gpu_ms = 0;    ///< The GPU's three ops, first start to last end.
    StageTimes stages;    ///< Each of them, alone.
    double drain_ms = 0;  ///< The host reading the whole output.
    std::string date;     ///< When the GPU's part was recorded.
    [[nodiscard]] double total_ms() const { return fill_ms + gpu_ms + drain_ms; }
};

SerialWork run_serial_work(HostStream& host, PipelineMemory& memory, int iterations) {
    const std::size_t bytes = memory.input.bytes();
    SerialWork serial;
    auto started = std::chrono::steady_clock::now();
    std::memcpy(memory.input.data(), host.input.data(), bytes);  // what produce does, all at once
    serial.fill_ms = ms_between(started);
    const Timeline gpu = run_serial_reference(memory, iterations).timeline;
    serial.gpu_ms = static_cast<double>(makespan_ns(gpu.ops)) / 1e6;
    serial.stages = stage_times(gpu.ops);
    serial.date = gpu.date;
    started = std::chrono::steady_clock::now();
    std::memcpy(host.output.data(), memory.output.data(), bytes);  // what consume does, all at once
    serial.drain_ms = ms_between(started);
    return serial;
}

/// One run of the ring, with the host's side of it as the host's own records give it.
struct RingRun {
    double makespan_ms = 0;   ///< First fill to last drain.
    double fill_ms = 0;       ///< The host's fills in this run, summed.
    double drain_ms = 0;      ///< Its drains, summed.
    double wait_ms = 0;       ///< Its waits for the GPU (synchronize calls), summed (unrecorded runs only).
    std::size_t hazards = 0;  ///< Buffers reused too early, found from the records (recorded runs only).
    /// The host's time in the run outside its own fills and drains: its CUDA calls and its waits.
    [[nodiscard]] double outside_host_stages_ms() const { return makespan_ms - fill_ms - drain_ms; }
    /// The time its other CUDA calls took: what is left outside fills, drains and waits.
    [[nodiscard]] double calls_ms() const { return outside_host_stages_ms() - wait_ms; }
    /// What the host's one thread had to do: fill, drain, and make the calls that hand out the work.
    [[nodiscard]] double host_work_ms() const { return fill_ms + drain_ms + calls_ms(); }
};

void check_output(const HostStream& host, const lab06::StreamingJob& job, int chunks) {
    const ResultCheck check =
        check_workload_output(host.input.data(), host.output.data(), host.input.size(), job.iterations, chunks);
    if (!check.ok) {
        throw std::runtime_error(std::to_string(chunks) + " chunks: " + check.message());
    }
}

RingRun host_side_of(const std::vector<HostUse>& fills, const std::vector<HostUse>& drains) {
    RingRun run;
    run.makespan_ms = run_spans(fills, drains).front().ms();
    run.fill_ms = host_busy_ms(fills);
    run.drain_ms = host_busy_ms(drains);
    return run;
}

/// A run with nothing recorded: the ring's own speed, which the bound and the model are set against.
RingRun run_ring_unrecorded(HostStream& host, const lab06::StreamingJob& job, int chunks) {
    host.reset();
    waited_ns = 0;
    lab06::run_stream(job);
    const double wait_ms = static_cast<double>(waited_ns.load()) / 1e6;
    check_output(host, job, chunks);
    RingRun run = host_side_of(host.fills(0), host.drains(0));
    run.wait_ms = wait_ms;
    return run;
}

/// A recorded run: its records show any buffer reused before its previous use ended.
RingRun run_ring_recorded(HostStream& host, const lab06::StreamingJob& job, const RingShape& shape) {
    host.reset();
    const Timeline timeline = record_timeline("lab06_bench", [&] { lab06::run_stream(job); });
    check_output(host, job, shape.chunks);
    const std::vector<HostUse> fills = host.fills(timeline.origin_ns), drains = host.drains(timeline.origin_ns);
    const RecordedRun recorded = pair_chunks(fills, drains, timeline.ops, host.input.size(), shape.chunks);
    if (!recorded.problem.empty()) {
        throw std::runtime_error(recorded.problem);
    }
    RingRun run = host_side_of(fills, drains);
    run.hazards = reuse_hazards(recorded.chunks, shape.device_sets).size();
    return run;
}

/// One configuration, measured: each of `repeats` rounds runs the serial work, the
/// ring with nothing recorded and the ring recorded, so that all three see the host
/// as it is at that moment. Keeps the runs of each kind with the median makespan
/// (the serial run with the median total).
struct Point {
    RingRun ring;      ///< Nothing recorded: set against the serial run, the bound and the model.
    RingRun recorded;  ///< Recorded: its records show buffers reused too early; its makespan, what recording costs.
    SerialWork serial;
    std::size_t hazards = 0;  ///< Over every recorded repeat.
};

Point measure(HostStream& host, PipelineMemory& memory, Rings& rings, const RingShape& shape, int iterations,
              int repeats) {
    const lab06::StreamingJob job = host.job(rings, shape.chunks, iterations);
    lab06::run_stream(job);  // warm-up
    std::vector<RingRun> unrecorded, recorded;
    std::vector<SerialWork> serials;
    Point point;
    for (int r = 0; r < repeats; ++r) {
        serials.push_back(run_serial_work(host, memory, iterations));
        unrecorded.push_back(run_ring_unrecorded(host, job, shape.chunks));
        recorded.push_back(run_ring_recorded(host, job, shape));
        point.hazards += recorded.back().hazards;
    }
    const auto middle = [](auto runs, auto key) {
        std::sort(runs.begin(), runs.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
        return runs[runs.size() / 2];
    };
    const auto by_makespan = [](const RingRun& run) { return run.makespan_ms; };
    point.ring = middle(unrecorded, by_makespan);
    point.recorded = middle(recorded, by_makespan);
    point.serial = middle(serials, [](const SerialWork& run) { return run.total_ms(); });
    return point;
}

/// The tracer's cost for the ring at every chunk count (the most streams), on the host
/// clock: the host's time outside its fills and drains, where the recorder's work
/// (on every CUDA call and every op) lands. The fills and drains themselves vary by
/// a fifth from run to run with the memory system, which would drown it.
/// It must come before anything else records (measure_tracer_overheads).
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
            lab06::run_stream(job);
            return host_side_of(host.fills(0), host.drains(0)).outside_host_stages_ms();
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
    const LinkSharing link = measure_link_sharing(memory);
    std::printf(
        "%s, %d copy engine(s), %zu MiB; H2D and D2H together keep %.0f%% and %.0f%% of their speed alone (the "
        "interference between directions)\n"
        "each point: the serial run of the same work (host fills all, H2D, kernel, D2H, host drains all), the ring "
        "with nothing recorded (set against the serial run, the bound and the model), and the ring recorded (its "
        "records checked for buffers reused too early); medians of %d rounds\n"
        "the bound: the busiest unit's total, the host's unit being its one thread's fills, drains and CUDA calls "
        "(its waits for the GPU are the time a better schedule could win back)\n",
        facts.name.c_str(), facts.copy_engines, n * sizeof(float) >> 20, 100 * link.h2d, 100 * link.d2h, repeats);

    ChunkSweep sweep;
    sweep.program = "lab06_bench: lab 06's solution, 4 to 256 chunks over 2 and 4 streams";
    sweep.device = facts;
    sweep.summary = {{"bytes", static_cast<double>(n * sizeof(float))}, {"repeats", static_cast<double>(repeats)}};
    bool targets_met = true, beat_the_bound = false;
    std::size_t hazards = 0;
    for (const int streams : kStreamCounts) {
        const std::string name = std::to_string(streams) + " streams";
        Rings rings(capacity_for(n, kChunkCounts), {kChunkCounts.front(), kRingBuffers, kRingBuffers, streams});
        double best_ms = 0, best_of_bound = 0, best_speedup = 0;
        int best_chunks = 0;
        for (const int chunks : kChunkCounts) {
            const RingShape shape{chunks, kRingBuffers, kRingBuffers, streams};
            const Point p = measure(host, memory, rings, shape, iterations, repeats);
            hazards += p.hazards;
            if (sweep.date.empty()) {
                sweep.date = p.serial.date;
            }
            const StageTimes& gpu = p.serial.stages;
            const double bound = streaming_bound_ms(gpu, p.ring.host_work_ms(), facts.copy_engines);
            const double model = streaming_model_ms(gpu, p.ring.fill_ms, p.ring.drain_ms, chunks, streams,
                                                    facts.copy_engines, IssueOrder::ChunkByChunk, link);
            const double of_bound = bound / p.ring.makespan_ms, speedup = p.serial.total_ms() / p.ring.makespan_ms;
            beat_the_bound = beat_the_bound || of_bound > 1.0;
            sweep.points.push_back({chunks, name, p.ring.makespan_ms, p.serial.total_ms(), model, 0.0, bound, gpu.h2d,
                                    gpu.kernel, gpu.d2h});
            std::printf(
                "  %-9s %4d chunks: %8.3f ms (host: fills %7.3f, drains %7.3f, calls %6.3f, waits %6.3f); serial %8.3f "
                "ms "
                "(fills %7.3f, GPU %6.3f, drains %7.3f): %5.2fx; bound %8.3f ms: %5.1f%% of it; model %8.3f ms: "
                "%5.1f%%; recorded: %8.3f ms\n",
                name.c_str(), chunks, p.ring.makespan_ms, p.ring.fill_ms, p.ring.drain_ms, p.ring.calls_ms(),
                p.ring.wait_ms, p.serial.total_ms(), p.serial.fill_ms, p.serial.gpu_ms, p.serial.drain_ms, speedup,
                bound, 100 * of_bound, model, 100 * model / p.ring.makespan_ms, p.recorded.makespan_ms);
            if (best_chunks == 0 || p.ring.makespan_ms < best_ms) {
                best_chunks = chunks;
                best_ms = p.ring.makespan_ms;
                best_of_bound = of_bound;
                best_speedup = speedup;
            }
        }
        targets_met = targets_met && best_of_bound >= kTargetOfBound;
        std::printf(
            "%s: best at %d chunks, %.3f ms: %.2fx over the serial run of the same work; %.1f%% of the "
            "bound's speed (target: >= %.0f%%): %s\n",
            name.c_str(), best_chunks, best_ms, best_speedup, 100 * best_of_bound, 100 * kTargetOfBound,
            best_of_bound >= kTargetOfBound ? "met" : "NOT met");
        sweep.summary["best_chunks_" + std::to_string(streams) + "_streams"] = best_chunks;
        sweep.summary["best_speedup_" + std::to_string(streams) + "_streams"] = best_speedup;
        sweep.summary["best_of_bound_" + std::to_string(streams) + "_streams"] = best_of_bound;
    }
    if (beat_the_bound) {
        std::printf(
            "a run above 100%% of the bound is measurement noise, not a run faster than the hardware: the bound's "
            "GPU stages come from the serial run a moment before, and a chunk's ops can take a little less than "
            "their share of the whole\n");
    }
    std::printf(
        "the recording's cost, %d streams: the host's time outside its fills and drains (its CUDA calls and waits), "
        "median of %d runs each way:\n",
        kStreamCounts.back(), kOverheadRepeats);
    note_tracer_overheads(sweep, kChunkCounts, overheads);
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
