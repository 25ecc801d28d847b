"""Lab 01 in Python, graded from the GPU's own timeline, test for test with the C++ lab.

Each test runs your function (null_stream.py) while CUPTI records what the GPU
did (streamlab.record). Only that record and the results are graded; nothing
your code prints.
"""

from __future__ import annotations

from typing import Any

import pytest
from lab01 import FLOAT_BYTES, DemoWork
from streamlab_pytest import (
    api_count,
    device_floats_filled,
    device_output_check,
    ended_before,
    ops_of_kind,
    record,
    report_hint,
    report_measure,
    require_gpu,
)

SERIAL_ELEMENTS = 16 << 20  # 64 MiB, with a kernel about as long as one copy
DEMO_ELEMENTS = 1 << 20
EVENT_TOLERANCE = 0.1  # how far (relative) your event time may fall outside what the events could span


# ---------------------------------------------------------------- task 1


class SerialRun:
    """The serial run: pinned input and output, set up by the course, and one recorded run."""

    def __init__(self) -> None:
        require_gpu()
        import streamlab

        self.input = streamlab.PinnedFloats(SERIAL_ELEMENTS)
        self.output = streamlab.PinnedFloats(SERIAL_ELEMENTS)
        streamlab.fill_input(self.input.address, SERIAL_ELEMENTS)
        streamlab.fill_poison(self.output.address, SERIAL_ELEMENTS)
        self.iterations = streamlab.iterations_for_kernel_ms(
            SERIAL_ELEMENTS, streamlab.measure_h2d_ms(self.input.nbytes)
        )
        import null_stream

        self.timeline, self.reported_ms = record(
            "lab01 python run_serial",
            lambda: null_stream.run_serial(self.input.address, self.output.address, SERIAL_ELEMENTS, self.iterations),
        )

    def assert_the_three_ops(self) -> None:
        h2d, kernels, d2h = (ops_of_kind(self.timeline, kind) for kind in ("memcpy_h2d", "kernel", "memcpy_d2h"))
        nbytes = SERIAL_ELEMENTS * FLOAT_BYTES
        assert len(h2d) == 1 and len(kernels) == 1 and len(d2h) == 1 and h2d[0].bytes == d2h[0].bytes == nbytes, (
            f"expected one H2D copy of {nbytes} bytes, one kernel and one D2H copy; the GPU ran "
            f"{len(h2d)} H2D, {len(kernels)} kernel(s), {len(d2h)} D2H"
        )


@pytest.mark.points(2)
def test_result_matches_cpu_reference() -> None:
    import streamlab

    run = SerialRun()
    check = streamlab.check_workload_output(run.input.address, run.output.address, SERIAL_ELEMENTS, run.iterations)
    if not check.ok:
        report_hint("copy the input in, launch the kernel, and copy the output back into `host_output`")
    assert check.ok, check.message()


@pytest.mark.points(2)
def test_every_op_in_the_null_stream() -> None:
    run = SerialRun()
    run.assert_the_three_ops()
    for op in run.timeline.ops:
        assert op.stream_kind != "created", (
            f"{op.name} ran in stream {op.stream}, a stream you created; this task uses only the NULL stream"
        )


@pytest.mark.points(2)
def test_ops_run_one_after_another() -> None:
    import streamlab

    run = SerialRun()
    run.assert_the_three_ops()
    ops = run.timeline.ops  # sorted by start
    for a, b in zip(ops, ops[1:]):
        assert ended_before(a, b), f"{a.name} and {b.name} overlap"
    report_measure("copy/compute overlap", streamlab.copy_compute_overlap_ns(ops) / 1e6, "==", 0.0, "ms")
    assert streamlab.copy_compute_overlap_ns(ops) == 0


