"""Lab 09 in Python, why streams serialize: what you implement in serialize.py and late_error.py.

The same lab as the C++ one (lab09.hpp), with the article's own API: cuda-bindings,
`from cuda.bindings import runtime as cudart`. Buffers are addresses (integers),
as cuda-bindings hands them out; an offset into a buffer of floats is
`address + element_offset * FLOAT_BYTES`. Ordinary (pageable) host memory gets
its address from ctypes, here in the course's code.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

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


# ---------------------------------------------------------------- Task 2: a late error

NO_CHUNK = -1  # ChunkError.chunk when no chunk can be named


@dataclass(frozen=True)
class CheckedJob:
    """Task 2's data. Every buffer is the caller's, allocated before the call (addresses)."""

    input: int  # host input, n floats, pinned
    output: int  # host output, n floats, pinned
    device_input: int  # device memory for the input, n floats
    device_output: int  # device memory for the results, n floats
    n: int  # elements
    iterations: int  # workload iterations


@dataclass(frozen=True)
class ChunkError:
    """What went wrong in a pipeline run, as run_checked_pipeline reports it."""

    chunk: int  # the failing chunk (0-based), or NO_CHUNK when no chunk can be named
    error: Any  # the cudart.cudaError_t, or cudaSuccess when nothing went wrong


def launch_faulty_workload(input: int, output: int, n: int, iterations: int, stream: Any) -> None:
    """The course's side of Task 2, not yours: queues a kernel in `stream` that computes what
    streamlab.launch_workload's does, with a bug. The thread whose input element is the course's
    tripwire writes outside any allocation: the kernel fails with cudaErrorIllegalAddress, an error
    that stays with the process (a sticky error). Which chunk holds that element is not known before
    the kernel runs. Unlike streamlab.launch_workload, it does not check the launch: call
    cudart.cudaGetLastError() after it."""
    import streamlab  # the course's module, loaded by the first launch (as in the tests' own helpers)

    streamlab.lab09.launch_faulty_workload(input, output, n, iterations, stream)


def checked_job_over(memory, iterations: int) -> CheckedJob:
    """Task 2's job over the course's streamlab.PipelineMemory: its pinned input and output, its device buffers."""
    return CheckedJob(memory.input, memory.output, memory.device_input, memory.device_output, memory.n, iterations)
