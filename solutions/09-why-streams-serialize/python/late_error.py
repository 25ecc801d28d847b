"""Lab 09 in Python, the reference solution of Task 2: every call's error looked at right after
it, no more work queued after one, every stream waited for, and nothing raised."""

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

            # Task 2: every call's error is looked at, and none is raised. A launch
            # returns nothing: cudaGetLastError() right after it says whether it was
            # accepted, and resets the error it returns (cudaPeekAtLastError would
            # leave it in place, for a later check to find again). The launch is the
            # course's module's: where it has a copy of the runtime of its own, this
            # one's last error does not hold the launch's. The faulty kernel's error
            # is sticky, though: every later call returns it, this chunk's D2H copy too.
            # With CUDA_LAUNCH_BLOCKING=1 the launch returns once the kernel has
            # run, so the kernel's own failure shows here, in its chunk. Without
            # it the kernel runs after its chunk's H2D copy, long after this loop
            # has ended, and its failure shows at a wait.
            (error,) = cudart.cudaMemcpyAsync(job.device_input + at, job.input + at, nbytes, H2D, stream)
            if error == SUCCESS:
                launch_faulty_workload(job.device_input + at, job.device_output + at, count, job.iterations, stream)
                (error,) = cudart.cudaGetLastError()
            if error == SUCCESS:
                (error,) = cudart.cudaMemcpyAsync(job.output + at, job.device_output + at, nbytes, D2H, stream)
            if error != SUCCESS:
                report = ChunkError(i, error)
                break  # queue no more work after an error: it could only fail too

        # Task 2: wait for every stream, whatever happened: work already queued
        # must be done (or failed) before the caller reuses its buffers. An error
        # found only here is sticky (an illegal address poisons the whole context,
        # and every later call, in any stream, returns it): which stream's wait
        # returns it says nothing about which kernel failed, so no chunk is named.
        for stream in streams:
            (waited,) = cudart.cudaStreamSynchronize(stream)
            if waited != SUCCESS and report.error == SUCCESS:
                report = ChunkError(NO_CHUNK, waited)
        return report
    finally:
        # Destroyed on every way out. After a sticky error this fails too, with the error
        # already reported: its result is left unread, so that nothing here raises.
        for stream in streams:
            cudart.cudaStreamDestroy(stream)
