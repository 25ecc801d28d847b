"""Lab 06 in Python, graded from the GPU's own timeline, test for test with the C++ lab.

The tests stream 256 MiB (less on a small GPU) through your run_stream (many_chunks.py)
while CUPTI records what the GPU did and the course's produce and consume time every
write and read of a ring buffer on the same clock, and grade those records: the
results, every buffer's reuse, the overlap, the makespan against the model, and your
sweep's best chunk count. Nothing your code prints or returns is trusted but the
sweep's own numbers, which are held against the records. The grading questions are
the C++ lab's own (streamlab.lab06, from ring_timeline.cpp).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from lab06 import StreamingJob, job_over
from streamlab_pytest import (
    api_count,
    assert_none_found,
    assert_share_of_model,
    measured_by_the_course,
    record,
    report_hint,
    report_measure,
    require_gpu,
)

# (chunks, staging buffers, results buffers, device sets) of each test's job: the C++
# lab's shapes. The rings differ in size so that one ring's waits never stand in for another's.
RESULTS_SHAPE = (16, 2, 3, 3)
SLOW_HOST_SHAPE = (7, 2, 1, 2)  # 7 chunks do not divide the data evenly
HAZARD_SHAPE = (16, 2, 4, 2)
MODEL_SHAPE = (16, 3, 3, 3)

# The kernel's total time over the longer of the whole H2D copy and the host's fills
# and drains alone: at 1 the GPU's compute and the host are about equally busy; at 4 the
# GPU is far slower than the host, which then reaches every buffer as early as your
# waits let it.
BALANCED = 1.0
HOST_RUNS_AHEAD = 4.0

MIN_EFFICIENCY = 0.7  # the model's makespan over yours (the C++ lab's kMinEfficiency and README)
MIN_HIDDEN_SHARE = 0.4  # the least share of the model's hidden copy time yours must reach
SWEEP_TOLERANCE = 0.1  # how far your sweep's time for a run may be from its recorded span (relative)
BEST_TOLERANCE = 0.05  # how much slower than the fastest recorded run your best N's may be
SWEEP_COUNTS = [2, 4, 8, 16, 32, 64]

ALLOCATIONS = (
    "cudaMalloc",
    "cudaMallocAsync",
    "cudaMallocFromPoolAsync",
    "cudaMallocHost",
    "cudaHostAlloc",
    "cudaMallocManaged",
    "cudaMallocPitch",
    "cudaHostRegister",
)


@dataclass
class Lab:
    """One test's stream: the host, the rings, the job, and what was recorded."""

    facts: Any
    host: Any  # streamlab.lab06.HostStream: the whole input and output, every fill and drain
    h2d_ms: float  # the whole H2D copy, measured alone
    shape: Any = None  # streamlab.lab06.RingShape
    rings: Any = None  # streamlab.lab06.Rings
    fill_ms: float = 0.0  # the host's fills alone, the whole stream
    drain_ms: float = 0.0  # the host's drains alone
    iterations: int = 1
    course_job: Any = None  # streamlab.lab06.CourseJob: keeps the rings and the host alive
    job: StreamingJob | None = None
    timeline: Any = None
    fills: list[Any] = field(default_factory=list)
    drains: list[Any] = field(default_factory=list)

    @property
    def n(self) -> int:
        return self.host.n

    def prepare(self, shape: tuple[int, int, int, int], weight: float, counts: tuple[int, ...] = ()) -> None:
        """Allocates the rings of `shape` (each buffer holds the largest chunk of any of
        `counts`), times the host's fills and drains alone, and sizes the kernel `weight`
        times as long as the longer of the whole H2D copy and those."""
        import streamlab

        self.shape = streamlab.lab06.RingShape(*shape)
        capacity = streamlab.lab06.capacity_for(self.n, [*counts, self.shape.chunks])
        self.rings = streamlab.lab06.Rings(capacity, self.shape)
        self.fill_ms, self.drain_ms = self.host.measure_alone(self.rings, self.shape.chunks)
        kernel_ms = weight * max(self.h2d_ms, self.fill_ms + self.drain_ms)
        self.iterations = streamlab.iterations_for_kernel_ms(self.n, kernel_ms)
        self.course_job = self.host.job(self.rings, self.shape.chunks, self.iterations)
        self.job = job_over(self.course_job)

    def record(self, name: str, work: Any) -> Any:
        """`work` run once while CUPTI records, after the host's records are cleared; what it returned."""
        self.host.reset()
        self.timeline, result = record(name, work)
        self.fills = self.host.fills(self.timeline.origin_ns)
        self.drains = self.host.drains(self.timeline.origin_ns)
        return result

    def record_stream(self) -> None:
        """Your run_stream once to warm up, then once more while CUPTI records."""
        import many_chunks

        many_chunks.run_stream(self.job)
        self.record("lab06 python run_stream", lambda: many_chunks.run_stream(self.job))

    def recorded_chunks(self) -> list[Any]:
        """The recorded run chunk by chunk; fails, saying what is missing, when a chunk is."""
        import streamlab

        run = streamlab.lab06.pair_chunks(self.fills, self.drains, self.timeline.ops, self.n, self.shape.chunks)
        if run.problem:
            report_hint("every chunk, in order: produce, H2D, kernel, D2H, consume (Tasks 2 and 3)")
        assert not run.problem, run.problem
        return run.chunks

    def expect_results_right(self, hint: str) -> None:
        check = self.host.check_output(self.iterations, self.shape.chunks)
        if not check.ok:
            report_hint(hint)
        assert check.ok, check.message()


