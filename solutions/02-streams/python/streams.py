"""Lab 02 in Python, the reference solution: one stream per kernel, and the NULL stream for comparison."""

from __future__ import annotations

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab02 import KernelJob, WaitReport

NULL_STREAM = 0  # the legacy NULL stream: stream handle 0


def idle(stream) -> bool:
    """Whether `stream` has finished all its work: cudaStreamQuery, whose "not ready" is an answer."""
    (error,) = cudart.cudaStreamQuery(stream)
    if error == cudart.cudaError_t.cudaErrorNotReady:
        return False
    check((error,))
    return True


def run_in_streams(jobs: list[KernelJob], flags: int) -> WaitReport:
    """Task 1: job i's kernel in stream i; poll the last stream, wait for the first, then for all."""
    streams = [check(cudart.cudaStreamCreateWithFlags(flags)) for _ in jobs]
    report = WaitReport()
    try:
        for job, stream in zip(jobs, streams):
            streamlab.launch_workload(job.input, job.output, job.n, job.iterations, stream, job.max_blocks)
        report.last_stream_idle_when_polled = idle(streams[-1])
        check(cudart.cudaStreamSynchronize(streams[0]))
        report.first_stream_idle_after_sync = idle(streams[0])
        check(cudart.cudaDeviceSynchronize())
    finally:
        for stream in streams:
            check(cudart.cudaStreamDestroy(stream))
    return report


def run_in_null_stream(jobs: list[KernelJob]) -> None:
    """Task 2: every kernel in the NULL stream, so one after another."""
    for job in jobs:
        streamlab.launch_workload(job.input, job.output, job.n, job.iterations, NULL_STREAM, job.max_blocks)
    check(cudart.cudaDeviceSynchronize())
