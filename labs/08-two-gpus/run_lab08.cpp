// lab08 program: on a machine with two GPUs, runs your split pipeline on GPU 0
// alone, on GPU 1 alone and over both (8 chunks per GPU, 3 streams per GPU, in
// host memory from your allocate_portable), then your hand-off from GPU 0 to
// GPU 1; checks every result, prints what each GPU did and the speedup against
// the model, and writes each timeline (the split run's is the main one).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "course_side.hpp"
#include "lab08.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/device.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/tracer.hpp"
#include "two_gpu_timeline.hpp"

namespace {

using namespace streamlab;
using namespace lab08::course;

/// One line per GPU: what it did in `timeline`.
void print_work(const Timeline& timeline) {
    for (const GpuWork& work : work_by_gpu(timeline.ops)) {
        std::printf(
            "  GPU %u: %zu copies in (%.1f MiB), %zu kernels, %zu copies back (%.1f MiB), %zu copies between GPUs, "
            "%zu stream(s), busy %.3f ms, %zu host copies not pinned\n",
            work.device, work.h2d, static_cast<double>(work.h2d_bytes) / (1 << 20), work.kernels, work.d2h,
            static_cast<double>(work.d2h_bytes) / (1 << 20), work.peer_copies, work.streams, ms(work.busy_ns),
            work.unpinned_copies);
    }
}

int run(const LabOptions& options) {
    int devices = 0;
    SL_CHECK(cudaGetDeviceCount(&devices));
    if (devices < 2) {
        std::printf("this machine has %d GPU: lab 08 needs two (its tests are not graded here)\n", devices);
        return 0;
    }
    const DeviceFacts first = query_device_facts(0), second = query_device_facts(1);
    const std::size_t n = pipeline_elements(std::min(first.total_memory_bytes, second.total_memory_bytes));
    int reach = 0;
    SL_CHECK(cudaDeviceCanAccessPeer(&reach, 1, 0));
    std::printf("GPU 0: %s; GPU 1: %s; %zu MiB each way; GPU 1 %s reach GPU 0's memory directly\n", first.name.c_str(),
                second.name.c_str(), n * sizeof(float) >> 20, reach != 0 ? "can" : "cannot");

    PortableFloats input(n), output(n);
    fill_input(input.data(), n);
    std::vector<GpuMemory> gpus;
    gpus.emplace_back(0, n);
    gpus.emplace_back(1, n);
    const int iterations = iterations_for_kernel_ms(n, measure_h2d_ms(n * sizeof(float)));
    bool ok = true;

    // The split pipeline: each GPU alone, then both.
    double makespan[3] = {0, 0, 0};
    double together = 0;
    const std::vector<std::vector<int>> runs{{0}, {1}, {0, 1}};
    const char* const names[3] = {"GPU 0 alone", "GPU 1 alone", "both GPUs"};
    const char* const variants[3] = {"gpu0", "gpu1", ""};
    for (std::size_t r = 0; r < runs.size(); ++r) {
        lab08::SplitJob job{input.data(), output.data(), n, iterations, kChunks, kStreams, {}};
        for (const int device : runs[r]) {
            job.gpus.push_back(gpus[static_cast<std::size_t>(device)].part());
        }
        lab08::run_split(job);  // warm-up
        fill_poison(output.data(), n);
        const Timeline timeline = record_timeline("lab08 run_split", [&] { lab08::run_split(job); });
        const ResultCheck result = check_workload_output(input.data(), output.data(), n, iterations,
                                                         kChunks * static_cast<int>(job.gpus.size()));
        report_timeline(timeline, std::string("run_split, ") + names[r], options, variants[r]);
        std::printf("run_split, %s: result: %s\n", names[r], result.message().c_str());
        ok = result.ok && ok;
        if (timeline.recorded()) {
            print_work(timeline);
            makespan[r] = ms(makespan_ns(timeline.ops));
            together = busy_together_share(timeline.ops, 0, 1);
        }
    }
    if (makespan[0] > 0 && makespan[1] > 0 && makespan[2] > 0) {
        std::printf(
            "both GPUs against GPU 0 alone: %.2f times as fast; the model (each GPU streams half the data over its "
            "own link): %.2f times; both GPUs busy together for %.0f%% of the less busy one's time\n",
            makespan[0] / makespan[2], split_model_speedup(makespan[0], makespan[1]), 100.0 * together);
    }

    // The hand-off from GPU 0 to GPU 1.
    const lab08::HandoffJob handoff{input.data(),   output.data(), n, iterations, kHandoffChunks,
                                    gpus[0].part(), gpus[1].part()};
    fill_poison(output.data(), n);
    const Timeline timeline = record_timeline("lab08 run_handoff", [&] { lab08::run_handoff(handoff); });
    const ResultCheck result = check_workload_output(input.data(), output.data(), n, iterations, kHandoffChunks);
    report_timeline(timeline, "run_handoff, GPU 0 to GPU 1", options, "handoff");
    std::printf("run_handoff: result: %s\n", result.message().c_str());
    ok = result.ok && ok;
    if (timeline.recorded()) {
        print_work(timeline);
        const HandoffRun found = find_handoff(timeline.ops, 0, 1, kHandoffChunks);
        if (!found.problem.empty()) {
            std::printf("  the records do not show the hand-off's chunks: %s\n", found.problem.c_str());
        } else {
            const std::vector<std::string> broken = handoff_wait_problems(found, 0);
            std::printf("  waits the records show broken: %zu\n", broken.size());
            for (std::size_t i = 0; i < std::min<std::size_t>(broken.size(), 5); ++i) {
                std::printf("    %s\n", broken[i].c_str());
            }
        }
    }
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    return run_lab_program(argc, argv, "Lab 08: two GPUs", run);
}
