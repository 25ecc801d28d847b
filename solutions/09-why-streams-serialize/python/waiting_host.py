"""Lab 09 in Python, the reference solution of Task 3: a wait that sleeps on an event made
to block, and a wait that does the host's own work between two questions to the stream."""

from __future__ import annotations

from collections.abc import Callable

from cuda.bindings import runtime as cudart
from cuda_check import check  # check(cudart.cudaXxx(...)): the results, or an exception


def wait_blocking(stream: int) -> None:
    """Returns once all the work queued in `stream` (a stream as cuda-bindings takes it) has
    finished, this thread asleep meanwhile, whatever the device's schedule flags say and
    without changing them."""
    # Task 3: an event that marks the end of the stream's work so far. Made with
    # cudaEventBlockingSync, cudaEventSynchronize puts this thread to sleep until
    # the GPU reaches it, whatever the device's schedule flags (which are the whole
    # process's: setting them here would change every other wait). No timing: the
    # event is only waited for, and an event without timing costs less to record.
    done = check(cudart.cudaEventCreateWithFlags(cudart.cudaEventBlockingSync | cudart.cudaEventDisableTiming))
    try:
        check(cudart.cudaEventRecord(done, stream))
        check(cudart.cudaEventSynchronize(done))
    finally:
        check(cudart.cudaEventDestroy(done))  # what streamlab::Event's destructor does in C++


def wait_polling(stream: int, host_work: Callable[[], None]) -> None:
    """Calls host_work() (one slice of the host's own work per call) for as long as `stream`
    has work left, asking the stream between two slices without waiting, and returns as soon
    as it is done. A CUDA error raises cuda_check.CudaError."""
    # Task 3: cudaStreamQuery answers at once: cudaSuccess when every queued op
    # has finished, cudaErrorNotReady while some have not, and anything else is an
    # error (of the stream's work, or of the call). Ask before each slice, so that
    # no slice begins after the work is done.
    while True:
        (status,) = cudart.cudaStreamQuery(stream)
        if status == cudart.cudaError_t.cudaSuccess:
            return
        if status != cudart.cudaError_t.cudaErrorNotReady:
            check((status,))  # raises: an error, not "not yet"
        host_work()
