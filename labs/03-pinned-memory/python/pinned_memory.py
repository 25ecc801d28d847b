"""Lab 03 in Python: pinned memory.

Your tasks are the five memory functions and `copy_both_ways` (README, Tasks 1
to 3; the README shows the calls in C++ and in Python). `run_copies` is given.
The graded tests (test_lab03.py) run it while CUPTI records every copy, and
CUPTI says for each copy whether its host memory was pinned or pageable.

    ./course check 03 --python
"""

from __future__ import annotations

import ctypes

from cuda.bindings import runtime as cudart  # noqa: F401  (the API you use)
from cuda_check import check  # noqa: F401  (check(cudart.cudaXxx(...)): the results, or an exception)
from lab03 import HostBuffer


def allocate_pinned(nbytes: int) -> int:
    """Task 1: nbytes of pinned host memory from cudaMallocHost; its address. Released with free_pinned."""
    # TODO(lab03) Task 1: pinned memory, the way the article gets its host buffers.
    raise NotImplementedError("TODO(lab03): allocate_pinned")


def allocate_pinned_with_flags(nbytes: int, flags: int) -> int:
    """Task 1: nbytes of pinned host memory from cudaHostAlloc with `flags`; its address."""
    # TODO(lab03) Task 1: pinned memory that takes flags.
    raise NotImplementedError("TODO(lab03): allocate_pinned_with_flags")


def free_pinned(address: int) -> None:
    """Task 1: releases memory from allocate_pinned or allocate_pinned_with_flags."""
    # TODO(lab03) Task 1: give the pinned memory back.
    raise NotImplementedError("TODO(lab03): free_pinned")


def pin_in_place(address: int, nbytes: int) -> None:
    """Task 2: pins nbytes of existing, ordinary host memory where it is. Undone with unpin."""
    # TODO(lab03) Task 2: pin memory that is already there.
    raise NotImplementedError("TODO(lab03): pin_in_place")


def unpin(address: int) -> None:
    """Task 2: undoes pin_in_place; the memory is ordinary again."""
    # TODO(lab03) Task 2: undo the pinning.
    raise NotImplementedError("TODO(lab03): unpin")


def copy_both_ways(host: int, device: int, nbytes: int, repetitions: int) -> None:
    """Task 3: nbytes from host to device `repetitions` times, then back `repetitions` times, one call each."""
    # TODO(lab03) Task 3: blocking copies, host to device first.
    raise NotImplementedError("TODO(lab03): copy_both_ways")


# ---------------------------------------------------------------- given


def run_copies(kind: HostBuffer, sizes: list[int], repetitions: int, device: int) -> None:
    """Gets one host buffer of `kind`, as large as the largest size; copies every size both ways; releases it."""
    if not sizes:
        return
    largest = max(sizes)
    ordinary = None  # ordinary memory, for the pageable and registered kinds: alive until the copies end
    if kind is HostBuffer.MALLOC_HOST:
        host = allocate_pinned(largest)
    elif kind is HostBuffer.HOST_ALLOC:
        host = allocate_pinned_with_flags(largest, cudart.cudaHostAllocPortable)
    else:
        ordinary = ctypes.create_string_buffer(largest)
        host = ctypes.addressof(ordinary)
        if kind is HostBuffer.REGISTERED:
            pin_in_place(host, largest)
    if not host:
        raise RuntimeError(f"no host memory from {kind.value}")
    try:
        for nbytes in sizes:
            copy_both_ways(host, device, nbytes, repetitions)
    finally:
        if kind in (HostBuffer.MALLOC_HOST, HostBuffer.HOST_ALLOC):
            free_pinned(host)
        elif kind is HostBuffer.REGISTERED:
            unpin(host)
