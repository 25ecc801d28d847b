"""Lab 03 in Python, the reference solution: pinned memory three ways, and the copies that use it."""

from __future__ import annotations

import ctypes

from cuda.bindings import runtime as cudart
from cuda_check import check
from lab03 import HostBuffer


def allocate_pinned(nbytes: int) -> int:
    """Task 1: nbytes of pinned host memory from cudaMallocHost; its address. Released with free_pinned."""
    return check(cudart.cudaMallocHost(nbytes))


def allocate_pinned_with_flags(nbytes: int, flags: int) -> int:
    """Task 1: nbytes of pinned host memory from cudaHostAlloc with `flags`; its address."""
    return check(cudart.cudaHostAlloc(nbytes, flags))


def free_pinned(address: int) -> None:
    """Task 1: releases memory from allocate_pinned or allocate_pinned_with_flags."""
    check(cudart.cudaFreeHost(address))


def pin_in_place(address: int, nbytes: int) -> None:
    """Task 2: pins nbytes of existing, ordinary host memory where it is. Undone with unpin."""
    check(cudart.cudaHostRegister(address, nbytes, cudart.cudaHostRegisterDefault))


def unpin(address: int) -> None:
    """Task 2: undoes pin_in_place; the memory is ordinary again."""
    check(cudart.cudaHostUnregister(address))


def copy_both_ways(host: int, device: int, nbytes: int, repetitions: int) -> None:
    """Task 3: nbytes from host to device `repetitions` times, then back `repetitions` times, one call each."""
    for _ in range(repetitions):
        check(cudart.cudaMemcpy(device, host, nbytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice))
    for _ in range(repetitions):
        check(cudart.cudaMemcpy(host, device, nbytes, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost))


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
