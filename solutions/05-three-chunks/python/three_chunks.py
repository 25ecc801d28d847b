"""Lab 05 in Python, the reference solution: three chunks, three streams, copies beside kernels."""

from __future__ import annotations

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab05 import FLOAT_BYTES, PipelineJob

H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost


def run_pipeline(job: PipelineJob, chunks: int) -> float:
    """Runs `job` cut into `chunks` chunks, chunk i in stream i; returns the elapsed milliseconds."""
    # Task 1: non-blocking streams, so that none waits for the legacy NULL stream.
    streams = [check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking)) for _ in range(chunks)]
    start, stop = check(cudart.cudaEventCreate()), check(cudart.cudaEventCreate())
    chunk_done = [check(cudart.cudaEventCreate()) for _ in range(chunks)]
    try:
        first = streams[0]
        # Task 3, the fork: every stream's work comes after `start`.
        check(cudart.cudaEventRecord(start, first))
        for stream in streams[1:]:
            check(cudart.cudaStreamWaitEvent(stream, start, 0))
        # Task 2: each chunk's three steps in its own stream, nothing waited for.
        for i, stream in enumerate(streams):
            offset, count = streamlab.chunk_range(job.n, chunks, i)
            at, size = offset * FLOAT_BYTES, count * FLOAT_BYTES
            check(cudart.cudaMemcpyAsync(job.device_input + at, job.input + at, size, H2D, stream))
            streamlab.launch_workload(job.device_input + at, job.device_output + at, count, job.iterations, stream)
            check(cudart.cudaMemcpyAsync(job.output + at, job.device_output + at, size, D2H, stream))
            check(cudart.cudaEventRecord(chunk_done[i], stream))
        # Task 3, the join: `stop` comes after every stream's work, whichever ends last.
        for done in chunk_done[1:]:
            check(cudart.cudaStreamWaitEvent(first, done, 0))
        check(cudart.cudaEventRecord(stop, first))
        check(cudart.cudaEventSynchronize(stop))
        return check(cudart.cudaEventElapsedTime(start, stop))
    finally:
        for event in [start, stop, *chunk_done]:
            check(cudart.cudaEventDestroy(event))
        for stream in streams:
            check(cudart.cudaStreamDestroy(stream))
