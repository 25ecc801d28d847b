/// @file analysis.hpp
/// @brief Questions a grader asks of a recorded timeline: what overlapped, for how long,
/// in which streams.
///
/// Every function takes the device operations of a Timeline and only reads them.
/// Lengths are in ns and count time, not operations: two kernels that run side by
/// side for 5 us add 5 us of overlap, however many pieces they were recorded in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "streamlab/timeline.hpp"

namespace streamlab {

// ---------------------------------------------------------------- intervals

/// A half-open stretch of time [start_ns, end_ns).
struct Interval {
    std::uint64_t start_ns = 0;  ///< First ns inside.
    std::uint64_t end_ns = 0;    ///< First ns after.
};

/// The union of `intervals` as sorted, disjoint intervals: overlapping and touching
/// intervals are merged into one, empty ones dropped. Throws std::invalid_argument
/// for an interval that ends before it starts.
[[nodiscard]] std::vector<Interval> merge_intervals(std::vector<Interval> intervals);

/// Total length of the union of `intervals` (time covered at least once).
[[nodiscard]] std::uint64_t total_length(const std::vector<Interval>& intervals);

/// Length of (union of `a`) ∩ (union of `b`): the time both cover.
[[nodiscard]] std::uint64_t intersection_length(const std::vector<Interval>& a, const std::vector<Interval>& b);

// ---------------------------------------------------------------- hardware units

/// The hardware unit an operation keeps busy, as far as overlap grading is concerned.
enum class Unit {
    CopyH2D,  ///< Host-to-device copies.
    CopyD2H,  ///< Device-to-host copies.
    Compute,  ///< Kernels.
    Other,    ///< Device-to-device and other copies, memsets.
};

/// The unit an op of `kind` uses: kernel → Compute, memcpy_h2d → CopyH2D,
/// memcpy_d2h → CopyD2H, everything else → Other.
[[nodiscard]] Unit unit_of(OpKind kind);

// ---------------------------------------------------------------- timeline measures

/// Last end minus first start over all ops; 0 when there are none.
[[nodiscard]] std::uint64_t makespan_ns(const std::vector<DeviceOp>& ops);

/// The longest time two CUDA events can span when the host recorded them at the
/// times of its first and last recorded cudaEventRecord calls: from the first call
/// to the later of the last call and the last op's end (an event is reached when
/// the host records it or, with work queued before it, when that work ends).
/// On a busy machine the host may be late to record `stop`; this span includes
/// that delay, the makespan does not. The makespan when fewer than two events were recorded.
[[nodiscard]] std::uint64_t event_record_span_ns(const Timeline& timeline);

/// Time during which at least one op of `unit` ran (the length of the union of their intervals).
[[nodiscard]] std::uint64_t busy_ns(const std::vector<DeviceOp>& ops, Unit unit);

/// Time during which a copy (H2D or D2H) and a kernel ran at once:
/// |union(H2D ∪ D2H) ∩ union(kernels)|.
[[nodiscard]] std::uint64_t copy_compute_overlap_ns(const std::vector<DeviceOp>& ops);

/// Time during which an H2D copy and a D2H copy ran at once (needs two copy engines).
[[nodiscard]] std::uint64_t h2d_d2h_overlap_ns(const std::vector<DeviceOp>& ops);

/// Time during which at least two kernels ran at once.
[[nodiscard]] std::uint64_t kernel_overlap_ns(const std::vector<DeviceOp>& ops);

/// The share of copy time hidden behind kernels: copy_compute_overlap_ns divided by
/// the length of union(H2D ∪ D2H). 0 when there are no copies; 1 when every copy
/// ran entirely while some kernel ran.
[[nodiscard]] double hidden_copy_fraction(const std::vector<DeviceOp>& ops);

/// Number of different streams among all ops (a stream of each GPU: ids are per GPU).
[[nodiscard]] std::size_t distinct_streams(const std::vector<DeviceOp>& ops);

/// The stream ids that ops of `kind` ran in.
[[nodiscard]] std::set<std::uint32_t> streams_of(const std::vector<DeviceOp>& ops, OpKind kind);

/// Ops that ran in the legacy NULL stream or a per-thread default stream.
[[nodiscard]] std::size_t null_stream_ops(const std::vector<DeviceOp>& ops);

/// The calls that may make streams wait for each other (OrderingCall::ImplicitSync)
/// that the host made while some op of `timeline` was running: those are the ones
/// that can serialize the streams' work. The same call made before any work was
/// queued, or once everything had finished, holds nothing up.
[[nodiscard]] std::vector<StreamCall> implicit_syncs_while_busy(const Timeline& timeline);

/// The median of `values` (of an even count, the upper of the middle two): what the
/// course keeps of repeated measurements. Throws std::invalid_argument when empty.
[[nodiscard]] double median(std::vector<double> values);

/// Whether `a` had finished when `b` started (a.end_ns <= b.start_ns).
[[nodiscard]] bool ended_before(const DeviceOp& a, const DeviceOp& b);

/// Whether `a` and `b` ran at the same time for a positive length of time
/// (ops that only touch, one ending as the other starts, do not overlap).
[[nodiscard]] bool overlaps(const DeviceOp& a, const DeviceOp& b);

/// The ops of `kind`, sorted by start.
[[nodiscard]] std::vector<DeviceOp> ops_of_kind(const std::vector<DeviceOp>& ops, OpKind kind);

/// The ops that ran in stream `stream_id`, sorted by start.
[[nodiscard]] std::vector<DeviceOp> ops_in_stream(const std::vector<DeviceOp>& ops, std::uint32_t stream_id);

/// The GPUs (CUDA device ordinals, DeviceOp::device_id) that ran any of `ops`.
[[nodiscard]] std::set<std::uint32_t> devices_of(const std::vector<DeviceOp>& ops);

/// The ops that GPU `device` ran (DeviceOp::device_id), sorted by start. Every
/// measure above then asks about that GPU alone.
[[nodiscard]] std::vector<DeviceOp> ops_on_device(const std::vector<DeviceOp>& ops, std::uint32_t device);

// ---------------------------------------------------------------- summary

/// All the measures above for one timeline, as `streamlab_analyze` prints them.
struct TimelineSummary {
    std::uint64_t makespan_ns = 0;              ///< makespan_ns(ops)
    std::uint64_t busy_h2d_ns = 0;              ///< busy_ns(ops, Unit::CopyH2D)
    std::uint64_t busy_d2h_ns = 0;              ///< busy_ns(ops, Unit::CopyD2H)
    std::uint64_t busy_compute_ns = 0;          ///< busy_ns(ops, Unit::Compute)
    std::uint64_t copy_compute_overlap_ns = 0;  ///< copy_compute_overlap_ns(ops)
    std::uint64_t h2d_d2h_overlap_ns = 0;       ///< h2d_d2h_overlap_ns(ops)
    std::uint64_t kernel_overlap_ns = 0;        ///< kernel_overlap_ns(ops)
    double hidden_copy_fraction = 0.0;          ///< hidden_copy_fraction(ops)
    std::size_t distinct_streams = 0;           ///< distinct_streams(ops)
    std::size_t null_stream_ops = 0;            ///< null_stream_ops(ops)
    std::size_t op_count = 0;                   ///< ops.size()
};

/// Computes every measure of TimelineSummary for `ops`.
[[nodiscard]] TimelineSummary summarize(const std::vector<DeviceOp>& ops);

/// The summary as one flat JSON object whose keys are the field names of TimelineSummary.
[[nodiscard]] std::string summary_to_json(const TimelineSummary& summary);

}  // namespace streamlab
