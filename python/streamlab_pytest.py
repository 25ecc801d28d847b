"""The course's pytest plugin for the Python labs (`python -m pytest -p streamlab_pytest`).

The Python labs are graded like the C++ ones, one ctest test per graded test:

- `@pytest.mark.points(n)` declares what a test is worth (lab.cmake lists the same);
- a test that can only skip, for a reason the course established (no GPU, no
  tracer, cuda-bindings missing), ends the run with exit status 77, ctest's
  SKIP_RETURN_CODE, after a line `SKIPPED: reason` that `course check` shows;
- `@pytest.mark.sets_cuda_environment` marks a test that sets variables CUDA
  reads when it starts (CUDA_LAUNCH_BLOCKING) before it starts CUDA: the plugin
  then leaves CUDA alone until the test does;
- `record(name, work)` runs the code under test while CUPTI records the GPU's
  timeline; only the tracer's start may skip, never the code under test;
- `report_measure`, `report_hint` and `report_note` print the lines `course check` reads, in
  the format of the C++ tests (streamlab/testing.hpp).

The skips' reasons and the lines' beginnings are the grader's words, which the
module offers as `streamlab.words` (common/include/streamlab/grader_words.hpp).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

SKIP_RETURN_CODE = 77


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "points(n): the points a graded test is worth")
    config.addinivalue_line(
        "markers", "sets_cuda_environment: the test sets variables CUDA reads when it starts, before it starts CUDA"
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Every graded Python test needs a GPU: where there is none, the run ends before any test
    imports the student's code or cuda-bindings (the test files import neither at the top; with
    numpy they take seconds to load), with the reason that require_gpu would give. A missing module
    is left to require_gpu, which names it, and so is a run that writes a JUnit report (the
    grader's): its verdict is read from each test's own entry. Asking the driver starts CUDA in this
    process, so a run of a test marked sets_cuda_environment leaves the question to require_gpu,
    which the test calls once it has set CUDA's environment."""
    if session.config.getoption("xmlpath", None):
        return
    if any(item.get_closest_marker("sets_cuda_environment") for item in session.items):
        return
    try:
        import streamlab
    except ImportError:
        return
    available, reason = streamlab.gpu_presence()
    if not available:
        print(f"\nSKIPPED: {streamlab.words.SKIP_NO_GPU}{reason}", flush=True)
        pytest.exit(streamlab.words.SKIP_NO_GPU + reason, returncode=SKIP_RETURN_CODE)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run whose every test was skipped is ctest's "not run", with the reason printed."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = reporter.stats if reporter is not None else {}
    ran = sum(len(stats.get(outcome, [])) for outcome in ("passed", "failed", "error"))
    skipped = stats.get("skipped", [])
    if skipped and not ran:
        longrepr = skipped[0].longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        print(f"\nSKIPPED: {reason.removeprefix('Skipped: ')}", flush=True)
        session.exitstatus = SKIP_RETURN_CODE


def require_gpu() -> Any:
    """The device's facts (streamlab.device_facts); skips the test, with the reason, where the
    course's module or cuda-bindings is missing or no GPU is usable."""
    try:
        import streamlab
    except ImportError as missing:
        pytest.skip(f"the course's Python module is not built ({missing}): ./course build")
    try:
        import cuda.bindings.runtime  # noqa: F401  (the labs' own API)
    except ImportError:
        pytest.skip("cuda-bindings is not installed: ./course setup installs it")
    available, reason = streamlab.gpu_presence()
    if not available:
        pytest.skip(streamlab.words.SKIP_NO_GPU + reason)
    return streamlab.device_facts(0)


def record(name: str, work: Callable[[], Any]) -> tuple[Any, Any]:
    """(timeline, what `work` returned): `work` run while CUPTI records the GPU's timeline.

    Skips when the tracer cannot start (another CUPTI tool holds it, or
    STREAMLAB_NO_TRACE is set: then `work` still runs first, for compute-sanitizer).
    Whatever `work` raises is a failure, a skip included: graded code cannot turn
    a failing test into one that is not graded."""
    import streamlab

    recording = streamlab.record(name)
    try:
        timeline = recording.__enter__()
    except streamlab.TimelineUnavailable as unavailable:
        pytest.skip(str(unavailable))  # its message is the reason, the grader's word first
    try:
        result = work()
    except pytest.skip.Exception as skip:
        recording.__exit__(type(skip), skip, skip.__traceback__)
        raise AssertionError(f"the code under test skipped the test ({skip}): only the grader may") from None
    except BaseException as error:
        recording.__exit__(type(error), error, error.__traceback__)
        raise
    recording.__exit__(None, None, None)
    off = streamlab.tracing_off_reason()
    if off:
        pytest.skip(streamlab.words.SKIP_TIMELINE_UNAVAILABLE + off)
    return timeline, result


