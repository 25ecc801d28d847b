"""Lab 06 in Python, the reference solution: N chunks through K streams, with rings of
pinned staging and results buffers the host fills and drains, reuse made safe with events."""

from __future__ import annotations

import time

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab06 import FLOAT_BYTES, StreamingJob, Sweep, SweepPoint

H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost


def ended(event) -> bool:
    """Whether the work before `event` has ended, without waiting (cudaEventQuery)."""
    (error,) = cudart.cudaEventQuery(event)
    if error == cudart.cudaError_t.cudaErrorNotReady:
        return False
    check((error,))
    return True


def run_stream(job: StreamingJob) -> None:
    sets, staging_slots, result_slots = len(job.device), len(job.staging), len(job.results)
    # Task 1: one non-blocking stream per device set, and per ring buffer an event
    # recorded after the copy that last used it.
    streams = [check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking)) for _ in range(sets)]
    no_timing = cudart.cudaEventDisableTiming
    copied_in = [check(cudart.cudaEventCreateWithFlags(no_timing)) for _ in range(staging_slots)]
    copied_back = [check(cudart.cudaEventCreateWithFlags(no_timing)) for _ in range(result_slots)]
    drained = 0  # chunks consumed so far, in order

    def drain() -> None:
        # Task 3: a results buffer is read only once its D2H copy has ended.
        nonlocal drained
        offset, count = streamlab.chunk_range(job.n, job.chunks, drained)
        r = drained % result_slots
        check(cudart.cudaEventSynchronize(copied_back[r]))
        job.consume(offset, count, job.results[r])
        drained += 1

    try:
        # Task 2: the chunk loop. Chunk c uses staging buffer c % S, device set and
        # stream c % K, results buffer c % R.
        for c in range(job.chunks):
            offset, count = streamlab.chunk_range(job.n, job.chunks, c)
            size = count * FLOAT_BYTES
            s, r, k = c % staging_slots, c % result_slots, c % sets
            stream, device_set = streams[k], job.device[k]
            # Results that are back already cost no waiting: take them now.
            while drained < c and ended(copied_back[drained % result_slots]):
                drain()
            # Task 3: the staging buffer's last H2D copy has ended before the host writes into it.
            if c >= staging_slots:
                check(cudart.cudaEventSynchronize(copied_in[s]))
            job.produce(offset, count, job.staging[s])
            # The device set's previous chunk went through the same stream: its kernel
            # (which read device_set.input) and its D2H copy come first.
            check(cudart.cudaMemcpyAsync(device_set.input, job.staging[s], size, H2D, stream))
            check(cudart.cudaEventRecord(copied_in[s], stream))
            streamlab.launch_workload(device_set.input, device_set.output, count, job.iterations, stream)
            # Task 3: the results buffer's previous chunk is drained before this copy overwrites it.
            while drained <= c - result_slots:
                drain()
            check(cudart.cudaMemcpyAsync(job.results[r], device_set.output, size, D2H, stream))
            check(cudart.cudaEventRecord(copied_back[r], stream))
        while drained < job.chunks:
            drain()
    finally:
        for event in copied_in + copied_back:
            check(cudart.cudaEventDestroy(event))
        for stream in streams:
            check(cudart.cudaStreamDestroy(stream))


def sweep_chunks(job: StreamingJob, chunk_counts: list[int]) -> Sweep:
    # Task 4: each chunk count once, timed on the host clock from the call to the
    # return: the stream starts and ends on the host.
    points = []
    for chunks in chunk_counts:
        started = time.perf_counter()
        run_stream(job.with_chunks(chunks))
        points.append(SweepPoint(chunks, (time.perf_counter() - started) * 1e3))
    best = min(points, key=lambda point: point.ms) if points else None
    return Sweep(points, best.chunks if best else 0)
