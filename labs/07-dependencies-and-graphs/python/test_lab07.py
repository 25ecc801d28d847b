"""Lab 07 in Python, graded from the GPU's own timeline, test for test with the C++ lab.

The tests run your stage pipeline, your host consumer and your graph (dependencies.py)
on 256 MiB (less on a small GPU), and the course's background and urgent kernels in the
streams you choose, while CUPTI records what the GPU did, and which host thread made
which runtime call, and the course's consumer and urgent kernel time themselves on the
same clock; they grade those records and the output only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from lab07 import CHUNKS, PipelineJob, consumer_over, job_over, urgent_work_over
from streamlab_pytest import (
    PreparedPipelineLab,
    api_count,
    assert_none_found,
    assert_share_of_model,
    ended_before,
    measured_by_the_course,
    ops_of_kind,
    record,
    report_hint,
    report_measure,
    require_gpu,
)

LAUNCHES = 4  # how many times the graph test asks run_graph to launch its graph
# The least share of the model's hidden copy time yours must reach. The model hides
# about two thirds of the copies behind kernels for 8 equal chunks; a design that runs
# each chunk's three stages one after another hides none.
MIN_HIDDEN_SHARE = 0.5
# The most the urgent kernel may wait with the greatest priority, as a share of its wait
# with the default priority (each from the background kernel's start to the urgent
# kernel's, as a share of the background's run): about 1/8 expected, about 1 where the
# device ignores the hint (the C++ test's kMaxPriorityWaitRatio says why 0.5).
MAX_PRIORITY_WAIT_RATIO = 0.5


@dataclass
class Lab(PreparedPipelineLab):
    """256 MiB (less on a small GPU), CHUNKS chunks, a kernel about as long as the whole H2D copy."""

    facts: Any
    timeline: Any = None
    chunks: list[Any] = field(default_factory=list)

    def job(self) -> PipelineJob:
        return job_over(self.memory, self.iterations)

    def record(self, name: str, work: Callable[[], None], before_recording: Callable[[], None] = lambda: None) -> None:
        """Your `work` once to warm up, then once more, on a poisoned output, while CUPTI records."""
        import streamlab

        work()
        streamlab.fill_poison(self.memory.output, self.memory.n)
        before_recording()
        self.timeline, _ = record(name, work)

    def found_chunks(self) -> list[Any]:
        """The chunks of the recorded run (the i-th H2D copy, kernel and D2H copy issued form chunk i)."""
        import streamlab

        found = streamlab.chunks_by_issue_order(self.timeline.ops, CHUNKS)
        if found.problem:
            report_hint("every chunk, in order: its H2D copy, its kernel, its D2H copy (Task 1)")
        assert not found.problem, found.problem
        self.chunks = found.chunks
        return found.chunks

    def expect_results_right(self, check: Any, hint: str) -> None:
        if not check.ok:
            report_hint(hint)
        assert check.ok, check.message()

    def output_check(self) -> Any:
        import streamlab

        m = self.memory
        return streamlab.check_workload_output(m.input, m.output, m.n, self.iterations, CHUNKS)

    def model_hidden_share(self) -> float:
        """The share of copy time the model hides behind kernels for CHUNKS chunks, from
        the stage times of the serial run on the same data; skips where that share is
        too small for this GPU to show anything."""
        import streamlab

        serial = measured_by_the_course(lambda: streamlab.run_serial_reference(self.memory, self.iterations))
        simulated = streamlab.simulate_pipeline(*serial.stages, CHUNKS, CHUNKS, self.facts.copy_engines, "chunk")
        share = streamlab.hidden_copy_fraction(streamlab.modelled_ops(simulated))
        if share < 0.2:
            pytest.skip(
                f"{self.facts.name} has {self.facts.copy_engines} copy engine(s): the model hides only "
                f"{share * 100:.0f}% of the copies"
            )
        return share

    def expect_copies_hidden(self, model_hidden: float, hint: str) -> None:
        import streamlab

        hidden = streamlab.hidden_copy_fraction(self.timeline.ops)
        assert_share_of_model(
            "copy time hidden behind kernels / the model's",
            hidden,
            model_hidden,
            MIN_HIDDEN_SHARE,
            hint,
            f"kernels hid {hidden * 100:.1f}% of the copy time; the model hides {model_hidden * 100:.1f}%",
        )


@pytest.fixture
def lab() -> Lab:
    facts = require_gpu()
    import streamlab

    return Lab(streamlab.prepare_pipeline(facts), facts)


def streams_of(timeline: Any, kind: str) -> set[int]:
    return {op.stream for op in ops_of_kind(timeline, kind)}


# ---------------------------------------------------------------- Task 1


def record_stages(lab: Lab) -> None:
    import dependencies

    lab.record("lab07 python run_stage_streams", lambda: dependencies.run_stage_streams(lab.job(), CHUNKS))


@pytest.mark.points(1)
def test_stage_streams_results_match_cpu_reference(lab: Lab) -> None:
    record_stages(lab)
    lab.expect_results_right(
        lab.output_check(),
        "chunk c is chunk_range(job.n, chunks, c): copy count * FLOAT_BYTES bytes each way at offset, and wait "
        "for the copy-out stream before returning",
    )


@pytest.mark.points(2)
def test_one_stream_per_stage(lab: Lab) -> None:
    import streamlab

    record_stages(lab)
    h2d, kernels, d2h = (streams_of(lab.timeline, kind) for kind in ("memcpy_h2d", "kernel", "memcpy_d2h"))
    in_null = streamlab.null_stream_ops(lab.timeline.ops)
    report_measure("streams that ran the work", streamlab.distinct_streams(lab.timeline.ops), "==", 3, "")
    one_each = len(h2d) == len(kernels) == len(d2h) == 1
    apart = one_each and len(h2d | kernels | d2h) == 3
    if not apart or in_null:
        report_hint(
            "three non-blocking streams: every H2D copy in one, every kernel in another, every D2H copy in the third"
        )
    assert in_null == 0, "nothing belongs in the NULL stream"
    assert one_each, (
        f"the H2D copies ran in {len(h2d)} stream(s), the kernels in {len(kernels)}, the D2H copies in {len(d2h)}; "
        "the stage design has one stream per stage"
    )
    assert apart, "two stages shared a stream: each stage has a stream of its own"


@pytest.mark.points(3)
def test_each_stage_waits_for_its_chunk(lab: Lab) -> None:
    record_stages(lab)
    early = []
    for c, chunk in enumerate(lab.found_chunks(), start=1):
        if not ended_before(chunk.h2d, chunk.kernel):
            early.append(f"K_{c} began before H2D_{c} ended")
        if not ended_before(chunk.kernel, chunk.d2h):
            early.append(f"D2H_{c} began before K_{c} ended")
    assert_none_found(
        early,
        "stages that began before the stage before them of their chunk ended",
        "stage(s) did not wait for their chunk",
        "streams do not see each other's work: after each stage, record an event in its stream, and make the next "
        "stage's stream wait for that event before you queue the chunk's next stage there",
    )


@pytest.mark.points(2)
def test_stage_streams_copies_overlap_kernels(lab: Lab) -> None:
    model_hidden = lab.model_hidden_share()
    record_stages(lab)
    lab.expect_copies_hidden(
        model_hidden,
        "each stage waits for its own chunk only, and the host never waits in between: queue every chunk first, "
        "then wait once",
    )


# ---------------------------------------------------------------- Task 2


@dataclass
class Consumed:
    course: Any  # streamlab.lab07.HostConsumer
    calls: list[Any]  # its Consumption records of the recorded run


def record_consumer(lab: Lab) -> Consumed:
    import dependencies
    import streamlab

    course = streamlab.lab07.HostConsumer(lab.memory, lab.iterations, CHUNKS)
    consumer = consumer_over(course)
    lab.record(
        "lab07 python run_with_host_consumer",
        lambda: dependencies.run_with_host_consumer(lab.job(), CHUNKS, consumer),
        before_recording=course.reset,
    )
    return Consumed(course, course.consumptions(lab.timeline.origin_ns))


@pytest.mark.points(1)
def test_host_consumer_results_match_cpu_reference(lab: Lab) -> None:
    consumed = record_consumer(lab)
    lab.expect_results_right(
        consumed.course.check(CHUNKS),
        "the host function for chunk c reads chunk c from job.output: queue it after chunk c's D2H copy, once "
        "for every chunk",
    )


@pytest.mark.points(3)
def test_each_chunk_consumed_as_its_copy_ends(lab: Lab) -> None:
    consumed = record_consumer(lab)
    chunks = lab.found_chunks()
    by_chunk = {call.chunk: call for call in consumed.calls}
    assert len(consumed.calls) == CHUNKS, "each chunk must be consumed once"
    assert len(by_chunk) == CHUNKS, "a chunk was consumed twice, another never"
    last_copy_end = max(chunk.d2h.end_ns for chunk in chunks)
    wrong = []
    for c, chunk in enumerate(chunks):
        began = by_chunk[c].start_ns
        if began < chunk.d2h.end_ns:
            wrong.append(
                f"chunk {c + 1} was consumed {(chunk.d2h.end_ns - began) / 1e6:.3f} ms before its D2H copy ended"
            )
        elif c + 1 < CHUNKS and began >= last_copy_end:
            wrong.append(f"chunk {c + 1} was consumed only after the last D2H copy ended")
    assert_none_found(
        wrong,
        "chunks consumed before their copy ended, or only after the last copy",
        "chunk(s) consumed at the wrong time",
        "queue the host function right after each chunk's D2H copy, in the same stream: the GPU runs it the moment "
        "that copy ends, while later chunks are still on their way",
    )


@pytest.mark.points(2)
def test_consumed_in_host_functions_that_call_no_cuda(lab: Lab) -> None:
    import streamlab

    consumed = record_consumer(lab)
    assert consumed.calls, "no chunk was consumed"
    yours = streamlab.host_thread_id()
    threads = {call.thread for call in consumed.calls}
    by_thread = lab.timeline.api_calls_by_thread
    calls_there = sum(by_thread.get(thread, 0) for thread in threads if thread != yours)
    report_measure("CUDA runtime calls made on the threads that ran consume", calls_there, "==", 0, "")
    if yours in threads:
        report_hint("let the GPU call the consumer: queue consumer.host_function with cudaLaunchHostFunc")
    assert yours not in threads, (
        "consume ran on the thread that called run_with_host_consumer, which then waited for the chunk; a host "
        "function runs on a thread of CUDA's own"
    )
    assert calls_there == 0, f"{calls_there} CUDA runtime call(s) were made on CUDA's own thread"


# ---------------------------------------------------------------- Task 3


def record_graph(lab: Lab) -> None:
    import dependencies

    lab.record("lab07 python run_graph", lambda: dependencies.run_graph(lab.job(), CHUNKS, LAUNCHES))


@pytest.mark.points(1)
def test_graph_results_match_cpu_reference(lab: Lab) -> None:
    record_graph(lab)
    lab.expect_results_right(
        lab.output_check(),
        "capture the whole pipeline of Task 1 between the fork and the join, and wait for the last launch before "
        "returning",
    )


@pytest.mark.points(3)
def test_one_instantiation_launched_many_times(lab: Lab) -> None:
    record_graph(lab)
    kernels = ops_of_kind(lab.timeline, "kernel")
    in_graphs = [kernel for kernel in kernels if kernel.graph_id != 0]
    outside = len(kernels) - len(in_graphs)
    graphs = {kernel.graph_id for kernel in in_graphs}
    runs_per_node: dict[int, int] = {}
    for kernel in in_graphs:
        runs_per_node[kernel.graph_node_id] = runs_per_node.get(kernel.graph_node_id, 0) + 1
    instantiations = api_count(
        lab.timeline, "cudaGraphInstantiate", "cudaGraphInstantiateWithFlags", "cudaGraphInstantiateWithParams"
    )
    launches = api_count(lab.timeline, "cudaGraphLaunch")
    report_measure("kernels run by a graph launch", len(in_graphs), "==", LAUNCHES * CHUNKS, "")
    report_measure("graph instantiations", instantiations, "==", 1, "")
    if outside or len(graphs) != 1 or instantiations != 1 or launches != LAUNCHES:
        report_hint(
            "capture once, instantiate once, then launch the one instance `launches` times; no kernel runs outside "
            "the graph"
        )
    assert outside == 0, "kernels ran outside any graph launch"
    assert len(graphs) == 1, f"the kernels came from {len(graphs)} graphs"
    assert instantiations == 1, "instantiate the graph once, however often you launch it"
    assert launches == LAUNCHES, "one cudaGraphLaunch per launch asked for"
    assert len(in_graphs) == LAUNCHES * CHUNKS, f"{LAUNCHES} launches of a graph with {CHUNKS} kernels"
    for node, runs in runs_per_node.items():
        assert runs == LAUNCHES, f"graph node {node} ran {runs} times"


@pytest.mark.points(2)
def test_graph_chunks_overlap_inside_each_launch(lab: Lab) -> None:
    model_hidden = lab.model_hidden_share()
    record_graph(lab)
    lab.expect_copies_hidden(
        model_hidden,
        "capture the stage streams themselves, forked from the origin stream: a graph keeps the dependencies the "
        "capture saw, and work captured in one stream runs one op at a time",
    )


# ---------------------------------------------------------------- Task 4


@pytest.mark.points(2)
def test_urgent_kernel_waits_less_with_greatest_priority() -> None:
    require_gpu()
    import dependencies
    import streamlab
    from cuda.bindings import runtime as cudart
    from cuda_check import check

    least, greatest = check(cudart.cudaDeviceGetStreamPriorityRange())
    if least == greatest:
        pytest.skip(f"this device cannot show it: it offers a single stream priority ({least})")
    demo = streamlab.lab07.PriorityDemo()
    urgent = urgent_work_over(demo)
    waits = {}
    for high_priority in (False, True):
        dependencies.run_with_urgent_kernel(urgent, high_priority)  # warm-up
        timeline, _ = record(
            "lab07 python run_with_urgent_kernel",
            lambda high=high_priority: dependencies.run_with_urgent_kernel(urgent, high),
        )
        waits[high_priority] = streamlab.lab07.urgent_wait(timeline, demo.launched_ns(timeline.origin_ns))
    plain, urgent_run = waits[False], waits[True]
    for name, run in (("default priority", plain), ("greatest priority", urgent_run)):
        if run.problem:
            report_hint(
                "in run_with_urgent_kernel: urgent.fill_gpu(a stream of the least priority), then "
                "urgent.launch(a stream of your own), then wait for both"
            )
        assert not run.problem, f"{name}: {run.problem}"
    # Without any wait at the default priority there is nothing a priority could shorten.
    ratio = 1.0 if plain.wait_ns == 0 else urgent_run.share / plain.share
    report_measure(
        "urgent kernel's start after the background's, greatest priority / default (shares of its run)",
        ratio,
        "<",
        MAX_PRIORITY_WAIT_RATIO,
        "",
    )
    if ratio >= MAX_PRIORITY_WAIT_RATIO:
        report_hint(
            "the urgent kernel's stream: the greatest priority (the smaller number "
            "cudaDeviceGetStreamPriorityRange gives) when high_priority, a plain stream otherwise; the "
            "background's stream: the least priority"
        )
    assert ratio < MAX_PRIORITY_WAIT_RATIO, (
        f"the urgent kernel began {urgent_run.wait_ns / 1e6:.3f} ms ({urgent_run.share * 100:.1f}% of the "
        f"background's run) after the background kernel with the greatest priority and "
        f"{plain.wait_ns / 1e6:.3f} ms ({plain.share * 100:.1f}%) with the default priority"
    )
