"""Lab 09 in Python, Task 3: the waiting host. Two ways for a host thread to wait for a
stream: one that sleeps until the work is done, and one that keeps doing the host's own
work and asks the stream, between two slices of it, whether it is done yet. As handed
out, both wait the way cudaStreamSynchronize does by default on a machine with more
cores than GPUs: by spinning, one core busy doing nothing for as long as the GPU works.

Change only what lies between `TODO(lab09): ...` and `TODO(lab09) end`. The course's
recording program (record_lab09.py) hands your waits a stream of the course's with work
queued in it, and the C++ track's judges grade only what the course saw around the call
(the process's CPU time, when the wait returned) and what the GPU recorded (when its
last op ended).

    ./course check 09 --python
"""

from __future__ import annotations

from collections.abc import Callable

from cuda.bindings import runtime as cudart
from cuda_check import check  # check(cudart.cudaXxx(...)): the results, or an exception


def wait_blocking(stream: int) -> None:
    """Returns once all the work queued in `stream` (a stream as cuda-bindings takes it) has
    finished, this thread asleep meanwhile, whatever the device's schedule flags say and
    without changing them."""
    # TODO(lab09): Task 3. Wait for the stream's work with this thread asleep, whatever
    # the device's schedule flags say, and without changing them.
    check(cudart.cudaStreamSynchronize(stream))
    # TODO(lab09) end


def wait_polling(stream: int, host_work: Callable[[], None]) -> None:
    """Calls host_work() (one slice of the host's own work per call) for as long as `stream`
    has work left, asking the stream between two slices without waiting, and returns as soon
    as it is done. A CUDA error raises cuda_check.CudaError."""
    # TODO(lab09): Task 3. Do slices of host_work for as long as the stream has work left,
    # asking it between two slices without waiting; a CUDA error is raised.
    check(cudart.cudaStreamSynchronize(stream))
    # TODO(lab09) end
