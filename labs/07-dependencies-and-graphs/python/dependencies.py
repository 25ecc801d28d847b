"""Lab 07 in Python: one stream per stage joined by events, a host function per
chunk, the whole pipeline captured once into a CUDA graph, and a stream of greater
priority for a small urgent kernel.

Your tasks are in this file (README, Tasks 1 to 4; the README shows each step in
C++ and in Python). The course's recording program (record_lab07.py) runs them
while CUPTI records what the GPU did, and which host thread made which runtime
call; the C++ track's judges grade only that record, the output and the course's
consumer's own notes, never anything your code prints.

    ./course check 07 --python
"""

from __future__ import annotations

from collections.abc import Callable

import streamlab  # noqa: F401  (streamlab.chunk_range and streamlab.launch_workload)
from cuda.bindings import runtime as cudart  # noqa: F401  (the API you use)
from cuda_check import check  # noqa: F401  (check(cudart.cudaXxx(...)): the results, or an exception)
from lab07 import FLOAT_BYTES, Consumer, PipelineJob, StageStreams, UrgentWork  # noqa: F401


def queue_stages(
    job: PipelineJob, chunks: int, streams: StageStreams, after_d2h: Callable[[int], None] | None = None
) -> None:
    """Queues the job, cut into `chunks` chunks (streamlab.chunk_range), in the stage
    design: chunk by chunk, in order, chunk c's H2D copy in streams.copy_in, its
    workload kernel (job.iterations) in streams.compute and its D2H copy in
    streams.copy_out. Each stage of a chunk waits, on the GPU, for the stage before
    it of the same chunk, and for nothing else. Right after queuing chunk c's D2H
    copy it calls after_d2h(c) when given. Returns without waiting for the GPU.
    """
    # TODO(lab07) Task 1: per chunk, its three stages in their three streams; after
    # each of the first two, an event recorded in that stream, which the next
    # stage's stream waits for (cudaStreamWaitEvent) before the chunk's next stage.
    raise NotImplementedError("TODO(lab07): queue_stages")


def run_stage_streams(job: PipelineJob, chunks: int) -> None:
    """Runs the job through three non-blocking streams of its own with queue_stages
    and returns once every result is in job.output."""
    # TODO(lab07) Task 1: create the three streams, queue the stages, wait for the
    # last stage's stream, and destroy the streams.
    raise NotImplementedError("TODO(lab07): run_stage_streams")


def run_with_host_consumer(job: PipelineJob, chunks: int, consumer: Consumer) -> None:
    """The pipeline of Task 1, in which the GPU itself has each chunk's results
    consumed as soon as its D2H copy has ended, through a host function queued
    after that copy. This thread never waits for a chunk. Returns once every chunk
    has been consumed."""
    # TODO(lab07) Task 2: queue_stages with an after_d2h that queues
    # cudart.cudaLaunchHostFunc(copy_out, consumer.host_function, consumer.user_data(c)).
    raise NotImplementedError("TODO(lab07): run_with_host_consumer")


def run_graph(job: PipelineJob, chunks: int, launches: int) -> None:
    """Captures the pipeline of Task 1 (its three stage streams forked from an origin
    stream with an event and joined back into it) into a CUDA graph, instantiates it
    once and launches it `launches` times in the origin stream. Returns once the last
    launch has ended; releases the graph, its instance and every stream and event it
    created."""
    # TODO(lab07) Task 3: begin capturing in the origin stream; fork (an event the
    # stage streams wait for); queue_stages; join (each stage stream's event, which
    # the origin stream waits for); end the capture; instantiate; launch; wait.
    raise NotImplementedError("TODO(lab07): run_graph")


def run_with_urgent_kernel(urgent: UrgentWork, high_priority: bool) -> None:
    """Hands urgent.fill_gpu a stream of the least priority the device offers, then
    urgent.launch a stream of its own: of the greatest priority when high_priority,
    of the default priority otherwise. Returns once both kernels have ended."""
    # TODO(lab07) Task 4: cudart.cudaDeviceGetStreamPriorityRange() gives (least, greatest);
    # cudart.cudaStreamCreateWithPriority(cudart.cudaStreamNonBlocking, priority) makes a stream.
    raise NotImplementedError("TODO(lab07): run_with_urgent_kernel")
