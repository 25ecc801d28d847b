"""Splitting a timeline into phases: stretches of GPU work separated by idle gaps.

A program often runs several experiments one after another with host work between
them (checking results, say): the GPU sits idle there. Described as one timeline,
such a run says little ("16.5 ms, 8% of copy time hidden") about any experiment.
Cut at its long idle gaps, each phase gets its own makespan and overlap.

A gap is long when the GPU is idle for more than IDLE_GAP_FRACTION of the whole
timeline and for longer than its longest operation: relative, not milliseconds, so
the rule holds for any size of run; and the short waits inside a pipeline (a kernel
that starts a little after its copy ended) never cut it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .analysis import merge_intervals, summarize
from .trace import DeviceOp, Trace

IDLE_GAP_FRACTION = 0.02


@dataclass(frozen=True)
class Phase:
    """One stretch of GPU work: its number (from 1) and its ops, sorted by start."""

    number: int
    ops: tuple[DeviceOp, ...]

    @property
    def start_ns(self) -> int:
        return self.ops[0].start_ns

    @property
    def end_ns(self) -> int:
        return max(op.end_ns for op in self.ops)


def split_phases(ops: Sequence[DeviceOp], gap_fraction: float = IDLE_GAP_FRACTION) -> list[Phase]:
    """``ops`` (sorted by start) cut wherever the GPU is idle for more than ``gap_fraction``
    of the whole timeline and longer than the longest op. One phase when there is no such
    gap; none without ops."""
    if not ops:
        return []
    busy = merge_intervals((op.start_ns, op.end_ns) for op in ops)
    longest_idle = max(gap_fraction * (busy[-1][1] - busy[0][0]), max(op.duration_ns for op in ops))
    # Where a phase begins: the start of a busy stretch that follows a long idle gap.
    starts = [later[0] for earlier, later in zip(busy, busy[1:]) if later[0] - earlier[1] > longest_idle]
    groups: list[list[DeviceOp]] = [[]]
    for op in ops:
        if starts and op.start_ns >= starts[0]:
            starts.pop(0)
            groups.append([])
        groups[-1].append(op)
    return [Phase(number, tuple(group)) for number, group in enumerate(groups, start=1)]


def in_window(trace: Trace, from_ms: float, to_ms: float) -> Trace:
    """The part of ``trace`` that runs between ``from_ms`` and ``to_ms`` (ms since its first op):
    every op that overlaps the window, whole, and the host marks inside it."""
    if not trace.ops:
        return trace
    origin = trace.ops[0].start_ns
    low, high = origin + round(from_ms * 1e6), origin + round(to_ms * 1e6)
    ops = [op for op in trace.ops if op.end_ns >= low and op.start_ns <= high]
    marks = [mark for mark in trace.marks if low <= mark.time_ns <= high]
    return Trace(ops=ops, marks=marks, metadata=trace.metadata)


def phase_trace(trace: Trace, phase: Phase) -> Trace:
    """The trace of one phase: its ops, and the host marks between its first start and last end."""
    marks = [mark for mark in trace.marks if phase.start_ns <= mark.time_ns <= phase.end_ns]
    return Trace(ops=list(phase.ops), marks=marks, metadata=trace.metadata)


def describe_phase(phase: Phase, origin_ns: int) -> str:
    """One line: where the phase lies on the timeline, its makespan and how much copy time kernels hid."""
    stats = summarize(phase.ops)
    start, end = (phase.start_ns - origin_ns) / 1e6, (phase.end_ns - origin_ns) / 1e6
    return (f"phase {phase.number}: {start:.3f} to {end:.3f} ms, {len(phase.ops)} ops in "
            f"{stats['distinct_streams']} stream(s), makespan {stats['makespan_ns'] / 1e6:.3f} ms, "
            f"copies overlap kernels {stats['copy_compute_overlap_ns'] / 1e6:.3f} ms "
            f"({stats['hidden_copy_fraction']:.0%} of copy time hidden)")
