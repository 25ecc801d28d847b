"""Lab 06 in Python: many chunks through few streams, with rings of pinned buffers.

Your tasks are `run_stream` and `sweep_chunks` (README, Tasks 1 to 4; the README
shows each step in C++ and in Python). The course's recording program
(record_lab06.py) runs them while CUPTI records what the GPU did and the course's
produce and consume time every write and read of a ring buffer; the C++ track's
judges grade only those records and the output, never anything your code prints.

    ./course check 06 --python
"""

from __future__ import annotations

import time  # noqa: F401  (time.perf_counter for Task 4)

import streamlab  # noqa: F401  (streamlab.chunk_range and streamlab.launch_workload)
from cuda.bindings import runtime as cudart  # noqa: F401  (the API you use)
from cuda_check import check  # noqa: F401  (check(cudart.cudaXxx(...)): the results, or an exception)
from lab06 import FLOAT_BYTES, StreamingJob, Sweep, SweepPoint  # noqa: F401


def run_stream(job: StreamingJob) -> None:
    """Streams the job through the GPU. Chunk c (0 to job.chunks - 1, in that order;
    streamlab.chunk_range(job.n, job.chunks, c) gives its offset and count) is produced
    into a staging buffer, copied to a device set, processed by the workload kernel
    (job.iterations), copied back into a results buffer and consumed from there.
    Uses exactly len(job.device) non-blocking streams, no other buffers than the
    job's, and never reuses a buffer before its previous use has ended. Returns once
    every chunk has been consumed.
    """
    # TODO(lab06) Task 1: one non-blocking stream per device set, and per ring
    # buffer an event to record after the copy that uses it.
    # TODO(lab06) Task 2: the chunk loop. Chunk c uses staging buffer c % S, device
    # set and stream c % K, results buffer c % R: produce it, copy it in, run the
    # kernel on it, copy it back.
    # TODO(lab06) Task 3: before the host writes a staging buffer, wait for the
    # event after the H2D copy that last read it; before it reads a results buffer
    # (consume), for the one after its D2H copy; drain chunk c - R before chunk c's
    # D2H copy overwrites its buffer. Consume every chunk, in order, then release
    # what you created.
    raise NotImplementedError("TODO(lab06): run_stream")


def sweep_chunks(job: StreamingJob, chunk_counts: list[int]) -> Sweep:
    """Runs `job` once with each of `chunk_counts` as its number of chunks
    (job.with_chunks(n)), times each run from the call to the return, and says
    which was fastest."""
    # TODO(lab06) Task 4: one run per count, timed on the host clock.
    raise NotImplementedError("TODO(lab06): sweep_chunks")
