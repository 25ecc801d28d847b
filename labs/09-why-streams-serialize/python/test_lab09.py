"""Lab 09 in Python, graded from the GPU's own timeline, test for test with the C++ lab.

Each test runs your run_pipeline (serialize.py) once to warm up, then again while CUPTI
records what the GPU did and which runtime calls your code made. Only that record, the
output buffer and the course's own serial run on the same data are graded; nothing your
code prints. The analysis and the model are the C++ library's, through the module `streamlab`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from lab09 import CHUNKS, PageableFloats, PipelineJob, job_over
from streamlab_pytest import (
    PreparedPipelineLab,
    assert_share_of_model,
    measured_by_the_course,
    record,
    report_hint,
    report_measure,
    require_gpu,
)

MIN_EFFICIENCY = 0.75  # the model's makespan over yours (the C++ lab's kMinEfficiency and README, "Why 0.75")
MIN_HIDDEN_SHARE = 0.5  # the least share of the model's hidden copy time yours must reach (kMinHiddenShare)


@dataclass
class Lab(PreparedPipelineLab):
    """The data, the workload and the device, set up once per test by the course; the results
    land in pageable memory."""

    facts: Any  # streamlab.DeviceFacts
    output: PageableFloats

    @classmethod
    def on(cls, facts: Any) -> Lab:
        """The set-up for this GPU: the data and the workload's iterations, and pageable memory for the results."""
        import streamlab

        prepared = streamlab.prepare_pipeline(facts)
        return cls(prepared, facts, PageableFloats(prepared.memory.n))

    def job(self) -> PipelineJob:
        return job_over(self.memory, self.output, self.iterations)


@pytest.fixture
def lab() -> Lab:
    return Lab.on(require_gpu())


def run_recorded(lab: Lab, chunks: int = CHUNKS) -> Any:
    """The timeline of one recorded run after a warm-up, the output poisoned first."""
    import serialize
    import streamlab

    serialize.run_pipeline(lab.job(), chunks)
    streamlab.fill_poison(lab.output.address, lab.output.n)
    timeline, _ = record("lab09 python run_pipeline", lambda: serialize.run_pipeline(lab.job(), chunks))
    return timeline


def results_check(lab: Lab, chunks: int = CHUNKS) -> Any:
    """The output against the CPU reference of the input (streamlab.ResultCheck)."""
    import streamlab

    return streamlab.check_workload_output(lab.memory.input, lab.output.address, lab.output.n, lab.iterations, chunks)


def without_memsets(ops: list[Any]) -> list[Any]:
    """The ops that are not memsets: a chunk's memset, in its own stream, is no part of the pipeline's shape."""
    return [op for op in ops if op.kind != "memset"]


def serial_then_pipeline(lab: Lab) -> tuple[Any, Any]:
    """(the course's serial run, your recorded pipeline) on the same data; fails unless the pipeline's
    copies and kernels make CHUNKS chunks, found from the ops in the order they were issued."""
    import streamlab

    serial = measured_by_the_course(lambda: streamlab.run_serial_reference(lab.memory, lab.iterations))
    timeline = run_recorded(lab)
    found = streamlab.chunks_by_issue_order(without_memsets(timeline.ops), CHUNKS)
    assert not found.problem, found.problem
    return serial, timeline


def assert_none_while_busy(timeline: Any, names: tuple[str, ...], what: str, hint: str) -> None:
    """Fails when the host made a call of the runtime functions `names` (`what`, for the report) while
    some op of the timeline ran: one made before the first chunk's work or after the last chunk's end
    holds nothing up. Reports the count; `hint` when there were any."""
    import streamlab

    calls = sum(1 for function in streamlab.implicit_syncs_while_busy(timeline) if function in names)
    report_measure(f"{what} while the GPU was busy", calls, "==", 0, "")
    if calls:
        report_hint(hint)
    assert calls == 0, f"run_pipeline made {calls} {what} while earlier chunks' work was running"


@pytest.mark.points(2)
def test_results_match_cpu_reference(lab: Lab) -> None:
    run_recorded(lab)
    check = results_check(lab)
    if not check.ok:
        report_hint(
            "each chunk's D2H copy must be complete before its results are copied into job.output, and nothing "
            "may be freed while a stream still uses it"
        )
    assert check.ok, check.message()


