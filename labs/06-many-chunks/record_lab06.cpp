// Lab 06's recording program: the only course program that runs your run_stream
// and sweep_chunks for grading. It runs each scenario the graded tests need once
// (graded_jobs.hpp), while CUPTI records what the GPU did and the course's produce
// and consume time every write and read of a ring buffer on the same clock, and
// sends both to the recording harness: the host's fills and drains among the
// scenario's values. It judges nothing: the tests in test_lab06.cpp read its
// record afterwards, in processes that never load your code.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "graded_jobs.hpp"
#include "host_side.hpp"
#include "lab06.hpp"
#include "ring_timeline.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/recording.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using namespace lab06::course;
using streamlab::record::Scenario;
using streamlab::recording::Session;

/// `value` under `key` where it is a number a record can hold; a NaN or an
/// infinity your code returned is left out (the judge reads a missing value as not a number).
void put_finite(Scenario& scenario, const std::string& key, double value) {
    if (std::isfinite(value)) {
        scenario.values[key] = value;
    }
}

void record_lab06(Session& session) {
    const DeviceFacts& facts = session.facts();
    const auto n = static_cast<std::size_t>(
        session.setup_value("n", [&] { return static_cast<double>(pipeline_elements(facts.total_memory_bytes)); }));
    HostStream host(n, session.seed());
    const double h2d_ms = session.setup_value("h2d_ms", [&] { return measure_h2d_ms(n * sizeof(float)); });

    // What the course measured of a job, for the judges.
    const auto put_job = [](Scenario& scenario, const GradedJob& graded) {
        scenario.values["iterations"] = graded.iterations;
        scenario.values["fill_alone_ms"] = graded.alone.fill;
        scenario.values["drain_alone_ms"] = graded.alone.drain;
    };
    // The host's fills and drains of the recorded run, on its timeline's clock.
    const auto put_fills_and_drains = [&](Scenario& scenario) {
        const std::uint64_t origin_ns = scenario.timeline->origin_ns;
        put_host_uses(scenario.values, host.fills(origin_ns), host.drains(origin_ns));
    };
    // Your run_stream once to warm up, then once more while CUPTI records.
    const auto record_stream = [&](Scenario& scenario, const GradedJob& graded) {
        lab06::run_stream(graded.job);
        host.reset();
        session.record(scenario, "lab06 run_stream", [&] { lab06::run_stream(graded.job); });
        put_fills_and_drains(scenario);
        put_job(scenario, graded);
    };
    const auto sample = [&](Scenario& scenario, const GradedJob& graded) {
        scenario.output =
            record::sample_output(host.output.data(), n, graded.iterations, graded.shape.chunks, session.seed());
    };

    session.scenario(scenarios::kResults, [&](Scenario& scenario) {
        const GradedJob graded(host, kResultsShape, kBalanced, h2d_ms);
        record_stream(scenario, graded);
        sample(scenario, graded);
    });
    session.scenario(scenarios::kSlowHost, [&](Scenario& scenario) {
        const GradedJob graded(host, kSlowHostShape, kBalanced, h2d_ms);
        // A chunk's longest GPU step is its kernel, sized by GradedJob to this share of the whole.
        const double longest_step_ms = graded.longest_of_copy_and_host_ms / kSlowHostShape.chunks;
        host.slow_down(static_cast<std::uint64_t>(kSlowHostFactor * 1e6 * longest_step_ms));
        record_stream(scenario, graded);
        host.slow_down(0);
        sample(scenario, graded);
    });
    session.scenario(scenarios::kHazards, [&](Scenario& scenario) {
        const GradedJob graded(host, kHazardShape, kHostRunsAhead, h2d_ms);
        record_stream(scenario, graded);
    });
    session.scenario(scenarios::kPipeline, [&](Scenario& scenario) {
        const GradedJob graded(host, kModelShape, kBalanced, h2d_ms);
        // The GPU's stages alone and the interference between the copy directions,
        // measured on the same GPU a moment before, on the same data.
        bool measured = true;
        {
            PipelineMemory memory(n);
            std::copy(host.input.begin(), host.input.end(), memory.input.data());
            try {
                const SerialReference serial = run_serial_reference(memory, graded.iterations);
                const LinkSharing link = measure_link_sharing(memory);
                scenario.values["gpu_h2d_ms"] = serial.stages.h2d;
                scenario.values["gpu_kernel_ms"] = serial.stages.kernel;
                scenario.values["gpu_d2h_ms"] = serial.stages.d2h;
                scenario.values["link_h2d"] = link.h2d;
                scenario.values["link_d2h"] = link.d2h;
            } catch (const TimelineUnavailable&) {
                if (tracer_started_before()) {
                    throw;  // it recorded earlier in this process: broken by the code under test
                }
                measured = false;  // not on this machine: the recording below says so, as a skip
            }
        }
        record_stream(scenario, graded);
        if (!measured) {
            throw std::runtime_error("the GPU's stages alone could not be recorded, your run could");
        }
    });
    session.scenario(scenarios::kSweep, [&](Scenario& scenario) {
        const GradedJob graded(host, kModelShape, kBalanced, h2d_ms, kSweepCounts);
        lab06::run_stream(graded.job);  // warm-up
        host.reset();
        lab06::Sweep sweep;
        session.record(scenario, "lab06 sweep_chunks", [&] { sweep = lab06::sweep_chunks(graded.job, kSweepCounts); });
        put_fills_and_drains(scenario);
        put_job(scenario, graded);
        // What your sweep returned: no more points than the judges read.
        scenario.values["points"] = static_cast<double>(sweep.points.size());
        scenario.values["best_chunks"] = sweep.best_chunks;
        for (std::size_t i = 0; i < std::min(sweep.points.size(), kSweepCounts.size()); ++i) {
            const std::string point = "point_" + std::to_string(i) + "_";
            scenario.values[point + "chunks"] = sweep.points[i].chunks;
            put_finite(scenario, point + "ms", sweep.points[i].ms);
        }
    });
}

}  // namespace

int main(int argc, char** argv) {
    return streamlab::recording::record_scenarios(argc, argv, record_lab06);
}
