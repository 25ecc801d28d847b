"""Lab 02 in Python, creating streams: what you implement in streams.py.

The same lab as the C++ one (lab02.hpp), with the article's own API: cuda-bindings,
`from cuda.bindings import runtime as cudart`. Buffers are addresses (integers).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelJob:
    """One independent kernel: the workload over n elements of `input` into `output` (device memory)."""

    input: int  # device input
    output: int  # device output
    n: int  # elements
    iterations: int  # workload iterations
    max_blocks: int  # grid cap, small enough that several kernels fit on the GPU together


@dataclass
class WaitReport:
    """What your code saw while it waited; the grader reads the timeline, not this."""

    first_stream_idle_after_sync: bool = False  # cudaStreamQuery(first) after cudaStreamSynchronize(first)
    last_stream_idle_when_polled: bool = False  # cudaStreamQuery(last), asked right after launching