@pytest.fixture
def lab() -> Lab:
    facts = require_gpu()
    import streamlab

    host = streamlab.lab06.HostStream(streamlab.pipeline_elements(facts.total_memory_bytes))
    return Lab(facts, host, streamlab.measure_h2d_ms(host.n * 4))


@dataclass
class AgainstTheModel:
    """The GPU's stages alone and the interference between directions, measured a moment before your stream ran."""

    stages: tuple[float, float, float]
    link: Any
    chunks: list[Any]


def record_against_the_model(lab: Lab) -> AgainstTheModel:
    """The model tests' shape: the GPU's stages alone, then your stream recorded and its chunks found."""
    lab.prepare(MODEL_SHAPE, BALANCED)
    serial, link = measured_by_the_course(lambda: lab.host.measure_gpu_alone(lab.iterations))
    lab.record_stream()
    return AgainstTheModel(serial.stages, link, lab.recorded_chunks())


@pytest.mark.points(2)
def test_results_match_cpu_reference(lab: Lab) -> None:
    lab.prepare(RESULTS_SHAPE, BALANCED)
    lab.record_stream()
    lab.expect_results_right(
        "produce chunk c with chunk_range(job.n, job.chunks, c), copy count * FLOAT_BYTES bytes each way, "
        "give the kernel count elements, and consume every chunk"
    )


@pytest.mark.points(2)
def test_results_right_with_a_slow_host(lab: Lab) -> None:
    # A host that takes longer over each fill and drain than the GPU over any of a
    # chunk's steps: the GPU waits for the host now, not the other way round.
    lab.prepare(SLOW_HOST_SHAPE, BALANCED)
    longest_step_ms = max(lab.h2d_ms, lab.fill_ms + lab.drain_ms) / lab.shape.chunks
    lab.host.slow_down(int(1.5e6 * longest_step_ms))
    lab.record_stream()
    lab.expect_results_right(
        "with one results buffer, each chunk's results must be consumed before the next D2H copy overwrites "
        "them; with a slow host no chunk may be skipped or taken twice"
    )


@pytest.mark.points(4)
def test_no_buffer_reused_before_its_last_use_ended(lab: Lab) -> None:
    import streamlab

    # The GPU is four times slower than the host here: the host reaches every buffer
    # as early as your waits allow, so every missing wait shows.
    lab.prepare(HAZARD_SHAPE, HOST_RUNS_AHEAD)
    lab.record_stream()
    allocations = api_count(lab.timeline, *ALLOCATIONS)
    assert allocations == 0, (
        "run_stream allocated memory: the rings are the job's, and reuse is only judged against them"
    )
    hazards = streamlab.lab06.reuse_hazards(lab.recorded_chunks(), lab.shape.device_sets)
    assert_none_found(
        hazards,
        "buffer uses that began before the previous use ended",
        "buffer use(s) began before the previous use ended",
        "before the host writes a staging buffer, wait for the event recorded after the H2D copy that last read it; "
        "before it reads a results buffer, for the one after its D2H copy",
    )


@pytest.mark.points(1)
def test_work_runs_in_one_stream_per_device_set(lab: Lab) -> None:
    import streamlab

    lab.prepare(MODEL_SHAPE, BALANCED)
    lab.record_stream()
    lab.recorded_chunks()
    streams = streamlab.distinct_streams(lab.timeline.ops)
    in_null = streamlab.null_stream_ops(lab.timeline.ops)
    report_measure("streams that ran the work", streams, "==", lab.shape.device_sets, "")
    if streams != lab.shape.device_sets or in_null:
        report_hint("create len(job.device) non-blocking streams and give chunk c the stream of its device set")
    assert in_null == 0, "nothing belongs in the NULL stream"
    assert streams == lab.shape.device_sets, "one stream per device set"


