// lab09 program: runs the serial reference and your four-chunk pipeline on the
// same data, checks the result, and prints (and writes) both timelines, the
// calls that can make streams wait for each other, and how your pipeline
// compares with the model; then waits for the GPU with your two waits (Task 3)
// and shows what each cost.
#include <cstdio>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "lab09.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/device.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/pipeline.hpp"
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

int main(int argc, char** argv) {
    return run_lab_program(argc, argv, "Lab 09: why streams serialize", [](const LabOptions& options) {
        const int pipeline = run(options);
        const int waits = show_waits();
        return pipeline != 0 ? pipeline : waits;
    });
}
