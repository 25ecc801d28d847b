"""Lab 03 in Python, graded from the GPU's own timeline, test for test with the C++ lab.

Each test runs the course's run_copies (lab03.py), which calls your functions
(pinned_memory.py), while CUPTI records every copy; CUPTI also says whether each copy's
host memory was pinned or pageable. Only that record is graded.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from lab03 import HostBuffer, run_copies
from streamlab_pytest import api_count, record, report_hint, report_measure, require_gpu

REPETITIONS = 3
LARGEST = 64 << 20  # past the size where bandwidth levels off, and small enough for most GPUs and hosts
DIRECTIONS = ("memcpy_h2d", "memcpy_d2h")


class CopyTest:
    """One small and one large copy size, and a device buffer for them, set up by the course."""

    def __init__(self) -> None:
        facts = require_gpu()
        import streamlab

        large = min(LARGEST, facts.total_memory_bytes // 8)
        self.sizes = [max(4096, large // 64), large]
        self.device = streamlab.DeviceFloats(large // 4)

    def record(self, *kinds: HostBuffer, repetitions: int = REPETITIONS) -> Any:
        import pinned_memory

        def work() -> None:
            for kind in kinds:
                run_copies(pinned_memory, kind, self.sizes, repetitions, self.device.address)

        timeline, _ = record(f"lab03 python run_copies, {', '.join(k.value for k in kinds)}", work)
        return timeline

    def assert_every_copy_made(self, timeline: Any) -> None:
        """One H2D and one D2H copy per size and repetition."""
        made = Counter((op.kind, op.bytes) for op in timeline.ops if op.kind in DIRECTIONS)
        for direction in DIRECTIONS:
            for nbytes in self.sizes:
                assert made[(direction, nbytes)] == REPETITIONS, (
                    f"expected {REPETITIONS} {direction} copies of {nbytes} bytes, the GPU ran "
                    f"{made[(direction, nbytes)]} (it ran {len(timeline.ops)} operations in all)"
                )

    def expect_copies_from(self, kind: HostBuffer, expected: str, hint: str) -> None:
        """run_copies with `kind`: every copy's host memory must be `expected` ("pinned" or "pageable")."""
        timeline = self.record(kind)
        self.assert_every_copy_made(timeline)
        copies = [op for op in timeline.ops if op.kind in DIRECTIONS]
        wrong = [op for op in copies if op.host_memory != expected]
        report_measure(f"copies from {expected} memory", len(copies) - len(wrong), "==", len(copies), "")
        if wrong:
            report_hint(hint)
        assert not wrong, (
            f"{len(wrong)} of {len(copies)} copies of the {kind.value} buffer used {wrong[0].host_memory} host "
            f"memory; all must be {expected}"
        )


@pytest.mark.points(2)
def test_malloc_host_copies_are_pinned() -> None:
    CopyTest().expect_copies_from(HostBuffer.MALLOC_HOST, "pinned", "allocate_pinned: cudart.cudaMallocHost(nbytes)")


@pytest.mark.points(2)
def test_host_alloc_copies_are_pinned() -> None:
    CopyTest().expect_copies_from(
        HostBuffer.HOST_ALLOC, "pinned", "allocate_pinned_with_flags: cudart.cudaHostAlloc(nbytes, flags)"
    )


@pytest.mark.points(2)
def test_registered_copies_are_pinned() -> None:
    CopyTest().expect_copies_from(
        HostBuffer.REGISTERED,
        "pinned",
        "pin_in_place: cudart.cudaHostRegister(address, nbytes, cudart.cudaHostRegisterDefault)",
    )


@pytest.mark.points(1)
def test_pageable_copies_are_pageable() -> None:
    CopyTest().expect_copies_from(
        HostBuffer.PAGEABLE, "pageable", "copy_both_ways: one cudart.cudaMemcpy per copy, host to device first"
    )


@pytest.mark.points(2)
def test_every_allocation_is_freed() -> None:
    timeline = CopyTest().record(HostBuffer.MALLOC_HOST, HostBuffer.HOST_ALLOC, repetitions=1)
    malloc_host, host_alloc = api_count(timeline, "cudaMallocHost"), api_count(timeline, "cudaHostAlloc")
    freed = api_count(timeline, "cudaFreeHost")
    report_measure("pinned allocations", malloc_host + host_alloc, ">=", 2, "")
    report_measure("cudaFreeHost calls", freed, "==", malloc_host + host_alloc, "")
    assert malloc_host >= 1, "allocate_pinned must call cudaMallocHost"
    assert host_alloc >= 1, "allocate_pinned_with_flags must call cudaHostAlloc"
    assert freed == malloc_host + host_alloc, "every pinned allocation must be released with cudaFreeHost"


@pytest.mark.points(2)
def test_every_registration_is_undone() -> None:
    timeline = CopyTest().record(HostBuffer.REGISTERED, repetitions=1)
    registered, unregistered = api_count(timeline, "cudaHostRegister"), api_count(timeline, "cudaHostUnregister")
    report_measure("cudaHostUnregister calls", unregistered, "==", registered, "")
    assert registered >= 1, "pin_in_place must call cudaHostRegister"
    assert unregistered == registered, "every cudaHostRegister needs its cudaHostUnregister"
