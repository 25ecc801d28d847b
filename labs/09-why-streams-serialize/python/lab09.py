"""Lab 09 in Python, why streams serialize: what you implement in serialize.py.

The same lab as the C++ one (lab09.hpp), with the article's own API: cuda-bindings,
`from cuda.bindings import runtime as cudart`. Buffers are addresses (integers),
as cuda-bindings hands them out; an offset into a buffer of floats is
`address + element_offset * FLOAT_BYTES`. Ordinary (pageable) host memory gets
its address from ctypes, here in the course's code.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

CHUNKS = 4  # the pipeline cuts the work into this many chunks, one stream each
FLOAT_BYTES = 4


@dataclass(frozen=True)
class PipelineJob:
    """The data and the work of one pipeline run. The caller owns both buffers; the
    pipeline allocates whatever device memory and staging it needs itself."""

    input: int  # host input, n floats, pinned (cudaMallocHost)
    output: int  # host output, n floats, ordinary (pageable) memory
    n: int  # elements
    iterations: int  # workload iterations (the kernel takes about as long as a copy)


def copy_on_host(destination: int, source: int, nbytes: int) -> None:
    """Copies `nbytes` from one host address to another, on the host (the C++ lab's std::memcpy)."""
    ctypes.memmove(destination, source, nbytes)


class PageableFloats:
    """n floats of ordinary (pageable) host memory, freed with the object: where a caller's results often are."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._memory = ctypes.create_string_buffer(n * FLOAT_BYTES)

    @property
    def address(self) -> int:
        return ctypes.addressof(self._memory)


def job_over(memory, output: PageableFloats, iterations: int) -> PipelineJob:
    """The job over the course's streamlab.PipelineMemory (its pinned input), with `output` for the results."""
    return PipelineJob(memory.input, output.address, memory.n, iterations)
