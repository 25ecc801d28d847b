"""Lab 04 in Python, graded from the GPU's own timeline, test for test with the C++ lab.

Each test runs your run_batches (async_copies.py) while CUPTI records what the GPU
did; the host's work, which the course hands you as host_work, marks on the same
clock when control came back and when the work ended. Only those records and the
results are graded; your reports are compared with them.
"""

from __future__ import annotations

from typing import Any

import pytest
from lab04 import FLOAT_BYTES, Batch, WaitWith
from streamlab_pytest import api_count, record, report_hint, report_measure, require_gpu

BATCHES = 3
ELEMENTS = 4 << 20  # 16 MiB per batch, with a kernel about as long as one batch's H2D copy
MIN_HOST_OVERLAP = 0.5  # host work beside the device, as a share of what was possible


def ms(ns: float) -> float:
    return ns / 1e6


class BatchRun:
    """The batches' host buffers, set up by the course, and one recorded run_batches."""

    def __init__(self) -> None:
        self.facts = require_gpu()
        import streamlab

        self.h2d_ms = streamlab.measure_h2d_ms(ELEMENTS * FLOAT_BYTES)
        self.iterations = streamlab.iterations_for_kernel_ms(ELEMENTS, self.h2d_ms)

    def record(self, pinned: bool, wait: WaitWith = WaitWith.STREAM, prepare_next: bool = True, before=None) -> None:
        """Runs run_batches while the tracer records; `before` runs first, inside the recording."""
        import async_copies
        import streamlab

        self.buffers = streamlab.BatchBuffers(BATCHES, ELEMENTS, pinned)
        batches = [Batch(self.buffers.input(b), self.buffers.output(b)) for b in range(BATCHES)]
        self.buffers.reset(not prepare_next)
        host_work = streamlab.marked_host_work(self.buffers, prepare_next)

        def work() -> Any:
            if before is not None:
                before()
            return async_copies.run_batches(batches, ELEMENTS, self.iterations, wait, host_work)

        self.timeline, self.reports = record("lab04 python run_batches", work)
        self.found = streamlab.find_batches(self.timeline, BATCHES, ELEMENTS * FLOAT_BYTES)

    def assert_every_batch_found(self) -> None:
        assert not self.found.problem, self.found.problem

    def expect_report_matches_timeline(self) -> None:
        assert len(self.reports) == BATCHES, "return one report per batch"
        agree = sum(
            r.device_busy_on_return == b.device_busy_on_return() for r, b in zip(self.reports, self.found.batches)
        )
        report_measure("batches your report gets right", agree, "==", BATCHES, "")
        if agree != BATCHES:
            report_hint("right after queuing a batch, call cudaStreamQuery(stream): cudaErrorNotReady means busy")
        for b, (reported, found) in enumerate(zip(self.reports, self.found.batches)):
            seen = found.device_busy_on_return()
            assert reported.device_busy_on_return == seen, (
                f"batch {b}: you reported the device {'still busy' if reported.device_busy_on_return else 'done'} "
                f"when control came back; the timeline shows it {'still busy' if seen else 'done'}"
            )


def pinned_run() -> BatchRun:
    run = BatchRun()
    run.record(pinned=True)
    return run


# ---------------------------------------------------------------- tasks 1 and 2: pinned memory, one stream


@pytest.mark.points(2)
def test_results_match_cpu_reference() -> None:
    run = pinned_run()
    for b in range(BATCHES):
        check = run.buffers.check(b, run.iterations)
        if not check.ok:
            report_hint("each batch: H2D from batch.input, the kernel, D2H into batch.output")
        assert check.ok, f"batch {b}: {check.message()}"


@pytest.mark.points(2)
def test_all_ops_in_one_created_stream() -> None:
    import streamlab

    run = pinned_run()
    run.assert_every_batch_found()
    ops = streamlab.unlabelled_ops(run.timeline.ops)
    report_measure("streams used", streamlab.distinct_streams(ops), "==", 1, "")
    assert streamlab.null_stream_ops(ops) == 0, "some ops ran in the NULL stream: pass your stream to every call"
    assert streamlab.distinct_streams(ops) == 1, "every op belongs in the one stream you created"


@pytest.mark.points(2)
def test_copies_are_async_from_pinned_memory() -> None:
    run = pinned_run()
    run.assert_every_batch_found()
    async_copies = api_count(run.timeline, "cudaMemcpyAsync")
    report_measure("cudaMemcpyAsync calls", async_copies, "==", 2 * BATCHES, "")
    assert async_copies == 2 * BATCHES, "one cudaMemcpyAsync per copy"
    assert api_count(run.timeline, "cudaMemcpy") == 0, "cudaMemcpy makes the host wait: use cudaMemcpyAsync"
    for batch in run.found.batches:
        assert batch.h2d.host_memory == "pinned", "copy straight from the pinned batch buffers"
        assert batch.d2h.host_memory == "pinned", "copy straight into the pinned batch buffers"


@pytest.mark.points(2)
def test_device_memory_from_the_stream_ordered_allocator() -> None:
    run = pinned_run()
    # The API is what this test asks for, not a number of calls.
    allocated = api_count(run.timeline, "cudaMallocAsync", "cudaMallocFromPoolAsync")
    freed = api_count(run.timeline, "cudaFreeAsync")
    report_measure("cudaMallocAsync calls", allocated, ">=", 1, "")
    report_measure("cudaFreeAsync calls", freed, "==", allocated, "")
    assert allocated >= 1, "allocate the device buffers with cudaMallocAsync"
    assert freed == allocated, "free every cudaMallocAsync allocation with cudaFreeAsync"
    assert api_count(run.timeline, "cudaMalloc") == 0, "this lab's device memory comes from cudaMallocAsync"


