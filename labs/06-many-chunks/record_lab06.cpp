// Lab 06's recording program: the only course program that runs your run_stream
// and sweep_chunks for grading. It runs each scenario the graded tests need once
// (graded_jobs.hpp), while CUPTI records what the GPU did and the course's produce
// and consume time every write and read of a ring buffer on the same clock, and
// sends both to the recording harness: the host's fills and drains among the
// scenario's values (recorded_runs.hpp, which the Python track's record_lab06.py
// shares). It judges nothing: the tests in test_lab06.cpp read its record
// afterwards, in processes that never load your code.
#include <stdexcept>

#include "graded_jobs.hpp"
#include "lab06.hpp"
#include "recorded_runs.hpp"
#include "streamlab/recording.hpp"

namespace {

using namespace lab06::course;
using streamlab::record::Scenario;
using streamlab::recording::Session;

void record_lab06(Session& session) {
    RecordedHost recorded(session);
    HostStream& host = recorded.host;

    // Your run_stream once to warm up, then once more while CUPTI records.
    const auto record_stream = [&](Scenario& scenario, const GradedJob& graded) {
        lab06::run_stream(graded.job);
        host.reset();
        session.record(scenario, "lab06 run_stream", [&] { lab06::run_stream(graded.job); });
        put_recorded_run(scenario, recorded, graded);
    };

    session.scenario(scenarios::kResults, [&](Scenario& scenario) {
        const GradedJob graded(host, kResultsShape, kBalanced, recorded.h2d_ms);
        record_stream(scenario, graded);
        put_output_sample(scenario, recorded, graded);
    });
    session.scenario(scenarios::kSlowHost, [&](Scenario& scenario) {
        const GradedJob graded(host, kSlowHostShape, kBalanced, recorded.h2d_ms);
        host.slow_down(slow_host_extra_ns(graded));
        record_stream(scenario, graded);
        host.slow_down(0);
        put_output_sample(scenario, recorded, graded);
    });
    session.scenario(scenarios::kHazards, [&](Scenario& scenario) {
        const GradedJob graded(host, kHazardShape, kHostRunsAhead, recorded.h2d_ms);
        record_stream(scenario, graded);
    });
    session.scenario(scenarios::kPipeline, [&](Scenario& scenario) {
        const GradedJob graded(host, kModelShape, kBalanced, recorded.h2d_ms);
        // The GPU's stages alone and the interference between the copy directions,
        // measured on the same GPU a moment before, on the same data.
        const bool measured = put_gpu_alone(scenario, recorded, graded);
        record_stream(scenario, graded);
        if (!measured) {
            throw std::runtime_error("the GPU's stages alone could not be recorded, your run could");
        }
    });
    session.scenario(scenarios::kSweep, [&](Scenario& scenario) {
        const GradedJob graded(host, kModelShape, kBalanced, recorded.h2d_ms, kSweepCounts);
        lab06::run_stream(graded.job);  // warm-up
        host.reset();
        lab06::Sweep sweep;
        session.record(scenario, "lab06 sweep_chunks", [&] { sweep = lab06::sweep_chunks(graded.job, kSweepCounts); });
        put_recorded_run(scenario, recorded, graded);
        put_sweep(scenario, sweep);
    });
}

}  // namespace

int main(int argc, char** argv) {
    return streamlab::recording::record_scenarios(argc, argv, record_lab06);
}
