// Lab 09's recording program: the only course program that runs your code for
// grading. It runs each scenario the graded tests need once: your pipeline next to
// the serial run (Task 1); the course's cudaStreamSynchronize under each schedule
// flag (Task 3's choice); your run_checked_pipeline clean and into a tripwire, with
// kernel launches queued and then blocking (Task 2); your two waits (Task 3). The
// waits are for the course's job, and the course notes what each cost. CUPTI
// records what the GPU did. It judges nothing: the tests in test_lab09.cpp read its
// record afterwards, in processes that never load your code.
//
// Some scenarios need a process of their own (recording::ProcessNeeds), which the
// harness starts for them: CUDA reads CUDA_LAUNCH_BLOCKING, and the device takes
// its schedule flag, only when it starts, and a tripwire leaves the GPU unusable
// for the rest of its process.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lab09.hpp"
#include "lab09_record.hpp"
#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/recording.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"
#include "wait_side.hpp"

namespace {

using namespace streamlab;
using lab09::course::HostWork;
using lab09::course::kLongJobKernels;
using lab09::course::kShortJobKernels;
using lab09::course::WaitJob;
using lab09::course::WaitWay;
using streamlab::record::Scenario;
using streamlab::recording::ProcessNeeds;
using streamlab::recording::Session;

/// The device's flags, its schedule flag among them (cudaGetDeviceFlags).
unsigned int device_flags() {
    unsigned int flags = 0;
    SL_CHECK(cudaGetDeviceFlags(&flags));
    return flags;
}

/// A wait the course observes: yours or its own, given the stream and the host's work.
using Wait = std::function<void(cudaStream_t, HostWork&)>;

void record_lab09(Session& session) {
    // 256 MiB (less on a small GPU), a kernel over all of it about as long as its whole H2D copy.
    recording::RecordedPipeline prepared = recording::prepare_recorded_pipeline(session);
    PipelineMemory& memory = prepared.memory;
    const std::size_t n = memory.size();
    const int iterations = prepared.iterations;

    // ---------------------------------------------------------------- Task 1
    // run_pipeline writes its results into pageable memory.
    std::vector<float> output(n);
    const lab09::PipelineJob job{memory.input.data(), output.data(), n, iterations};

    // Your pipeline at `chunks` once to warm up, then once more, its output poisoned, while CUPTI records.
    const auto record_pipeline = [&](Scenario& scenario, int chunks) {
        lab09::run_pipeline(job, chunks);
        fill_poison(output.data(), n);
        session.record(scenario, "lab09 run_pipeline", [&] { lab09::run_pipeline(job, chunks); });
        scenario.output = record::sample_output(output.data(), n, iterations, chunks, session.seed());
    };
    // The stage times the model needs (Tasks 1 and 2), from the serial run on the same data.
    session.scenario("serial", [&](Scenario& scenario) {
        session.record(scenario, "serial reference: H2D, kernel, D2H in the NULL stream",
                       [&] { (void)run_serial_once(memory, iterations); });
    });
    session.scenario("pipeline", [&](Scenario& scenario) { record_pipeline(scenario, lab09::kChunks); });
    for (const int chunks : {1, 5}) {  // lab09.hpp promises any `chunks` >= 1
        session.scenario("chunks_" + std::to_string(chunks),
                         [&](Scenario& scenario) { record_pipeline(scenario, chunks); });
    }

    // ---------------------------------------------------------------- Task 3
    // The course's job (wait_side.hpp) over memory of its own, its input from the
    // record's seed; made by the first wait of a process, with the length of the
    // host's slice of work measured then.
    std::optional<WaitJob> wait_job;
    std::uint64_t slice_ns = 0;
    const auto job_here = [&]() -> WaitJob& {
        if (!wait_job) {
            wait_job.emplace(n, iterations, session.seed());
            slice_ns = wait_job->host_slice_ns();
        }
        return *wait_job;
    };
    // `wait` once unrecorded (its first call pays one-time costs), then for the job with
    // `kernels` kernels while CUPTI records: what it cost, the host's slices done in it,
    // and the results, sampled the moment it returned.
    const auto record_wait = [&](Scenario& scenario, int kernels, const Wait& wait) {
        WaitJob& waits = job_here();
        HostWork work(slice_ns);
        const std::function<void(cudaStream_t)> waiting = [&](cudaStream_t stream) { wait(stream, work); };
        lab09::course::WaitValues seen;
        seen.device_flags_before = device_flags();
        waits.warm_up(waiting);
        work.reset();
        lab09::course::WaitCost cost;
        session.record(scenario, "lab09 wait", [&] {
            waits.queue(kernels);
            cost = lab09::course::observe_wait([&] { waiting(waits.stream()); });
            scenario.output = record::sample_output(waits.output(), n, iterations, 1, session.seed());
        });
        seen.device_flags_after = device_flags();
        const auto origin = static_cast<std::int64_t>(scenario.timeline->origin_ns);
        seen.called_ns = static_cast<std::int64_t>(cost.called_ns) - origin;
        seen.returned_ns = static_cast<std::int64_t>(cost.returned_ns) - origin;
        seen.cpu_ns = cost.cpu_ns;
        seen.work_ns = work.busy_ns();
        seen.slices = work.slices();
        seen.slices_elsewhere = work.slices_elsewhere();
        seen.mean_slice_ns = work.mean_slice_ns();
        lab09::course::put_wait(seen, scenario.values);
    };
    const Wait blocking = [](cudaStream_t stream, HostWork&) { lab09::wait_blocking(stream); };
    const Wait polling = [](cudaStream_t stream, HostWork& work) { lab09::wait_polling(stream, work.as_function()); };
    const Wait synchronize = [](cudaStream_t stream, HostWork&) { SL_CHECK(cudaStreamSynchronize(stream)); };
    // The ways choice.txt may name that run none of your code: cudaStreamSynchronize
    // under a schedule flag, each flag but the default in a process of its own (see main).
    for (const char* name : {"auto", "spin", "yield", "blocking-sync"}) {
        const WaitWay& way = *lab09::course::wait_way(name);
        ProcessNeeds needs;
        if (way.schedule != cudaDeviceScheduleAuto) {
            needs.environment[lab09::course::kScheduleVariable] = way.name;
        }
        session.scenario(way.scenario, needs,
                         [&](Scenario& scenario) { record_wait(scenario, kLongJobKernels, synchronize); });
    }

    // ---------------------------------------------------------------- Task 2
    // In processes of their own: CUDA reads CUDA_LAUNCH_BLOCKING when it starts, and
    // a tripwire leaves the GPU unusable for the rest of its process.
    const auto checked_job = job_over<lab09::CheckedJob>(memory, iterations);
    const ProcessNeeds queued{{{"CUDA_LAUNCH_BLOCKING", "0"}}, false};
    const ProcessNeeds queued_into_tripwire{{{"CUDA_LAUNCH_BLOCKING", "0"}}, true};
    const ProcessNeeds blocking_into_tripwire{{{"CUDA_LAUNCH_BLOCKING", "1"}}, true};
    // What run_checked_pipeline reported, and whether launches blocked in this process.
    const auto put_report = [&](Scenario& scenario, const lab09::ChunkError& report, bool blocked) {
        scenario.values["chunk"] = report.chunk;
        scenario.values["error"] = static_cast<double>(report.error);
        scenario.values["launches_block"] = blocked ? 1.0 : 0.0;
    };
    session.scenario("late_error_clean", queued, [&](Scenario& scenario) {
        const bool blocked =
            lab09::launches_block(memory.device_input.data(), memory.device_output.data(), n, iterations);
        fill_poison(memory.output.data(), n);
        lab09::ChunkError report;
        session.record(scenario, "lab09 run_checked_pipeline",
                       [&] { report = lab09::run_checked_pipeline(checked_job, lab09::kChunks); });
        put_report(scenario, report, blocked);
        scenario.output = record::sample_output(memory.output.data(), n, iterations, lab09::kChunks, session.seed());
    });
    session.scenario("late_error_overlap", queued, [&](Scenario& scenario) {
        const bool blocked =
            lab09::launches_block(memory.device_input.data(), memory.device_output.data(), n, iterations);
        lab09::ChunkError report = lab09::run_checked_pipeline(checked_job, lab09::kChunks);  // warm-up
        session.record(scenario, "lab09 run_checked_pipeline",
                       [&] { report = lab09::run_checked_pipeline(checked_job, lab09::kChunks); });
        put_report(scenario, report, blocked);
    });
    // kTripwire at a random element of a random chunk: the run fails in that chunk's
    // kernel. What it reported, where the tripwire was, and what the course's own
    // wait afterwards returned (the faulty kernel's error, when its kernel ran).
    // Untraced: no tracer survives the sticky error.
    const auto run_into_the_tripwire = [&](Scenario& scenario) {
        const bool blocked =
            lab09::launches_block(memory.device_input.data(), memory.device_output.data(), n, iterations);
        const lab09::Tripwire tripwire = lab09::plant_tripwire(memory.input.data(), n, lab09::kChunks);
        lab09::ChunkError report;
        session.run_untraced(scenario, "lab09 run_checked_pipeline, a tripwire planted", [&] {
            try {
                report = lab09::run_checked_pipeline(checked_job, lab09::kChunks);
            } catch (const std::exception& thrown) {
                throw std::runtime_error(lab09::course::kThrewInsteadOfReporting + std::string(thrown.what()));
            }
        });
        put_report(scenario, report, blocked);
        scenario.values["seen_after"] = static_cast<double>(cudaDeviceSynchronize());
        scenario.values["tripwire_chunk"] = tripwire.chunk;
        scenario.values["tripwire_index"] = static_cast<double>(tripwire.index);
    };
    session.scenario("late_error_tripwire", queued_into_tripwire, run_into_the_tripwire);
    session.scenario("late_error_blocking_tripwire", blocking_into_tripwire, run_into_the_tripwire);

    // Your waits, last: a wait that never returns ends the recording, and nothing else comes after it.
    for (const int kernels : {kShortJobKernels, kLongJobKernels}) {
        session.scenario(lab09::course::job_scenario("wait_blocking", kernels),
                         [&](Scenario& scenario) { record_wait(scenario, kernels, blocking); });
    }
    for (const int kernels : {kShortJobKernels, kLongJobKernels}) {
        session.scenario(lab09::course::job_scenario("wait_polling", kernels),
                         [&](Scenario& scenario) { record_wait(scenario, kernels, polling); });
    }
}

}  // namespace

int main(int argc, char** argv) {
    // The wait under a schedule flag runs in a process started with kScheduleVariable
    // naming its way: the flag is set before any other CUDA call, since the device
    // takes it when CUDA starts. Its scenario records the flags it ran under.
    if (const char* named = std::getenv(lab09::course::kScheduleVariable)) {
        if (const WaitWay* way = lab09::course::wait_way(named);
            way != nullptr && cudaSetDeviceFlags(way->schedule) != cudaSuccess) {
            (void)cudaGetLastError();  // no GPU: record_scenarios says so
        }
    }
    return streamlab::recording::record_scenarios(argc, argv, record_lab09);
}
