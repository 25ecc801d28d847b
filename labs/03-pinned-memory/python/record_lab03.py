"""Lab 03's recording program for the Python track: the only course program that runs your
Python copies for grading.

It runs the same scenarios as the C++ track's record_lab03.cpp (copy_scenarios.hpp names
them), on the same set-up, while CUPTI records the kind of host memory, the bytes, the start
and the end of every copy and counts the runtime calls, and sends what it recorded to the
recording harness (streamlab_record). It judges nothing: the C++ track's judges
(test_lab03.cpp) read its record afterwards, in processes that never load your code, so both
tracks are graded by the same tests.

    streamlab_record --lab 03 --out RECORD --timeout S -- python3 record_lab03.py
"""

from __future__ import annotations

import ctypes
import sys

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab03 import HostBuffer, run_copies
from streamlab import recording

MIB = 1 << 20
FLOAT_BYTES = 4
H2D, D2H = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
# The scenarios of copy_scenarios.hpp, which the judges read by these names.
REPETITIONS = 3  # how often each run_copies scenario copies each size each way (the best of them counts)
REFERENCE = "reference"  # the course's own copies of the large size, from pinned and from pageable memory
ALLOCATIONS = "allocations"  # run_copies with a cudaMallocHost, then a cudaHostAlloc buffer, one copy each way
REGISTRATION = "registration"  # run_copies with ordinary memory pinned in place, one copy each way
# Every kind of host buffer and the scenario of its run_copies, in the order the recording runs them.
BUFFER_RUNS = (
    (HostBuffer.PAGEABLE, "copies_pageable"),
    (HostBuffer.MALLOC_HOST, "copies_malloc_host"),
    (HostBuffer.HOST_ALLOC, "copies_host_alloc"),
    (HostBuffer.REGISTERED, "copies_registered"),
)


def record_lab03(session) -> None:
    import pinned_memory  # your module: after the GPU check, so that its errors are its own

    # 64 MiB is past the size where bandwidth levels off, and small enough for any GPU and host.
    large = int(
        session.setup_value(
            "large_bytes",
            lambda: float(
                recording.largest_copy_bytes(
                    64 * MIB, session.facts.total_memory_bytes, recording.available_host_memory_bytes()
                )
            ),
        )
    )
    small = int(session.setup_value("small_bytes", lambda: float(max(4096, large // 64))))
    sizes = [small, large]
    device = streamlab.DeviceFloats(large // FLOAT_BYTES)  # large is a power of two, at least 4 KiB

    def record_copies(scenario, program: str, kinds: list[HostBuffer], repetitions: int) -> None:
        """Your functions through the course's run_copies with a buffer of each kind, `repetitions`
        copies of each size each way, while CUPTI records."""

        def work() -> None:
            for kind in kinds:
                run_copies(pinned_memory, kind, sizes, repetitions, device.address)

        session.record(scenario, f"lab03 python run_copies, {program}", work)

    def reference(scenario) -> None:
        # The course's own copies of the large size each way, from pinned memory and
        # from pageable memory it allocates itself (outside the recording).
        pinned = streamlab.PinnedFloats(large // FLOAT_BYTES)
        pageable = ctypes.create_string_buffer(large)
        hosts = (pinned.address, ctypes.addressof(pageable))
        for host in hosts:
            ctypes.memset(host, 1, large)

        def work() -> None:
            for host in hosts:
                for _ in range(REPETITIONS):
                    check(cudart.cudaMemcpy(device.address, host, large, H2D))
                for _ in range(REPETITIONS):
                    check(cudart.cudaMemcpy(host, device.address, large, D2H))

        session.record(scenario, "lab03 reference copies", work)

    session.scenario(REFERENCE, reference)
    for kind, name in BUFFER_RUNS:
        session.scenario(name, lambda scenario, kind=kind: record_copies(scenario, kind.value, [kind], REPETITIONS))
    session.scenario(
        ALLOCATIONS,
        lambda scenario: record_copies(
            scenario, "cudaMallocHost and cudaHostAlloc", [HostBuffer.MALLOC_HOST, HostBuffer.HOST_ALLOC], 1
        ),
    )
    session.scenario(
        REGISTRATION, lambda scenario: record_copies(scenario, "cudaHostRegister", [HostBuffer.REGISTERED], 1)
    )


if __name__ == "__main__":
    sys.exit(recording.record_scenarios(sys.argv, record_lab03))
