/// @file recorded_runs.hpp
/// @brief Lab 06's recording side, shared by both recording programs: the C++
/// track's record_lab06.cpp and the Python track's python/record_lab06.py (through
/// the module streamlab.lab06). The set-up every scenario shares, and what a
/// scenario records beside its timeline: what the course measured of the graded
/// job, the host's fills and drains, the run's output, the GPU's stages alone, and
/// what your sweep returned. Both tracks' records so carry the same values under
/// the same keys, which the judges (test_lab06.cpp) read.
#pragma once

#include <cstdint>

#include "graded_jobs.hpp"
#include "host_side.hpp"
#include "lab06.hpp"
#include "streamlab/record.hpp"
#include "streamlab/recording.hpp"

namespace lab06::course {

/// What every scenario of a recording shares: the host over set-up value "n"
/// elements (pipeline_elements for this GPU, bound to the run's job salt:
/// Session::salted_elements), its input filled from the recording's seed, and
/// the whole input's H2D copy measured alone (set-up value
/// "h2d_ms"), from which each GradedJob sizes its kernel. Make it before the
/// first scenario, like recording::Session::setup_value.
struct RecordedHost {
    explicit RecordedHost(streamlab::recording::Session& session);

    std::uint32_t seed;  ///< The recording's seed: the input's, and the output sample's.
    HostStream host;     ///< The whole input and output, and every fill and drain.
    double h2d_ms;       ///< The whole input's H2D copy, measured alone.
};

/// After a run of `graded.job` was recorded into `scenario` (the host reset just
/// before it): the host's fills and drains on its timeline's clock (put_host_uses),
/// and what the course measured of the job: "iterations", "fill_alone_ms" and
/// "drain_alone_ms".
void put_recorded_run(streamlab::record::Scenario& scenario, const RecordedHost& recorded, const GradedJob& graded);

/// The output that the host's consume wrote in the run of `graded.job`, sampled
/// for the judges (record::sample_output).
void put_output_sample(streamlab::record::Scenario& scenario, const RecordedHost& recorded, const GradedJob& graded);

/// The GPU's stages alone (run_serial_reference, with the job's iterations) and
/// how the two copy directions share the link (measure_link_sharing), measured now
/// on the whole input: "gpu_h2d_ms", "gpu_kernel_ms", "gpu_d2h_ms", "link_h2d" and
/// "link_d2h". False, with nothing put, where no timeline can be recorded on this
/// machine (the recording of the run then says so, as a skip); a tracer that
/// recorded earlier in this process and no longer starts was broken by the code
/// under test: that throws.
[[nodiscard]] bool put_gpu_alone(streamlab::record::Scenario& scenario, const RecordedHost& recorded,
                                 const GradedJob& graded);

/// What your sweep_chunks returned: "points" (how many) and "best_chunks", and for
/// each of the first kSweepCounts.size() points "point_i_chunks" and "point_i_ms"
/// (from 0; a time that is not a finite number is left out, and the judge reads it as NaN).
void put_sweep(streamlab::record::Scenario& scenario, const lab06::Sweep& sweep);

}  // namespace lab06::course
