"""`course grade --python`: the labs' Python versions, graded like the C++ ones.

For each submission the grader takes each lab's Python student files
(labs/NN-topic/python/..., submissions.py), reads them with the source check
(pycheck.py: a refusal costs that lab, and nothing of it runs), and runs each
graded test in its own pytest process inside the submission's sandbox: from the
student's staged folder, with the course's own test file and plugin
(python/streamlab_pytest.py), the interpreter the course's module `streamlab`
was built for, and pytest's JUnit report written where the grader chose.

A track recorded once (RECORDER in its lab.cmake) runs none of that: its
recording program runs the student's module once for the whole lab, in the
sandbox, and the C++ track's judges read the record afterwards, outside it
(grade_recorded_python_lab), so no process that ran the student's code decides
a verdict.

The verdict follows scoring.py: a pass needs exit status 0 and that report
showing exactly this test passed (the student's code cannot write files, so it
cannot write the report); a skip is "not graded" only for the course's own
reasons (no GPU, a tracer that could not start), any other skip scores 0.
"""

from __future__ import annotations

import signal
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import judging, recording
from .python_module import module_python, python_path
from .results import GtestReport, TestOutcome, points_of
from .sandbox import TIMED_OUT
from .scoring import LabGrade, grade_test
from .submissions import LabSources

if TYPE_CHECKING:
    from .grade_settings import GradeSettings

SKIP_STATUS = 77  # python/streamlab_pytest.py: the test could only skip


def python_test_names(labels: dict[str, list[str]], number: str) -> list[str]:
    """The ctest names of lab NN's graded Python tests (labNN.python-yours.test_x, or the C++ judges'
    labNN.python-yours.Suite.Name of a track recorded once, never its recording), in the course's order."""
    prefix = f"lab{number}.python-yours."
    return [name for name in labels if name.startswith(prefix) and name != f"{prefix}record"]


def declared_python_points(labels: dict[str, list[str]], number: str) -> list[tuple[str, int]]:
    """(test_x, points) of lab NN's Python tests: what a lab that cannot run scores 0 on."""
    return [(name.split(".", 2)[-1], points_of(labels[name])) for name in python_test_names(labels, number)]


# The course's plugin, no cache files, and the test's folder (the course's, holding the
# starter files) at the end of the path, so that the student's modules are imported.
PYTEST_OPTIONS = ["-q", "-s", "-p", "no:cacheprovider", "-p", "streamlab_pytest", "--import-mode=append"]


def pytest_command(python: str, test_file: Path, test: str, junit: Path) -> list:
    """One graded test in a pytest process of its own, its report written to `junit`."""
    return [python, "-m", "pytest", *PYTEST_OPTIONS, f"--junitxml={junit}", f"{test_file}::{test}"]


def pytest_environment(staged: Path, course_root: Path, course_build: Path, lab: LabSources) -> dict[str, str]:
    """The student's folder first, then the lab's interface and tests, the module, the course's helpers."""
    path = [staged, course_root.joinpath("labs", lab.folder, "python"), *python_path(course_root, course_build)]
    return {
        "PYTHONPATH": ":".join(map(str, path)),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONSAFEPATH": "1",
    }


def read_pytest_report(path: Path, test: str) -> GtestReport | None:
    """What pytest's JUnit report at `path` says of `test`, or None when the file is missing,
    unreadable, or does not show exactly that one test."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    cases = list(root.iter("testcase"))
    if len(cases) != 1 or cases[0].get("name") != test:
        return None
    case = cases[0]
    for tag in ("failure", "error"):
        found = case.find(tag)
        if found is not None:
            return GtestReport("failed", found.get("message", "").strip())
    skipped = case.find("skipped")
    if skipped is not None:
        return GtestReport("skipped", skipped.get("message", "").strip())
    return GtestReport("passed")


def verdict_of(status: int) -> str:
    """ctest's words for how a test process ended, so that scoring.failure_reason reads it the same way."""
    if status == TIMED_OUT:
        return "Timeout"
    number = -status if status < 0 else status - 128 if 128 < status < 160 else 0
    if number:
        names = {
            signal.SIGSEGV: "SegFault",
            signal.SIGABRT: "Child aborted",
            signal.SIGBUS: "Bus error",
            signal.SIGILL: "Illegal",
            signal.SIGFPE: "Numerical",
        }
        return f"Exception: {names.get(number, f'signal {number}')}"
    return "Passed" if status == 0 else "Failed"


