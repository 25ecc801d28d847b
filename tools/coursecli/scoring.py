"""Points from the judges: one graded test, one lab, one student.

`grade_record` grades a lab from its record: each graded test judged by its own judge process
(judging.py), then scored here. A verdict is decided from what the grader itself saw of each judge: its
exit status (which says whether it crashed or was stopped), the test's points and whether it needs a GPU
(its ctest labels `pts:N` and `gpu`, set from lab.json), and GoogleTest's own XML report of the test,
written where the grader chose, which also carries what the test measured, its hints and its notes
(streamlab/testing.hpp). What any process prints is shown, never believed: a pass needs exit status 0 and
that report saying that exactly this test ran and passed. A skip is "not graded" only for a reason the
course's own checks give (GRADER_SKIPS) or, without a GPU, for any GPU test; any other skip scores 0.
The one result, LabGrade, is what `course check` prints and what the batch's reports, gradebook,
Gradescope and GitHub Classroom read.
"""

from __future__ import annotations

import re
import signal
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import grader_words, judging, sandbox
from .results import failure_words, points_of

PASSED, FAILED, NOT_GRADED = "passed", "failed", "not graded"
NO_GPU = "not graded (no GPU)"
# How the course's own skips begin (the kSkip words of common/grader_words.json):
# no GPU, a tracer that could not start before the code under test ran, a device
# that cannot show what the test measures, and a machine with fewer GPUs than the
# lab needs (its record says `not graded: needs two GPUs (this machine has 1)`).
NEEDS_GPUS = grader_words.SKIP_NEEDS_GPUS
GRADER_SKIPS = grader_words.GRADER_SKIPS


@dataclass
class TestGrade:
    """One graded test of one student."""

    __test__ = False  # a name pytest would otherwise collect

    name: str  # Suite.Name
    points: int  # what it is worth
    status: str  # PASSED, FAILED or NOT_GRADED
    reason: str = ""  # why it failed or was not graded
    measures: list[str] = field(default_factory=list)  # "name: value (needs op threshold)", for information
    hints: list[str] = field(default_factory=list)
    # The line `course check` shows for a failure or a skip: the judge's own words, without the kind of failure
    # `reason` names for the reports. Not kept in grade.json (SubmissionGrade.to_json).
    shown: str = field(default="", compare=False)

    @property
    def earned(self) -> int:
        return self.points if self.status == PASSED else 0


@dataclass
class LabGrade:
    """One lab of one student: its tests, or why none of them ran."""

    number: str
    folder: str
    tests: list[TestGrade] = field(default_factory=list)
    problem: str = ""  # "does not compile", "missing file ...": the whole lab scores 0
    details: str = ""  # the compiler's first error lines, say
    timelines: list[str] = field(default_factory=list)  # picture files, relative to the report
    timeline_note: str = ""
    sanitizer: list[str] = field(default_factory=list)  # `grade --sanitize`: what compute-sanitizer found
    # What was checked of it without a GPU (lab_checks.py), each {"what": ..., "problems": [...]}: information,
    # worth no points by itself (a refusal, a build that fails, already score 0 through `problem`).
    checks: list[dict] = field(default_factory=list)
    # Where its grading time went, in seconds: "build" (compiled alone and linked), "record" (its recording,
    # holding a GPU), "judge" (its judges, on the CPU), as the grader timed them; information only.
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def earned(self) -> int:
        return sum(t.earned for t in self.tests)

    @property
    def possible(self) -> int:
        """Points of the tests that were graded (not-graded tests count neither way)."""
        return sum(t.points for t in self.tests if t.status != NOT_GRADED)

    @property
    def not_graded(self) -> int:
        return sum(t.points for t in self.tests if t.status == NOT_GRADED)

    @property
    def graded(self) -> bool:
        return any(t.status != NOT_GRADED for t in self.tests)


@dataclass
class SubmissionGrade:
    """Everything the reports say about one student."""

    student: str
    labs: list[LabGrade] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    problem: str = ""  # the whole submission could not be graded
    gpu: str = ""  # the GPU it was graded on, or why there was none
    isolation: str = ""  # how its code was isolated (sandbox.Isolation.describe)
    seconds: float = 0.0
    build_seconds: float = 0.0  # compiling alone and linking its labs (the course is built once per batch)

    @property
    def earned(self) -> int:
        return sum(lab.earned for lab in self.labs)

    @property
    def possible(self) -> int:
        return sum(lab.possible for lab in self.labs)

    @property
    def not_graded(self) -> int:
        return sum(lab.not_graded for lab in self.labs)

    def to_json(self) -> dict:
        data = asdict(self)
        for lab in data["labs"]:
            for test in lab["tests"]:
                del test["shown"]
        return data

    @classmethod
    def from_json(cls, data: dict) -> SubmissionGrade:
        labs = [LabGrade(**{**lab, "tests": [TestGrade(**t) for t in lab["tests"]]}) for lab in data["labs"]]
        return cls(**{**data, "labs": labs})


