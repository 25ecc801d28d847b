// lab09 program: runs the serial reference and your four-chunk pipeline on the
// same data, checks the result, and prints (and writes) both timelines, the
// calls that can make streams wait for each other, and how your pipeline
// compares with the model; then waits for the GPU with your two waits (Task 3)
// and shows what each cost. With --late-error it runs Task 2 instead: your
// run_checked_pipeline, clean and then with a tripwire in one chunk.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "lab09.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/device.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/tracer.hpp"
#include "wait_side.hpp"

namespace {

using namespace streamlab;

int run(const LabOptions& options) {
    const DeviceFacts facts = query_device_facts(0);
    std::printf("%s: %d copy engine(s), %zu MiB each way\n", facts.name.c_str(), facts.copy_engines,
                pipeline_elements(facts.total_memory_bytes) * sizeof(float) >> 20);

    // run_pipeline writes into pageable memory; the course's result check reads
    // memory.output, so the results are copied there after each run.
    std::vector<float> output;
    const PipelineRun run = record_pipeline_run(lab09::kChunks, [&](PipelineMemory& memory, int iterations) {
        output.resize(memory.size());
        lab09::run_pipeline({memory.input.data(), output.data(), memory.size(), iterations}, lab09::kChunks);
        std::memcpy(memory.output.data(), output.data(), memory.output.bytes());
    });

    if (!run.pipelined.recorded()) {  // --no-trace: no serial reference, no model, only the result
        report_timeline(run.pipelined, "run_pipeline, 4 chunks", options);
        std::printf("run_pipeline: result: %s\n", run.result.message().c_str());
        return run.result.ok ? 0 : 1;
    }
    report_timeline(run.serial.timeline, "serial reference", options, "serial");
    report_timeline(run.pipelined, "run_pipeline, 4 chunks", options);
    std::printf("run_pipeline: result: %s\n", run.result.message().c_str());
    std::printf("calls that can make streams wait for each other, made while the GPU was busy:");
    const std::vector<StreamCall> waits = implicit_syncs_while_busy(run.pipelined);
    for (const StreamCall& call : waits) {
        std::printf(" %s", call.function.c_str());
    }
    std::printf("%s; ops in the NULL stream: %zu\n", waits.empty() ? " none" : "", null_stream_ops(run.pipelined.ops));
    std::printf("the timelines against the model:\n%s", describe(run.comparison).c_str());
    return run.result.ok ? 0 : 1;
}

}  // namespace

// ------------------------------------------------------------ Task 3: the waiting host

namespace {

/// Task 3: your two waits, each for the graded tests' long job (wait_side.hpp),
/// once to warm up and once observed: the process's CPU time during the wait, how
/// long after the GPU's last op it returned (while the tracer records), and for
/// wait_polling the share of the wait spent in the host's slices of work.
int show_waits() {
    lab09::course::WaitJob job(query_device_facts(0));
    lab09::course::HostWork work(job.host_slice_ns());
    const std::pair<const char*, std::function<void(cudaStream_t)>> waits[] = {
        {"wait_blocking", [](cudaStream_t stream) { lab09::wait_blocking(stream); }},
        {"wait_polling", [&](cudaStream_t stream) { lab09::wait_polling(stream, work.as_function()); }},
    };
    bool ok = true;
    for (const auto& [name, wait] : waits) {
        const lab09::course::RecordedWait recorded =
            lab09::course::record_wait(job, lab09::course::kLongJobKernels, wait, &work);
        const lab09::course::WaitCost& cost = recorded.observed.cost;
        std::printf("%s: CPU time %.2f ms in a %.2f ms wait (%.0f%%)", name, ms(cost.cpu_ns), ms(cost.wall_ns()),
                    100.0 * cost.cpu_share());
        if (recorded.timeline.recorded()) {
            std::printf(
                "; returned %.1f us after the GPU's last op",
                static_cast<double>(lab09::course::wake_up_delay_ns(recorded.timeline, cost.returned_ns)) / 1e3);
        }
        if (std::strcmp(name, "wait_polling") == 0) {
            std::printf("; %d slices of host work, %.0f%% of the wait", work.slices(),
                        100.0 * static_cast<double>(work.busy_ns()) / static_cast<double>(cost.wall_ns()));
        }
        std::printf("\n%s: result: %s\n", name, recorded.observed.results.message().c_str());
        ok = ok && recorded.observed.results.ok;
    }
    return ok ? 0 : 1;
}

}  // namespace

// ---------------------------------------------------------------- Task 2: --late-error

