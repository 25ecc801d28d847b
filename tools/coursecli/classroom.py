"""`course classroom`: GitHub Classroom's autograding workflow, graded by the course on a self-hosted GPU runner.

GitHub Classroom grades a push with the workflow `.github/workflows/classroom.yml` of the student's
repository: `autograding-command-grader` steps, each worth its `max-score` when its command exits 0
and nothing otherwise, and one `autograding-grading-reporter` step that sums them for Classroom.

The workflow written here grades the checked-out repository once, with `course grade` run from the
instructor's own checkout of the course on the runner's machine (`--course`, which no push can
change; the copy of the course inside the student's repository is never run), linking against a
course build made there beforehand (`--build-course`). Every graded test of a lab.json then becomes
one command-grader step worth its points, whose command only reads that grade's verdict for its
test (`course classroom --result`): exit 0 when it passed, 1 when it failed, and 77 when it was not
graded (no GPU on the runner). The command-grader knows only pass and fail, so a test that was not
graded shows as 0 points; its log and the run's summary (the student's report.md) say "not graded".
`course classroom --try REPO` runs the same commands here, as the runner runs them (try_workflow).
"""

from __future__ import annotations

import json
import math
import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .batch import DEFAULT_TIMEOUT_S, GradeSettings, default_cuda_arch
from .gpu import NO_GPU_EXIT, gpu_presence
from .gradebook import NO_GPU_HERE, load_grade, student_folder, test_details
from .grading_build import build_course_only
from .lab_declaration import read_lab
from .scoring import NO_GPU, NOT_GRADED, PASSED
from .shell import COURSE_ERROR, FAILING, ROOT, say
from .submissions import selected_labs

COMMAND_GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
DEFAULT_RUNS_ON = ("self-hosted", "gpu")
STUDENT = "student"  # the one submission of a workflow run, named as in the gradebook
# Where a run grades: the runner's temporary folder, emptied at the start and end of every job.
RUNNER_TEMP = "${{ runner.temp }}"
WORK = f"{RUNNER_TEMP}/streamlab"
BUILD_MINUTES = 10  # the grading step's allowance for compiling and linking the labs, beyond the tests' timeouts


@dataclass(frozen=True)
class GradedStep:
    """One command-grader step: a graded test of one lab, worth its points from lab.json."""

    step_id: str  # lab01test3: letters and digits only, as the reporter's `runners` list takes them
    lab: str  # "01"
    test: str  # the test's name in lab.json's tests (SerialRun.ResultMatchesCpuReference)
    points: int


def graded_steps(numbers: list[str] | None, python: bool = False, root: Path = ROOT) -> list[GradedStep]:
    """A step per graded test (points > 0) of the chosen labs, C++ or Python track, in lab.json's order."""
    steps = []
    for lab in selected_labs(numbers, root, python=python):
        declared = read_lab(root / "labs" / lab.folder)
        track = declared.python if python else declared.cpp
        graded = [test for test in track.tests if test.points > 0]
        steps += [
            GradedStep(f"lab{lab.number}test{index}", lab.number, test.name, test.points)
            for index, test in enumerate(graded, start=1)
        ]
    return steps


@dataclass(frozen=True)
class WorkflowSettings:
    """Where the runner's machine keeps the trusted course, and what the workflow asks of it."""

    course: Path  # the instructor's checkout on the runner's machine
    course_build: Path  # the course build there, made with `course classroom --build-course`
    runs_on: tuple[str, ...] = DEFAULT_RUNS_ON
    timeout_s: int = DEFAULT_TIMEOUT_S  # per test, as `course grade --timeout`
    python: bool = False


def default_course_build(course: Path, python: bool) -> Path:
    """Where the runner's machine keeps the course build of a track, unless --course-build says otherwise."""
    return course / ("build-classroom-python" if python else "build-classroom")


def _quoted(text: str) -> str:
    """A YAML scalar in double quotes (a JSON string is one)."""
    return json.dumps(text)


def grade_command(steps: list[GradedStep], settings: WorkflowSettings) -> str:
    """The grading step's script: the checked-out repository as the one submission of a `course grade` batch."""
    labs = " ".join(dict.fromkeys(step.lab for step in steps))
    course = shlex.quote(str(settings.course / "course"))
    grade = (
        f'{course} grade "$work/submissions" -o "$work/grades" --labs {labs} --timeout {settings.timeout_s} '
        f"--course-build {shlex.quote(str(settings.course_build))} --course-prebuilt"
        + (" --python" if settings.python else "")
    )
    return "\n".join(
        [
            'work="$RUNNER_TEMP/streamlab"',
            'rm -rf "$work" && mkdir -p "$work/submissions"',
            f'cp -R "$GITHUB_WORKSPACE" "$work/submissions/{STUDENT}"',
            grade,
            f'cat "$work/grades/students/{STUDENT}/report.md" >> "$GITHUB_STEP_SUMMARY" || true',
        ]
    )


def result_command(step: GradedStep, settings: WorkflowSettings) -> str:
    """A test step's command: reads the grade's verdict of its test (the command-grader passes only PATH and
    HOME on, so the grades' folder is written in with the runner's expression)."""
    course = shlex.quote(str(settings.course / "course"))
    return f'{course} classroom --result {step.lab} {shlex.quote(step.test)} --grades "{WORK}/grades"'


