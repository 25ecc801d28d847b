"""The pipeline model: how long H2D → kernel → D2H takes when the data is cut into chunks.

Stage times are for the WHOLE data: ``h2d`` to copy all of it in, ``kernel`` to process
all of it, ``d2h`` to copy all of it out. Cut into N equal chunks, each stage of one
chunk takes a 1/N share: h = h2d / N, k = kernel / N, d = d2h / N.

Two views of the same pipeline:

* pipeline_model: closed formulas for the ideal makespan and the bound.
* simulate_pipeline: a step-by-step schedule, op by op, of what the GPU's units can
  do with the ops in the order a program issues them. It shows *why* the formulas hold,
  and where issue order matters (one copy engine), and what copies in both directions
  sharing one link cost (LinkSharing).

This is the Python twin of common/src/model.cpp, kept so that the plots work without
a build; streamlab_tools.native uses the C++ one through the streamlab module where
it is built, and tools/tests/test_native.py checks that the two agree.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

STAGES = ("H2D", "K", "D2H")


def pipeline_model(h2d: float, kernel: float, d2h: float, chunks: int, copy_engines: int) -> dict[str, float]:
    """Serial time, ideal pipelined makespan, bound and speedup for ``chunks`` chunks.

    With two or more copy engines, H2D and D2H copies run on separate engines and the
    slowest stage sets the pace:   ideal = h + k + d + (N - 1) * max(h, k, d)
    With one copy engine both directions share it, so copies pace as h + d:
                                   ideal = h + k + d + (N - 1) * max(h + d, k)
    The bound is the busiest unit's total work, which no number of chunks can beat:
    max(H2D, kernel, D2H), or max(H2D + D2H, kernel) with one engine.

    Returns {"serial", "ideal", "bound", "speedup"} in the unit of the inputs
    (speedup = serial / ideal).
    """
    _check_stage_times(h2d, kernel, d2h)
    _check_at_least_one(chunks=chunks, copy_engines=copy_engines)
    h, k, d = h2d / chunks, kernel / chunks, d2h / chunks
    if copy_engines >= 2:
        ideal = h + k + d + (chunks - 1) * max(h, k, d)
        bound = max(h2d, kernel, d2h)
    else:
        ideal = h + k + d + (chunks - 1) * max(h + d, k)
        bound = max(h2d + d2h, kernel)
    serial = h2d + kernel + d2h
    return {
        "serial": serial,
        "ideal": ideal,
        "bound": bound,
        "speedup": serial / ideal if ideal > 0 else 1.0,
    }


@dataclass(frozen=True)
class LinkSharing:
    """How much the two copy directions slow each other down when they run at once.

    Each number is the fraction of its own speed a direction keeps while the other
    direction copies too (H2D and D2H usually share one link, PCIe say, and the memory
    behind it): 1 means no slowdown, the ideal model's assumption.
    """

    h2d: float = 1.0
    d2h: float = 1.0


@dataclass(frozen=True)
class ScheduledOp:
    """One op of a simulated schedule."""

    chunk: int  # from 0, as in model.cpp: the article's chunk 1 is chunk 0
    stage: str  # "H2D", "K" or "D2H"
    stream: int  # from 0
    start: float
    end: float

    @property
    def name(self) -> str:
        """The op's name as the article and the labs' traces show it: "H2D_1", "K_1", "D2H_1"."""
        return f"{self.stage}_{self.chunk + 1}"


@dataclass
class _PendingOp:
    chunk: int
    stage: str
    stream: int
    unit: str
    work_left: float  # the time it would still take at its full speed
    start: float = 0.0
    end: float = 0.0
    started: bool = False


def simulate_pipeline(
    h2d: float,
    kernel: float,
    d2h: float,
    chunks: int,
    streams: int,
    copy_engines: int,
    order: str = "chunk",
    link: LinkSharing = LinkSharing(),
) -> list[ScheduledOp]:
    """Schedules H2D_i, K_i, D2H_i for every chunk i the way the GPU would run them.

    Chunk i (from 0) goes to stream i % streams. ``order`` is the issue order:
    "chunk" issues H2D_1, K_1, D2H_1, H2D_2, ...; "stage" issues all H2D, then all
    kernels, then all D2H.

    The GPU's units: one for kernels ("compute", one kernel at a time), and with two or
    more copy engines one engine per copy direction, with one engine a single shared
    copy engine. An op runs once
      * the op before it in its stream has ended (a stream runs in order), and
      * every op issued to its unit before it has ended: each unit takes its ops in
        issue order, first in first out, even one that is not ready yet
        (head-of-line blocking).
    While an H2D and a D2H copy run at once, each goes at the fraction of its speed
    that ``link`` gives (the default, 1 and 1, is the ideal model's).

    Returns the ops in issue order, times in the unit of the inputs. The same
    simulation as model.cpp's simulate_pipeline, step for step.
    """
    _check_stage_times(h2d, kernel, d2h)
    _check_at_least_one(chunks=chunks, streams=streams, copy_engines=copy_engines)
    for name, fraction in (("h2d", link.h2d), ("d2h", link.d2h)):
        if not 0 < fraction <= 1:
            raise ValueError(f"the link sharing fraction {name} must be in (0, 1], not {fraction}")
    per_chunk = {"H2D": h2d / chunks, "K": kernel / chunks, "D2H": d2h / chunks}
    unit_of_stage = {
        "H2D": "H2D copy" if copy_engines >= 2 else "copy",
        "K": "compute",
        "D2H": "D2H copy" if copy_engines >= 2 else "copy",
    }
    ops = [
        _PendingOp(chunk, stage, chunk % streams, unit_of_stage[stage], per_chunk[stage])
        for chunk, stage in issue_order(chunks, order)
    ]
    # Each stream and each unit serves its ops in issue order: an op runs while it is
    # first in both its queues.
    stream_queues: dict[int, deque[_PendingOp]] = {}
    unit_queues: dict[str, deque[_PendingOp]] = {}
    for op in ops:
        stream_queues.setdefault(op.stream, deque()).append(op)
        unit_queues.setdefault(op.unit, deque()).append(op)

    # Between two moments where an op starts or ends the speeds do not change, so
    # time jumps from one such moment to the next.
    now = 0.0
    while True:
        running = [
            queue[0] for queue in unit_queues.values() if queue and stream_queues[queue[0].stream][0] is queue[0]
        ]
        if not running:
            break
        running_stages = {op.stage for op in running}
        both_directions = "H2D" in running_stages and "D2H" in running_stages
        for op in running:
            if not op.started:
                op.started, op.start = True, now
        step = min(op.work_left / _speed(op, both_directions, link) for op in running)
        now += step
        for op in running:
            speed = _speed(op, both_directions, link)
            if op.work_left / speed <= step:  # the op, or one of the ops, that set the step
                op.work_left, op.end = 0.0, now
                stream_queues[op.stream].popleft()
                unit_queues[op.unit].popleft()
            else:
                op.work_left -= step * speed
    return [ScheduledOp(chunk=op.chunk, stage=op.stage, stream=op.stream, start=op.start, end=op.end) for op in ops]


def _speed(op: _PendingOp, both_directions: bool, link: LinkSharing) -> float:
    """The fraction of its full speed ``op`` runs at: copies slow down while both directions copy."""
    if not both_directions or op.stage == "K":
        return 1.0
    return link.h2d if op.stage == "H2D" else link.d2h


def issue_order(chunks: int, order: str = "chunk") -> list[tuple[int, str]]:
    """The (chunk, stage) pairs, chunks from 0, in the order a program issues them; see simulate_pipeline."""
    if order == "chunk":
        return [(chunk, stage) for chunk in range(chunks) for stage in STAGES]
    if order == "stage":
        return [(chunk, stage) for stage in STAGES for chunk in range(chunks)]
    raise ValueError(f'order must be "chunk" or "stage", not {order!r}')


def makespan(schedule: list[ScheduledOp]) -> float:
    """Last end minus first start of a simulated schedule (0 when empty)."""
    if not schedule:
        return 0.0
    return max(op.end for op in schedule) - min(op.start for op in schedule)


def _check_stage_times(h2d: float, kernel: float, d2h: float) -> None:
    for name, value in (("h2d", h2d), ("kernel", kernel), ("d2h", d2h)):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name} time must be finite and not negative, not {value}")


def _check_at_least_one(**counts: int) -> None:
    for name, value in counts.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, not {value}")
