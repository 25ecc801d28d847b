"""Lab 07 in Python, the reference solution: one stream per stage joined by events, the
consumer queued as a host function after each chunk's copy out, the pipeline captured
once into a CUDA graph and launched many times, and the urgent kernel in a stream of
the greatest priority."""

from __future__ import annotations

from collections.abc import Callable

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab07 import FLOAT_BYTES, Consumer, PipelineJob, StageStreams, UrgentWork

H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost


def new_stream():
    return check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))


def new_event():
    return check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))


def queue_stages(
    job: PipelineJob, chunks: int, streams: StageStreams, after_d2h: Callable[[int], None] | None = None
) -> None:
    # Task 1: one event per stage boundary is enough. cudaStreamWaitEvent waits for
    # the record the event had when it was called, so the next record of the same
    # event does not disturb a wait already queued; and CUDA frees a destroyed
    # event only once its records have happened.
    copied_in, computed = new_event(), new_event()
    try:
        for c in range(chunks):
            offset, count = streamlab.chunk_range(job.n, chunks, c)
            at, size = offset * FLOAT_BYTES, count * FLOAT_BYTES
            check(cudart.cudaMemcpyAsync(job.device_input + at, job.input + at, size, H2D, streams.copy_in))
            check(cudart.cudaEventRecord(copied_in, streams.copy_in))
            check(cudart.cudaStreamWaitEvent(streams.compute, copied_in, 0))
            streamlab.launch_workload(
                job.device_input + at, job.device_output + at, count, job.iterations, streams.compute
            )
            check(cudart.cudaEventRecord(computed, streams.compute))
            check(cudart.cudaStreamWaitEvent(streams.copy_out, computed, 0))
            check(cudart.cudaMemcpyAsync(job.output + at, job.device_output + at, size, D2H, streams.copy_out))
            if after_d2h is not None:
                after_d2h(c)
    finally:
        check(cudart.cudaEventDestroy(copied_in))
        check(cudart.cudaEventDestroy(computed))


def run_stage_streams(job: PipelineJob, chunks: int) -> None:
    streams = StageStreams(new_stream(), new_stream(), new_stream())
    try:
        queue_stages(job, chunks, streams)
        # The last D2H copy is queued after every other one in copy_out, which waits
        # (through the events) for everything before it.
        check(cudart.cudaStreamSynchronize(streams.copy_out))
    finally:
        for stream in (streams.copy_in, streams.compute, streams.copy_out):
            check(cudart.cudaStreamDestroy(stream))


def run_with_host_consumer(job: PipelineJob, chunks: int, consumer: Consumer) -> None:
    streams = StageStreams(new_stream(), new_stream(), new_stream())

    def consume_when_copied(c: int) -> None:
        # Task 2: runs on a thread of CUDA's own once the D2H copy before it in
        # copy_out has ended; the course's host function calls no CUDA function.
        check(cudart.cudaLaunchHostFunc(streams.copy_out, consumer.host_function, consumer.user_data(c)))

    try:
        queue_stages(job, chunks, streams, consume_when_copied)
        check(cudart.cudaStreamSynchronize(streams.copy_out))  # the last host function has returned
    finally:
        for stream in (streams.copy_in, streams.compute, streams.copy_out):
            check(cudart.cudaStreamDestroy(stream))


def run_graph(job: PipelineJob, chunks: int, launches: int) -> None:
    origin = new_stream()
    streams = StageStreams(new_stream(), new_stream(), new_stream())
    stages = (streams.copy_in, streams.compute, streams.copy_out)
    forked, joined = new_event(), new_event()
    graph = instance = None
    try:
        # Task 3, the capture: nothing runs; every call below is recorded as a node.
        # The fork brings the stage streams into the capture; the join brings them
        # back, so that ending the capture in the origin stream finds no loose end.
        check(cudart.cudaStreamBeginCapture(origin, cudart.cudaStreamCaptureMode.cudaStreamCaptureModeThreadLocal))
        check(cudart.cudaEventRecord(forked, origin))
        for stage in stages:
            check(cudart.cudaStreamWaitEvent(stage, forked, 0))
        queue_stages(job, chunks, streams)
        for stage in stages:
            check(cudart.cudaEventRecord(joined, stage))
            check(cudart.cudaStreamWaitEvent(origin, joined, 0))
        graph = check(cudart.cudaStreamEndCapture(origin))
        # Instantiated once, launched many times: the cost of building the graph is paid once.
        instance = check(cudart.cudaGraphInstantiate(graph, 0))
        for _ in range(launches):
            check(cudart.cudaGraphLaunch(instance, origin))
        check(cudart.cudaStreamSynchronize(origin))
    finally:
        if instance is not None:
            check(cudart.cudaGraphExecDestroy(instance))
        if graph is not None:
            check(cudart.cudaGraphDestroy(graph))
        for event in (forked, joined):
            check(cudart.cudaEventDestroy(event))
        for stream in (origin, *stages):
            check(cudart.cudaStreamDestroy(stream))


def run_with_urgent_kernel(urgent: UrgentWork, high_priority: bool) -> None:
    # Task 4: the greatest priority is the lowest number. Both streams exist before
    # the background starts, so that the urgent launch follows it at once.
    least, greatest = check(cudart.cudaDeviceGetStreamPriorityRange())
    background = check(cudart.cudaStreamCreateWithPriority(cudart.cudaStreamNonBlocking, least))
    if high_priority:
        urgent_stream = check(cudart.cudaStreamCreateWithPriority(cudart.cudaStreamNonBlocking, greatest))
    else:
        urgent_stream = new_stream()
    try:
        urgent.fill_gpu(background)
        urgent.launch(urgent_stream)
        check(cudart.cudaStreamSynchronize(urgent_stream))
        check(cudart.cudaStreamSynchronize(background))
    finally:
        for stream in (background, urgent_stream):
            check(cudart.cudaStreamDestroy(stream))
