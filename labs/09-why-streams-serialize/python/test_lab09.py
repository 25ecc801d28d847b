"""Lab 09 in Python, graded from the GPU's own timeline, test for test with the C++ lab.

Task 1's tests run your run_pipeline (serialize.py) once to warm up, then again while CUPTI
records what the GPU did and which runtime calls your code made. Only that record, the
output buffer and the course's own serial run on the same data are graded; nothing your
code prints. Task 2's tests grade what your run_checked_pipeline (late_error.py) reports
against what the grader sees itself. The analysis and the model are the C++ library's,
through the module `streamlab`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from lab09 import (
    CHUNKS,
    FLOAT_BYTES,
    NO_CHUNK,
    CheckedJob,
    ChunkError,
    PageableFloats,
    PipelineJob,
    checked_job_over,
    job_over,
)
from streamlab_pytest import (
    PreparedPipelineLab,
    api_count,
    assert_share_of_model,
    measured_by_the_course,
    record,
    report_hint,
    report_measure,
    report_note,
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


def assert_copies_hidden_as_the_model_hides_them(facts: Any, serial: Any, timeline: Any, hint: str) -> None:
    """Fails unless the timeline's copies ran beside kernels for MIN_HIDDEN_SHARE of the share of
    copy time the model hides, for this GPU and the timeline's issue order, from the stage times of
    the course's serial run; skips where the model hides none (one copy engine)."""
    import streamlab

    order = streamlab.issue_order(timeline.ops)
    simulated = streamlab.simulate_pipeline(*serial.stages, CHUNKS, CHUNKS, facts.copy_engines, order)
    model_hidden = streamlab.hidden_copy_fraction(streamlab.modelled_ops(simulated))
    if model_hidden <= 0:
        pytest.skip(
            f"{streamlab.words.SKIP_DEVICE_CANNOT_SHOW}{facts.name} has {facts.copy_engines} copy "
            "engine(s): the model has no copy run beside a kernel"
        )
    yours = streamlab.hidden_copy_fraction(timeline.ops)
    assert_share_of_model(
        "copy time hidden behind kernels, yours / the model's",
        yours,
        model_hidden,
        MIN_HIDDEN_SHARE,
        hint,
        f"your copies ran beside kernels {yours * 100:.1f}% of their time; the model's, {model_hidden * 100:.1f}%",
    )


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
    serial, timeline = serial_then_pipeline(lab)
    assert_copies_hidden_as_the_model_hides_them(
        lab.facts,
        serial,
        timeline,
        "no copy ran beside a kernel: something between two chunks makes the streams wait for each other; "
        "look at what the chunk loop calls besides the copies and the kernel",
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


# ---------------------------------------------------------------- Task 2: a late error


@dataclass
class LateErrorLab(PreparedPipelineLab):
    """run_checked_pipeline on the same data as Task 1's tests: its clean runs are graded from the
    timeline, its runs with a tripwire from what it reports next to what the grader sees itself."""

    facts: Any  # streamlab.DeviceFacts
    alone: bool  # whether this test is the only one its process runs
    tripwire: Any = None  # streamlab.lab09.Tripwire, once planted

    def job(self) -> CheckedJob:
        return checked_job_over(self.memory, self.iterations)

    def launches_block(self) -> bool:
        """Whether a kernel launch returns only once its kernel has run: a workload kernel over all the
        data (about as long as the whole H2D copy) is launched, and its stream asked at once whether it
        is done."""
        import streamlab
        from cuda.bindings import runtime as cudart
        from cuda_check import check

        stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        try:
            check(cudart.cudaMemsetAsync(self.memory.device_input, 0, self.memory.n * FLOAT_BYTES, stream))
            check(cudart.cudaStreamSynchronize(stream))
            streamlab.launch_workload(
                self.memory.device_input, self.memory.device_output, self.memory.n, self.iterations, stream
            )
            (state,) = cudart.cudaStreamQuery(stream)
            check(cudart.cudaStreamSynchronize(stream))
            if state != cudart.cudaError_t.cudaErrorNotReady:
                check(state)
            return state == cudart.cudaError_t.cudaSuccess
        finally:
            check(cudart.cudaStreamDestroy(stream))

    def plant_tripwire(self) -> None:
        """Puts the course's tripwire at a random element of a random chunk of the input: a run then
        fails in that chunk's kernel, and leaves this process's GPU context unusable. So a test that
        plants it is skipped when other tests share its process (they would all fail after it)."""
        import streamlab

        if not self.alone:
            pytest.skip("this test leaves the GPU unusable for the rest of its process: run it alone, as ctest does")
        self.tripwire = streamlab.lab09.plant_tripwire(self.memory.input, self.memory.n, CHUNKS)
        report_note("tripwire", f"planted at element {self.tripwire.index}, in chunk {self.tripwire.chunk} (0-based)")


def late_error_lab(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, blocking: bool) -> LateErrorLab:
    """The set-up of Task 2's tests, with kernel launches that return only once their kernel has run
    (CUDA_LAUNCH_BLOCKING=1) or at once (0). CUDA reads the variable when it starts, which require_gpu
    makes it do: the course's plugin leaves CUDA alone before (the mark sets_cuda_environment), and
    each graded test runs in a process of its own."""
    monkeypatch.setenv("CUDA_LAUNCH_BLOCKING", "1" if blocking else "0")
    facts = require_gpu()
    import streamlab  # after the variable, as everything else that may start CUDA

    lab = LateErrorLab(streamlab.prepare_pipeline(facts), facts, len(request.session.items) == 1)
    if lab.launches_block() != blocking:
        pytest.skip(
            "CUDA_LAUNCH_BLOCKING did not take effect: CUDA had started in this process before the test set it; "
            f"run the test alone: ctest -R 'lab09[.]python-.*[.]{request.node.name}$'"
        )
    return lab


@pytest.fixture
def late_lab(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> LateErrorLab:
    return late_error_lab(request, monkeypatch, blocking=False)


@pytest.fixture
def blocking_lab(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> LateErrorLab:
    """LateErrorLab with CUDA_LAUNCH_BLOCKING=1: every kernel launch returns only once its kernel has run."""
    return late_error_lab(request, monkeypatch, blocking=True)


def error_name(error: Any) -> str:
    from cuda.bindings import runtime as cudart

    return cudart.cudaGetErrorName(error)[1].decode()


def run_into_the_tripwire(lab: LateErrorLab) -> tuple[ChunkError, list[str]]:
    """(the report, the failures found so far): runs run_checked_pipeline over the data with the
    tripwire; then checks, by the grader's own wait, that the faulty kernel really failed. Fails at
    once when the function raised or when the kernel did not fail."""
    import late_error
    from cuda.bindings import runtime as cudart

    illegal_address = cudart.cudaError_t.cudaErrorIllegalAddress
    try:
        report = late_error.run_checked_pipeline(lab.job(), CHUNKS)
    except Exception as raised:  # noqa: BLE001  whatever it raised is the failure reported
        report_hint(
            "a wait that raises (check(cudart.cudaStreamSynchronize(...))) cannot report: keep the cudaError_t "
            "the wait returns and put it in the ChunkError you return"
        )
        pytest.fail(f"run_checked_pipeline raised instead of returning the error: {raised!r}")
    (seen,) = cudart.cudaDeviceSynchronize()
    assert seen == illegal_address, (
        f"after run_checked_pipeline the grader's cudaDeviceSynchronize() returned {error_name(seen)}, not the "
        f"faulty kernel's cudaErrorIllegalAddress: chunk {lab.tripwire.chunk}'s kernel, which holds the tripwire, "
        "must run"
    )
    right_error = report.error == illegal_address
    report_measure("error reported is cudaErrorIllegalAddress (1 = yes)", 1 if right_error else 0, "==", 1, "")
    failures = []
    if not right_error:
        failures.append(
            f"run_checked_pipeline reported {error_name(report.error)} (chunk {report.chunk}) for a run whose "
            "kernel failed with cudaErrorIllegalAddress"
        )
    return report, failures


# The tests that leave the context usable come first: run in one process, the
# file would otherwise fail every test after a tripwire.


@pytest.mark.sets_cuda_environment
@pytest.mark.points(1)
def test_late_error_clean_run_reports_no_error(late_lab: LateErrorLab) -> None:
    import late_error
    import streamlab
    from cuda.bindings import runtime as cudart

    streamlab.fill_poison(late_lab.memory.output, late_lab.memory.n)
    report = late_error.run_checked_pipeline(late_lab.job(), CHUNKS)
    assert report.error == cudart.cudaError_t.cudaSuccess, (
        f"run_checked_pipeline reported {error_name(report.error)} (chunk {report.chunk}) for a run in which "
        "nothing failed"
    )
    assert report.chunk == NO_CHUNK, "with no error, the report names no chunk (-1)"
    check = streamlab.check_workload_output(
        late_lab.memory.input, late_lab.memory.output, late_lab.memory.n, late_lab.iterations, CHUNKS
    )
    if not check.ok:
        report_hint(
            "each chunk's H2D copy, kernel and D2H copy go to its own part of each buffer (offset * FLOAT_BYTES)"
        )
    assert check.ok, check.message()


@pytest.mark.sets_cuda_environment
@pytest.mark.points(2)
def test_late_error_checks_keep_the_pipeline_overlapped(late_lab: LateErrorLab) -> None:
    import late_error
    import streamlab
    from cuda.bindings import runtime as cudart

    serial = measured_by_the_course(lambda: streamlab.run_serial_reference(late_lab.memory, late_lab.iterations))
    late_error.run_checked_pipeline(late_lab.job(), CHUNKS)  # warm-up
    timeline, report = record(
        "lab09 python run_checked_pipeline", lambda: late_error.run_checked_pipeline(late_lab.job(), CHUNKS)
    )
    assert report.error == cudart.cudaError_t.cudaSuccess, (
        f"{error_name(report.error)} in a run in which nothing failed"
    )
    found = streamlab.chunks_by_issue_order(timeline.ops, CHUNKS)
    assert not found.problem, found.problem
    assert_copies_hidden_as_the_model_hides_them(
        late_lab.facts,
        serial,
        timeline,
        "a wait in the chunk loop (to catch each kernel's error where it happens) makes every chunk wait for the "
        "one before: check the launch with cudaGetLastError(), which waits for nothing, and wait once, after the loop",
    )


@pytest.mark.sets_cuda_environment
@pytest.mark.points(2)
def test_late_error_reports_the_error_at_the_wait(late_lab: LateErrorLab) -> None:
    late_lab.plant_tripwire()
    report, failures = run_into_the_tripwire(late_lab)
    named_right = report.chunk in (NO_CHUNK, late_lab.tripwire.chunk)
    report_measure("a wrong chunk named (1 = yes)", 0 if named_right else 1, "==", 0, "")
    if not named_right:
        report_hint(
            "an illegal address is a sticky error: once a kernel has hit it, every later call returns it, in any "
            "stream. The call that returned it says nothing about the kernel that failed: an error that shows at a "
            "wait, or at a later chunk's call, names no chunk (-1)"
        )
        failures.append(
            f"run_checked_pipeline named chunk {report.chunk}; the tripwire was in chunk {late_lab.tripwire.chunk}, "
            "and an error seen only at a wait names none (-1)"
        )
    assert not failures, "\n".join(failures)


@pytest.mark.sets_cuda_environment
@pytest.mark.points(3)
def test_late_error_launch_blocking_names_the_failing_chunk(blocking_lab: LateErrorLab) -> None:
    blocking_lab.plant_tripwire()
    report, failures = run_into_the_tripwire(blocking_lab)
    planted = blocking_lab.tripwire.chunk
    report_measure("chunk named (0-based)", report.chunk, "==", planted, "")
    if report.chunk != planted:
        report_hint(
            "with CUDA_LAUNCH_BLOCKING=1 a launch returns once its kernel has run: cudaGetLastError() right after "
            "the launch returns the kernel's error. Check there, and stop queuing at the first error"
        )
        failures.append(f"the tripwire was in chunk {planted}; run_checked_pipeline named {report.chunk}")
    assert not failures, "\n".join(failures)


# ------------------------------------------------------------ Task 3: the waiting host
# The course queues GPU work in a stream of its own (streamlab.lab09.WaitJob: the pipeline's
# memory in, kernels, the results out) and hands the stream to your wait. Around the call it
# notes the process's CPU time (every thread's) and the time on the timeline's clock; the GPU's
# last op comes from CUPTI's record. Each wait is graded with two lengths of work, the second
# five times as many kernels as the first, so that no fixed sleep or fixed count of slices fits
# both. The thresholds are the C++ tests' (test_lab09.cpp), unchanged: what Python adds to a
# wait is a few calls through cuda-bindings and the course's module, about a microsecond and a
# half per round of a poll (cudaStreamQuery's wrapper and host_work's call, timed on a CPU
# machine without a GPU), against a slice of 1/100 of the short job's GPU time (about 200 us on the H200) and
# waits of milliseconds. Python's share of a poll's wall time, of its wake-up and of a blocking
# wait's CPU time stays near 1%, far inside each threshold's margin.

MAX_BLOCKING_CPU_SHARE = 0.2  # a blocking wait's CPU time over its wall time (kMaxBlockingCpuShare)
MAX_BLOCKING_WAKE_SHARE = 0.05  # its return after the GPU's last op, over the GPU work's span (kMaxBlockingWakeShare)
MIN_HOST_WORK_SHARE = 0.8  # the share of wait_polling's wall time its slices fill (kMinHostWorkShare)
MAX_POLLING_WAKE_SLICES = 3.0  # wait_polling's return after the GPU's last op, in slices (kMaxPollingWakeSlices)
CLOCK_SLACK_NS = 10_000  # how far the host's and the GPU's clocks may read apart (kClockSlackNs)


@dataclass
class Waits:
    """The course's job and the length of the host's slice, both from the GPU at hand."""

    job: Any  # streamlab.lab09.WaitJob
    slice_ns: int


@pytest.fixture
def waits() -> Waits:
    import streamlab

    job = streamlab.lab09.WaitJob(require_gpu())
    return Waits(job, job.host_slice_ns())


@dataclass
class RecordedWait:
    """One wait as the course saw it, and the GPU's record of the work it waited for."""

    timeline: Any
    observed: Any  # streamlab.lab09.ObservedWait: what the wait cost, the results read the moment it returned
    delay_ns: int  # from the GPU's last op to the return


def record_wait(waits: Waits, kernels: int, wait: Callable[[int], None], work: Any = None) -> RecordedWait:
    """Runs `wait` once unrecorded (its first call pays one-time costs), then queues the job with
    `kernels` kernels while CUPTI records, observes the wait for it, and reads the results the
    moment it returns. `work` (streamlab.lab09.HostWork), when given, forgets the warm-up's slices."""
    import streamlab

    waits.job.warm_up(wait)
    if work is not None:
        work.reset()
    timeline, observed = record("lab09 python wait", lambda: waits.job.queue_and_wait(kernels, wait))
    return RecordedWait(timeline, observed, streamlab.lab09.wake_up_delay_ns(timeline, observed.cost.returned_ns))


def polling(work: Any) -> Callable[[int], None]:
    """Your wait_polling, with the course's `work` (streamlab.lab09.HostWork) as its host_work."""
    import waiting_host

    return lambda stream: waiting_host.wait_polling(stream, work.slice)


def job_name(kernels: int) -> str:
    """What a job is called in the reports."""
    import streamlab

    return "the short job" if kernels == streamlab.lab09.SHORT_JOB_KERNELS else "the long job"


def job_lengths() -> tuple[int, int]:
    import streamlab

    return streamlab.lab09.SHORT_JOB_KERNELS, streamlab.lab09.LONG_JOB_KERNELS


def assert_returned_after_the_work(what: str, wait: RecordedWait) -> None:
    """Reports the wake-up delay; fails when the wait returned before the GPU's last op ended."""
    report_measure(
        f"{what}: from the GPU's last op to the return", wait.delay_ns / 1e3, ">=", -CLOCK_SLACK_NS / 1e3, "us"
    )
    if wait.delay_ns < -CLOCK_SLACK_NS:
        report_hint("a wait returns only once every op queued in the stream has finished")
    assert wait.delay_ns >= -CLOCK_SLACK_NS, (
        f"{what} returned {-wait.delay_ns / 1e3:.1f} us before the GPU's last op ended"
    )


def device_flags() -> int:
    """Process-wide state a wait must leave alone: the device's schedule flags (cudaGetDeviceFlags)."""
    from cuda.bindings import runtime as cudart
    from cuda_check import check

    return check(cudart.cudaGetDeviceFlags())


def events_left(timeline: Any) -> int:
    """The events created and destroyed in the timeline's recording, as its runtime calls counted them."""
    return api_count(timeline, "cudaEventCreate", "cudaEventCreateWithFlags") - api_count(timeline, "cudaEventDestroy")


def ms(ns: float) -> str:
    return f"{ns / 1e6:.3f}"


@pytest.mark.points(3)
def test_blocking_wait_leaves_the_cpu_free(waits: Waits) -> None:
    import streamlab
    import waiting_host

    flags_before = device_flags()
    for kernels in job_lengths():
        what = f"wait_blocking, {job_name(kernels)}"
        wait = record_wait(waits, kernels, waiting_host.wait_blocking)
        assert_returned_after_the_work(what, wait)

        cost = wait.observed.cost
        report_measure(f"{what}: CPU time / wall time", cost.cpu_share, "<=", MAX_BLOCKING_CPU_SHARE, "")
        if cost.cpu_share > MAX_BLOCKING_CPU_SHARE:
            report_hint(
                "a thread that waits in cudaStreamSynchronize spins under the default schedule: wait for an event "
                "made to block (the README's Concepts)"
            )
        assert cost.cpu_share <= MAX_BLOCKING_CPU_SHARE, (
            f"{what}: the process used {ms(cost.cpu_ns)} ms of CPU time in a {ms(cost.wall_ns)} ms wait"
        )

        span_ns = streamlab.makespan_ns(wait.timeline.ops)
        most_delay_ns = MAX_BLOCKING_WAKE_SHARE * span_ns
        report_measure(f"{what}: wake-up delay", wait.delay_ns / 1e3, "<=", most_delay_ns / 1e3, "us")
        if wait.delay_ns > most_delay_ns:
            report_hint("sleep until the work is done, not for a time of your choosing: let CUDA wake the thread")
        assert wait.delay_ns <= most_delay_ns, (
            f"{what}: returned {wait.delay_ns / 1e3:.1f} us after the GPU's last op ended, in {span_ns / 1e6:.3f} ms "
            "of GPU work"
        )

        left = events_left(wait.timeline)
        report_measure(f"{what}: events left behind", left, "==", 0, "")
        assert left == 0, f"{what}: every event wait_blocking creates it must destroy"
    flags_after = device_flags()
    if flags_after != flags_before:
        report_hint("the device's flags are the whole process's: leave them alone and choose how to wait per wait")
    assert flags_after == flags_before, "wait_blocking changed the device's flags (cudaGetDeviceFlags)"


@pytest.mark.points(1)
def test_waits_return_only_when_the_work_is_done(waits: Waits) -> None:
    import streamlab
    import waiting_host

    work = streamlab.lab09.HostWork(waits.slice_ns)
    for name, wait_for in (
        ("wait_blocking", waiting_host.wait_blocking),
        ("wait_polling", polling(work)),
    ):
        wait = record_wait(waits, streamlab.lab09.SHORT_JOB_KERNELS, wait_for)
        assert_returned_after_the_work(name, wait)
        results = wait.observed.results
        assert results.ok, f"{name}: the results read the moment it returned: {results.message()}"


@pytest.mark.points(3)
def test_polling_does_host_work(waits: Waits) -> None:
    import streamlab

    for kernels in job_lengths():
        what = f"wait_polling, {job_name(kernels)}"
        work = streamlab.lab09.HostWork(waits.slice_ns)
        wait = record_wait(waits, kernels, polling(work), work)
        assert_returned_after_the_work(what, wait)

        wall_ns = wait.observed.cost.wall_ns
        share = work.busy_ns / wall_ns
        report_measure(f"{what}: time in host_work / wall time", share, ">=", MIN_HOST_WORK_SHARE, "")
        if share < MIN_HOST_WORK_SHARE:
            report_hint("call host_work again and again while cudaStreamQuery says the stream is not ready")
        assert share >= MIN_HOST_WORK_SHARE, (
            f"{what}: {work.slices} slices took {ms(work.busy_ns)} ms of a {ms(wall_ns)} ms wait"
        )

        wake_slices = wait.delay_ns / work.mean_slice_ns
        report_measure(f"{what}: wake-up delay, in slices of host work", wake_slices, "<=", MAX_POLLING_WAKE_SLICES, "")
        if wake_slices > MAX_POLLING_WAKE_SLICES:
            report_hint("ask the stream before every slice, and return as soon as it says it is done")
        assert wake_slices <= MAX_POLLING_WAKE_SLICES, (
            f"{what}: returned {wait.delay_ns / 1e3:.1f} us after the GPU's last op ended; a slice took "
            f"{work.mean_slice_ns / 1e3:.1f} us"
        )

        report_measure(f"{what}: slices on another thread", work.slices_elsewhere, "==", 0, "")
        if work.slices_elsewhere:
            report_hint("the host's work is the waiting thread's own: call host_work on the thread that called you")
        assert work.slices_elsewhere == 0, f"{what}: host_work ran on a thread other than the one that waited"
