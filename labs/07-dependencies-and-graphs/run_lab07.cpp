// lab07 program: runs your stage pipeline next to the serial reference, your
// host consumer (when each chunk was consumed, against the end of its D2H copy;
// then once more with each chunk handed to a consumer thread of the course's),
// your graph launched several times, and the urgent kernel launched while a
// background kernel keeps the GPU full, with and without a greater priority;
// checks every result and writes each timeline.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "course_side.hpp"
#include "lab07.hpp"
#include "priority_side.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/device.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/tracer.hpp"

namespace {

using namespace streamlab;

using lab07::course::kChunks;
using lab07::course::kLaunches;

/// Task 1: the stage design against the serial reference and the model.
bool show_stage_streams(const LabOptions& options) {
    const PipelineRun run = record_pipeline_run(kChunks, [&](PipelineMemory& memory, int iterations) {
        lab07::run_stage_streams(job_over<lab07::PipelineJob>(memory, iterations), kChunks);
    });
    report_timeline(run.pipelined, "run_stage_streams, 8 chunks", options);
    std::printf("run_stage_streams: result: %s\n", run.result.message().c_str());
    if (run.pipelined.recorded()) {
        report_timeline(run.serial.timeline, "serial reference", options, "serial");
        std::printf("the stage design against the model:\n%s", describe(run.comparison).c_str());
    }
    return run.result.ok;
}

/// Task 2's printout: for every chunk, the end of its D2H copy against when it was
/// consumed and on which thread; with `hand_off`, when the GPU's work and the consuming ended.
void print_consumptions(const Timeline& timeline, const lab07::course::ResultsConsumer& consumer, bool hand_off) {
    const PipelineChunks chunks = chunks_by_issue_order(timeline.ops, kChunks);
    if (!chunks.problem.empty()) {
        std::printf("  the records do not show %d chunks: %s\n", kChunks, chunks.problem.c_str());
        return;
    }
    const std::uint64_t caller = host_thread_id();
    std::uint64_t gpu_end = 0, consumed_end = 0;
    for (const DeviceOp& op : timeline.ops) {
        gpu_end = std::max(gpu_end, op.end_ns);
    }
    for (const auto& call : consumer.consumptions(timeline.origin_ns)) {
        const auto d2h_end = chunks.chunks[static_cast<std::size_t>(call.chunk)].d2h.end_ns;
        const auto calls = timeline.api_calls_by_thread.find(call.thread);
        const char* thread = call.thread == caller ? "your own" : hand_off ? "the course's consumer" : "CUDA's";
        std::printf("  chunk %d: D2H ended at %8.3f ms, consumed from %8.3f ms (%+.3f ms) on %s thread%s\n",
                    call.chunk + 1, ms(d2h_end), ms(call.start_ns), ms(call.start_ns) - ms(d2h_end), thread,
                    calls != timeline.api_calls_by_thread.end() && call.thread != caller
                        ? (", which made " + std::to_string(calls->second) + " CUDA call(s)").c_str()
                        : "");
        consumed_end = std::max(consumed_end, call.end_ns);
    }
    if (hand_off) {
        std::printf("  the GPU's work ended at %.3f ms; the last chunk was consumed by %.3f ms\n", ms(gpu_end),
                    ms(consumed_end));
    }
}

/// Task 2: your host consumer, first with the consuming inside the host function
/// (the design Task 2 grades), then with the host function only handing each chunk
/// to a thread of the course's, which keeps the copy-out stream free.
bool show_host_consumer(PipelineMemory& memory, int iterations, const LabOptions& options) {
    const auto job = job_over<lab07::PipelineJob>(memory, iterations);
    bool ok = true;
    for (const bool hand_off : {false, true}) {
        lab07::course::ResultsConsumer consumer(job, kChunks);
        std::optional<lab07::course::HandOffConsumer> relay;
        if (hand_off) {
            relay.emplace(consumer.consumer());
        }
        const lab07::Consumer given = hand_off ? relay->consumer() : consumer.consumer();
        const Timeline timeline = record_timeline("lab07 run_with_host_consumer", [&] {
            lab07::run_with_host_consumer(job, kChunks, given);
            if (relay) {
                relay->wait_until_consumed();
            }
        });
        const ResultCheck result =
            check_workload_output(memory.input.data(), consumer.consumed.data(), memory.size(), iterations, kChunks);
        const std::string how = hand_off ? ", handed to a consumer thread" : "";
        report_timeline(timeline, "run_with_host_consumer, 8 chunks" + how, options,
                        hand_off ? "host-consumer-hand-off" : "host-consumer");
        std::printf("run_with_host_consumer%s: consumed results: %s\n", how.c_str(), result.message().c_str());
        if (timeline.recorded()) {
            print_consumptions(timeline, consumer, hand_off);
        }
        ok = result.ok && ok;
    }
    return ok;
}

/// Task 3: the graph, launched kLaunches times from one instantiation.
bool show_graph(PipelineMemory& memory, int iterations, const LabOptions& options) {
    fill_poison(memory.output.data(), memory.size());
    const Timeline timeline = record_timeline("lab07 run_graph", [&] {
        lab07::run_graph(job_over<lab07::PipelineJob>(memory, iterations), kChunks, kLaunches);
    });
    const ResultCheck result =
        check_workload_output(memory.input.data(), memory.output.data(), memory.size(), iterations, kChunks);
    report_timeline(timeline, "run_graph, 8 chunks, 4 launches", options, "graph");
    std::printf("run_graph: result: %s\n", result.message().c_str());
    if (timeline.recorded()) {
        std::size_t graphed = 0;
        for (const DeviceOp& op : ops_of_kind(timeline.ops, OpKind::Kernel)) {
            graphed += op.graph_id != 0 ? 1 : 0;
        }
        std::printf(
            "  %zu kernels ran from graph launches; %llu instantiation(s), %llu launch(es)\n", graphed,
            static_cast<unsigned long long>(count_api_calls(
                timeline, {"cudaGraphInstantiate", "cudaGraphInstantiateWithFlags", "cudaGraphInstantiateWithParams"})),
            static_cast<unsigned long long>(count_api_calls(timeline, {"cudaGraphLaunch"})));
    }
    return result.ok;
}

/// Task 4: how long the urgent kernel waited behind a GPU full of background blocks.
void show_priorities(const LabOptions& options) {
    int least = 0, greatest = 0;
    SL_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    std::printf("stream priorities on this GPU: %d (least) to %d (greatest)\n", least, greatest);
    lab07::course::PriorityDemo demo;
    std::printf("background kernel: %s\n", demo.describe().c_str());
    const lab07::UrgentWork work = demo.work();
    lab07::run_with_urgent_kernel(work, true);  // warm-up
    double shares[2] = {0, 0};
    for (const bool high : {false, true}) {
        const Timeline timeline =
            record_timeline("lab07 run_with_urgent_kernel", [&] { lab07::run_with_urgent_kernel(work, high); });
        const std::string how = high ? "greatest priority" : "default priority";
        report_timeline(timeline, "run_with_urgent_kernel, " + how, options, high ? "urgent-high" : "urgent-default");
        if (!timeline.recorded()) {
            continue;
        }
        const lab07::course::UrgentWait wait =
            lab07::course::urgent_wait(timeline, demo.launched_ns(timeline.origin_ns));
        if (!wait.problem.empty()) {
            std::printf("  %s\n", wait.problem.c_str());
            continue;
        }
        std::printf(
            "  urgent kernel, %s: began %.3f ms after the background kernel, %.1f%% into its %.3f ms "
            "run\n",
            how.c_str(), ms(wait.wait_ns), wait.share() * 100, ms(wait.background_ns));
        shares[high ? 1 : 0] = wait.share();
    }
    if (shares[0] > 0) {
        std::printf("the urgent kernel's wait with the greatest priority: %.2f of its wait with the default priority\n",
                    shares[1] / shares[0]);
    }
}

int run(const LabOptions& options) {
    const DeviceFacts facts = query_device_facts(0);
    std::printf("%s: %d copy engine(s), %zu MiB each way, %d chunks\n", facts.name.c_str(), facts.copy_engines,
                pipeline_elements(facts.total_memory_bytes) * sizeof(float) >> 20, kChunks);
    bool ok = show_stage_streams(options);

    PreparedPipeline prepared = prepare_pipeline(facts);
    ok = show_host_consumer(prepared.memory, prepared.iterations, options) && ok;
    ok = show_graph(prepared.memory, prepared.iterations, options) && ok;
    show_priorities(options);
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    return run_lab_program(argc, argv, "Lab 07: dependencies, host functions, graphs, priorities", run);
}
