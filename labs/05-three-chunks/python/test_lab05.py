"""Lab 05 in Python, graded from the GPU's own timeline, test for test with the C++ lab.

Each test runs your run_pipeline (three_chunks.py) once to warm up, then again while
CUPTI records what the GPU did. Only that record, the output buffer and the
course's own serial run on the same data are graded; nothing your code prints.
The analysis and the model are the C++ library's, through the module `streamlab`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from lab05 import CHUNKS, FLOAT_BYTES, PipelineJob, job_over
from streamlab_pytest import (
    PreparedPipelineLab,
    measured_by_the_course,
    ratio_near_one,
    record,
    report_hint,
    report_measure,
    require_gpu,
)

MIN_EFFICIENCY = 0.8  # the model's makespan over yours (the C++ lab's kMinEfficiency and README, "Why 0.8")
SPEEDUP_TOLERANCE = 0.1  # how far your events' speedup may be from the timeline's (relative)


@dataclass
class Lab(PreparedPipelineLab):
    """The data, the workload and the device, set up once per test by the course."""

    copy_engines: int

    def job(self) -> PipelineJob:
        return job_over(self.memory, self.iterations)


@pytest.fixture
def lab() -> Lab:
    facts = require_gpu()
    import streamlab

    return Lab(streamlab.prepare_pipeline(facts), facts.copy_engines)


def run_recorded(lab: Lab, chunks: int = CHUNKS) -> tuple[Any, float]:
    """(timeline, the milliseconds run_pipeline returned) of one recorded run after a warm-up."""
    import streamlab
    import three_chunks

    three_chunks.run_pipeline(lab.job(), chunks)
    streamlab.fill_poison(lab.memory.output, lab.memory.n)
    return record("lab05 python run_pipeline", lambda: three_chunks.run_pipeline(lab.job(), chunks))


def serial_reference(lab: Lab) -> Any:
    """The course's serial run (lab 01's way) on the same data: what the pipeline is compared with."""
    import streamlab

    return measured_by_the_course(lambda: streamlab.run_serial_reference(lab.memory, lab.iterations))


def chunks_of(timeline: Any, chunks: int = CHUNKS) -> list[Any]:
    """The chunks of the run, found from the ops themselves, whatever streams they ran in."""
    import streamlab

    found = streamlab.chunks_by_issue_order(timeline.ops, chunks)
    assert not found.problem, found.problem
    return found.chunks


@pytest.mark.points(2)
def test_results_match_cpu_reference(lab: Lab) -> None:
    import streamlab

    run_recorded(lab)
    m = lab.memory
    check = streamlab.check_workload_output(m.input, m.output, m.n, lab.iterations, CHUNKS)
    if not check.ok:
        report_hint(
            "offset the three addresses of a chunk by offset * FLOAT_BYTES, copy count * FLOAT_BYTES bytes, "
            "and give the kernel count elements"
        )
    assert check.ok, check.message()


@pytest.mark.points(2)
def test_each_chunk_runs_in_its_own_stream(lab: Lab) -> None:
    import streamlab

    timeline, _ = run_recorded(lab)
    found = streamlab.find_chunks(timeline.ops)
    report_measure("streams that ran one whole chunk", len(found.chunks), "==", CHUNKS, "")
    if found.problem:
        report_hint("chunk i's H2D copy, kernel and D2H copy all go into streams[i]; nothing into the NULL stream")
    assert not found.problem, found.problem
    assert len(found.chunks) == CHUNKS, f"expected {CHUNKS} streams with one chunk each"
    for i, chunk in enumerate(found.chunks):
        _, count = streamlab.chunk_range(lab.memory.n, CHUNKS, i)
        assert chunk.h2d.bytes == count * FLOAT_BYTES, f"H2D_{i + 1} should copy chunk {i + 1}"
        assert chunk.d2h.bytes == count * FLOAT_BYTES, f"D2H_{i + 1} should copy chunk {i + 1}"


@pytest.mark.points(3)
def test_makespan_near_the_model(lab: Lab) -> None:
    import streamlab

    serial = serial_reference(lab)
    timeline, _ = run_recorded(lab)
    chunks_of(timeline)
    comparison = streamlab.compare_with_model(serial.timeline, timeline, CHUNKS, lab.copy_engines)
    efficiency = comparison.efficiency()
    report_measure("efficiency: the model's makespan / yours", efficiency, ">=", MIN_EFFICIENCY, "")
    if efficiency < MIN_EFFICIENCY:
        report_hint("queue every chunk's work before waiting for anything: one synchronize, at the very end")
    assert efficiency >= MIN_EFFICIENCY, (
        f"your pipeline took {comparison.pipelined_ms:.2f} ms; the model allows {comparison.model_ms:.2f} ms\n"
        f"{comparison}"
    )


@pytest.mark.points(2)
def test_reported_time_matches_timeline(lab: Lab) -> None:
    import streamlab

    serial = serial_reference(lab)
    timeline, reported_ms = run_recorded(lab)
    chunks_of(timeline)
    assert reported_ms and reported_ms > 0, f"run_pipeline returned {reported_ms} ms"
    # `stop` must wait for every stream's work, whichever stream happens to end last
    # in this run: the recorded runtime calls show what it was ordered after.
    waits, why = streamlab.last_event_waits_for_all(timeline)
    if not waits:
        report_hint(
            "events in one stream do not wait for the others: make the stream of `stop` wait for every other "
            "stream (cudaStreamWaitEvent) before recording `stop`"
        )
    assert waits, why
    comparison = streamlab.compare_with_model(serial.timeline, timeline, CHUNKS, lab.copy_engines)
    yours = serial.event_ms / reported_ms
    ratio = yours / comparison.speedup()
    hint = (
        "events in one stream do not wait for the others: make the first stream wait for every other stream "
        "(cudaStreamWaitEvent) before recording `stop`"
    )
    assert ratio_near_one("your speedup / the timeline's", ratio, SPEEDUP_TOLERANCE, hint), (
        f"your events say {reported_ms:.2f} ms, a speedup of {yours:.2f}x; the timeline spans "
        f"{comparison.pipelined_ms:.2f} ms, a speedup of {comparison.speedup():.2f}x"
    )


@pytest.mark.points(2)
def test_any_chunk_count_works(lab: Lab) -> None:
    import streamlab

    # run_pipeline promises any `chunks` >= 1: one chunk is the serial run in a
    # stream; five cut the data unevenly when n is not a multiple of five.
    for chunks in (1, 5):
        timeline, _ = run_recorded(lab, chunks)
        m = lab.memory
        check = streamlab.check_workload_output(m.input, m.output, m.n, lab.iterations, chunks)
        assert check.ok, f"run_pipeline(job, {chunks}): {check.message()}"
        found = streamlab.chunks_by_issue_order(timeline.ops, chunks)
        if found.problem:
            report_hint("use `chunks`, not lab05.CHUNKS, everywhere in run_pipeline")
        assert not found.problem, f"run_pipeline(job, {chunks}): {found.problem}"
