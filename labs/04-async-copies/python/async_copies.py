"""Lab 04 in Python: asynchronous copies.

Your task is `run_batches` (README, Tasks 1 to 3; the README shows the calls in
C++ and in Python). The course's recording program (record_lab04.py) runs it
while CUPTI records what the GPU did and the course's host work marks when control
came back to the host; the C++ track's judges grade only that record, never
anything your code prints.

    ./course check 04 --python
"""

from __future__ import annotations

import streamlab  # noqa: F401  (streamlab.launch_workload: the course's kernel)
from cuda.bindings import runtime as cudart  # noqa: F401  (the API you use)
from cuda_check import check  # noqa: F401  (check(cudart.cudaXxx(...)): the results, or an exception)
from lab04 import FLOAT_BYTES, Batch, BatchReport, HostWork, WaitWith  # noqa: F401


def run_batches(
    batches: list[Batch], n: int, iterations: int, wait: WaitWith, host_work: HostWork
) -> list[BatchReport]:
    """Every batch through one stream of your own; one report per batch."""
    # TODO(lab04) Task 1: a non-blocking stream, and device input and output (n
    # floats each) from the stream-ordered allocator, in that stream.
    # TODO(lab04) Task 2: for each batch b, queue its copy in, the kernel and its
    # copy out in your stream, none of them waiting; ask the stream whether it is
    # still busy (that goes in the report), call host_work(b), then wait for the
    # batch as `wait` says.
    # TODO(lab04) Task 3: free the device memory in the stream, wait for it, and
    # destroy the stream. Return the reports.
    raise NotImplementedError("TODO(lab04): run_batches")