@pytest.mark.points(2)
def test_each_chunk_runs_in_its_own_stream(lab: Lab) -> None:
    import streamlab

    timeline = run_recorded(lab)
    in_null_stream = streamlab.null_stream_ops(timeline.ops)
    report_measure("ops in the NULL stream", in_null_stream, "==", 0, "")
    if in_null_stream:
        report_hint(
            "draw your timeline (./course run 09 --python): find the op in the NULL stream and the call that "
            "queued it, then queue the same work in the chunk's stream"
        )
    assert in_null_stream == 0, "work in the legacy NULL stream waits for every blocking stream, and they for it"
    found = streamlab.find_chunks(without_memsets(timeline.ops))
    assert not found.problem, found.problem
    assert len(found.chunks) == CHUNKS, f"expected {CHUNKS} streams with one chunk each"
    for chunk in found.chunks:
        assert chunk.d2h.host_memory == "pinned", (
            "a D2H copy into pageable memory cannot overlap: copy into the pinned staging"
        )


@pytest.mark.points(2)
def test_no_cuda_malloc_or_cuda_free_while_busy(lab: Lab) -> None:
    # Each may make every stream wait (the Programming Guide's "Implicit Synchronization").
    assert_none_while_busy(
        run_recorded(lab),
        ("cudaMalloc", "cudaFree"),
        "calls of cudaMalloc and cudaFree",
        "a device allocation or free between two streams' work may make them wait for each other: allocate "
        "and free in the chunk's stream instead (the README's Concepts)",
    )


@pytest.mark.points(1)
def test_no_pinned_allocation_while_busy(lab: Lab) -> None:
    assert_none_while_busy(
        run_recorded(lab),
        ("cudaMallocHost", "cudaHostAlloc", "cudaFreeHost", "cudaHostRegister", "cudaHostUnregister"),
        "page-locked host allocations or releases",
        "a page-locked allocation between two streams' work makes them wait for each other: allocate the "
        "staging before the first chunk's work, release it after the last",
    )


@pytest.mark.points(3)
def test_copies_overlap_kernels(lab: Lab) -> None:
    import streamlab

    serial, timeline = serial_then_pipeline(lab)
    # The model's share of copy time hidden behind kernels, for this GPU and your issue
    # order, from the stage times of the serial run.
    order = streamlab.issue_order(timeline.ops)
    simulated = streamlab.simulate_pipeline(*serial.stages, CHUNKS, CHUNKS, lab.facts.copy_engines, order)
    model_hidden = streamlab.hidden_copy_fraction(streamlab.modelled_ops(simulated))
    if model_hidden <= 0:
        pytest.skip(
            f"{streamlab.words.SKIP_DEVICE_CANNOT_SHOW}{lab.facts.name} has {lab.facts.copy_engines} copy "
            "engine(s): the model has no copy run beside a kernel"
        )
    yours = streamlab.hidden_copy_fraction(timeline.ops)
    assert_share_of_model(
        "copy time hidden behind kernels, yours / the model's",
        yours,
        model_hidden,
        MIN_HIDDEN_SHARE,
        "no copy ran beside a kernel: something between two chunks makes the streams wait for each other; "
        "look at what the chunk loop calls besides the copies and the kernel",
        f"your copies ran beside kernels {yours * 100:.1f}% of their time; the model's, {model_hidden * 100:.1f}%",
    )


@pytest.mark.points(3)
def test_makespan_near_the_model(lab: Lab) -> None:
    import streamlab

    serial, timeline = serial_then_pipeline(lab)
    comparison = streamlab.compare_with_model(serial.timeline, timeline, CHUNKS, lab.facts.copy_engines)
    efficiency = comparison.efficiency()
    report_measure("efficiency: the model's makespan / yours", efficiency, ">=", MIN_EFFICIENCY, "")
    if efficiency < MIN_EFFICIENCY:
        report_hint(
            "draw your timeline with the model beneath it: ./course run 09 --python, then ./course plot "
            "build/traces/lab09-python-yours.json --model; a gap between one chunk's end and the next chunk's "
            "start is a call that made the streams wait"
        )
    assert efficiency >= MIN_EFFICIENCY, (
        f"your pipeline took {comparison.pipelined_ms:.2f} ms; from the stage times measured a moment ago the "
        f"model allows {comparison.model_ms:.2f} ms\n{comparison}"
    )


@pytest.mark.points(2)
def test_any_chunk_count_works(lab: Lab) -> None:
    import streamlab

    # run_pipeline promises any `chunks` >= 1: one chunk is the serial run in a
    # stream; five cut the data unevenly when n is not a multiple of five.
    for chunks in (1, 5):
        timeline = run_recorded(lab, chunks)
        check = results_check(lab, chunks)
        assert check.ok, f"run_pipeline(job, {chunks}): {check.message()}"
        found = streamlab.chunks_by_issue_order(without_memsets(timeline.ops), chunks)
        if found.problem:
            report_hint("use `chunks`, not lab09.CHUNKS, everywhere in run_pipeline")
        assert not found.problem, f"run_pipeline(job, {chunks}): {found.problem}"
