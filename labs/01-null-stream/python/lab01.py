"""Lab 01 in Python, the NULL stream: what you implement in null_stream.py.

The same lab as the C++ one (lab01.hpp), with the article's own API: cuda-bindings,
`from cuda.bindings import runtime as cudart`. Buffers are addresses (integers),
as cuda-bindings hands them out.
"""

from __future__ import annotations

from dataclasses import dataclass

FLOAT_BYTES = 4


@dataclass(frozen=True)
class DemoWork:
    """The device memory and sizes of the barrier demo's three kernels."""

    input: int  # device input, n floats
    outputs: tuple[int, int, int]  # device outputs of kernels A, B and C, n floats each
    n: int  # elements per kernel
    iterations: int  # workload iterations
    max_blocks: int  # grid cap: small kernels, so that they could share the GPU
