"""Lab 05 in Python, the three-chunk overlap: what you implement in three_chunks.py.

The same lab as the C++ one (lab05.hpp), with the article's own API: cuda-bindings,
`from cuda.bindings import runtime as cudart`. Buffers are addresses (integers),
as cuda-bindings hands them out; an offset into a buffer of floats is
`address + element_offset * FLOAT_BYTES`.
"""

from __future__ import annotations

from dataclasses import dataclass

CHUNKS = 3  # the article's example cuts the work into three chunks
FLOAT_BYTES = 4


@dataclass(frozen=True)
class PipelineJob:
    """The memory and the work of one pipeline run. The program allocates it."""

    input: int  # host input, n floats, pinned (cudaMallocHost)
    output: int  # host output, n floats, pinned
    device_input: int  # device memory for the input, n floats
    device_output: int  # device memory for the results, n floats
    n: int  # elements
    iterations: int  # workload iterations (the kernel takes about as long as the whole H2D copy)


def job_over(memory, iterations: int) -> PipelineJob:
    """The job over the course's streamlab.PipelineMemory, with the workload's iterations."""
    return PipelineJob(memory.input, memory.output, memory.device_input, memory.device_output, memory.n, iterations)
