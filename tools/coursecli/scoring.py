"""Points from ctest's verdicts: one graded test, one lab, one student.

Everything here is decided from what the grader's own ctest process recorded:
its JUnit file (pass, fail, skip, and the test's output), its console lines
(which say whether a failure was a crash or a timeout), the tests' labels
(`pts:N`, set from lab.json) and GoogleTest's own XML report of each test,
written where the grader chose, which also carries what the test measured,
its hints and its notes (streamlab/testing.hpp). What the student's code
prints is shown, never believed: a pass needs exit status 0 and that report
saying that exactly this test ran and passed, so code that ends the process
early, or prints GoogleTest's lines itself, does not pass. A skip is "not
graded" only for a reason the course's own checks give (GRADER_SKIPS) or,
without a GPU, for any GPU test; any other skip scores 0.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from . import grader_words
from .results import GtestReport, TestOutcome, points_of

PASSED, FAILED, NOT_GRADED = "passed", "failed", "not graded"
NO_GPU = "not graded (no GPU)"
# How the course's own skips begin (the kSkip words of common/grader_words.json):
# no GPU, a tracer that could not start before the code under test ran, a device
# that cannot show what the test measures, and a machine with fewer GPUs than the
# lab needs (its record says `not graded: needs two GPUs (this machine has 1)`).
NEEDS_GPUS = grader_words.SKIP_NEEDS_GPUS
GRADER_SKIPS = grader_words.GRADER_SKIPS

# "3/7 Test #3: lab01.yours.Demo.Segv ....***Exception: SegFault  0.01 sec"
_CONSOLE_LINE = re.compile(r"Test\s+#\d+: (\S+) \.*\s*(?:\*\*\*)?(.+?)\s+[\d.]+ sec\s*$")


def ctest_verdicts(console: str) -> dict[str, str]:
    """Test name -> ctest's verdict ("Passed", "Failed", "Timeout", "Exception: SegFault", ...)."""
    verdicts = {}
    for line in console.splitlines():
        match = _CONSOLE_LINE.search(line)
        if match:
            verdicts[match.group(1)] = match.group(2).strip()
    return verdicts


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
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> SubmissionGrade:
        labs = [LabGrade(**{**lab, "tests": [TestGrade(**t) for t in lab["tests"]]}) for lab in data["labs"]]
        return cls(**{**data, "labs": labs})


def grade_test(
    outcome: TestOutcome, verdict: str, timeout_s: int, gpu_present: bool, report: GtestReport | None
) -> TestGrade:
    """Turns one ctest outcome, ctest's console verdict and GoogleTest's report of the test into points; the
    report's measured values, notes and hints are shown with them."""
    name = outcome.name.split(".", 2)[-1]
    grade = TestGrade(name, outcome.points, FAILED, measures=report.details() if report is not None else [])
    if outcome.status == "skipped":
        if report is None or report.result != "skipped":
            grade.reason = (
                "the test printed a skip, but the test framework's own report (GoogleTest's) "
                "shows none (output forged?)"
            )
        elif not gpu_present and outcome.is_gpu:
            grade.status, grade.reason = NOT_GRADED, NO_GPU
        elif report.message.startswith(GRADER_SKIPS):
            reason = report.message if report.message.startswith(NEEDS_GPUS) else f"not graded: {report.message}"
            grade.status, grade.reason = NOT_GRADED, reason
        else:
            grade.reason = f"skipped for a reason the course's checks did not give: {report.message}"[:300]
        return grade
    if outcome.status == "passed":
        if report is not None and report.result == "passed":
            grade.status = PASSED
        else:
            grade.reason = (
                "no report from the test framework (GoogleTest) that this test "
                "passed: the process ended before the test did (does the code end the process, or print "
                "the framework's lines itself?)"
            )
        return grade
    grade.reason = failure_reason(outcome, verdict, timeout_s)
    grade.hints = report.hints if report is not None else []
    return grade


def failure_reason(outcome: TestOutcome, verdict: str, timeout_s: int) -> str:
    """Why a test failed, in words: timeout, crash, CUDA error or wrong result."""
    if verdict == "Timeout":
        return f"timed out after {timeout_s} s and was stopped (a kernel or a host loop that never ends?)"
    if verdict.startswith("Exception:"):
        kind = verdict.split(":", 1)[1].strip()
        what = {
            "SegFault": "segmentation fault (an invalid host pointer?)",
            "Child aborted": "aborted (an uncaught error or assert)",
            "Illegal": "illegal instruction",
            "Bus error": "bus error",
            "Numerical": "arithmetic exception",
        }.get(kind, kind)
        return f"crashed: {what}"
    exception = re.search(r'C\+\+ exception with description "(.*)" thrown', outcome.output)
    if exception:
        message = exception.group(1)
        kind = "CUDA error" if re.search(r"\bcuda\w*Error|cudaError\w+", message) else "exception"
        return f"{kind}: {message}"[:300]
    if verdict not in ("", "Failed") and not re.search(r":\d+: Failure$", outcome.output, re.M):
        return f"ctest: {verdict}"
    return f"wrong result: {outcome.failure_reason()}"


def grade_lab(
    number: str,
    folder: str,
    outcomes: list[TestOutcome],
    verdicts: dict[str, str],
    timeout_s: int,
    gpu_present: bool,
    reports: dict[str, GtestReport | None],
) -> LabGrade:
    """The lab's graded tests (those worth points) from one ctest run; `reports` by ctest test name."""
    lab = LabGrade(number, folder)
    for outcome in outcomes:
        if outcome.points > 0:
            lab.tests.append(
                grade_test(outcome, verdicts.get(outcome.name, ""), timeout_s, gpu_present, reports.get(outcome.name))
            )
    return lab


def failed_lab(number: str, folder: str, declared: list[tuple[str, int]], problem: str, details: str = "") -> LabGrade:
    """A lab none of whose tests could run: every test scores 0 with the lab's problem as the reason."""
    tests = [TestGrade(name, points, FAILED, reason=problem) for name, points in declared if points > 0]
    return LabGrade(number, folder, tests, problem=problem, details=details)


def outcome_points(labels: dict[str, list[str]], lab_number: str) -> list[tuple[str, int]]:
    """(Suite.Name, points) of lab NN's graded tests of the student's code (labNN.yours.*), from the tests' labels."""
    prefix = f"lab{lab_number}.yours."
    return [(name[len(prefix) :], points_of(labels[name])) for name in labels if name.startswith(prefix)]
