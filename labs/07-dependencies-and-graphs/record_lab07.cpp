// Lab 07's recording program: the only course program that runs your code for
// grading. It runs each scenario the graded tests need once (your stage
// pipeline, your host consumer, your graph, the urgent kernel with the default
// and with the greatest priority), each after a warm-up run, while CUPTI records
// what the GPU did and which host thread made which runtime call; the course's
// consumer and urgent kernel note their own times on the same clock. It judges
// nothing: the tests in test_lab07.cpp read its record afterwards, in processes
// that never load your code.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "course_side.hpp"
#include "lab07.hpp"
#include "priority_side.hpp"
#include "streamlab/check.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/recording.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using lab07::course::kChunks;
using lab07::course::kLaunches;
using streamlab::record::Scenario;
using streamlab::recording::Session;

/// The least and the greatest stream priority the device offers (cudaDeviceGetStreamPriorityRange).
std::pair<int, int> priority_range() {
    int least = 0;
    int greatest = 0;
    SL_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    return {least, greatest};
}

void record_lab07(Session& session) {
    // 256 MiB (less on a small GPU), a kernel over all of it about as long as its whole H2D copy.
    recording::RecordedPipeline prepared = recording::prepare_recorded_pipeline(session);
    PipelineMemory& memory = prepared.memory;
    const std::size_t n = memory.size();
    const int iterations = prepared.iterations;
    const auto least = static_cast<int>(
        session.setup_value("least_priority", [] { return static_cast<double>(priority_range().first); }));
    const auto greatest = static_cast<int>(
        session.setup_value("greatest_priority", [] { return static_cast<double>(priority_range().second); }));
    const auto job = job_over<lab07::PipelineJob>(memory, iterations);

    // Your `work` once to warm up, then once more, on a poisoned output, while CUPTI records.
    const auto warm_up_then_record = [&](Scenario& scenario, const std::string& program,
                                         const std::function<void()>& work) {
        work();
        fill_poison(memory.output.data(), n);
        session.record(scenario, program, work);
    };
    const auto sample = [&](const float* output) {
        return record::sample_output(output, n, iterations, kChunks, session.seed());
    };

    // The stage times the model needs, from the serial run on the same data.
    session.scenario("serial", [&](Scenario& scenario) {
        session.record(scenario, "serial reference: H2D, kernel, D2H in the NULL stream",
                       [&] { (void)run_serial_once(memory, iterations); });
    });
    // Task 1 ("pipeline": the run `course check` draws).
    session.scenario("pipeline", [&](Scenario& scenario) {
        warm_up_then_record(scenario, "lab07 run_stage_streams", [&] { lab07::run_stage_streams(job, kChunks); });
        scenario.output = sample(memory.output.data());
    });
    // Task 4, where a priority can change anything: the urgent kernel behind a GPU
    // full of background blocks, and when the course's urgent.launch launched it.
    std::optional<lab07::course::PriorityDemo> demo;  // made by the first of the two that runs
    const auto record_urgent_kernel = [&](Scenario& scenario, bool high_priority) {
        if (!demo) {
            demo.emplace();
        }
        const lab07::UrgentWork work = demo->work();
        const auto run = [&] { lab07::run_with_urgent_kernel(work, high_priority); };
        run();
        session.record(scenario, "lab07 run_with_urgent_kernel", run);
        scenario.values["launched_ns"] = static_cast<double>(demo->launched_ns(scenario.timeline->origin_ns));
    };
    if (least != greatest) {
        session.scenario("priority_default", [&](Scenario& scenario) { record_urgent_kernel(scenario, false); });
        session.scenario("priority_greatest", [&](Scenario& scenario) { record_urgent_kernel(scenario, true); });
    }
    // Task 3.
    session.scenario("graph", [&](Scenario& scenario) {
        warm_up_then_record(scenario, "lab07 run_graph", [&] { lab07::run_graph(job, kChunks, kLaunches); });
        scenario.output = sample(memory.output.data());
    });
    // Task 2, last: a host function that calls CUDA may hang, and a hang ends the
    // recording, so no other task's scenario comes after it. What the course's
    // consumer took, when, and on which thread; and the thread that called you.
    session.scenario("host_consumer", [&](Scenario& scenario) {
        lab07::course::ResultsConsumer consumer(job, kChunks);
        const lab07::Consumer given = consumer.consumer();
        warm_up_then_record(scenario, "lab07 run_with_host_consumer", [&] {
            consumer.reset();
            lab07::run_with_host_consumer(job, kChunks, given);
        });
        lab07::course::put_consumptions(consumer.consumptions(scenario.timeline->origin_ns), scenario.values);
        scenario.values["caller_thread"] = static_cast<double>(host_thread_id());
        scenario.output = sample(consumer.consumed.data());
    });
}

}  // namespace

int main(int argc, char** argv) {
    return streamlab::recording::record_scenarios(argc, argv, record_lab07);
}
