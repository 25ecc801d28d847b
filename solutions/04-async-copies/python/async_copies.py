"""Lab 04 in Python, the reference solution: one stream, stream-ordered memory, copies that return at once."""

from __future__ import annotations

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab04 import FLOAT_BYTES, Batch, BatchReport, HostWork, WaitWith

H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost


def run_batches(
    batches: list[Batch], n: int, iterations: int, wait: WaitWith, host_work: HostWork
) -> list[BatchReport]:
    """Every batch through one stream: copies in and out and the kernel queued, the host working meanwhile."""
    nbytes = n * FLOAT_BYTES
    stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
    device_input = check(cudart.cudaMallocAsync(nbytes, stream))
    device_output = check(cudart.cudaMallocAsync(nbytes, stream))
    reports = []
    try:
        for b, batch in enumerate(batches):
            check(cudart.cudaMemcpyAsync(device_input, batch.input, nbytes, H2D, stream))
            streamlab.launch_workload(device_input, device_output, n, iterations, stream)
            check(cudart.cudaMemcpyAsync(batch.output, device_output, nbytes, D2H, stream))
            # "Not ready" is an answer, not a failure: the calls above only queued the work.
            (status,) = cudart.cudaStreamQuery(stream)
            if status != cudart.cudaError_t.cudaErrorNotReady:
                check((status,))
            reports.append(BatchReport(device_busy_on_return=status == cudart.cudaError_t.cudaErrorNotReady))
            host_work(b)  # the host's own work, while the device runs batch b
            if wait is WaitWith.STREAM:
                check(cudart.cudaStreamSynchronize(stream))  # this stream's work only
            else:
                check(cudart.cudaDeviceSynchronize())  # everything on the device, every stream
    finally:
        check(cudart.cudaFreeAsync(device_input, stream))
        check(cudart.cudaFreeAsync(device_output, stream))
        check(cudart.cudaStreamSynchronize(stream))
        check(cudart.cudaStreamDestroy(stream))
    return reports
