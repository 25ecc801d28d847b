"""Lab 03 in Python: pinned memory.

Your tasks are the five memory functions and `copy_both_ways` (README, Tasks 1
to 3; the README shows the calls in C++ and in Python). The course's
`lab03.run_copies` calls them; the course's recording program (record_lab03.py)
runs it while CUPTI records every copy, and CUPTI says whether each copy's host
memory was pinned or pageable. The C++ track's judges grade only that record.
Your prediction goes in prediction.txt.

    ./course check 03 --python
"""

from __future__ import annotations

from cuda.bindings import runtime as cudart  # noqa: F401  (the API you use)
from cuda_check import check  # noqa: F401  (check(cudart.cudaXxx(...)): the results, or an exception)


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
