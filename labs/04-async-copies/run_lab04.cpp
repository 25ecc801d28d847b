// lab04 program: three batches through your stream, first from pinned and then
// from pageable host memory, while the host prepares each next batch. Prints,
// from the GPU's timeline and the host's marks on it, when control came back to
// the host and how much of the host's work ran beside the device's.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "lab04.hpp"
#include "streamlab/batches.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/tracer.hpp"

namespace {

using namespace streamlab;

constexpr int kBatches = 3;
constexpr std::size_t kElements = std::size_t{4} << 20;  // 16 MiB per batch

std::vector<lab04::Batch> batches_of(const BatchBuffers& buffers) {
    std::vector<lab04::Batch> batches;
    for (int b = 0; b < buffers.count(); ++b) {
        batches.push_back({buffers.input(b), buffers.output(b)});
    }
    return batches;
}

/// One line per batch: when control came back, and how the host's work sat beside the device's.
void describe_batches(const BatchesOnTimeline& found, const std::vector<lab04::BatchReport>& reports) {
    for (std::size_t b = 0; b < found.batches.size(); ++b) {
        const BatchOnTimeline& batch = found.batches[b];
        std::printf("  batch %zu: control came back ", b);
        if (batch.device_busy_on_return()) {
            std::printf("%.3f ms before its D2H copy ended", ms(batch.d2h.end_ns - batch.queued_ns));
        } else {
            std::printf("%.3f ms after its D2H copy ended", ms(batch.queued_ns - batch.d2h.end_ns));
        }
        std::printf("; host work %.3f ms, %.3f ms of it beside the device", ms(batch.host_work_ns()),
                    ms(batch.host_device_overlap_ns()));
        if (b < reports.size()) {
            std::printf("; you reported the device %s", reports[b].device_busy_on_return ? "busy" : "done");
        }
        std::printf("\n");
    }
}

int run(const LabOptions& options) {
    const std::size_t bytes = kElements * sizeof(float);
    BatchBuffers pinned(kBatches, kElements, /*pinned=*/true);
    BatchBuffers pageable(kBatches, kElements, /*pinned=*/false);

    // Size the kernel so that the device spends on a batch about as long as the
    // host spends preparing one (measured here, on the host clock).
    const auto start = std::chrono::steady_clock::now();
    pinned.prepare_input(0);
    const double prepare_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const int iterations = iterations_for_kernel_ms(kElements, std::max(prepare_ms, measure_h2d_ms(bytes)));
    std::printf("%d batches of %zu MiB; the host prepares a batch in %.2f ms\n", kBatches, bytes >> 20, prepare_ms);

    // A first run, not recorded: it pays for the stream-ordered allocator's pool and the first launches.
    (void)lab04::run_batches(batches_of(pinned), kElements, iterations, lab04::WaitWith::Stream, [](int) {});

    bool all_ok = true;
    for (BatchBuffers* buffers : {&pinned, &pageable}) {
        const std::string memory = buffers->pinned() ? "pinned" : "pageable";
        buffers->reset(/*prepare_all=*/false);  // the host prepares batches 1 and 2 during the run
        std::vector<lab04::BatchReport> reports;
        const Timeline timeline = record_timeline("lab04: batches from " + memory + " memory", [&] {
            reports = lab04::run_batches(batches_of(*buffers), kElements, iterations, lab04::WaitWith::Stream,
                                         marked_host_work(*buffers, /*prepare_next=*/true));
        });
        std::printf("\n");
        report_timeline(timeline, std::to_string(kBatches) + " batches from " + memory + " host memory", options,
                        buffers->pinned() ? "" : "pageable");
        if (timeline.recorded()) {  // without the tracer (--no-trace) only the results can be checked
            const BatchesOnTimeline found = find_batches(timeline, kBatches, bytes);
            if (!found.problem.empty()) {
                std::printf("  %s\n", found.problem.c_str());
                all_ok = false;
                continue;
            }
            describe_batches(found, reports);
        }
        for (int b = 0; b < kBatches; ++b) {
            const ResultCheck check = buffers->check(b, iterations);
            all_ok = all_ok && check.ok;
            if (!check.ok) {
                std::printf("  batch %d result: %s\n", b, check.message().c_str());
            }
        }
    }
    std::printf("\nresults: %s\n", all_ok ? "every batch matches the CPU reference" : "WRONG");
    return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    return run_lab_program(argc, argv, "Lab 04: asynchronous copies", run);
}