@pytest.mark.points(2)
def test_event_time_matches_timeline() -> None:
    import streamlab

    run = SerialRun()
    run.assert_the_three_ops()
    # The time must come from the GPU's events, not a host clock: the recorded
    # runtime calls show whether two events were recorded and their time read.
    records = api_count(run.timeline, "cudaEventRecord", "cudaEventRecordWithFlags")
    readings = api_count(run.timeline, "cudaEventElapsedTime")
    if records < 2 or readings < 1:
        report_hint("time with two CUDA events (cudaEventRecord) and cudaEventElapsedTime, not a host clock")
    assert records >= 2, f"run_serial recorded {records} CUDA event(s); timing needs `start` and `stop`"
    assert readings >= 1, "run_serial never called cudaEventElapsedTime"
    # At least the traced span; at most what events recorded when the host recorded them
    # can span (a host late to record `stop` on a busy machine is not held against you).
    traced_ms = streamlab.makespan_ns(run.timeline.ops) / 1e6
    events_ms = streamlab.event_record_span_ns(run.timeline) / 1e6
    report_measure("event time / traced span", run.reported_ms / traced_ms, ">=", 1 - EVENT_TOLERANCE, "")
    report_measure(
        "event time / span the two events could measure", run.reported_ms / events_ms, "<=", 1 + EVENT_TOLERANCE, ""
    )
    if not (1 - EVENT_TOLERANCE) * traced_ms <= run.reported_ms <= (1 + EVENT_TOLERANCE) * events_ms:
        report_hint(
            "record `start` before the H2D copy and `stop` after the D2H copy, and wait for `stop` before reading it"
        )
    assert run.reported_ms >= (1 - EVENT_TOLERANCE) * traced_ms, (
        f"you reported {run.reported_ms} ms; the GPU's timeline spans {traced_ms} ms from the first op's start "
        "to the last op's end"
    )
    assert run.reported_ms <= (1 + EVENT_TOLERANCE) * events_ms, (
        f"you reported {run.reported_ms} ms; your first and last cudaEventRecord calls can only have measured "
        f"{events_ms} ms"
    )


# ---------------------------------------------------------------- task 2


class BarrierDemo:
    """Three small kernels: A in a created stream, B in the NULL stream, C in another created stream."""

    def __init__(self) -> None:
        self.facts = require_gpu()
        import streamlab

        self.input = device_floats_filled(DEMO_ELEMENTS)
        self.outputs = [streamlab.DeviceFloats(DEMO_ELEMENTS) for _ in range(3)]
        # A quarter of the SMs each: three such kernels fit on the GPU together,
        # so only a stream dependency can keep them apart.
        max_blocks = max(1, self.facts.sm_count // 4)
        iterations = streamlab.iterations_for_kernel_ms(DEMO_ELEMENTS, 2.0, max_blocks)
        outputs = tuple(output.address for output in self.outputs)
        self.work = DemoWork(self.input.address, outputs, DEMO_ELEMENTS, iterations, max_blocks)

    def record(self, flags: int) -> list[Any]:
        """Kernels A, B and C of one recorded run, in launch order."""
        import null_stream

        timeline, _ = record("lab01 python run_barrier_demo", lambda: null_stream.run_barrier_demo(flags, self.work))
        kernels = sorted(ops_of_kind(timeline, "kernel"), key=lambda op: op.correlation_id)
        assert len(kernels) == 3, f"expected 3 kernels, the GPU ran {len(kernels)}"
        a, b, c = kernels
        assert a.stream_kind == c.stream_kind == "created" and a.stream != c.stream, (
            f"kernels A and C must run in the two streams you created (they ran in streams {a.stream} and {c.stream})"
        )
        assert b.stream_kind != "created", "kernel B must run in the NULL stream"
        return kernels

    def check_results(self) -> None:
        for name, output in zip("ABC", self.outputs):
            result = device_output_check(self.input.address, output.address, DEMO_ELEMENTS, self.work.iterations)
            assert result.ok, f"kernel {name}: {result.message()}"


@pytest.mark.points(3)
def test_blocking_streams_are_serialized_by_the_null_stream() -> None:
    import streamlab
    from cuda.bindings import runtime as cudart

    a, b, c = BarrierDemo().record(cudart.cudaStreamDefault)
    assert ended_before(a, b), "B (NULL stream) must wait for A (blocking stream)"
    assert ended_before(b, c), "C (blocking stream) must wait for B (NULL stream)"
    report_measure("kernel overlap, blocking streams", streamlab.kernel_overlap_ns([a, b, c]) / 1e6, "==", 0.0, "ms")


@pytest.mark.points(3)
def test_non_blocking_streams_are_not_separated() -> None:
    import streamlab
    from cuda.bindings import runtime as cudart

    demo = BarrierDemo()
    if not demo.facts.concurrent_kernels:
        pytest.skip(f"this device cannot show it: {demo.facts.name} cannot run kernels of different streams at once")
    kernels = demo.record(cudart.cudaStreamNonBlocking)
    _, b, c = kernels
    overlap_ms = streamlab.kernel_overlap_ns(kernels) / 1e6
    report_measure("kernel overlap, non-blocking streams", overlap_ms, ">", 0.0, "ms")
    assert c.start_ns < b.end_ns, "C started only after B ended: was it held back by the NULL stream?"
    assert streamlab.kernel_overlap_ns(kernels) > 0, "no two kernels ran at the same time"
    demo.check_results()
