"""Lab 02 in Python: creating streams.

Your tasks are `run_in_streams` and `run_in_null_stream` (README, Tasks 1 and 2;
the README shows the calls in C++ and in Python). The course's recording program
(record_lab02.py) runs them while CUPTI records what the GPU did and which
runtime calls your code made; the C++ track's judges grade only that record,
never anything your code prints or returns in its WaitReport. Your prediction
for Task 1 goes in prediction.txt.

    ./course check 02 --python
"""

from __future__ import annotations

import streamlab  # noqa: F401  (streamlab.launch_workload: the course's kernel)
from cuda.bindings import runtime as cudart  # noqa: F401  (the API you use)
from cuda_check import check  # noqa: F401  (check(cudart.cudaXxx(...)): the results, or an exception)
from lab02 import KernelJob, WaitReport  # noqa: F401


def run_in_streams(jobs: list[KernelJob], flags: int) -> WaitReport:
    """Task 1: job i's kernel in stream i of streams created with `flags`; waits, then destroys them."""
    # TODO(lab02) Task 1: create one stream per job with `flags` and launch job
    # i's kernel (at most job.max_blocks blocks) in stream i. Poll the last
    # stream once (is it idle yet?), wait for the first stream alone, ask it
    # again, then wait for the whole device. Destroy every stream you created.
    # cudaStreamQuery's "not ready" is an answer, not an error: check() would
    # raise on it.
    # Return a WaitReport with what the two queries said.
    raise NotImplementedError("TODO(lab02): run_in_streams")


def run_in_null_stream(jobs: list[KernelJob]) -> None:
    """Task 2: the same kernels, one after another, in the NULL stream."""
    # TODO(lab02) Task 2: launch every job's kernel in the NULL stream and wait for them.
    raise NotImplementedError("TODO(lab02): run_in_null_stream")