@dataclass(frozen=True)
class GradedTest:
    """A test of a lab worth points, as lab.json declares it (read back from its ctest labels)."""

    name: str  # Suite.Name
    points: int
    gpu: bool  # labelled `gpu`: without a GPU, its skip is not graded, whatever the reason


def graded_tests(labels: dict[str, list[str]], number: str, variant: str) -> list[GradedTest]:
    """Lab NN's tests worth points of `variant` ("yours", "solution", "python-yours", ...): its judges, in
    the course's order, from the ctest tests labNN.VARIANT.Suite.Name and their labels."""
    prefix = f"lab{number}.{variant}."
    return [
        GradedTest(name[len(prefix) :], points_of(test_labels), "gpu" in test_labels)
        for name, test_labels in labels.items()
        if name.startswith(prefix) and points_of(test_labels) > 0
    ]


def grade_record(
    build: Path,
    number: str,
    folder: str,
    record: Path,
    answers: Path,
    reports: Path,
    tests: list[GradedTest],
    gpu_present: bool = True,
) -> LabGrade:
    """Lab NN (`folder`, "05-three-chunks") graded from `record`: each of `tests` judged by its own process
    of the build's judges (judging.run_judges; `answers` holds the answer files, `reports` gets the judges'
    reports and output), then scored. `gpu_present`: whether the record was made where a GPU was."""
    judged = judging.run_judges(build, number, record, answers, reports, [test.name for test in tests])
    return LabGrade(number, folder, [score(test, run, gpu_present) for test, run in zip(tests, judged)])


def score(test: GradedTest, judged: judging.Judged, gpu_present: bool) -> TestGrade:
    """One judge's verdict, from how its process ended and GoogleTest's report of its test, in points; the
    report's measured values, notes and hints are shown with them."""
    report = judged.report
    grade = TestGrade(test.name, test.points, FAILED, measures=report.details() if report is not None else [])
    if judged.status == 0 and report is not None and report.result == "skipped":
        if not gpu_present and test.gpu:
            grade.status, grade.reason = NOT_GRADED, NO_GPU
            grade.shown = report.message
        elif report.message.startswith(GRADER_SKIPS):
            reason = report.message if report.message.startswith(NEEDS_GPUS) else f"not graded: {report.message}"
            grade.status, grade.reason, grade.shown = NOT_GRADED, reason, report.message
        else:
            grade.reason = f"skipped for a reason the course's checks did not give: {report.message}"[:300]
            grade.shown = (
                f"skipped: {report.message}; the grader scores a skip for any reason but the course's own as 0"
            )
        return grade
    if judged.status == 0:
        if report is not None and report.result == "passed":
            grade.status = PASSED
        else:
            grade.reason = grade.shown = (
                "no report from the test framework (GoogleTest) that this test "
                "passed: the process ended before the test did (does the code end the process, or print "
                "the framework's lines itself?)"
            )
        return grade
    grade.reason, grade.shown = failure_reason(judged)
    grade.hints = report.hints if report is not None else []
    return grade


SIGNALS = {
    signal.SIGSEGV: "segmentation fault (an invalid host pointer?)",
    signal.SIGABRT: "aborted (an uncaught error or assert)",
    signal.SIGILL: "illegal instruction",
    signal.SIGBUS: "bus error",
    signal.SIGFPE: "arithmetic exception",
}


def failure_reason(judged: judging.Judged) -> tuple[str, str]:
    """Why a judge failed its test, in words: (for the reports, naming the kind: a timeout, a crash, an
    exception or a wrong result; for `course check`, the judge's own words where it had any)."""
    if judged.status == sandbox.TIMED_OUT:
        reason = f"timed out after {judging.JUDGE_TIMEOUT_S} s and was stopped"
        return reason, reason
    if judged.status < 0:
        number = -judged.status
        reason = f"crashed: {SIGNALS.get(number, f'signal {number}')}"
        return reason, reason
    if judged.report is None or judged.report.result != "failed":
        reason = f"no result: the judge ended with status {judged.status} and no report of its test"
        return reason, reason
    words = failure_words(judged.report.message)
    exception = re.search(r'C\+\+ exception with description "(.*)" thrown', judged.report.message)
    if exception:
        message = exception.group(1)
        kind = "CUDA error" if re.search(r"\bcuda\w*Error|cudaError\w+", message) else "exception"
        return f"{kind}: {message}"[:300], words
    return f"wrong result: {words}", words


def failed_lab(number: str, folder: str, declared: list[GradedTest], problem: str, details: str = "") -> LabGrade:
    """A lab none of whose tests could run: every test scores 0 with the lab's problem as the reason."""
    tests = [TestGrade(test.name, test.points, FAILED, reason=problem, shown=problem) for test in declared]
    return LabGrade(number, folder, tests, problem=problem, details=details)
