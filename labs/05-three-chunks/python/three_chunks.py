"""Lab 05 in Python: the three-chunk pipeline, in which copies and kernels overlap.

Your task is `run_pipeline` (README, Tasks 1 to 3; the README shows each step in
C++ and in Python). The course's recording program (record_lab05.py) runs it
while CUPTI records what the GPU did; the C++ track's judges grade only that
record, never anything your code prints.

    ./course check 05 --python
"""

from __future__ import annotations

import streamlab  # noqa: F401  (streamlab.chunk_range and streamlab.launch_workload)
from cuda.bindings import runtime as cudart  # noqa: F401  (the API you use)
from cuda_check import check  # noqa: F401  (check(cudart.cudaXxx(...)): the results, or an exception)
from lab05 import FLOAT_BYTES, PipelineJob  # noqa: F401


def run_pipeline(job: PipelineJob, chunks: int) -> float:
    """Runs `job` cut into `chunks` chunks; returns the elapsed milliseconds, timed with CUDA events.

    Chunk i (streamlab.chunk_range(job.n, chunks, i) gives its offset and count,
    in elements) goes through its own stream: its part of the input to the
    device, the workload kernel on it, its results back into `job.output`.
    Works for any `chunks` >= 1.
    """
    # TODO(lab05) Task 1: one stream per chunk, created so that it does not wait
    # for the legacy NULL stream.
    # TODO(lab05) Task 2: queue each chunk's copy in, kernel and copy out in its
    # own stream, without waiting for anything in between.
    # TODO(lab05) Task 3: time the whole pipeline with two events: every stream's
    # work starts after `start` and `stop` comes after every stream's work. Wait
    # for `stop`, release what you created and return the elapsed milliseconds.
    raise NotImplementedError("TODO(lab05): run_pipeline")
