"""Lab 01 in Python: the NULL stream.

Your tasks are `run_serial` and `run_barrier_demo` (README, Tasks 1 and 2; the
README shows the calls in C++ and in Python). The course's recording program
(record_lab01.py) runs them while CUPTI records what the GPU did; the C++
track's judges grade only that record and the results.

    ./course check 01 --python
"""

from __future__ import annotations

import streamlab  # noqa: F401  (streamlab.launch_workload: the course's kernel)
from cuda.bindings import runtime as cudart  # noqa: F401  (the API you use)
from cuda_check import check  # noqa: F401  (check(cudart.cudaXxx(...)): the results, or an exception)
from lab01 import FLOAT_BYTES, DemoWork  # noqa: F401


def run_serial(host_input: int, host_output: int, n: int, iterations: int) -> float:
    """Task 1: the whole job in the NULL stream, one step after another; returns the elapsed milliseconds.

    `host_input` and `host_output` are n floats of pinned host memory (addresses)."""
    # TODO(lab01) Task 1: device memory for the input and the results; copy the
    # input in, run the workload kernel, copy the results back into `host_output`, all
    # in the NULL stream. Time the three steps with two CUDA events, wait for the
    # second, free what you allocated and return the elapsed milliseconds.
    raise NotImplementedError("TODO(lab01): run_serial")


def run_barrier_demo(stream_flags: int, work: DemoWork) -> None:
    """Task 2: kernel A in a stream, kernel B in the NULL stream, kernel C in another stream."""
    # TODO(lab01) Task 2: two streams created with `stream_flags`; kernel A
    # (writing work.outputs[0]) in the first, B (outputs[1]) in the NULL stream,
    # C (outputs[2]) in the second, launched in that order with at most
    # work.max_blocks blocks each. Wait for the device, then destroy both streams.
    raise NotImplementedError("TODO(lab01): run_barrier_demo")
