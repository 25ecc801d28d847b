"""`course test`: everything a developer or CI checks, in numbered steps, each one's time said, and the count
of every test at the end."""

from __future__ import annotations

import time
from collections import Counter

from . import docs, environment, formatting, labs, slides
from .build import BUILD_VARIABLE, TEST_PRESET, architectures_here, build
from .results import read_junit, read_labels
from .shell import FAILING, run, say
from .tally import Tally, add_pytest_junit


def _report_not_run(outcomes) -> None:
    """ctest lists skipped tests by name only; say why they did not run."""
    reasons = Counter(o.skip_reason() for o in outcomes if o.status == "skipped")
    for reason, count in reasons.most_common():
        say(f"{count} test(s) not run: {reason}")


def minutes_and_seconds(seconds: float) -> str:
    """ "45 s", "4 min 05 s": a step's time, to the second."""
    whole = round(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60} min {whole % 60:02d} s"


class Steps:
    """Numbers the steps of a long command as it goes ("step 3/8: API docs"), says how long each took when
    the next begins, and sums them up at the end, so that one sees where the time went."""

    def __init__(self, names: list[str], clock=time.monotonic):
        self.names, self.clock = names, clock
        self.took: list[float] = []  # the seconds of each step ended so far
        self.began: float | None = None  # when the step under way began

    def _end_step(self) -> None:
        now = self.clock()
        self.took.append(now - self.began)
        say(f"step {len(self.took)}/{len(self.names)} took {minutes_and_seconds(self.took[-1])}")
        self.began = now

    def next(self, name: str) -> None:
        if self.began is None:
            self.began = self.clock()
        else:
            self._end_step()
        say(f"step {len(self.took) + 1}/{len(self.names)}: {name}")

    def summary(self) -> str:
        """Ends the last step; every step's time and the total, in one line."""
        self._end_step()
        steps = ", ".join(f"{name} {minutes_and_seconds(t)}" for name, t in zip(self.names, self.took))
        return f"time: {steps}; total {minutes_and_seconds(sum(self.took))}"


TEST_STEPS = [
    "install what is missing",
    "build",
    "C++ tests (ctest)",
    "lab consistency",
    "formatting",
    "slides",
    "API docs",
    "Python tests (pytest)",
]


def _install_for_tests(preset: str, slides_too: bool) -> bool:
    """Every install `course test` needs, done first so that the steps after it only build and test:
    their times are then the course's own. True where pytest can run on every core."""
    environment.setup_or_exit()
    environment.install_sandbox_tools()  # so that the grader's sandbox tests run where it can
    environment.install_compile_cache()  # the grading tests then build the course from the cache this build fills
    environment.install_notebook_tools()  # so that the notebooks' tests run every notebook where pip can run
    environment.install_workflow_check_tools()  # tools/tests/test_classroom.py checks the classroom workflow
    environment.install_docs_tools()
    if slides_too and not environment.install_slide_tools():
        slides.install_korean_tools(preset)  # so that the Korean decks and their tests are checked too
    return labs.cpu_count() > 1 and environment.install_parallel_pytest(environment.tools_python())


def run_course_test(preset: str, slides_too: bool) -> int:
    """Everything a developer or CI checks: C++ tests (not those of the labs' student code), lab consistency,
    the slides and the API docs where their tools are installed or can be, and the Python
    tests (after the docs and slides steps, which install what some of them use). Every test is told
    which build it tests (BUILD_VARIABLE)."""
    note = environment.slide_tools_note() if slides_too else ""
    if note:
        say(f"{note}; `./course test --no-slides` skips them")
    steps = Steps(TEST_STEPS)
    steps.next("install what is missing")
    parallel_pytest = _install_for_tests(preset, slides_too)
    steps.next("build")
    # The test preset builds for the GPUs here, so that their tests run; other presets as they say.
    folder = build(preset, architectures=architectures_here() if preset == TEST_PRESET else None)
    tested = {BUILD_VARIABLE: str(folder)}
    results = folder / "results"
    junit, pytest_junit = results / "course-test.xml", results / "course-test-pytest.xml"
    results.mkdir(parents=True, exist_ok=True)
    for stale in (junit, pytest_junit):
        stale.unlink(missing_ok=True)  # an earlier run's results must not be counted as this one's
    tally = Tally()

    steps.next("C++ tests (ctest)")
    # The tests of the student's code (label yours) fail on the untouched starter by design: `course check NN` runs those.
    ctest = run(
        [
            "ctest",
            "--preset",
            preset,
            "--label-exclude",
            "yours",
            "--parallel",
            str(labs.cpu_count()),
            "--output-junit",
            junit,
        ],
        check=False,
        env=tested,
    )
    if junit.exists():
        outcomes = read_junit(junit, read_labels(folder))
        _report_not_run(outcomes)
        for outcome in outcomes:
            tally.add(outcome.status, outcome.skip_reason() if outcome.status == "skipped" else "")
    failures = []
    if ctest.returncode != 0:
        failures.append("ctest")
    steps.next("lab consistency")
    python = environment.tools_python()
    if run([python, "-m", "coursecli.check_labs"], check=False, env=environment.TOOLS_ENV).returncode != 0:
        failures.append("lab consistency check")
    steps.next("formatting")
    if not formatting.format_step():
        failures.append("formatting")
    steps.next("slides")
    if not slides_too:
        say("slides not built: --no-slides")
    elif not slides.slides_step(preset):
        failures.append("slides")
    steps.next("API docs")
    if not docs.docs_step(preset):
        failures.append("API docs")
    steps.next("Python tests (pytest)")
    # On every core, one test at a time to each process (conftest.py puts the long tests that build first, and
    # --maxschedchunk 1 keeps them from being queued together on one process).
    parallel = ["-n", str(labs.cpu_count()), "--maxschedchunk", "1"] if parallel_pytest else []
    pytest = run(
        [python, "-m", "pytest", "-q", "-rs", *parallel, f"--junitxml={pytest_junit}", "tools/tests"],
        check=False,
        env={**environment.TOOLS_ENV, "STREAMLAB_MODULE_DIR": str(folder / "python"), **tested},
    )
    add_pytest_junit(tally, pytest_junit)
    if pytest.returncode != 0:
        failures.append("pytest")
    say(steps.summary())
    say(tally.line() + (f"; FAILED: {', '.join(failures)}" if failures else ""))
    return FAILING if failures else 0
