// lab09 program: runs the serial reference and your four-chunk pipeline on the
// same data, checks the result, and prints (and writes) both timelines, the
// calls that can make streams wait for each other, and how your pipeline
// compares with the model.
#include <cstdio>
#include <cstring>
#include <vector>

#include "lab09.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/device.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/pipeline.hpp"

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

int main(int argc, char** argv) {
    return run_lab_program(argc, argv, "Lab 09: why streams serialize", run);
}
