"""The numbers a timeline is graded on: busy time, overlap, hidden copy time.

Each op occupies a half-open interval [start_ns, end_ns) on one of the GPU's units:
the H2D copy engine, the D2H copy engine, or the SMs ("compute"). Overlap is the
length of the intersection of two units' busy time, where a unit's busy time is the
union of its ops' intervals (two kernels running at once count once, not twice).

The C++ side (streamlab's trace analysis) computes the same numbers with the same
definitions; tools/tests/test_analysis.py checks both agree when the C++ program is
available, and tools/tests/test_native.py through the Python module streamlab, which
the tools use instead of this file where it is built (native.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .trace import DeviceOp

Interval = tuple[int, int]

UNITS = ("h2d", "d2h", "compute", "other")


def merge_intervals(intervals: Iterable[Interval]) -> list[Interval]:
    """The union of ``intervals`` as sorted, disjoint intervals.

    Intervals that overlap or touch ([0, 5) and [5, 9)) merge into one; empty ones vanish.
    """
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            last_start, last_end = merged[-1]
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    return merged


def total_length(intervals: Iterable[Interval]) -> int:
    """The length of the union of ``intervals``: time covered at least once."""
    return sum(end - start for start, end in merge_intervals(intervals))


def intersection_length(a: Iterable[Interval], b: Iterable[Interval]) -> int:
    """The length of union(a) ∩ union(b): time during which both sets are busy."""
    first, second = merge_intervals(a), merge_intervals(b)
    length = 0
    i = j = 0
    # Walk both sorted lists together, like the merge step of merge sort.
    while i < len(first) and j < len(second):
        start = max(first[i][0], second[j][0])
        end = min(first[i][1], second[j][1])
        length += max(0, end - start)
        if first[i][1] < second[j][1]:
            i += 1
        else:
            j += 1
    return length


def covered_at_least(intervals: Iterable[Interval], times: int) -> int:
    """Total time during which at least ``times`` of ``intervals`` run at once."""
    # Sweep over start (+1) and end (-1) points. At equal times ends sort first, so
    # touching intervals ([0, 5) and [5, 9)) are never counted as running together.
    edges = sorted(edge for start, end in intervals if end > start for edge in ((start, +1), (end, -1)))
    running = 0
    covered = 0
    previous = 0
    for time, change in edges:
        if running >= times:
            covered += time - previous
        running += change
        previous = time
    return covered


def unit_of(op: DeviceOp) -> str:
    """The GPU unit an op keeps busy: "compute", "h2d", "d2h" or "other"."""
    return {"kernel": "compute", "memcpy_h2d": "h2d", "memcpy_d2h": "d2h"}.get(op.kind, "other")


def intervals_of(ops: Iterable[DeviceOp], *units: str) -> list[Interval]:
    """The [start_ns, end_ns) intervals of the ops that run on one of ``units``."""
    return [(op.start_ns, op.end_ns) for op in ops if unit_of(op) in units]


def summarize(ops: Sequence[DeviceOp]) -> dict[str, Any]:
    """The timeline's summary: makespan, per-unit busy time, overlaps, stream counts.

    Keys (all times integer ns):
      makespan_ns             last end minus first start (0 without ops)
      busy_h2d_ns, busy_d2h_ns, busy_compute_ns
                              length of the union of that unit's intervals
      copy_compute_overlap_ns time during which a copy (either direction) and a kernel run
      h2d_d2h_overlap_ns      time during which an H2D and a D2H copy run
      kernel_overlap_ns       time during which at least two kernels run
      hidden_copy_fraction    copy_compute_overlap_ns / copy busy time (float; 0.0 without copies)
      distinct_streams        number of different stream ids
      null_stream_ops         ops in the legacy NULL stream or the per-thread default stream
      op_count                number of ops
    """
    h2d = intervals_of(ops, "h2d")
    d2h = intervals_of(ops, "d2h")
    kernels = intervals_of(ops, "compute")
    copies = h2d + d2h

    copy_busy = total_length(copies)
    copy_compute_overlap = intersection_length(copies, kernels)
    return {
        "makespan_ns": max((op.end_ns for op in ops), default=0) - min((op.start_ns for op in ops), default=0),
        "busy_h2d_ns": total_length(h2d),
        "busy_d2h_ns": total_length(d2h),
        "busy_compute_ns": total_length(kernels),
        "copy_compute_overlap_ns": copy_compute_overlap,
        "h2d_d2h_overlap_ns": intersection_length(h2d, d2h),
        "kernel_overlap_ns": covered_at_least(kernels, 2),
        "hidden_copy_fraction": copy_compute_overlap / copy_busy if copy_busy > 0 else 0.0,
        "distinct_streams": len({(op.device, op.stream) for op in ops}),  # stream ids are each GPU's own
        "null_stream_ops": sum(op.stream_kind in ("legacy_null", "per_thread_default") for op in ops),
        "op_count": len(ops),
    }
