// streamlab_demo: what `./course demo` runs. Prints the facts of the GPU at hand,
// then runs lab 05's reference solution (three chunks over three non-blocking
// streams) against the serial run on the same data, and prints how the two
// compare with each other and with the pipeline model.
//
// Usage: streamlab_demo [--out DIR]   (DIR/serial.json and DIR/three-chunks.json: the timelines)
//
// Without a GPU, or where no timeline can be recorded, it says so, writes
// nothing and exits 0: `course demo` then draws the model's timeline instead.
#include <cstdio>
#include <exception>
#include <string>

#include "lab05.hpp"
#include "streamlab/device.hpp"
#include "streamlab/grader_words.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/trace_file.hpp"
#include "streamlab/tracer.hpp"

namespace {

using namespace streamlab;

void print_facts(const DeviceFacts& facts) {
    std::printf("GPU %d: %s (compute capability %s, %d SMs, %.1f GiB)\n", facts.ordinal, facts.name.c_str(),
                facts.compute_capability().c_str(), facts.sm_count,
                static_cast<double>(facts.total_memory_bytes) / (1024.0 * 1024.0 * 1024.0));
    std::printf("  copy engines (asyncEngineCount): %d -> %s\n", facts.copy_engines,
                facts.copy_engines >= 2 ? "H2D and D2H copies can run at the same time"
                                        : "H2D and D2H copies take turns on one engine");
    std::printf("  concurrent kernels: %s\n", facts.concurrent_kernels ? "yes" : "no");
    std::printf("  driver %s, runtime %s\n", format_cuda_version(facts.driver_version).c_str(),
                format_cuda_version(facts.runtime_version).c_str());
}

int run_demo(const std::string& out_dir) {
    const DeviceFacts facts = query_device_facts(0);
    print_facts(facts);
    std::printf(
        "\nLab 05's solution: %zu MiB through H2D, kernel and D2H, first serially in the NULL stream,\n"
        "then as %d chunks in %d non-blocking streams (the kernel takes about as long as the H2D copy).\n",
        pipeline_elements(facts.total_memory_bytes) * sizeof(float) >> 20, lab05::kChunks, lab05::kChunks);
    PipelineRun run;
    try {
        run = record_pipeline_run(lab05::kChunks, [](PipelineMemory& memory, int iterations) {
            (void)lab05::run_pipeline(job_over<lab05::PipelineJob>(memory, iterations), lab05::kChunks);
        });
    } catch (const TimelineUnavailable& unavailable) {
        std::printf("No timeline can be recorded here (%s).\n", unavailable.what());
        return 0;
    }
    std::printf("%s", describe(run.comparison).c_str());
    std::printf("  result: %s\n", run.result.message().c_str());
    if (!out_dir.empty()) {
        write_trace(out_dir + "/serial.json", run.serial.timeline);
        write_trace(out_dir + "/three-chunks.json", run.pipelined);
        std::printf("timelines written to %s/serial.json and %s/three-chunks.json\n", out_dir.c_str(), out_dir.c_str());
    }
    return run.result.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::string out_dir;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--out" && i + 1 < argc) {
            out_dir = argv[++i];
        } else {
            std::fprintf(stderr, "usage: %s [--out DIR]\n", argv[0]);
            return 2;
        }
    }
    const GpuPresence presence = query_gpu_presence();
    if (!presence.available) {
        std::printf("%s%s\n", streamlab::words::kSkipNoGpu, presence.reason.c_str());
        std::printf("The labs build and their CPU tests run; GPU tests and timelines need an NVIDIA GPU.\n");
        return 0;
    }
    try {
        return run_demo(out_dir);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "streamlab_demo: %s\n", error.what());
        return 1;
    }
}
