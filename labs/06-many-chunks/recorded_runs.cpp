// Lab 06's recording side: see recorded_runs.hpp.
#include "recorded_runs.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ring_timeline.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab06::course {

using streamlab::record::Scenario;

namespace {

/// `value` under `key` where it is a number a record can hold; a NaN or an
/// infinity your code returned is left out (the judge reads a missing value as not a number).
void put_finite(Scenario& scenario, const std::string& key, double value) {
    if (std::isfinite(value)) {
        scenario.values[key] = value;
    }
}

}  // namespace

RecordedHost::RecordedHost(streamlab::recording::Session& session)
    : seed(session.seed()),
      host(static_cast<std::size_t>(session.setup_value(
               "n",
               [&] {
                   return static_cast<double>(
                       session.salted_elements(streamlab::pipeline_elements(session.facts().total_memory_bytes)));
               })),
           seed),
      h2d_ms(session.setup_value("h2d_ms",
                                 [&] { return streamlab::measure_h2d_ms(host.input.size() * sizeof(float)); })) {}

void put_recorded_run(Scenario& scenario, const RecordedHost& recorded, const GradedJob& graded) {
    const std::uint64_t origin_ns = scenario.timeline->origin_ns;
    put_host_uses(scenario.values, recorded.host.fills(origin_ns), recorded.host.drains(origin_ns));
    scenario.values["iterations"] = graded.iterations;
    scenario.values["fill_alone_ms"] = graded.alone.fill;
    scenario.values["drain_alone_ms"] = graded.alone.drain;
}

void put_output_sample(Scenario& scenario, const RecordedHost& recorded, const GradedJob& graded) {
    const std::vector<float>& output = recorded.host.output;
    scenario.output = streamlab::record::sample_output(output.data(), output.size(), graded.iterations,
                                                       graded.shape.chunks, recorded.seed);
}

bool put_gpu_alone(Scenario& scenario, const RecordedHost& recorded, const GradedJob& graded) {
    streamlab::PipelineMemory memory(recorded.host.input.size());
    std::copy(recorded.host.input.begin(), recorded.host.input.end(), memory.input.data());
    try {
        const streamlab::SerialReference serial = streamlab::run_serial_reference(memory, graded.iterations);
        const streamlab::LinkSharing link = streamlab::measure_link_sharing(memory);
        scenario.values["gpu_h2d_ms"] = serial.stages.h2d;
        scenario.values["gpu_kernel_ms"] = serial.stages.kernel;
        scenario.values["gpu_d2h_ms"] = serial.stages.d2h;
        scenario.values["link_h2d"] = link.h2d;
        scenario.values["link_d2h"] = link.d2h;
    } catch (const streamlab::TimelineUnavailable&) {
        if (streamlab::tracer_started_before()) {
            throw;  // it recorded earlier in this process: broken by the code under test
        }
        return false;  // not on this machine: the recording of the run says so, as a skip
    }
    return true;
}

void put_sweep(Scenario& scenario, const lab06::Sweep& sweep) {
    // No more points than the judges read.
    scenario.values["points"] = static_cast<double>(sweep.points.size());
    scenario.values["best_chunks"] = sweep.best_chunks;
    for (std::size_t i = 0; i < std::min(sweep.points.size(), kSweepCounts.size()); ++i) {
        const std::string point = "point_" + std::to_string(i) + "_";
        scenario.values[point + "chunks"] = sweep.points[i].chunks;
        put_finite(scenario, point + "ms", sweep.points[i].ms);
    }
}

}  // namespace lab06::course