def measured_by_the_course(measure: Callable[[], Any]) -> Any:
    """What `measure`, a measurement of the course's own (the serial reference, the GPU's stages
    alone), returns; skips where it cannot record a timeline (streamlab.TimelineUnavailable)."""
    import streamlab

    try:
        return measure()
    except streamlab.TimelineUnavailable as unavailable:
        pytest.skip(str(unavailable))  # its message is the reason, the grader's word first


def report_measure(name: str, value: float, op: str, threshold: float, unit: str) -> None:
    """A measured value next to its threshold, for `course check` (display only)."""
    import streamlab

    line = {"name": name, "value": value, "op": op, "threshold": threshold, "unit": unit}
    print(streamlab.words.LINE_MEASURE + json.dumps(line), flush=True)


def report_hint(hint: str) -> None:
    """A hint `course check` shows when the test fails."""
    import streamlab

    print(streamlab.words.LINE_HINT + json.dumps(hint), flush=True)


def report_note(name: str, text: str) -> None:
    """A fact of the run that `course check` shows beside the measures (the grader's own choices)."""
    import streamlab

    print(streamlab.words.LINE_NOTE + json.dumps({"name": name, "text": text}), flush=True)


def assert_none_found(found: list[str], measure: str, failure: str, hint: str) -> None:
    """Fails, with the first few of `found` (one sentence each), unless it is empty; reports
    their number as `measure` and, on a failure, `hint` (the C++ tests' grading::none_found)."""
    report_measure(measure, len(found), "==", 0, "")
    if found:
        report_hint(hint)
    assert not found, f"{len(found)} {failure}:\n" + "\n".join(found[:5])


def assert_share_of_model(measure: str, yours: float, model: float, min_share: float, hint: str, failure: str) -> None:
    """Fails with `failure` unless `yours` reaches `min_share` of the model's value `model`; reports
    yours / model as `measure` and, on a failure, `hint` (the C++ tests' grading::share_of_model_reached)."""
    report_measure(measure, yours / model, ">=", min_share, "")
    if yours < min_share * model:
        report_hint(hint)
    assert yours >= min_share * model, failure


def ratio_near_one(name: str, ratio: float, tolerance: float, hint: str) -> bool:
    """Whether `ratio` is 1 within `tolerance` (relative); reports it, and `hint` when it is not."""
    report_measure(name, ratio, "within", tolerance, "(relative)")
    near = abs(ratio - 1) <= tolerance
    if not near:
        report_hint(hint)
    return near


@dataclass
class PreparedPipelineLab:
    """The data of a pipeline lab's test (labs 05 and 07), set up by the course once per test:
    `prepared` is streamlab.prepare_pipeline's, the memory with its input filled and the
    workload's iterations. A lab's own `Lab` adds what its tests need, `job()` first."""

    prepared: Any  # streamlab.PreparedPipeline

    @property
    def memory(self) -> Any:
        return self.prepared.memory

    @property
    def iterations(self) -> int:
        return self.prepared.iterations


# ---------------------------------------------------------------- reading a timeline and results


def ops_of_kind(timeline: Any, kind: str) -> list[Any]:
    """The ops of one kind ("kernel", "memcpy_h2d", "memcpy_d2h", ...), by start."""
    return [op for op in timeline.ops if op.kind == kind]


def ended_before(a: Any, b: Any) -> bool:
    """Whether op `a` ended before op `b` started."""
    return a.end_ns <= b.start_ns


def api_count(timeline: Any, *names: str) -> int:
    """How many times the recorded runtime calls of these names were made."""
    return sum(timeline.api_calls.get(name, 0) for name in names)


def device_output_check(device_input: int, device_output: int, n: int, iterations: int) -> Any:
    """The workload's n floats of output in device memory against the CPU reference of its device input
    (streamlab.ResultCheck)."""
    import streamlab
    from cuda.bindings import runtime as cudart
    from cuda_check import check

    d2h = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
    host_input, host_output = streamlab.PinnedFloats(n), streamlab.PinnedFloats(n)
    check(cudart.cudaMemcpy(host_input.address, device_input, host_input.nbytes, d2h))
    check(cudart.cudaMemcpy(host_output.address, device_output, host_output.nbytes, d2h))
    return streamlab.check_workload_output(host_input.address, host_output.address, n, iterations)


def device_floats_filled(n: int) -> Any:
    """n floats of device memory holding the course's input values (streamlab.DeviceFloats)."""
    import streamlab
    from cuda.bindings import runtime as cudart
    from cuda_check import check

    host = streamlab.PinnedFloats(n)
    streamlab.fill_input(host.address, n)
    device = streamlab.DeviceFloats(n)
    check(cudart.cudaMemcpy(device.address, host.address, host.nbytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice))
    return device
