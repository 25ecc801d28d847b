"""The pipeline model: how long H2D → kernel → D2H takes when the data is cut into chunks.

Stage times are for the WHOLE data: ``h2d`` to copy all of it in, ``kernel`` to process
all of it, ``d2h`` to copy all of it out. Cut into N equal chunks, each stage of one
chunk takes a 1/N share: h = h2d / N, k = kernel / N, d = d2h / N.

Two views of the same pipeline:

* pipeline_model: closed formulas for the ideal makespan and the bound.
* simulate_pipeline: a step-by-step schedule, op by op, of what the GPU's units can
  do with the ops in the order a program issues them. It shows *why* the formulas hold,
  and where issue order matters (one copy engine).
"""

from __future__ import annotations

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
class ScheduledOp:
    """One op of a simulated schedule."""

    chunk: int  # 1-based
    stage: str  # "H2D", "K" or "D2H"
    stream: int  # 0-based
    start: float
    end: float

    @property
    def name(self) -> str:
        """The op's name as the labs' traces show it: "H2D_1", "K_1", "D2H_1"."""
        return f"{self.stage}_{self.chunk}"


def simulate_pipeline(
    h2d: float,
    kernel: float,
    d2h: float,
    chunks: int,
    streams: int,
    copy_engines: int,
    order: str = "chunk",
) -> list[ScheduledOp]:
    """Schedules H2D_i, K_i, D2H_i for every chunk i the way the GPU would run them.

    Chunk i (1-based) goes to stream (i - 1) % streams. ``order`` is the issue order:
    "chunk" issues H2D_1, K_1, D2H_1, H2D_2, ...; "stage" issues all H2D, then all
    kernels, then all D2H.

    The GPU's units: one for kernels ("compute", one kernel at a time), and with two or
    more copy engines one engine per copy direction, with one engine a single shared
    copy engine. An op starts as soon as
      * the op before it in its stream has ended (a stream runs in order), and
      * its unit has finished the op it ran last.
    Each unit takes its ops in issue order, first in first out: an op waits for every op
    issued earlier to its unit, even one that is not ready yet (head-of-line blocking).

    Returns the ops in issue order, times in the unit of the inputs.
    """
    _check_stage_times(h2d, kernel, d2h)
    _check_at_least_one(chunks=chunks, streams=streams, copy_engines=copy_engines)
    per_chunk = {"H2D": h2d / chunks, "K": kernel / chunks, "D2H": d2h / chunks}
    unit_of_stage = {
        "H2D": "H2D copy" if copy_engines >= 2 else "copy",
        "K": "compute",
        "D2H": "D2H copy" if copy_engines >= 2 else "copy",
    }

    stream_free_at = [0.0] * streams  # when the last op issued to each stream ends
    unit_free_at: dict[str, float] = {}  # when the last op issued to each unit ends
    schedule = []
    for chunk, stage in issue_order(chunks, order):
        stream = (chunk - 1) % streams
        unit = unit_of_stage[stage]
        # Ops reach a unit in issue order, and a unit runs one op at a time, so waiting
        # for the unit's last op to end also waits for every op issued to it before.
        start = max(stream_free_at[stream], unit_free_at.get(unit, 0.0))
        end = start + per_chunk[stage]
        stream_free_at[stream] = end
        unit_free_at[unit] = end
        schedule.append(ScheduledOp(chunk=chunk, stage=stage, stream=stream, start=start, end=end))
    return schedule


def issue_order(chunks: int, order: str = "chunk") -> list[tuple[int, str]]:
    """The (chunk, stage) pairs in the order a program issues them; see simulate_pipeline."""
    if order == "chunk":
        return [(chunk, stage) for chunk in range(1, chunks + 1) for stage in STAGES]
    if order == "stage":
        return [(chunk, stage) for stage in STAGES for chunk in range(1, chunks + 1)]
    raise ValueError(f'order must be "chunk" or "stage", not {order!r}')


def makespan(schedule: list[ScheduledOp]) -> float:
    """Last end minus first start of a simulated schedule (0 when empty)."""
    if not schedule:
        return 0.0
    return max(op.end for op in schedule) - min(op.start for op in schedule)


def _check_stage_times(h2d: float, kernel: float, d2h: float) -> None:
    for name, value in (("h2d", h2d), ("kernel", kernel), ("d2h", d2h)):
        if value < 0:
            raise ValueError(f"{name} time must not be negative, not {value}")


def _check_at_least_one(**counts: int) -> None:
    for name, value in counts.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, not {value}")
