/// @file ring_timeline.hpp
/// @brief Lab 06's grading questions, asked of what was recorded: the host's
/// writes and reads of the rings (timed by the course's produce and consume) and
/// the GPU's ops (CUPTI). Plain data in, answers out: no GPU needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "streamlab/model.hpp"
#include "streamlab/pipeline.hpp"

namespace lab06::course {

/// One time the host wrote a staging buffer (produce) or read a results buffer
/// (consume), as the course's own function saw it, on the timeline's clock.
struct HostUse {
    std::size_t offset = 0;      ///< First element of the chunk.
    std::size_t count = 0;       ///< Elements.
    int slot = -1;               ///< Which buffer of its ring; -1: none of the ring's.
    std::uint64_t start_ns = 0;  ///< When the host began.
    std::uint64_t end_ns = 0;    ///< When it was done.
};

/// The host's fills and drains of one run, read back from a record's values
/// (put_host_uses), or why they cannot be.
struct HostUses {
    std::vector<HostUse> fills;   ///< In the order the course recorded them.
    std::vector<HostUse> drains;  ///< In the order the course recorded them.
    std::string problem;          ///< Empty when every use was read.
};

/// Puts a run's `fills` and `drains` (times relative to its timeline's origin,
/// as HostStream::fills gives them) into `values`, a scenario's values, so that a
/// record carries them to the judges: "fills" and "drains" (how many), and for
/// the i-th (from 0) "fill_i_offset", "fill_i_count", "fill_i_slot",
/// "fill_i_start_ns" and "fill_i_end_ns" ("drain_i_..." for a drain).
void put_host_uses(std::map<std::string, double>& values, const std::vector<HostUse>& fills,
                   const std::vector<HostUse>& drains);

/// The fills and drains put_host_uses put into `values`, in their order. A count
/// or a field that is missing or not a whole number in its range, or a use that
/// ends before it begins, is a problem (the record is then not the course's).
[[nodiscard]] HostUses host_uses_of(const std::map<std::string, double>& values);

/// Everything recorded of one run of the stream, chunk by chunk.
struct RecordedChunk {
    HostUse fill;             ///< The host writing the chunk into its staging buffer.
    streamlab::ChunkOps ops;  ///< Its H2D copy, kernel and D2H copy.
    HostUse drain;            ///< The host reading its results.
};

/// The chunks of one run, paired from the records, or why they cannot be.
struct RecordedRun {
    std::vector<RecordedChunk> chunks;  ///< In chunk order; empty on a problem.
    std::string problem;                ///< Empty when every chunk was found.
};

/// Pairs the records of a run of `chunks` chunks over `n` elements: the i-th
/// fill, drain, H2D copy, kernel and D2H copy issued are chunk i's. The fills and
/// drains must cover the chunks of streamlab::chunk_range in order.
[[nodiscard]] RecordedRun pair_chunks(const std::vector<HostUse>& fills, const std::vector<HostUse>& drains,
                                      const std::vector<streamlab::DeviceOp>& ops, std::size_t n, int chunks);

/// How far apart the host's and the GPU's clocks may read for the same instant
/// (CUPTI converts the GPU's timestamps to the host's clock) and ops of one
/// stream may touch: 10 us, far below a chunk's copy in the graded tests.
inline constexpr std::uint64_t kClockSlackNs = 10000;

/// Every use of a buffer that began before the previous use of that buffer had
/// ended, found from the recorded times alone, one sentence each:
/// - a staging buffer: written by the host while a copy from it could still read
///   (the next fill into the same buffer before the H2D copy of the chunk before
///   had ended), or copied before the host had finished writing it;
/// - a results buffer: read by the host before its D2H copy had ended, or written
///   by a D2H copy before the host had finished reading the chunk before;
/// - a chunk's kernel before its H2D copy had ended, its D2H before its kernel;
/// - the device sets: when an H2D copy began, `device_sets` other chunks still
///   held a device input buffer (copied in, kernel not ended), or when a kernel
///   began, `device_sets` others still held an output buffer (kernel begun, D2H
///   not ended). With that many sets, one of them was overwritten while in use,
///   whichever set each chunk took.
/// A fill or drain into a buffer that is not the ring's is a finding too.
[[nodiscard]] std::vector<std::string> reuse_hazards(const std::vector<RecordedChunk>& chunks, int device_sets);

/// The runs of a sweep, told apart by their fills: each run starts with a fill at offset 0.
struct RunSpan {
    std::size_t fills = 0;       ///< How many chunks the host produced in the run.
    std::uint64_t start_ns = 0;  ///< The run's first fill began.
    std::uint64_t end_ns = 0;    ///< Its last drain ended.
    /// The run's makespan in ms: from the first fill to the last drain.
    [[nodiscard]] double ms() const { return static_cast<double>(end_ns - start_ns) / 1e6; }
};
/// The runs found in a sweep's host records, in the order they ran.
[[nodiscard]] std::vector<RunSpan> run_spans(const std::vector<HostUse>& fills, const std::vector<HostUse>& drains);

/// The model of a streaming run of `chunks` chunks over `sets` streams, in ms:
/// the GPU's part is the course's pipeline simulation (simulate_pipeline: chunk c
/// in stream c % sets, `copy_engines`, `order`, the copies sharing the link as
/// `link` says) from the stage times of the whole data `gpu`; the host's part is
/// `fill_ms` and `drain_ms`, the host's time to produce and consume the whole
/// stream alone. The host does both on one thread, the first chunk must be
/// produced before anything reaches the GPU and the last consumed after it
/// leaves, so the model is the largest of: a chunk's fill + the GPU's makespan +
/// a chunk's drain; all fills and drains; all fills + the last chunk's way
/// through the GPU + its drain.
[[nodiscard]] double streaming_model_ms(const streamlab::StageTimes& gpu, double fill_ms, double drain_ms, int chunks,
                                        int sets, int copy_engines, streamlab::IssueOrder order,
                                        const streamlab::LinkSharing& link = {});

/// The host's time, in ms, in `uses` (one run's fills, or its drains): the sum of
/// their lengths. Over a run's own records it is the host's stage in that run,
/// measured while the GPU ran beside it, not in a run of its own.
[[nodiscard]] double host_busy_ms(const std::vector<HostUse>& uses);

/// The bound of a streaming run, in ms: the busiest unit's total, which no number
/// of chunks or streams gets below. The host works on one thread, so its total is
/// `host_ms`, the sum of what that thread must do (its fills and drains; the bench
/// adds the CUDA calls that hand the work to the GPU). The GPU's units are
/// streamlab::pipeline_model's bound for the stages `gpu` (an engine per copy
/// direction, or one for both when `copy_engines` is 1). Interference between the
/// copy directions only slows copies down, so stages measured alone give a bound
/// that no run can beat: a run measured faster owes it to the noise in the stage
/// measurements.
[[nodiscard]] double streaming_bound_ms(const streamlab::StageTimes& gpu, double host_ms, int copy_engines);

}  // namespace lab06::course