def grade_python_lab(
    lab: LabSources,
    settings: GradeSettings,
    python: str,
    gpu_present: bool,
    run_step: Callable[[list, dict[str, str], Path], tuple[int, str]],
    staged: Path,
    reports: Path,
) -> LabGrade:
    """Runs lab NN's graded Python tests one by one and scores them; run_step(command, env, cwd) runs one
    command in the submission's sandbox and returns (status, output). A track recorded once is recorded
    in the sandbox instead, and its tests are the C++ track's judges of that record (judge_recorded_run)."""
    labels = settings.course_labels or {}
    course_root, course_build = settings.course_root, settings.course_build.folder
    env = pytest_environment(staged, course_root, course_build, lab)
    names = python_test_names(labels, lab.number)
    judged = judge_recorded_run(lab, settings, python, run_step, staged, reports, env) if lab.recorded else {}
    test_file = course_root / "labs" / lab.folder / "python" / f"test_lab{lab.number}.py"
    graded = LabGrade(lab.number, lab.folder)
    for name in names:
        test = name.split(".", 2)[-1]
        if lab.recorded:
            report, status, output = judged[test]
            result = report.result if report is not None and status in (0, 1) else "failed"
        else:
            junit = reports / f"{name}.xml"
            junit.unlink(missing_ok=True)
            status, output = run_step(pytest_command(python, test_file, test, junit), env, staged)
            result = "passed" if status == 0 else "skipped" if status == SKIP_STATUS else "failed"
            report = read_pytest_report(junit, test)
        outcome = TestOutcome(name, result, labels[name], output)
        if outcome.points > 0:
            graded.tests.append(grade_test(outcome, verdict_of(status), settings.timeout_s, gpu_present, report))
    return graded


def judge_recorded_run(
    lab: LabSources,
    settings: GradeSettings,
    python: str,
    run_step: Callable[[list, dict[str, str], Path], tuple[int, str]],
    staged: Path,
    reports: Path,
    env: dict[str, str],
) -> dict[str, tuple[GtestReport | None, int, str]]:
    """A Python track recorded once: its recording program runs the student's module in the sandbox
    (run_step), once for the whole lab; then, here, after that step has ended and without a GPU, the C++
    track's judges read the record, copied first to a folder the sandbox never had. Suite.Name ->
    judging.judge_record's verdict. No process that ran the student's code writes a verdict."""
    course_root, course_build = settings.course_root, settings.course_build.folder
    record = reports / f"lab{lab.number}.python-yours{recording.RECORD_SUFFIX}"
    record.unlink(missing_ok=True)
    command = recording.python_recording_command(course_build, lab, course_root, python, record, settings.timeout_s)
    run_step(command, env, staged)  # what happened in it is in the record, which the harness writes
    judged = judging.private_copy(record, reports.with_name(f"{reports.name}-judged-lab{lab.number}-python"))
    tests = [name.split(".", 2)[-1] for name in python_test_names(settings.course_labels or {}, lab.number)]
    # The staged folder holds the student's answer files (a recorded track keeps them in its Python folder).
    return judging.judge_record(course_build, lab.number, judged, staged, judged.parent, tests)


def the_module_python(course_build: Path) -> tuple[str | None, str]:
    """(the Python that runs the Python labs, "") or (None, why they cannot be graded): the one the course's
    module was built for.

    That Python must also have pytest and cuda-bindings: without them every test would fail
    at its imports, and the students would pay for what the grading machine lacks."""
    python = module_python(course_build)
    if python is None:
        return None, (
            "the course's Python module `streamlab` was not built (the configure step says what to install), "
            "so the Python labs cannot be graded"
        )
    probe = subprocess.run([python, "-c", "import pytest, cuda.bindings.runtime"], capture_output=True, text=True)
    if probe.returncode != 0:
        missing = (probe.stderr.strip().splitlines() or ["it could not start"])[-1]
        return None, (
            f"{python} lacks what the Python labs' tests need ({missing}); `./course setup` installs "
            "pytest and cuda-bindings, so the Python labs cannot be graded here yet"
        )
    return python, ""
