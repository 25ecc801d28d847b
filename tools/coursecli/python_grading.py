"""`course grade --python`: the labs' Python versions, graded like the C++ ones. The student's Python files
(submissions.py) pass the source check first (pycheck.py: a refusal costs that lab, and nothing of it runs);
each track is then recorded once with the interpreter the course's module `streamlab` was built for, and
the C++ track's judges grade the record (grade_python_lab).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import environment, judging, recording
from .scoring import LabGrade, grade_record, graded_tests
from .submissions import LabSources

if TYPE_CHECKING:
    from .grade_settings import GradeSettings


def grade_python_lab(
    lab: LabSources,
    settings: GradeSettings,
    python: str,
    gpu_present: bool,
    run_step: Callable[[list, dict[str, str], Path], tuple[int, str]],
    staged: Path,
    reports: Path,
) -> LabGrade:
    """Lab NN's Python track recorded once (record_python_lab), then judged (judge_python_lab)."""
    record_python_lab(lab, settings, python, run_step, staged, reports)
    return judge_python_lab(lab, settings, gpu_present, staged, reports)


def record_python_lab(
    lab: LabSources,
    settings: GradeSettings,
    python: str,
    run_step: Callable[[list, dict[str, str], Path], tuple[int, str]],
    staged: Path,
    reports: Path,
) -> None:
    """Lab NN's recording program runs the student's module in the submission's sandbox (run_step(command,
    env, cwd) runs one command there and returns (status, output)), once for the whole lab; what happened
    in it is in the record, which the harness writes into `reports`."""
    course_root, course_build = settings.course_root, settings.course_build.folder
    # Imports the student's folder first, then the lab's interface, the module, the course's helpers.
    lab_python = course_root.joinpath("labs", lab.folder, "python")
    env = environment.python_lab_environment(staged, lab_python, course_root, course_build)
    record = recording.record_file(reports, lab.number, "python-yours")
    record.unlink(missing_ok=True)
    command = recording.python_recording_command(course_build, lab, course_root, python, record, settings.timeout_s)
    run_step(command, env, staged)


def judge_python_lab(
    lab: LabSources, settings: GradeSettings, gpu_present: bool, staged: Path, reports: Path
) -> LabGrade:
    """After the recording step has ended, here and without a GPU, the C++ track's judges grade the record
    (scoring.grade_record), copied first to a folder the sandbox never had."""
    record = recording.record_file(reports, lab.number, "python-yours")
    judged = judging.private_copy(record, reports.with_name(f"{reports.name}-judged-lab{lab.number}-python"))
    tests = graded_tests(settings.course_labels or {}, lab.number, "python-yours")
    # The staged folder holds the student's answer files (a recorded track keeps them in its Python folder).
    course_build = settings.course_build.folder
    return grade_record(course_build, lab.number, lab.folder, judged, staged, judged.parent, tests, gpu_present)
