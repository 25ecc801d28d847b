"""Lab 06 in Python, many chunks through few streams: what you implement in many_chunks.py.

The same lab as the C++ one (lab06.hpp), with the article's own API: cuda-bindings,
`from cuda.bindings import runtime as cudart`. Buffers are addresses (integers); an
offset into a buffer of floats is `address + element_offset * FLOAT_BYTES`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

FLOAT_BYTES = 4


@dataclass(frozen=True)
class DeviceSet:
    """The device buffers one chunk needs while it is on the GPU."""

    input: int  # `capacity` floats: the chunk copied in
    output: int  # `capacity` floats: the kernel's results


@dataclass(frozen=True)
class StreamingJob:
    """A stream of data larger than the pinned buffers. The program (or the grader)
    allocates every buffer; your code allocates none."""

    n: int  # elements in the whole stream
    chunks: int  # N: the stream is cut into this many chunks (streamlab.chunk_range)
    iterations: int  # the workload kernel's iterations
    capacity: int  # floats each buffer below holds: at least the largest chunk
    staging: list[int]  # the ring of pinned host buffers the host fills (S of them)
    results: list[int]  # the ring of pinned host buffers the host drains (R of them)
    device: list[DeviceSet]  # K device buffer sets: the work goes through K streams
    # produce(offset, count, staging): the host writes elements [offset, offset + count)
    # of the input into `staging` (one of `staging`); returns when they are there.
    produce: Callable[[int, int, int], None]
    # consume(offset, count, results): the host takes elements [offset, offset + count)
    # of the results from `results` (one of `results`); returns when it has read them.
    consume: Callable[[int, int, int], None]

    def with_chunks(self, chunks: int) -> StreamingJob:
        """The same job cut into `chunks` chunks."""
        return dataclasses.replace(self, chunks=chunks)


@dataclass(frozen=True)
class SweepPoint:
    """One point of a chunk-count sweep."""

    chunks: int  # N
    ms: float  # how long run_stream took with N chunks, from its start to its return


@dataclass(frozen=True)
class Sweep:
    """What sweep_chunks found."""

    points: list[SweepPoint]  # one per chunk count, in the order given
    best_chunks: int  # the N of the fastest point


def job_over(course_job: Any) -> StreamingJob:
    """The job over the course's streamlab.lab06.CourseJob (its rings, its host)."""
    return StreamingJob(
        n=course_job.n,
        chunks=course_job.chunks,
        iterations=course_job.iterations,
        capacity=course_job.capacity,
        staging=list(course_job.staging),
        results=list(course_job.results),
        device=[DeviceSet(input, output) for input, output in course_job.device],
        produce=course_job.produce,
        consume=course_job.consume,
    )
