"""Lab 03 in Python, pinned memory: what you implement in pinned_memory.py.

The same lab as the C++ one (lab03.hpp), with the article's own API: cuda-bindings,
`from cuda.bindings import runtime as cudart`. Host and device memory are
addresses (integers); ordinary Python memory gets one from ctypes.
"""

from __future__ import annotations

from enum import Enum


class HostBuffer(Enum):
    """Where the host buffer of run_copies comes from; the value says how it gets its memory."""

    PAGEABLE = "pageable"  # ordinary memory (a ctypes buffer): pageable
    MALLOC_HOST = "cudaMallocHost"  # allocate_pinned
    HOST_ALLOC = "cudaHostAlloc"  # allocate_pinned_with_flags, with cudaHostAllocPortable
    REGISTERED = "cudaHostRegister"  # ordinary memory, pinned in place with pin_in_place
