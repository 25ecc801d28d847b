"""Lab 07 in Python, dependencies, host functions, graphs, priorities: what you implement in dependencies.py.

The same lab as the C++ one (lab07.hpp), with the article's own API: cuda-bindings,
`from cuda.bindings import runtime as cudart`. Buffers are addresses (integers); an
offset into a buffer of floats is `address + element_offset * FLOAT_BYTES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

FLOAT_BYTES = 4
CHUNKS = 8  # the graded runs' chunk count


@dataclass(frozen=True)
class PipelineJob:
    """The memory and the work of one pipeline run, as in lab 05. The program allocates it."""

    input: int  # host input, n floats, pinned
    output: int  # host output, n floats, pinned
    device_input: int  # device memory for the input, n floats
    device_output: int  # device memory for the results, n floats
    n: int  # elements
    iterations: int  # workload iterations


@dataclass(frozen=True)
class StageStreams:
    """The three streams of the stage design: one per stage."""

    copy_in: Any  # where every chunk's H2D copy goes (a cudart.cudaStream_t)
    compute: Any  # where every chunk's kernel goes
    copy_out: Any  # where every chunk's D2H copy goes


@dataclass(frozen=True)
class Consumer:
    """The host's side of Task 2: what takes chunk c's results out of job.output.

    A host function in CUDA is a C function and one pointer of data; the course
    provides both, so that your code queues the consumer with the runtime call itself:
    cudart.cudaLaunchHostFunc(stream, consumer.host_function, consumer.user_data(c)).
    The course's host function calls no CUDA function.
    """

    host_function: Any  # a cudart.cudaHostFn_t: the course's host function, which consumes one chunk
    user_data: Callable[[int], int]  # user_data(c): what to hand the host function for chunk c
    consume: Callable[[int], None]  # consume(c) at once, on the calling thread: not what Task 2 asks for


@dataclass(frozen=True)
class UrgentWork:
    """What Task 4 runs: the course's background kernel, which keeps the GPU full with a
    long queue of blocks waiting for room, and a small urgent kernel. Course code: it
    sizes both from the device and notes when the urgent kernel was launched."""

    fill_gpu: Callable[[Any], None]  # fill_gpu(stream): the background there; returns once it runs. First.
    launch: Callable[[Any], None]  # launch(stream): the urgent kernel there. After fill_gpu.


def job_over(memory: Any, iterations: int) -> PipelineJob:
    """The job over the course's streamlab.PipelineMemory, with the workload's iterations."""
    return PipelineJob(memory.input, memory.output, memory.device_input, memory.device_output, memory.n, iterations)


def consumer_over(course_consumer: Any) -> Consumer:
    """The Consumer over the course's streamlab.lab07.HostConsumer."""
    from cuda.bindings import runtime as cudart

    return Consumer(
        cudart.cudaHostFn_t(course_consumer.host_function), course_consumer.user_data, course_consumer.consume
    )


def urgent_work_over(demo: Any) -> UrgentWork:
    """The UrgentWork over the course's streamlab.lab07.PriorityDemo."""
    return UrgentWork(demo.fill_gpu, demo.launch)