namespace {

/// The option that runs Task 2 instead of Task 1.
constexpr char kLateErrorOption[] = "--late-error";

/// What the program's --help says.
constexpr char kDescription[] =
    "Lab 09: why streams serialize\n"
    "  --late-error  run Task 2 instead: run_checked_pipeline clean, then with a tripwire in one chunk\n"
    "                (put CUDA_LAUNCH_BLOCKING=1 in front to see where the error shows, and what it costs)";

/// run_checked_pipeline's report, in words.
void print_report(const char* run, const lab09::ChunkError& report) {
    std::printf("%s: run_checked_pipeline reported chunk %d, %s\n", run, report.chunk, cudaGetErrorName(report.error));
}

/// Task 2: a clean run (its makespan on the timeline and its time on the host
/// clock, which CUDA_LAUNCH_BLOCKING=1 changes), then a run whose kernel fails
/// in a chunk picked at random. The failure leaves the GPU unusable for the rest
/// of the process, so it is the last thing the program does.
int run_late_error(const LabOptions& options) {
    const DeviceFacts facts = query_device_facts(0);
    PreparedPipeline prepared = prepare_pipeline(facts);
    PipelineMemory& memory = prepared.memory;
    const auto job = job_over<lab09::CheckedJob>(memory, prepared.iterations);
    const char* blocking = std::getenv("CUDA_LAUNCH_BLOCKING");
    std::printf("%s: %zu MiB each way, %d chunks; CUDA_LAUNCH_BLOCKING=%s\n", facts.name.c_str(),
                memory.input.bytes() >> 20, lab09::kChunks, blocking != nullptr ? blocking : "(not set)");

    lab09::ChunkError report = lab09::run_checked_pipeline(job, lab09::kChunks);  // warm-up
    fill_poison(memory.output.data(), memory.size());
    const auto start = std::chrono::steady_clock::now();
    const lab09::ChunkError clean = lab09::run_checked_pipeline(job, lab09::kChunks);
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    const ResultCheck result = check_workload_output(memory.input.data(), memory.output.data(), memory.size(),
                                                     prepared.iterations, lab09::kChunks);
    print_report("clean run", clean);
    std::printf("clean run: %.3f ms on the host clock, call to return; result: %s\n", took.count(),
                result.message().c_str());
    const Timeline timeline = record_timeline("lab09 run_checked_pipeline",
                                              [&] { report = lab09::run_checked_pipeline(job, lab09::kChunks); });
    report_timeline(timeline, "run_checked_pipeline, clean run", options);

    const lab09::Tripwire tripwire = lab09::plant_tripwire(memory.input.data(), memory.size(), lab09::kChunks);
    std::printf("\ntripwire planted at element %zu, in chunk %d (0-based)\n", tripwire.index, tripwire.chunk);
    report = lab09::run_checked_pipeline(job, lab09::kChunks);
    print_report("faulty run", report);
    const cudaError_t seen = cudaDeviceSynchronize();
    std::printf("faulty run: cudaDeviceSynchronize() afterwards returns %s (%s)\n", cudaGetErrorName(seen),
                cudaGetErrorString(seen));
    if (seen != cudaSuccess) {
        std::printf(
            "the context is unusable from here on: every CUDA call of this process returns that error, the "
            "releases of the course's buffers at exit included (on stderr)\n");
    }
    const bool named_right = report.chunk == -1 || report.chunk == tripwire.chunk;
    const bool clean_right = clean.error == cudaSuccess && clean.chunk == -1 && result.ok;
    return clean_right && report.error == cudaErrorIllegalAddress && named_right ? 0 : 1;
}

/// Where `option` is among the arguments after the program's name, or args.end().
std::vector<char*>::iterator find_option(std::vector<char*>& args, const char* option) {
    return std::find_if(args.begin() + 1, args.end(), [&](const char* arg) { return std::strcmp(arg, option) == 0; });
}

}  // namespace

int main(int argc, char** argv) {
    // --late-error is this program's own option; the options every lab program
    // takes (--trace, --no-trace, --help) are read by run_lab_program.
    std::vector<char*> args(argv, argv + argc);
    const auto late_error = find_option(args, kLateErrorOption);
    if (late_error == args.end()) {
        return run_lab_program(argc, argv, kDescription, [](const LabOptions& options) {
            const int pipeline = run(options);
            const int waits = show_waits();
            return pipeline != 0 ? pipeline : waits;
        });
    }
    args.erase(late_error);
    if (find_option(args, "--trace") != args.end()) {  // its clean run has Task 1's shape, which `course run 09` draws
        std::fprintf(stderr, "%s: --late-error writes no trace: leave out --trace\n", argv[0]);
        return 2;
    }
    return run_lab_program(static_cast<int>(args.size()), args.data(), kDescription, run_late_error);
}
