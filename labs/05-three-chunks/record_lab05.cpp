// Lab 05's recording program: the only course program that runs your pipeline
// for grading. It runs each scenario the graded tests need once, while CUPTI
// records, and sends what the GPU did to the recording harness. It judges
// nothing: the tests in test_lab05.cpp read its record afterwards, in processes
// that never load your code.
#include <algorithm>
#include <cstddef>
#include <optional>

#include "lab05.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/recording.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using streamlab::record::Scenario;
using streamlab::recording::Session;

/// Elements of the NULL-stream kernel queued before the pipeline in scenario "behind_null_stream".
constexpr std::size_t kBlockerElements = std::size_t{1} << 20;

void record_lab05(Session& session) {
    // A kernel over all the data about as long as its whole H2D copy; the blocker
    // as long, on a quarter of the SMs (room for the pipeline's kernels beside it).
    recording::RecordedPipeline prepared = recording::prepare_recorded_pipeline(session);
    PipelineMemory& memory = prepared.memory;
    const std::size_t n = memory.size();
    const int iterations = prepared.iterations;
    const int blocker_blocks = std::max(1, session.facts().sm_count / 4);
    const int blocker_iterations = static_cast<int>(session.setup_value("blocker_iterations", [&] {
        return static_cast<double>(iterations_for_kernel_ms(kBlockerElements, prepared.h2d_ms, blocker_blocks));
    }));
    const lab05::PipelineJob job = job_over<lab05::PipelineJob>(memory, iterations);

    // Your pipeline at `chunks` while CUPTI records, `before` queued first inside the recording;
    // what it returned and its output, sampled.
    const auto record_pipeline = [&](Scenario& scenario, int chunks, const std::function<void()>& before) {
        fill_poison(memory.output.data(), n);
        float returned_ms = 0;
        session.record(scenario, "lab05 run_pipeline, " + std::to_string(chunks) + " chunks", [&] {
            before();
            returned_ms = lab05::run_pipeline(job, chunks);
        });
        scenario.values["returned_ms"] = returned_ms;
        scenario.output = record::sample_output(memory.output.data(), n, iterations, chunks, session.seed());
    };

    session.scenario("serial", [&](Scenario& scenario) {
        double event_ms = 0;
        session.record(scenario, "serial reference: H2D, kernel, D2H in the NULL stream",
                       [&] { event_ms = run_serial_once(memory, iterations); });
        scenario.values["event_ms"] = event_ms;
    });
    session.scenario("warm_up", [&](Scenario& scenario) { record_pipeline(scenario, lab05::kChunks, [] {}); });
    session.scenario("pipeline", [&](Scenario& scenario) { record_pipeline(scenario, lab05::kChunks, [] {}); });
    session.scenario("behind_null_stream", [&](Scenario& scenario) {
        // A kernel in the legacy NULL stream, queued just before your pipeline:
        // blocking streams wait for it, non-blocking streams start at once.
        DeviceBuffer<float> blocker_in(kBlockerElements), blocker_out(kBlockerElements);
        SL_CHECK(cudaMemset(blocker_in.data(), 0, blocker_in.bytes()));
        record_pipeline(scenario, lab05::kChunks, [&] {
            launch_workload(blocker_in.data(), blocker_out.data(), kBlockerElements, blocker_iterations,
                            /*stream=*/nullptr, blocker_blocks);
        });
    });
    for (const int chunks : {1, 5}) {  // lab05.hpp promises any `chunks` >= 1
        session.scenario("chunks_" + std::to_string(chunks),
                         [&](Scenario& scenario) { record_pipeline(scenario, chunks, [] {}); });
    }
}

}  // namespace

int main(int argc, char** argv) {
    return streamlab::recording::record_scenarios(argc, argv, record_lab05);
}
