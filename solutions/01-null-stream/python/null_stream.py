"""Lab 01 in Python, the reference solution: the serial run and the NULL stream's barrier."""

from __future__ import annotations

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab01 import FLOAT_BYTES, DemoWork

NULL_STREAM = 0  # the legacy NULL stream: stream handle 0


def run_serial(host_input: int, host_output: int, n: int, iterations: int) -> float:
    """Task 1: H2D, kernel and D2H in the NULL stream, timed with two events; the elapsed milliseconds."""
    nbytes = n * FLOAT_BYTES
    device_input = check(cudart.cudaMalloc(nbytes))
    device_output = check(cudart.cudaMalloc(nbytes))
    start, stop = check(cudart.cudaEventCreate()), check(cudart.cudaEventCreate())
    try:
        check(cudart.cudaEventRecord(start, NULL_STREAM))
        check(cudart.cudaMemcpy(device_input, host_input, nbytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice))
        streamlab.launch_workload(device_input, device_output, n, iterations, NULL_STREAM)
        check(cudart.cudaMemcpy(host_output, device_output, nbytes, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        check(cudart.cudaEventRecord(stop, NULL_STREAM))
        check(cudart.cudaEventSynchronize(stop))
        return check(cudart.cudaEventElapsedTime(start, stop))
    finally:
        check(cudart.cudaEventDestroy(start))
        check(cudart.cudaEventDestroy(stop))
        check(cudart.cudaFree(device_input))
        check(cudart.cudaFree(device_output))


def run_barrier_demo(stream_flags: int, work: DemoWork) -> None:
    """Task 2: A in stream 1, B in the NULL stream, C in stream 2; blocking streams wait for B, and B for A."""
    first = check(cudart.cudaStreamCreateWithFlags(stream_flags))
    second = check(cudart.cudaStreamCreateWithFlags(stream_flags))
    try:
        for stream, output in zip((first, NULL_STREAM, second), work.outputs):
            streamlab.launch_workload(work.input, output, work.n, work.iterations, stream, work.max_blocks)
        check(cudart.cudaDeviceSynchronize())
    finally:
        check(cudart.cudaStreamDestroy(first))
        check(cudart.cudaStreamDestroy(second))
