"""Lab 04 in Python, asynchronous copies: what you implement in async_copies.py.

The same lab as the C++ one (lab04.hpp), with the article's own API: cuda-bindings,
`from cuda.bindings import runtime as cudart`. Buffers are addresses (integers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

FLOAT_BYTES = 4


@dataclass(frozen=True)
class Batch:
    """The host buffers of one batch, n floats each."""

    input: int  # host input: pinned memory, or pageable in the pageable variant
    output: int  # host output, written by the batch's D2H copy


class WaitWith(Enum):
    """How run_batches waits for a batch to finish."""

    STREAM = "stream"  # cudaStreamSynchronize(stream): only the work of your stream
    DEVICE = "device"  # cudaDeviceSynchronize(): all work on the device, in every stream


@dataclass
class BatchReport:
    """What your code saw when it regained control after queuing one batch."""

    # cudaStreamQuery(stream) answered cudaErrorNotReady right after the batch's three
    # operations were queued: the calls had returned before the work was done.
    device_busy_on_return: bool = False


# The host's own work, host_work(b): called once per batch, right after batch b's
# copies and kernel have been queued, while the device runs them.
HostWork = Callable[[int], None]