@pytest.mark.points(1)
def test_stream_is_destroyed() -> None:
    run = pinned_run()
    created = api_count(run.timeline, "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority")
    destroyed = api_count(run.timeline, "cudaStreamDestroy")
    report_measure("streams destroyed", destroyed, "==", created, "")
    assert created >= 1, "create a stream of your own"
    assert destroyed == created, "destroy the stream you created"


@pytest.mark.points(3)
def test_host_regains_control_before_the_device_finishes() -> None:
    run = pinned_run()
    run.assert_every_batch_found()
    early = sum(batch.device_busy_on_return() for batch in run.found.batches)
    report_measure("batches queued before the device finished them", early, "==", BATCHES, "")
    if early != BATCHES:
        report_hint("nothing between queuing and host_work may wait: no cudaMemcpy, no synchronize")
    for b, batch in enumerate(run.found.batches):
        assert batch.device_busy_on_return(), (
            f"batch {b}: control came back to the host {ms(batch.queued_ns - batch.d2h.end_ns):.3f} ms after the "
            "batch's D2H copy ended; the calls must only queue the work"
        )


@pytest.mark.points(3)
def test_host_work_overlaps_device_work() -> None:
    run = pinned_run()
    run.assert_every_batch_found()
    # The host has work (preparing the next batch) during every batch but the last.
    busy = run.found.batches[:-1]
    overlap = sum(batch.host_device_overlap_ns() for batch in busy)
    possible = sum(min(batch.host_work_ns(), batch.device_span_ns()) for batch in busy)
    assert possible > 0, "the host work took no time at all"
    share = overlap / possible
    report_measure("host work overlapping the device, share of the possible", share, ">=", MIN_HOST_OVERLAP, "")
    if share < MIN_HOST_OVERLAP:
        report_hint("call host_work(b) right after queuing batch b, and wait for the batch only after")
    assert share >= MIN_HOST_OVERLAP, (
        f"the host worked alongside the device for {ms(overlap):.3f} ms of a possible {ms(possible):.3f} ms"
    )


@pytest.mark.points(2)
def test_your_report_matches_the_timeline() -> None:
    run = pinned_run()
    run.assert_every_batch_found()
    run.expect_report_matches_timeline()


# ---------------------------------------------------------------- task 3: waiting for a stream or for the device


def run_beside_a_background_kernel(wait: WaitWith) -> tuple[BatchRun, int]:
    """run_batches next to a long kernel in another stream: the run, and when that kernel ended (ns)."""
    import streamlab

    run = BatchRun()
    if not run.facts.concurrent_kernels:
        pytest.skip(f"this device cannot show it: {run.facts.name} cannot run kernels of different streams at once")
    # The other stream's kernel must outlast the batches by far: four times as
    # long as they take on this GPU, measured just now without it.
    run.record(pinned=True, prepare_next=False)
    batches_end_ms = ms(max((op.end_ns for op in run.timeline.ops), default=0))
    background = streamlab.BackgroundKernel(4.0 * max(batches_end_ms, BATCHES * 3.0 * run.h2d_ms), run.facts)
    run.record(pinned=True, wait=wait, prepare_next=False, before=background.launch)
    ends = [op.end_ns for op in run.timeline.ops if op.label == streamlab.BACKGROUND_LABEL]
    assert ends, "the background kernel was not recorded"
    return run, ends[0]


@pytest.mark.points(2)
def test_stream_synchronize_waits_for_your_stream_only() -> None:
    run, background_end_ns = run_beside_a_background_kernel(WaitWith.STREAM)
    run.assert_every_batch_found()
    assert api_count(run.timeline, "cudaStreamSynchronize") >= BATCHES, "wait for each batch with cudaStreamSynchronize"
    last = run.found.batches[-1]
    report_measure(
        "last batch queued before the other stream's kernel ended, by",
        ms(background_end_ns) - ms(last.queued_ns),
        ">",
        0.0,
        "ms",
    )
    assert last.queued_ns < background_end_ns, (
        "your waits also waited for a kernel in another stream: with WaitWith.STREAM, wait for your stream only"
    )


@pytest.mark.points(2)
def test_device_synchronize_waits_for_every_stream() -> None:
    run, background_end_ns = run_beside_a_background_kernel(WaitWith.DEVICE)
    run.assert_every_batch_found()
    assert api_count(run.timeline, "cudaDeviceSynchronize") >= BATCHES - 1, (
        "wait for each batch with cudaDeviceSynchronize"
    )
    second = run.found.batches[1]
    report_measure(
        "batch 1 queued after the other stream's kernel ended, by",
        ms(second.queued_ns) - ms(background_end_ns),
        ">=",
        0.0,
        "ms",
    )
    assert second.queued_ns >= background_end_ns, (
        "with WaitWith.DEVICE the wait after batch 0 must wait for every stream, the other kernel's too"
    )


# ---------------------------------------------------------------- the same code over pageable memory


@pytest.mark.points(2)
def test_pageable_report_matches_the_timeline() -> None:
    run = BatchRun()
    run.record(pinned=False)
    run.assert_every_batch_found()
    run.expect_report_matches_timeline()