@pytest.mark.points(3)
def test_copies_overlap_kernels(lab: Lab) -> None:
    import streamlab

    measured = record_against_the_model(lab)
    # The model's share of copy time hidden behind kernels, for this GPU, this shape
    # and your issue order, from the stage times measured alone.
    order = streamlab.issue_order(lab.timeline.ops)
    simulated = streamlab.simulate_pipeline(
        *measured.stages, lab.shape.chunks, lab.shape.device_sets, lab.facts.copy_engines, order, measured.link
    )
    model_hidden = streamlab.hidden_copy_fraction(streamlab.modelled_ops(simulated))
    if model_hidden < 0.2:
        pytest.skip(
            f"{lab.facts.name} has {lab.facts.copy_engines} copy engine(s): for your issue order the model hides "
            f"only {model_hidden * 100:.0f}% of the copies"
        )
    hidden = streamlab.hidden_copy_fraction(lab.timeline.ops)
    assert_share_of_model(
        "copy time hidden behind kernels / the model's",
        hidden,
        model_hidden,
        MIN_HIDDEN_SHARE,
        "the host waits only for the buffer it needs next, never for the whole GPU: queue chunk c + 1's copy "
        "while chunk c's kernel runs",
        f"kernels hid {hidden * 100:.1f}% of the copy time; the model hides {model_hidden * 100:.1f}%",
    )


@pytest.mark.points(3)
def test_makespan_near_the_model(lab: Lab) -> None:
    import streamlab

    measured = record_against_the_model(lab)
    spans = streamlab.lab06.run_spans(lab.fills, lab.drains)
    assert len(spans) == 1, f"expected one run of the stream, found {len(spans)}"
    yours = spans[0].ms()
    model = streamlab.lab06.streaming_model_ms(
        measured.stages,
        lab.fill_ms,
        lab.drain_ms,
        lab.shape.chunks,
        lab.shape.device_sets,
        lab.facts.copy_engines,
        streamlab.issue_order(lab.timeline.ops),
        measured.link,
    )
    report_measure("efficiency: the model's makespan / yours", model / yours, ">=", MIN_EFFICIENCY, "")
    if model / yours < MIN_EFFICIENCY:
        report_hint(
            "draw your run: ./course run 06; wherever the host waits while a buffer it could use is free, or the "
            "GPU idles while the host could have fed it, time is lost"
        )
    h2d, kernel, d2h = measured.stages
    assert model / yours >= MIN_EFFICIENCY, (
        f"from the first fill to the last drain your stream took {yours:.2f} ms; the model allows {model:.2f} ms "
        f"(host alone: fills {lab.fill_ms:.2f} ms, drains {lab.drain_ms:.2f} ms; GPU alone: H2D {h2d:.2f}, "
        f"kernel {kernel:.2f}, D2H {d2h:.2f} ms)"
    )


@pytest.mark.points(3)
def test_sweep_reports_the_best_chunk_count(lab: Lab) -> None:
    import many_chunks
    import streamlab

    lab.prepare(MODEL_SHAPE, BALANCED, tuple(SWEEP_COUNTS))
    many_chunks.run_stream(lab.job)  # warm-up
    sweep = lab.record("lab06 python sweep_chunks", lambda: many_chunks.sweep_chunks(lab.job, list(SWEEP_COUNTS)))
    spans = streamlab.lab06.run_spans(lab.fills, lab.drains)
    report_measure("runs recorded", len(spans), "==", len(SWEEP_COUNTS), "")
    assert len(spans) == len(SWEEP_COUNTS), "sweep_chunks must run the stream once per chunk count"
    assert len(sweep.points) == len(SWEEP_COUNTS), "one point per chunk count"
    fastest, yours = 0, None
    for i, (span, point, count) in enumerate(zip(spans, sweep.points, SWEEP_COUNTS)):
        assert span.fills == count, f"run {i + 1} of the sweep produced {span.fills} chunks, not {count}"
        assert point.chunks == count, f"point {i + 1} of your sweep is for {point.chunks} chunks, not {count}"
        assert abs(point.ms / span.ms() - 1) <= SWEEP_TOLERANCE, (
            f"{count} chunks: you measured {point.ms:.2f} ms, the records show {span.ms():.2f} ms from the first "
            "fill to the last drain"
        )
        if span.ms() < spans[fastest].ms():
            fastest = i
        if count == sweep.best_chunks:
            yours = i
    assert yours is not None, f"best_chunks is {sweep.best_chunks}, none of the counts swept"
    slower = spans[yours].ms() / spans[fastest].ms()
    report_measure("your best N's recorded makespan / the fastest's", slower, "<=", 1 + BEST_TOLERANCE, "")
    if slower > 1 + BEST_TOLERANCE:
        report_hint("time each run from before run_stream to after it returns")
    assert slower <= 1 + BEST_TOLERANCE, (
        f"you report {sweep.best_chunks} chunks as the best; the records show {SWEEP_COUNTS[fastest]} chunks "
        f"fastest ({spans[fastest].ms():.2f} ms against {spans[yours].ms():.2f} ms)"
    )
