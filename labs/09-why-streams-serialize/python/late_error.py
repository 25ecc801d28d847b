"""Lab 09 in Python, Task 2: a late error. A four-stream pipeline whose kernel fails in one
chunk, which no one knows before it runs. The error reaches the host late, at a call that has
nothing to do with the failing kernel. The task: find out as early as you can, name the chunk
when you can, and hand the error back instead of raising it.

Change only what lies between `TODO(lab09): ...` and `TODO(lab09) end`. The course's
recording program (record_lab09.py) notes what your function reports next to what the course
saw itself, and the C++ track's judges hold the one against the other.

    ./course check 09 --python
"""

from __future__ import annotations

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check  # check(cudart.cudaXxx(...)): the results, or an exception
from lab09 import FLOAT_BYTES, NO_CHUNK, CheckedJob, ChunkError, launch_faulty_workload

H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
SUCCESS = cudart.cudaError_t.cudaSuccess


def run_checked_pipeline(job: CheckedJob, chunks: int) -> ChunkError:
    """Cuts the job into `chunks` chunks (streamlab.chunk_range), one stream per chunk, and queues
    chunk i's work in stream i: its part of `job.input` to `job.device_input`, launch_faulty_workload
    on it into `job.device_output`, its results back into `job.output`. Finds out about a failed
    launch right after it, and then queues no more work; waits for every stream it queued work in.
    Returns ChunkError(NO_CHUNK, cudaSuccess) when everything worked, the chunk and the error when a
    chunk's own call reported it, and ChunkError(NO_CHUNK, error) when the error surfaced only at a
    wait, where no chunk can be named. Never raises for a CUDA error once its streams exist, and
    destroys them. Works for any `chunks` >= 1.
    """
    # One stream per chunk. Non-blocking: nothing here uses the legacy NULL stream,
    # and the caller's work in it should not hold up this pipeline.
    streams = [check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking)) for _ in range(chunks)]
    report = ChunkError(NO_CHUNK, SUCCESS)
    try:
        for i, stream in enumerate(streams):
            offset, count = streamlab.chunk_range(job.n, chunks, i)
            at, nbytes = offset * FLOAT_BYTES, count * FLOAT_BYTES

            # TODO(lab09): Task 2. The chunk's work, queued as if nothing could go wrong. Find out
            # at once whether each call worked, the launch included; on an error, note the
            # chunk and the error in `report` and queue no more work. Raise nothing.
            cudart.cudaMemcpyAsync(job.device_input + at, job.input + at, nbytes, H2D, stream)
            launch_faulty_workload(job.device_input + at, job.device_output + at, count, job.iterations, stream)
            cudart.cudaMemcpyAsync(job.output + at, job.device_output + at, nbytes, D2H, stream)
            # TODO(lab09) end

        # TODO(lab09): Task 2. Wait for every stream, even after an error, and put an error
        # that shows only here into `report` instead of raising it. Which chunk failed?
        for stream in streams:
            check(cudart.cudaStreamSynchronize(stream))  # raises CudaError when the wait returns an error
        # TODO(lab09) end
        return report
    finally:
        # Destroyed on every way out. After a sticky error this fails too, with the error
        # already reported: its result is left unread, so that nothing here raises.
        for stream in streams:
            cudart.cudaStreamDestroy(stream)
