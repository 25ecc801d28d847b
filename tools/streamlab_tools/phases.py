"""Splitting a timeline into phases: stretches of GPU work separated by idle gaps.

A program often runs several experiments one after another with host work between
them (checking results, say): the GPU sits idle there. Described as one timeline,
such a run says little ("16.5 ms, 8% of copy time hidden") about any experiment.
Cut at its long idle gaps, each phase gets its own makespan and overlap.

A gap is long when the GPU is idle for more than IDLE_GAP_FRACTION of the whole
timeline and for longer than its longest operation: relative, not milliseconds, so
the rule holds for any size of run; and the short waits inside a pipeline (a kernel
that starts a little after its copy ended) never cut it.

Where the program named its experiments with NVTX ranges (nvtxRangePushA / Pop,
recorded on the host's clock), its outermost ranges are the phases, named after
them: an op belongs to the range during which it started (work issued inside a
range cannot start before it). Ops outside every range are cut at idle gaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import library
from .library import summarize
from .trace import DeviceOp, HostRange, Trace

IDLE_GAP_FRACTION = 0.02


@dataclass(frozen=True)
class Phase:
    """One stretch of GPU work: its number (from 1), its ops, sorted by start, and the name
    of the NVTX range it is ("" for a phase cut at idle gaps)."""

    number: int
    ops: tuple[DeviceOp, ...]
    name: str = ""

    @property
    def title(self) -> str:
        """ "phase 2" or, for a range, "phase 2 (version 1)"."""
        return f"phase {self.number} ({self.name})" if self.name else f"phase {self.number}"

    @property
    def start_ns(self) -> int:
        return self.ops[0].start_ns

    @property
    def end_ns(self) -> int:
        return max(op.end_ns for op in self.ops)


def outermost_ranges(ranges: Sequence[HostRange]) -> list[HostRange]:
    """The ranges that lie inside no other, sorted by start."""
    outer: list[HostRange] = []
    for item in sorted(ranges, key=lambda r: (r.start_ns, -r.end_ns)):
        if not any(o.start_ns <= item.start_ns and item.end_ns <= o.end_ns for o in outer):
            outer.append(item)
    return outer


def split_phases(
    ops: Sequence[DeviceOp], gap_fraction: float = IDLE_GAP_FRACTION, ranges: Sequence[HostRange] = ()
) -> list[Phase]:
    """``ops`` (sorted by start) cut into phases as the module's text says, numbered in order of start: one
    when there is no range and no long gap; none without ops."""
    if not ops:
        return []
    outer = outermost_ranges(ranges)
    in_range: dict[int, list[DeviceOp]] = {}
    outside: list[DeviceOp] = []
    for op in ops:
        owner = next((i for i, r in enumerate(outer) if r.start_ns <= op.start_ns <= r.end_ns), None)
        if owner is None:
            outside.append(op)
        else:
            in_range.setdefault(owner, []).append(op)
    busy = _busy_stretches(ops)
    longest_idle = max(gap_fraction * (busy[-1][1] - busy[0][0]), max(op.duration_ns for op in ops))
    groups = [(outer[i].name, group) for i, group in in_range.items()]
    groups += [("", group) for group in _cut_at_idle_gaps(outside, longest_idle)]
    groups.sort(key=lambda named: named[1][0].start_ns)
    return [Phase(number, tuple(group), name) for number, (name, group) in enumerate(groups, start=1)]


def _busy_stretches(ops: Sequence[DeviceOp]) -> list[tuple[int, int]]:
    """The (start_ns, end_ns) stretches during which the GPU is busy, sorted (analysis.hpp's merge_intervals)."""
    return library.load().merge_intervals([(op.start_ns, op.end_ns) for op in ops])


def _cut_at_idle_gaps(ops: Sequence[DeviceOp], longest_idle: float) -> list[list[DeviceOp]]:
    """``ops`` (sorted by start) in groups, cut where the GPU is idle for more than ``longest_idle``."""
    if not ops:
        return []
    busy = _busy_stretches(ops)
    # Where a group begins: the start of a busy stretch that follows a long idle gap.
    starts = [later[0] for earlier, later in zip(busy, busy[1:]) if later[0] - earlier[1] > longest_idle]
    groups: list[list[DeviceOp]] = [[]]
    for op in ops:
        if starts and op.start_ns >= starts[0]:
            starts.pop(0)
            groups.append([])
        groups[-1].append(op)
    return groups


def find_phase(phases: Sequence[Phase], choice: str) -> Phase | None:
    """The phase ``choice`` names: its number (from 1) or its range's name."""
    if choice.isdigit():
        number = int(choice)
        return phases[number - 1] if 1 <= number <= len(phases) else None
    return next((phase for phase in phases if phase.name == choice), None)


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
    return (
        f"{phase.title}: {start:.3f} to {end:.3f} ms, {len(phase.ops)} ops in "
        f"{stats['distinct_streams']} stream(s), makespan {stats['makespan_ns'] / 1e6:.3f} ms, "
        f"copies overlap kernels {stats['copy_compute_overlap_ns'] / 1e6:.3f} ms "
        f"({stats['hidden_copy_fraction']:.0%} of copy time hidden)"
    )
