"""Lab 06's course side, as the module's submodule streamlab.lab06 (python/bind_many_chunks.cpp):
the rings, the host that fills and drains them, and the grader's questions about their records
(labs/06-many-chunks/host_side.hpp, ring_timeline.hpp).

The rings, the host and the jobs own memory and stay in the library: HostStream and
CourseJob hold what `call` returned for them, and the library lets go of it when they
are gone. The records (HostUse, RecordedChunk, ...) are plain values.
"""

from __future__ import annotations

from typing import Any

from . import LinkSharing
from ._library import Kept, Value, call

# ---------------------------------------------------------------- the rings


def RingShape(  # noqa: N802  (the module's class name)
    chunks: int | None = None, staging: int | None = None, results: int | None = None, device_sets: int | None = None
) -> Value:
    """How many chunks, and how many buffers of each ring: RingShape() for the course's
    defaults, or all four. Its fields can be set."""
    given = {"chunks": chunks, "staging": staging, "results": results, "device_sets": device_sets}
    return call("lab06.RingShape", **{name: value for name, value in given.items() if value is not None})


def Rings(capacity: int, shape: Value) -> Kept:  # noqa: N802
    """The job's buffers: S + R pinned ones and K device sets, `capacity` floats each."""
    return call("lab06.Rings", capacity=capacity, shape=shape)


def capacity_for(n: int, chunk_counts: list[int]) -> int:
    """Floats a buffer needs for the largest chunk of n elements cut into any of these counts."""
    return call("lab06.capacity_for", n=n, chunk_counts=list(chunk_counts))


# ---------------------------------------------------------------- the job and the host


class CourseJob:
    """The course's streaming job: the rings' addresses (n, chunks, iterations, capacity,
    staging, results, device) and the host's produce and consume."""

    def __init__(self, kept: Kept) -> None:
        self._kept = kept  # the job in the library, with its host and rings, lives as long as this
        self._handle = kept._fields["__handle__"]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kept, name)

    # Called once per chunk from the student's loop: only the job's handle goes along.
    def produce(self, offset: int, count: int, staging: int) -> None:
        call("lab06.CourseJob.produce", job=self._handle, offset=offset, count=count, staging=staging)

    def consume(self, offset: int, count: int, results: int) -> None:
        call("lab06.CourseJob.consume", job=self._handle, offset=offset, count=count, results=results)


def HostUse(offset: int, count: int, slot: int, start_ns: int, end_ns: int) -> Value:  # noqa: N802
    """One fill or drain of a ring buffer, on the timeline's clock (ns); made in Python
    only to ask the grader's questions of chosen times."""
    return call("lab06.HostUse", offset=offset, count=count, slot=slot, start_ns=start_ns, end_ns=end_ns)


class HostStream:
    """The host's side: the whole input and output, and every fill and drain."""

    def __init__(self, n: int) -> None:
        self._kept = call("lab06.HostStream", n=n)

    @property
    def n(self) -> int:
        return self._kept.n

    def job(self, rings: Kept, chunks: int, iterations: int) -> CourseJob:
        """A job over `rings` whose produce and consume record each call (it keeps the host and the rings alive)."""
        return CourseJob(
            call("lab06.HostStream.job", host=self._kept, rings=rings, chunks=chunks, iterations=iterations)
        )

    def slow_down(self, extra_ns: int) -> None:
        """Every later fill and drain takes extra_ns longer."""
        call("lab06.HostStream.slow_down", host=self._kept, extra_ns=extra_ns)

    def reset(self) -> None:
        """Forgets the records and poisons the output."""
        call("lab06.HostStream.reset", host=self._kept)

    def fills(self, origin_ns: int) -> list[Value]:
        """The fills since reset(), relative to origin_ns."""
        return call("lab06.HostStream.fills", host=self._kept, origin_ns=origin_ns)

    def drains(self, origin_ns: int) -> list[Value]:
        """The drains since reset(), relative to origin_ns."""
        return call("lab06.HostStream.drains", host=self._kept, origin_ns=origin_ns)

    def measure_alone(self, rings: Kept, chunks: int) -> tuple[float, float]:
        """(fill_ms, drain_ms): the host's time for all fills, and for all drains, alone."""
        return tuple(call("lab06.HostStream.measure_alone", host=self._kept, rings=rings, chunks=chunks))

    def check_output(self, iterations: int, chunks: int) -> Value:
        """What consume wrote, against the CPU reference."""
        return call("lab06.HostStream.check_output", host=self._kept, iterations=iterations, chunks=chunks)

    def measure_gpu_alone(self, iterations: int) -> tuple[Value, Value]:
        """(SerialReference, LinkSharing) of the whole input on this GPU: the stage times and
        the shared link the model needs."""
        return tuple(call("lab06.HostStream.measure_gpu_alone", host=self._kept, iterations=iterations))


# ---------------------------------------------------------------- the grader's questions


def pair_chunks(fills: list[Value], drains: list[Value], ops: list[Value], n: int, chunks: int) -> Value:
    """Pairs each chunk's fill, H2D copy, kernel, D2H copy and drain, in the order they
    were issued: a RecordedRun (chunks, problem)."""
    return call("lab06.pair_chunks", fills=list(fills), drains=list(drains), ops=list(ops), n=n, chunks=chunks)


def reuse_hazards(chunks: list[Value], device_sets: int) -> list[str]:
    """Every buffer use that began before the previous use of that buffer ended, one sentence each."""
    return call("lab06.reuse_hazards", chunks=list(chunks), device_sets=device_sets)


def run_spans(fills: list[Value], drains: list[Value]) -> list[Value]:
    """The runs found in a sweep's records (each starts with a fill at offset 0)."""
    return call("lab06.run_spans", fills=list(fills), drains=list(drains))


def streaming_model_ms(
    gpu_stages: tuple[float, float, float],
    fill_ms: float,
    drain_ms: float,
    chunks: int,
    sets: int,
    copy_engines: int,
    order: str,
    link: Value | None = None,
) -> float:
    """The model's makespan of a streaming run, host included (gpu_stages: the whole data's
    H2D, kernel and D2H times alone, as SerialReference.stages gives them)."""
    link = link if link is not None else LinkSharing()
    return call(
        "lab06.streaming_model_ms",
        gpu_stages=list(gpu_stages),
        fill_ms=fill_ms,
        drain_ms=drain_ms,
        chunks=chunks,
        sets=sets,
        copy_engines=copy_engines,
        order=order,
        link=link,
    )
