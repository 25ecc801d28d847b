"""`ctest -L pts` in a checkout and `course check NN --record FILE` give the same points for the same record
(INSTRUCTORS.md): the same judges on the same record, test for test, both tracks. The one difference is
`course check`'s own: a committed record of a run that is not the solution's (the starter's, a catalogue
sample's) was made with that run's answers, which a record does not hold, so `course check` leaves its answer
tests out of the points, where ctest scores them against the answer files in the checkout.

The ctest side is ctest itself on the build's own test list (its CTestTestfile.cmake files), copied with only
the folders its recordings write and its judges report to moved into the test's folder, so that nothing of
the shared build changes: there the committed record is put where the recording test would have written it,
and `ctest -L pts -R '^labNN\\.TRACK\\.' -E '\\.record$' -FA '.*'` runs the track's judges on it (without
-E, ctest would run the recording, which here, with no GPU, writes a record that says so; without -FA, it
would add the recording back as the judges' fixture). Its points are the `pts:N` labels of the tests its
JUnit report says passed. The `course check` side is the command itself, its build being the same copy
(its judges are the build's), read from the table it prints.

The judges are those of the build `course test` made (conftest.py: STREAMLAB_BUILD).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from coursecli import labs, records
from coursecli import main as course_main
from coursecli.build import NO_COURSE_BUILD, build_under_test
from coursecli.main import main
from coursecli.results import points_of, read_junit, read_labels
from coursecli.shell import ROOT

BUILD = build_under_test()
# What each side says of one graded test, in `course check`'s words.
PASS, FAIL, NOT_GRADED = "pass", "FAIL", "not graded"
CTEST_WORDS = {"passed": PASS, "failed": FAIL, "skipped": NOT_GRADED}


@dataclass(frozen=True)
class Case:
    """A committed record of lab `folder`, `whose` run it is (its name), the ctest track whose judges
    `course check` gives it, and whether it is judged as committed or as a student's own record (a copy
    elsewhere, which `course check` grades as yours, every test scored)."""

    folder: str
    gpu: str
    whose: str
    track: str
    as_committed: bool = True

    @property
    def number(self) -> str:
        return self.folder[:2]

    @property
    def record(self) -> Path:
        return records.committed_record(ROOT, self.folder, self.gpu, self.whose)

    def __str__(self) -> str:
        return f"{self.folder}/{self.gpu}-{self.whose}" + ("" if self.as_committed else " as yours")


CASES = [
    Case("01-null-stream", "h200", "solution", "solution"),
    Case("05-three-chunks", "h200", "solution", "solution"),
    Case("09-why-streams-serialize", "h200", "solution", "solution"),
    Case("05-three-chunks", "h200", "python-solution", "python-solution"),
    # Catalogue samples that fail tests, judged as a student's records: every test scored, on both sides.
    Case("01-null-stream", "h200", "wrong-lab01-host-clock", "yours", as_committed=False),
    Case("05-three-chunks", "h200", "wrong-lab05-stream-per-stage", "yours", as_committed=False),
    Case("05-three-chunks", "h100", "wrong-py-lab05-stop-without-join", "python-yours", as_committed=False),
]


@pytest.fixture
def checkout(tmp_path) -> Path:
    """The build as ctest and `course check` see it, in `tmp_path`: its test list, with the records and
    judge-reports folders moved here, and its judges."""
    if BUILD is None:
        pytest.skip(NO_COURSE_BUILD)
    build = BUILD.resolve()
    moved = 0
    for test_list in build.rglob("CTestTestfile.cmake"):
        text = test_list.read_text()
        for folder in ("records", "judge-reports"):
            moved += text.count(f"{build}/{folder}/")
            text = text.replace(f"{build}/{folder}/", f"{tmp_path}/{folder}/")
        copy = tmp_path / test_list.relative_to(build)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(text)
    assert moved, f"no test in {build}'s test list reads a record in {build}/records"
    (tmp_path / "records").mkdir()
    (tmp_path / "judges").symlink_to(build / "judges")
    return tmp_path


def ctest_verdicts(checkout: Path, case: Case, record: Path) -> dict[str, tuple[str, int]]:
    """Suite.Name -> (verdict, points) of every graded test of the case's track, as `ctest -L pts` judges
    `record` put where the track's recording writes it."""
    shutil.copyfile(record, records.record_path(checkout, case.number, case.track))
    prefix = f"lab{case.number}.{case.track}."
    junit = checkout / "ctest-junit.xml"
    ran = subprocess.run(
        ["ctest", "--test-dir", checkout, "-L", "pts", "-R", f"^{re.escape(prefix)}", "-E", r"\.record$"]
        + ["-FA", ".*", "-j2", "--output-junit", junit],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert junit.is_file(), ran.stdout + ran.stderr
    labels = read_labels(checkout)
    return {
        outcome.name.removeprefix(prefix): (CTEST_WORDS[outcome.status], points_of(outcome.labels))
        for outcome in read_junit(junit, labels)
        if points_of(outcome.labels) > 0
    }


# A row of `course check`'s table: "  Suite.Name   3/3  pass", "  Suite.Name   -/2  not graded".
ROW = re.compile(r"^  (\w+\.\w+)\s+(?:\d+|-)/(\d+)\s+(pass|FAIL|not graded)$", re.MULTILINE)
TOTAL = re.compile(r"^  total\s+(\d+)/(\d+)", re.MULTILINE)


def check_verdicts(checkout: Path, case: Case, record: Path, capsys, monkeypatch) -> tuple[dict, int, str]:
    """(Suite.Name -> (verdict, points), points earned, what it printed) of `course check NN --record`."""
    monkeypatch.setattr(course_main.environment, "setup_or_exit", lambda: None)
    monkeypatch.setattr(labs, "build", lambda preset, targets: checkout)
    monkeypatch.setattr(labs, "plot", lambda *args, **kwargs: False)  # the timeline's picture holds no points
    main(["check", case.number, "--record", str(record), *(["--python"] if "python" in case.track else [])])
    out = capsys.readouterr().out
    assert f"Lab {case.number} ({case.track}): judging" in out, out  # the track whose judges ctest ran
    total = TOTAL.search(out)
    assert total, out
    return {name: (verdict, int(points)) for name, points, verdict in ROW.findall(out)}, int(total[1]), out


def earned(verdicts: dict[str, tuple[str, int]]) -> int:
    return sum(points for verdict, points in verdicts.values() if verdict == PASS)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_ctest_and_course_check_give_a_record_the_same_points(case, checkout, tmp_path, capsys, monkeypatch):
    record = case.record
    if not case.as_committed:  # a record of the student's own, as `course check` judges any other file
        record = tmp_path / "mine.record.jsonl"
        shutil.copyfile(case.record, record)
    by_ctest = ctest_verdicts(checkout, case, record)
    by_check, check_earned, out = check_verdicts(checkout, case, record, capsys, monkeypatch)
    assert by_ctest, f"ctest ran no graded test of lab{case.number}.{case.track}"
    assert by_check == by_ctest, out
    assert check_earned == earned(by_ctest), out
    if case.whose.endswith("solution"):
        assert all(verdict == PASS for verdict, _ in by_ctest.values()), by_ctest
    else:
        assert any(verdict == FAIL for verdict, _ in by_ctest.values()), by_ctest


@pytest.mark.parametrize(
    "case",
    [
        Case("01-null-stream", "h200", "starter", "yours"),
        Case("05-three-chunks", "h200", "wrong-lab05-stream-per-stage", "yours"),
    ],
    ids=str,
)
def test_course_check_leaves_out_only_the_answer_tests_of_a_committed_run_not_the_solutions(
    case, checkout, capsys, monkeypatch
):
    by_ctest = ctest_verdicts(checkout, case, case.record)
    by_check, check_earned, out = check_verdicts(checkout, case, case.record, capsys, monkeypatch)
    answer_tests = {name for name in by_ctest if name.endswith(labs.ANSWER_TESTS)}
    assert answer_tests, by_ctest
    for name, (verdict, points) in by_ctest.items():
        if name in answer_tests:
            assert by_check[name] == (NOT_GRADED, points), out
            found = "agrees with" if verdict == PASS else "does not agree with"
            assert f"{found} its timeline" in out, out
        else:
            assert by_check[name] == (verdict, points), out
    scored_by_ctest_only = sum(by_ctest[name][1] for name in answer_tests if by_ctest[name][0] == PASS)
    assert check_earned == earned(by_ctest) - scored_by_ctest_only, out
