"""`course grade --python`: the labs' Python versions, graded like the C++ ones.

For each submission the grader takes each lab's Python student files
(labs/NN-topic/python/..., submissions.py) and reads them with the source check
(pycheck.py: a refusal costs that lab, and nothing of it runs). Every Python
track is recorded once (recorder in its lab.json): its recording program runs
the student's module once for the whole lab, in the submission's sandbox, from
the student's staged folder, with the interpreter the course's module
`streamlab` was built for; then the C++ track's judges read the record, outside
the sandbox (judge_recorded_run), so no process that ran the student's code
decides a verdict.

The verdict follows scoring.py: a pass needs the judge's own report showing
exactly this test passed; a skip is "not graded" only for the course's own
reasons (no GPU, a tracer that could not start), any other skip scores 0.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import environment, judging, recording
from .results import GtestReport, TestOutcome, points_of
from .sandbox import TIMED_OUT
from .scoring import LabGrade, grade_test
from .submissions import LabSources

if TYPE_CHECKING:
    from .grade_settings import GradeSettings


def python_test_names(labels: dict[str, list[str]], number: str) -> list[str]:
    """The ctest names of lab NN's graded Python tests (the C++ judges' labNN.python-yours.Suite.Name,
    never the recording), in the course's order."""
    prefix = f"lab{number}.python-yours."
    return [name for name in labels if name.startswith(prefix) and name != f"{prefix}record"]


def declared_python_points(labels: dict[str, list[str]], number: str) -> list[tuple[str, int]]:
    """(Suite.Name, points) of lab NN's Python tests: what a lab that cannot run scores 0 on."""
    return [(name.split(".", 2)[-1], points_of(labels[name])) for name in python_test_names(labels, number)]


def python_environment(staged: Path, course_root: Path, course_build: Path, lab: LabSources) -> dict[str, str]:
    """The student's folder first, then the lab's interface, the module, the course's helpers."""
    lab_python = course_root.joinpath("labs", lab.folder, "python")
    return environment.python_lab_environment(staged, lab_python, course_root, course_build)


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
    """Records lab NN's Python track in the submission's sandbox (run_step(command, env, cwd) runs one
    command there and returns (status, output)), then scores the C++ track's judges of that record
    (judge_recorded_run)."""
    labels = settings.course_labels or {}
    course_root, course_build = settings.course_root, settings.course_build.folder
    env = python_environment(staged, course_root, course_build, lab)
    judged = judge_recorded_run(lab, settings, python, run_step, staged, reports, env)
    graded = LabGrade(lab.number, lab.folder)
    for name in python_test_names(labels, lab.number):
        report, status, output = judged[name.split(".", 2)[-1]]
        result = report.result if report is not None and status in (0, 1) else "failed"
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
    """Lab NN's Python track recorded once: its recording program runs the student's module in the sandbox
    (run_step), once for the whole lab; then, here, after that step has ended and without a GPU, the C++
    track's judges read the record, copied first to a folder the sandbox never had. Suite.Name ->
    judging.judge_record's verdict. No process that ran the student's code writes a verdict."""
    course_root, course_build = settings.course_root, settings.course_build.folder
    record = recording.record_file(reports, lab.number, "python-yours")
    record.unlink(missing_ok=True)
    command = recording.python_recording_command(course_build, lab, course_root, python, record, settings.timeout_s)
    run_step(command, env, staged)  # what happened in it is in the record, which the harness writes
    judged = judging.private_copy(record, reports.with_name(f"{reports.name}-judged-lab{lab.number}-python"))
    tests = [name.split(".", 2)[-1] for name in python_test_names(settings.course_labels or {}, lab.number)]
    # The staged folder holds the student's answer files (a recorded track keeps them in its Python folder).
    return judging.judge_record(course_build, lab.number, judged, staged, judged.parent, tests)
