"""Lab 09 in Python, the reference solution: the chunk loop's serializing calls replaced by
their stream-ordered forms, and one pinned allocation before the loop."""

from __future__ import annotations

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check  # check(cudart.cudaXxx(...)): the results, or an exception
from lab09 import FLOAT_BYTES, PipelineJob, copy_on_host

H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost


def run_pipeline(job: PipelineJob, chunks: int) -> None:
    """Cuts the job into `chunks` nearly equal chunks (streamlab.chunk_range), one stream per
    chunk, and queues chunk i's work in stream i: device memory for its input and its results,
    its part of `job.input` to the device, the workload kernel on it, its results back into
    pinned staging memory, since `job.output` is pageable. Waits for every stream, then copies
    the staged results into `job.output` and releases everything it allocated. No call between
    the first chunk's work and the last chunk's may make the streams wait for each other.
    Works for any `chunks` >= 1.
    """
    # One stream per chunk. Blocking streams, as cudaStreamCreate makes them: they
    # wait for work in the legacy NULL stream, and it waits for them.
    streams = [check(cudart.cudaStreamCreate()) for _ in range(chunks)]
    # Each chunk's device input, device results, and pinned staging for its results (addresses).
    device_in, device_out, staged = [0] * chunks, [0] * chunks, [0] * chunks
    try:
        # Task 1: one pinned staging buffer for the whole run, allocated before any
        # stream has work: a page-locked allocation between two streams' work would
        # make them wait for each other.
        staging = check(cudart.cudaMallocHost(job.n * FLOAT_BYTES))

        for i, stream in enumerate(streams):
            offset, count = streamlab.chunk_range(job.n, chunks, i)
            at, nbytes = offset * FLOAT_BYTES, count * FLOAT_BYTES

            # Task 1: the stream-ordered forms. The allocations and the memset are queued
            # in the chunk's stream and wait for nothing else; the staging is a slice of
            # the buffer allocated before the loop.
            device_in[i] = check(cudart.cudaMallocAsync(nbytes, stream))
            device_out[i] = check(cudart.cudaMallocAsync(nbytes, stream))
            # No stale results, whatever the kernel does: the memset comes before it in the chunk's stream.
            check(cudart.cudaMemsetAsync(device_out[i], 0, nbytes, stream))
            staged[i] = staging + at

            check(cudart.cudaMemcpyAsync(device_in[i], job.input + at, nbytes, H2D, stream))
            streamlab.launch_workload(device_in[i], device_out[i], count, job.iterations, stream)
            check(cudart.cudaMemcpyAsync(staged[i], device_out[i], nbytes, D2H, stream))

            # Task 1: released after the loop. A block freed here could be handed to the
            # next chunk's allocation, and the pool may make that chunk's stream wait for
            # this one to reuse it.

        # Task 1: every chunk's device memory, freed in its own stream once its D2H copy is done.
        for i, stream in enumerate(streams):
            check(cudart.cudaFreeAsync(device_in[i], stream))
            check(cudart.cudaFreeAsync(device_out[i], stream))

        for stream in streams:
            check(cudart.cudaStreamSynchronize(stream))
        for i in range(chunks):
            offset, count = streamlab.chunk_range(job.n, chunks, i)
            copy_on_host(job.output + offset * FLOAT_BYTES, staged[i], count * FLOAT_BYTES)

        # Task 1: the one pinned buffer, after every stream is done with it.
        check(cudart.cudaFreeHost(staging))
    finally:
        for stream in streams:
            check(cudart.cudaStreamDestroy(stream))
