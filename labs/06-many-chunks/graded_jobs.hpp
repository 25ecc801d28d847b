/// @file graded_jobs.hpp
/// @brief Lab 06's graded runs: the scenarios of the record, the shape of each
/// one's job and the weight of its kernel, and the job itself, built by the
/// recording programs (record_lab06.cpp, and python/record_lab06.py through the
/// module streamlab.lab06) around the host that produces and consumes. The
/// judges (test_lab06.cpp) read the same shapes, never the job.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "host_side.hpp"
#include "lab06.hpp"
#include "streamlab/workload.hpp"

namespace lab06::course {

/// The record's scenarios: each is one recorded run of your code.
namespace scenarios {
/// run_stream over kResultsShape: its output.
inline constexpr const char* kResults = "results";
/// run_stream over kSlowHostShape, the host slowed down: its output.
inline constexpr const char* kSlowHost = "slow_host";
/// run_stream over kHazardShape, the GPU four times slower than the host: every buffer's reuse, the overlap.
inline constexpr const char* kHazards = "hazards";
/// run_stream over kModelShape, after the GPU's stages alone: streams, makespan (and the stages the overlap's model
/// uses).
/// Named as `course check` expects the run it draws.
inline constexpr const char* kPipeline = "pipeline";
/// sweep_chunks over kSweepCounts: its points and the runs the host recorded.
inline constexpr const char* kSweep = "sweep";
}  // namespace scenarios

/// Chunks, staging buffers, results buffers, device sets of each scenario's job.
/// The rings differ in size so that one ring's waits never stand in for another's.
inline constexpr RingShape kResultsShape{16, 2, 3, 3};
/// The slow host's job: 7 chunks do not divide the data evenly; one results buffer.
inline constexpr RingShape kSlowHostShape{7, 2, 1, 2};
/// The hazards' job: more results buffers than device sets.
inline constexpr RingShape kHazardShape{16, 2, 4, 2};
/// The job judged against the model, and swept.
inline constexpr RingShape kModelShape{16, 3, 3, 3};

/// The kernel's total time over the longer of the whole H2D copy and the host's
/// fills and drains alone: at 1 the GPU's compute and the host are about equally
/// busy; at 4 the GPU is far slower than the host, which then runs ahead and
/// reaches every buffer as early as your waits let it.
inline constexpr double kBalanced = 1.0;
/// See kBalanced.
inline constexpr double kHostRunsAhead = 4.0;

/// The chunk counts the sweep scenario hands your sweep_chunks.
inline const std::vector<int> kSweepCounts{2, 4, 8, 16, 32, 64};

/// How much longer than the longest GPU step of a chunk the slow host takes over
/// each fill and drain: the GPU waits for the host then, not the other way round.
inline constexpr double kSlowHostFactor = 1.5;

/// One graded job over `host`: rings of `shape` (each buffer holds the largest
/// chunk of `shape.chunks` and of any of `counts`), the host's fills and drains
/// timed alone, a kernel `weight` times as long as the longer of the whole H2D
/// copy (`h2d_ms`) and those, and the job over the rings. The job's produce and
/// consume point at the rings: a GradedJob stays where it was made.
struct GradedJob {
    /// Builds it; the host is first set back to full speed (HostStream::slow_down).
    GradedJob(HostStream& host, const RingShape& shape_, double weight, double h2d_ms,
              const std::vector<int>& counts = {})
        : shape(shape_), rings(capacity_for(host.input.size(), with(counts, shape_.chunks)), shape_) {
        host.slow_down(0);
        alone = host.measure_alone(rings, shape.chunks);
        longest_of_copy_and_host_ms = std::max(h2d_ms, alone.fill + alone.drain);
        iterations = streamlab::iterations_for_kernel_ms(host.input.size(), weight * longest_of_copy_and_host_ms);
        job = host.job(rings, shape.chunks, iterations);
    }
    GradedJob(const GradedJob&) = delete;
    GradedJob& operator=(const GradedJob&) = delete;
    GradedJob(GradedJob&&) = delete;
    GradedJob& operator=(GradedJob&&) = delete;
    ~GradedJob() = default;

    RingShape shape;                         ///< Its chunks and rings.
    Rings rings;                             ///< The buffers the job hands your code.
    HostStream::AloneMs alone;               ///< The host's fills and drains of the stream, timed alone.
    double longest_of_copy_and_host_ms = 0;  ///< The longer of the whole H2D copy and `alone`'s fills and drains.
    int iterations = 1;                      ///< The workload kernel's iterations.
    StreamingJob job;                        ///< What your run_stream and sweep_chunks are given.

private:
    /// `counts` and `chunks`: every chunk count the rings must hold.
    static std::vector<int> with(std::vector<int> counts, int chunks) {
        counts.push_back(chunks);
        return counts;
    }
};

/// How much longer the slow host takes over each fill and drain of `graded`
/// (HostStream::slow_down): kSlowHostFactor times a chunk's longest GPU step, its
/// kernel (at kBalanced, GradedJob sizes the kernels of all chunks together to
/// `longest_of_copy_and_host_ms`).
inline std::uint64_t slow_host_extra_ns(const GradedJob& graded) {
    const double longest_step_ms = graded.longest_of_copy_and_host_ms / graded.shape.chunks;
    return static_cast<std::uint64_t>(kSlowHostFactor * 1e6 * longest_step_ms);
}

}  // namespace lab06::course