def workflow_text(steps: list[GradedStep], settings: WorkflowSettings) -> str:
    """The workflow, .github/workflows/classroom.yml, as GitHub Classroom's own template lays it out."""
    tests = len(steps)
    grade_minutes = BUILD_MINUTES + math.ceil(tests * settings.timeout_s / 60)
    track = "Python" if settings.python else "C++"
    lines = [
        f"# Written by `course classroom` ({track} track): every graded test of labs "
        f"{' '.join(dict.fromkeys(step.lab for step in steps))}, graded by the course at {settings.course}",
        "# on the runner's machine, never by the copy of the course in this repository.",
        "name: Autograding Tests",
        "'on':",
        "  - push",
        "  - repository_dispatch",
        "  - workflow_dispatch",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        f"    runs-on: [{', '.join(_quoted(label) for label in settings.runs_on)}]",
        "    if: github.actor != 'github-classroom[bot]'",
        "    steps:",
        "      - name: Checkout code",
        "        uses: actions/checkout@v4",
        "      - name: Grade with the course (once, for every test below)",
        f"        timeout-minutes: {grade_minutes}",
        "        run: |",
        *(f"          {line}" for line in grade_command(steps, settings).splitlines()),
    ]
    for step in steps:
        lines += [
            f"      - name: {_quoted(f'Lab {step.lab}: {step.test}')}",
            f"        id: {step.step_id}",
            f"        uses: {COMMAND_GRADER}",
            "        with:",
            f"          test-name: {_quoted(f'lab{step.lab} {step.test}')}",
            "          setup-command: ''",
            f"          command: {_quoted(result_command(step, settings))}",
            "          timeout: 1",
            f"          max-score: {step.points}",
        ]
    lines += [
        "      - name: Autograding Reporter",
        f"        uses: {REPORTER}",
        "        env:",
        *(
            f'          {step.step_id.upper()}_RESULTS: "${{{{ steps.{step.step_id}.outputs.result }}}}"'
            for step in steps
        ),
        "        with:",
        f"          runners: {','.join(step.step_id for step in steps)}",
    ]
    return "\n".join(lines) + "\n"


def report_result(grades: Path, lab: str, test: str) -> int:
    """Says the verdict of one test in a workflow run's grade; exit 0 passed, 1 failed, 77 not graded, 2 no grade."""
    grade = load_grade(student_folder(grades, STUDENT))
    if grade is None:
        say(f"no grade in {grades}: the grading step did not grade this repository (its log says why)")
        return COURSE_ERROR
    graded = next((t for n in grade.labs if n.number == lab for t in n.tests if t.name == test), None)
    if graded is None:
        problem = f" ({grade.problem})" if grade.problem else ""
        say(f"lab{lab} {test}: not in this run's grade{problem}")
        return COURSE_ERROR
    earned = graded.earned if graded.status != NOT_GRADED else "-"
    say(f"lab{lab} {test}: {graded.status}, {earned}/{graded.points} points")
    for line in test_details(graded):
        print(f"  {line}")
    if graded.status == PASSED:
        return 0
    if graded.status == NOT_GRADED:
        # The command-grader gives a step all its points or none: this one shows 0, which is not a grade.
        if graded.reason == NO_GPU:
            print(NO_GPU_HERE)
        print(
            "GitHub Classroom counts a step as passed (all its points) or failed (none): this test shows 0 "
            "points here, but it was not graded, and it counts neither for nor against you in the course's grade."
        )
        return NO_GPU_EXIT
    return FAILING


def try_workflow(steps: list[GradedStep], settings: WorkflowSettings, repository: Path) -> int:
    """Runs the workflow's commands here on a repository folder, as the runner runs them: the grading step as a
    `run:` step (bash -e, this environment), each test's command as the command-grader does (sh, PATH and HOME
    only). Prints each step's points and the total the reporter would send; 0 when it is full, else 1."""
    runner_temp = Path(tempfile.mkdtemp(prefix="classroom-try-"))
    job = {
        **os.environ,
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_WORKSPACE": str(repository),
        "GITHUB_STEP_SUMMARY": str(runner_temp / "summary.md"),
    }
    if subprocess.run(["bash", "-e", "-c", grade_command(steps, settings)], cwd=repository, env=job).returncode:
        say(f"the grading step failed: no step below would run (its files: {runner_temp})")
        return COURSE_ERROR
    grader_env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", str(runner_temp))}
    earned = not_graded = 0
    for step in steps:
        command = result_command(step, settings).replace(RUNNER_TEMP, str(runner_temp))
        status = subprocess.run(["sh", "-c", command], cwd=repository, env=grader_env).returncode
        earned += step.points if status == 0 else 0
        not_graded += step.points if status == NO_GPU_EXIT else 0
        say(f"{step.step_id}: exit status {status}, {step.points if status == 0 else 0}/{step.points} points")
    total = sum(step.points for step in steps)
    say(
        f"Points {earned}/{total} (what the reporter sends to Classroom; {not_graded} of them not graded); "
        f"the grade and its report: {runner_temp}"
    )
    return 0 if earned == total else FAILING


def build_course(numbers: list[str] | None, settings: WorkflowSettings) -> int:
    """Builds, once, the course build the workflow links every submission with (in the course it runs from)."""
    labs = selected_labs(numbers, settings.course, python=settings.python)
    grade_settings = GradeSettings(
        out=settings.course_build / "log",
        labs=labs,
        all_labs=labs,
        cuda_arch=default_cuda_arch(gpu_presence()[0]),
        course_root=settings.course,
        course_build_dir=settings.course_build,
        python=settings.python,
    )
    return build_course_only(grade_settings)
