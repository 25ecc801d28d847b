/// @file lab06.hpp
/// @brief Lab 06, many chunks, few streams: what you implement in many_chunks.cu.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

/// Lab 06: many chunks, few streams.
namespace lab06 {

/// One set of device buffers: what one chunk needs on the GPU while it is there.
struct DeviceSet {
    float* input = nullptr;   ///< `StreamingJob::capacity` floats: the chunk copied in.
    float* output = nullptr;  ///< `StreamingJob::capacity` floats: the kernel's results.
};

/// A stream of data larger than the pinned buffers: the host produces the input
/// piece by piece and takes the results piece by piece; the program (or the
/// grader) allocates every buffer. Your code allocates none.
struct StreamingJob {
    std::size_t n = 0;              ///< Elements in the whole stream.
    int chunks = 1;                 ///< N: the stream is cut into this many chunks (streamlab::chunk_range).
    int iterations = 1;             ///< The workload kernel's iterations.
    std::size_t capacity = 0;       ///< Floats each buffer below holds: at least the largest chunk.
    std::vector<float*> staging;    ///< The ring of pinned host buffers the host fills (S of them).
    std::vector<float*> results;    ///< The ring of pinned host buffers the host drains (R of them).
    std::vector<DeviceSet> device;  ///< K device buffer sets: the work goes through K streams.
    /// The host writes elements [offset, offset + count) of the input into
    /// `staging` (one of `staging`); returns when they are there.
    std::function<void(std::size_t offset, std::size_t count, float* staging)> produce;
    /// The host takes elements [offset, offset + count) of the results from
    /// `results` (one of `results`); returns when it has read them.
    std::function<void(std::size_t offset, std::size_t count, const float* results)> consume;
};

/// Tasks 1 to 3. Streams the job through the GPU: chunk c (0 to job.chunks - 1,
/// in that order) is produced into a staging buffer, copied to a device set,
/// processed by the workload kernel (job.iterations), copied back into a results
/// buffer and consumed from there. Uses exactly job.device.size() non-blocking
/// streams, no other buffers than the job's, and never reuses a buffer before
/// its previous use has ended. Returns once every chunk has been consumed.
void run_stream(const StreamingJob& job);

/// One point of a chunk-count sweep.
struct SweepPoint {
    int chunks = 0;  ///< N.
    double ms = 0;   ///< How long run_stream took with N chunks, from its start to its return.
};

/// What sweep_chunks found.
struct Sweep {
    std::vector<SweepPoint> points;  ///< One per chunk count, in the order given.
    int best_chunks = 0;             ///< The N of the fastest point.
};

/// Task 4. Runs `job` once with each of `chunk_counts` as its number of chunks,
/// times each run, and says which was fastest.
Sweep sweep_chunks(const StreamingJob& job, const std::vector<int>& chunk_counts);

}  // namespace lab06
