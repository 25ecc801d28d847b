"""Lab 03 in Python, pinned memory: what you implement in pinned_memory.py.

The same lab as the C++ one (lab03.hpp), with the article's own API: cuda-bindings,
`from cuda.bindings import runtime as cudart`. Host and device memory are
addresses (integers); ordinary Python memory gets one from ctypes.
"""

from __future__ import annotations

import ctypes
from enum import Enum
from types import ModuleType

from cuda.bindings import runtime as cudart


class HostBuffer(Enum):
    """Where the host buffer of run_copies comes from; the value says how it gets its memory."""

    PAGEABLE = "pageable"  # ordinary memory (a ctypes buffer): pageable
    MALLOC_HOST = "cudaMallocHost"  # allocate_pinned
    HOST_ALLOC = "cudaHostAlloc"  # allocate_pinned_with_flags, with cudaHostAllocPortable
    REGISTERED = "cudaHostRegister"  # ordinary memory, pinned in place with pin_in_place


def run_copies(memory: ModuleType, kind: HostBuffer, sizes: list[int], repetitions: int, device: int) -> None:
    """Given: gets one host buffer of `kind` with your functions in `memory` (pinned_memory.py), as large
    as the largest size; copies every size both ways with memory.copy_both_ways; releases the buffer."""
    if not sizes:
        return
    largest = max(sizes)
    ordinary = None  # ordinary memory, for the pageable and registered kinds: alive until the copies end
    if kind is HostBuffer.MALLOC_HOST:
        host = memory.allocate_pinned(largest)
    elif kind is HostBuffer.HOST_ALLOC:
        host = memory.allocate_pinned_with_flags(largest, cudart.cudaHostAllocPortable)
    else:
        ordinary = ctypes.create_string_buffer(largest)
        host = ctypes.addressof(ordinary)
        if kind is HostBuffer.REGISTERED:
            memory.pin_in_place(host, largest)
    if not host:
        raise RuntimeError(f"no host memory from {kind.value}")
    # Writing every byte makes the system back every page now, not during the first copy.
    ctypes.memset(host, 1, largest)
    try:
        for nbytes in sizes:
            memory.copy_both_ways(host, device, nbytes, repetitions)
    finally:
        if kind in (HostBuffer.MALLOC_HOST, HostBuffer.HOST_ALLOC):
            memory.free_pinned(host)
        elif kind is HostBuffer.REGISTERED:
            memory.unpin(host)
