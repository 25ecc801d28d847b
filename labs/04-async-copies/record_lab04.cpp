// Lab 04's recording program: the only course program that runs your batch loop
// for grading. It runs each scenario the graded tests need once, while CUPTI
// records, with host work of the course's own that marks on the same clock when
// control came back to the host and when the host's work ended. It judges
// nothing: the tests in test_lab04.cpp read its record afterwards, in processes
// that never load your code.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lab04.hpp"
#include "lab04_record.hpp"
#include "streamlab/batches.hpp"
#include "streamlab/recording.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using lab04::WaitWith;
using streamlab::record::Scenario;
using streamlab::recording::Session;

using lab04::course::kBatches;
using lab04::course::kElements;

void record_lab04(Session& session) {
    const DeviceFacts& facts = session.facts();
    const std::size_t elements = session.salted_elements(kElements);
    // A kernel about as long as one batch's H2D copy.
    const double h2d_ms = session.setup_value("h2d_ms", [&] { return measure_h2d_ms(elements * sizeof(float)); });
    const int iterations = static_cast<int>(session.setup_value(
        "iterations", [&] { return static_cast<double>(iterations_for_kernel_ms(elements, h2d_ms)); }));

    // run_batches over `buffers` while CUPTI records, `before` queued first inside
    // the recording; the host work is the course's (marked_host_work), and when
    // `prepare_next` it prepares each next batch's input. What run_batches
    // returned goes into the scenario's values.
    const auto record_batches = [&](Scenario& scenario, BatchBuffers& buffers, WaitWith wait, bool prepare_next,
                                    const std::function<void()>& before) {
        std::vector<lab04::Batch> batches;
        for (int b = 0; b < buffers.count(); ++b) {
            batches.push_back({buffers.input(b), buffers.output(b)});
        }
        buffers.reset(/*prepare_all=*/!prepare_next);
        const auto host_work = marked_host_work(buffers, prepare_next);
        std::vector<lab04::BatchReport> reports;
        session.record(scenario, "lab04 run_batches", [&] {
            before();
            reports = lab04::run_batches(batches, elements, iterations, wait, host_work);
        });
        scenario.values["reports"] = static_cast<double>(reports.size());
        for (std::size_t b = 0; b < std::min(reports.size(), static_cast<std::size_t>(kBatches)); ++b) {
            scenario.values["device_busy_on_return_" + std::to_string(b)] = reports[b].device_busy_on_return ? 1 : 0;
        }
    };

    // The usual run: the host preparing each next batch, waits per stream.
    for (const bool pinned : {true, false}) {
        session.scenario(pinned ? "pinned" : "pageable", [&](Scenario& scenario) {
            BatchBuffers buffers(kBatches, elements, pinned, session.seed());
            record_batches(scenario, buffers, WaitWith::Stream, /*prepare_next=*/true, [] {});
            if (pinned) {  // the pageable run's output is not graded
                scenario.output = buffers.sample_outputs(iterations);
            }
        });
    }

    // Task 3: your waits beside a long kernel in another stream, queued just before
    // your batches. Where kernels of different streams cannot run at once, the
    // judges skip without these scenarios.
    if (!facts.concurrent_kernels) {
        return;
    }
    for (const WaitWith wait : {WaitWith::Stream, WaitWith::Device}) {
        session.scenario(wait == WaitWith::Stream ? "wait_stream" : "wait_device", [&](Scenario& scenario) {
            BatchBuffers buffers(kBatches, elements, /*pinned=*/true, session.seed());
            // The other stream's kernel must outlast your batches by far: four times
            // as long as they take on this GPU, measured just now without it (and
            // never less than four times their copies and kernels). That run's
            // timeline is replaced by the next one's.
            record_batches(scenario, buffers, WaitWith::Stream, /*prepare_next=*/false, [] {});
            std::uint64_t batches_end_ns = 0;
            for (const DeviceOp& op : scenario.timeline->ops) {
                batches_end_ns = std::max(batches_end_ns, op.end_ns);
            }
            const double batches_ms = std::max(ms(batches_end_ns), kBatches * 3.0 * h2d_ms);
            const BackgroundKernel background(4.0 * batches_ms, facts);
            scenario.values.clear();
            record_batches(scenario, buffers, wait, /*prepare_next=*/false, [&] { background.launch(); });
        });
    }
}

}  // namespace

int main(int argc, char** argv) {
    return streamlab::recording::record_scenarios(argc, argv, record_lab04);
}
