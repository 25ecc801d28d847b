"""Lab 09 in Python: a chunked pipeline in four streams that looks right and gives the
right results, yet runs one chunk after another: a few ordinary calls in the chunk loop
make every stream wait for the others.

Your task is Task 1 in `run_pipeline` (README; it shows each step in C++ and in Python):
change only what lies between `TODO(lab09): ...` and `TODO(lab09) end`. The course's
recording program (record_lab09.py) runs it while CUPTI records what the GPU did and
which runtime calls your code made; the C++ track's judges grade only that record and
the output.

    ./course check 09 --python
"""

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
        # TODO(lab09): Task 1. Whatever this run allocates once, before any chunk's work is queued.
        # TODO(lab09) end

        for i, stream in enumerate(streams):
            offset, count = streamlab.chunk_range(job.n, chunks, i)
            at, nbytes = offset * FLOAT_BYTES, count * FLOAT_BYTES

            # TODO(lab09): Task 1. The chunk's memory. Something in here makes the streams wait
            # for each other: keep what it does, only in the chunk's stream or before the loop.
            device_in[i] = check(cudart.cudaMalloc(nbytes))
            device_out[i] = check(cudart.cudaMalloc(nbytes))
            check(cudart.cudaMemset(device_out[i], 0, nbytes))  # no stale results, whatever the kernel does
            staged[i] = check(cudart.cudaMallocHost(nbytes))
            # TODO(lab09) end

            check(cudart.cudaMemcpyAsync(device_in[i], job.input + at, nbytes, H2D, stream))
            streamlab.launch_workload(device_in[i], device_out[i], count, job.iterations, stream)
            check(cudart.cudaMemcpyAsync(staged[i], device_out[i], nbytes, D2H, stream))

            # TODO(lab09): Task 1. The chunk's device memory is no longer needed once its D2H copy
            # is done. Release it without making any stream wait for another.
            check(cudart.cudaFree(device_in[i]))
            check(cudart.cudaFree(device_out[i]))
            # TODO(lab09) end

        # TODO(lab09): Task 1. What is released after every chunk's work has been queued.
        # TODO(lab09) end

        for stream in streams:
            check(cudart.cudaStreamSynchronize(stream))
        for i in range(chunks):
            offset, count = streamlab.chunk_range(job.n, chunks, i)
            copy_on_host(job.output + offset * FLOAT_BYTES, staged[i], count * FLOAT_BYTES)

        # TODO(lab09): Task 1. Release the pinned staging.
        for staging in staged:
            check(cudart.cudaFreeHost(staging))
        # TODO(lab09) end
    finally:
        for stream in streams:
            check(cudart.cudaStreamDestroy(stream))
