"""Lab 03 in Python, the reference solution: pinned memory three ways, and the copies that use it."""

from __future__ import annotations

from cuda.bindings import runtime as cudart
from cuda_check import check


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
