// lab05 program: runs the serial reference and your three-chunk pipeline on the
// same data, checks the result, and prints (and writes) both timelines and how
// your pipeline compares with the model.
#include <cstdio>

#include "lab05.hpp"
#include "streamlab/device.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/pipeline.hpp"

namespace {

using namespace streamlab;

int run(const LabOptions& options) {
    const DeviceFacts facts = query_device_facts(0);
    std::printf("%s: %d copy engine(s), %zu MiB each way\n", facts.name.c_str(), facts.copy_engines,
                pipeline_elements(facts.total_memory_bytes) * sizeof(float) >> 20);

    float reported_ms = 0.0F;
    const PipelineRun run = record_pipeline_run(lab05::kChunks, [&](PipelineMemory& memory, int iterations) {
        reported_ms = lab05::run_pipeline(job_over<lab05::PipelineJob>(memory, iterations), lab05::kChunks);
    });

    if (!run.pipelined.recorded()) {  // --no-trace: no serial reference, no model, only the result
        report_timeline(run.pipelined, "run_pipeline, 3 chunks", options);
        std::printf("run_pipeline: result: %s\n", run.result.message().c_str());
        return run.result.ok ? 0 : 1;
    }
    report_timeline(run.serial.timeline, "serial reference", options, "serial");
    report_timeline(run.pipelined, "run_pipeline, 3 chunks", options);
    std::printf("run_pipeline: your events say %.3f ms; result: %s\n", static_cast<double>(reported_ms),
                run.result.message().c_str());
    if (reported_ms > 0.0F) {
        std::printf("your speedup (serial events %.3f ms / yours): %.2fx\n", run.serial.event_ms,
                    run.serial.event_ms / static_cast<double>(reported_ms));
    }
    std::printf("the timelines against the model:\n%s", describe(run.comparison).c_str());
    return run.result.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    return run_lab_program(argc, argv, "Lab 05: the three-chunk overlap", run);
}
