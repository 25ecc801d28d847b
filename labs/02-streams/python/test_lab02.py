"""Lab 02 in Python, graded from the GPU's own timeline, test for test with the C++ lab.

Each test runs your function (streams.py) while CUPTI records what the GPU did
(streamlab.record). Only that record and the results are graded; nothing your
code prints or returns in its WaitReport.
"""

from __future__ import annotations

from typing import Any

import pytest
from lab02 import KernelJob
from streamlab_pytest import (
    api_count,
    device_floats_filled,
    device_output_check,
    ops_of_kind,
    record,
    report_hint,
    report_measure,
    require_gpu,
)

STREAMS = 4
ELEMENTS = 1 << 20
MAX_MAKESPAN_RATIO = 0.75  # four kernels that fit together: streams' makespan / the NULL stream's


class Streams:
    """Four small kernels over one device input, set up by the course."""

    def __init__(self) -> None:
        self.facts = require_gpu()
        import streamlab

        self.input = device_floats_filled(ELEMENTS)
        self.outputs = [streamlab.DeviceFloats(ELEMENTS) for _ in range(STREAMS)]
        max_blocks = max(1, self.facts.sm_count // STREAMS)
        iterations = streamlab.iterations_for_kernel_ms(ELEMENTS, 2.0, max_blocks)
        self.jobs = [KernelJob(self.input.address, o.address, ELEMENTS, iterations, max_blocks) for o in self.outputs]

    def record_streams(self, flags: int) -> Any:
        import streams

        timeline, _ = record("lab02 python run_in_streams", lambda: streams.run_in_streams(self.jobs, flags))
        return timeline

    def record_null_stream(self) -> Any:
        import streams

        timeline, _ = record("lab02 python run_in_null_stream", lambda: streams.run_in_null_stream(self.jobs))
        return timeline

    def assert_every_kernel_ran(self, timeline: Any) -> None:
        kernels = ops_of_kind(timeline, "kernel")
        assert len(kernels) == len(self.jobs), f"expected {len(self.jobs)} kernels, the GPU ran {len(kernels)}"


def non_blocking() -> int:
    from cuda.bindings import runtime as cudart

    return cudart.cudaStreamNonBlocking


@pytest.mark.points(2)
def test_results_match_cpu_reference() -> None:
    from cuda.bindings import runtime as cudart
    from cuda_check import check

    lab = Streams()
    for output in lab.outputs:
        check(cudart.cudaMemset(output.address, 0xFF, output.nbytes))  # NaN poison
    lab.record_streams(non_blocking())
    for job in lab.jobs:
        result = device_output_check(job.input, job.output, job.n, job.iterations)
        assert result.ok, result.message()


@pytest.mark.points(3)
def test_kernels_run_in_distinct_created_streams() -> None:
    lab = Streams()
    timeline = lab.record_streams(non_blocking())
    lab.assert_every_kernel_ran(timeline)
    kernels = ops_of_kind(timeline, "kernel")
    assert all(k.stream_kind == "created" for k in kernels), "a kernel ran in the NULL stream"
    streams = {k.stream for k in kernels}
    report_measure("distinct streams used by kernels", len(streams), "==", STREAMS, "")
    if len(streams) != len(lab.jobs):
        report_hint("launch job i's kernel in streams[i]: one stream per job")
    assert len(streams) == len(lab.jobs)


@pytest.mark.points(3)
def test_kernels_overlap_where_the_device_allows() -> None:
    import streamlab

    lab = Streams()
    if not lab.facts.concurrent_kernels:
        pytest.skip(f"this device cannot show it: {lab.facts.name} reports concurrentKernels = 0")
    null_timeline = lab.record_null_stream()
    timeline = lab.record_streams(non_blocking())
    lab.assert_every_kernel_ran(timeline)
    lab.assert_every_kernel_ran(null_timeline)
    # Four kernels that fit on the GPU together should take far less than the
    # same four one after another, measured a moment ago on this GPU.
    ratio = streamlab.makespan_ns(timeline.ops) / streamlab.makespan_ns(null_timeline.ops)
    report_measure("streams makespan / NULL-stream makespan", ratio, "<", MAX_MAKESPAN_RATIO, "")
    overlap_ms = streamlab.kernel_overlap_ns(timeline.ops) / 1e6
    report_measure("time with two or more kernels running", overlap_ms, ">", 0.0, "ms")
    assert streamlab.kernel_overlap_ns(timeline.ops) > 0, "no two kernels ran at the same time"
    assert ratio < MAX_MAKESPAN_RATIO


@pytest.mark.points(2)
def test_calls_query_stream_sync_and_device_sync() -> None:
    timeline = Streams().record_streams(non_blocking())
    assert api_count(timeline, "cudaStreamQuery") >= 1, "poll a stream with cudaStreamQuery"
    assert api_count(timeline, "cudaStreamSynchronize") >= 1, "wait for one stream with cudaStreamSynchronize"
    assert api_count(timeline, "cudaDeviceSynchronize") >= 1, "wait for all with cudaDeviceSynchronize"


@pytest.mark.points(2)
def test_every_created_stream_is_destroyed() -> None:
    timeline = Streams().record_streams(non_blocking())
    created = api_count(timeline, "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority")
    destroyed = api_count(timeline, "cudaStreamDestroy")
    report_measure("streams created", created, "==", STREAMS, "")
    report_measure("streams destroyed", destroyed, "==", created, "")
    assert created == STREAMS
    assert destroyed == created, "every stream you create must be destroyed (cudaStreamDestroy)"


@pytest.mark.points(2)
def test_null_stream_runs_kernels_one_after_another() -> None:
    import streamlab

    lab = Streams()
    timeline = lab.record_null_stream()
    lab.assert_every_kernel_ran(timeline)
    assert streamlab.null_stream_ops(timeline.ops) == len(lab.jobs), "every kernel belongs in the NULL stream"
    assert streamlab.kernel_overlap_ns(timeline.ops) == 0
