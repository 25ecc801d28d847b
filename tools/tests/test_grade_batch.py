"""A real batch without a GPU: one submission that compiles, one that does not, and one that attacks the
grader from a static initialiser (so it runs even where every test skips for want of a GPU), built with CMake.

It grades with the course that conftest's graded_course builds once for the run (lab 01, one GPU
architecture); it is skipped where cmake or nvcc is missing.
"""

import csv
import json
import shutil
from pathlib import Path

import pytest
from coursecli import environment
from coursecli.gradebook import load_grade, student_folder
from coursecli.scoring import FAILED, NO_GPU, NOT_GRADED
from coursecli.shell import ROOT

pytestmark = pytest.mark.skipif(
    shutil.which("cmake") is None or environment.find_nvcc() is None, reason="needs cmake and nvcc to build submissions"
)
LAB = "01-null-stream"
SOURCE = "null_stream.cu"
# Runs before main in every process of the lab's programs: forges a grade, leaves a process, kills its parent.
HOSTILE = r"""
#include <signal.h>
#include <unistd.h>
#include <cstdio>
namespace {
struct Hostile {
    Hostile() {
        if (std::FILE* grade = std::fopen("@GRADE@", "w")) {
            std::fputs("{}", grade);
            std::fclose(grade);
        }
        if (fork() == 0) {
            setsid();
            sleep(600);
            _exit(0);
        }
        kill(getppid(), SIGKILL);
    }
} hostile;
}  // namespace
"""


def leftovers(marker: str) -> list[str]:
    """Command lines of running processes that mention `marker`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in text:
            found.append(text)
    return found


@pytest.mark.builds
def test_a_compiling_and_a_broken_submission(tmp_path, graded_course, grade_without_gpu):
    """Also: without a GPU, the untouched starter ("compiles") and the solution differ in their reports."""
    course, build = graded_course
    starter = (course / "labs" / LAB / SOURCE).read_text()
    good = tmp_path / "subs" / "compiles" / "labs" / LAB
    bad = tmp_path / "subs" / "broken" / LAB
    good.mkdir(parents=True)
    bad.mkdir(parents=True)
    (good / SOURCE).write_text(starter)
    (good / "test_lab01.cpp").write_text("TEST(A, B) {}\n")  # an edited test: ignored
    (bad / SOURCE).write_text(starter + "\nthis is not C++;\n")
    out = tmp_path / "out"
    hostile = tmp_path / "subs" / "hostile" / LAB
    hostile.mkdir(parents=True)
    victim = student_folder(out, "compiles") / "grade.json"
    (hostile / SOURCE).write_text(HOSTILE.replace("@GRADE@", str(victim)) + starter)
    solved = tmp_path / "subs" / "solution" / LAB
    solved.mkdir(parents=True)
    for name in (SOURCE, "prediction.txt"):
        shutil.copy(ROOT / "solutions" / LAB / name, solved / name)

    # Even on a machine with a GPU, this test grades as if there were none.
    assert grade_without_gpu(tmp_path / "subs", out) == 0

    broken = load_grade(student_folder(out, "broken"))
    lab = broken.labs[0]
    assert lab.problem == "does not compile" and "error" in lab.details and "labs/01-null-stream/" in lab.details
    assert lab.tests and all(t.status == FAILED and t.earned == 0 for t in lab.tests)
    assert broken.earned == 0 and broken.possible == lab.possible > 0

    compiles = load_grade(student_folder(out, "compiles"))
    lab = compiles.labs[0]
    assert not lab.problem and lab.tests
    assert all(t.status == NOT_GRADED and t.reason == NO_GPU for t in lab.tests)
    assert compiles.possible == 0 and compiles.not_graded == sum(t.points for t in lab.tests)
    assert any("test_lab01.cpp: edited course file" in line for line in compiles.ignored)

    rows = {row["student"]: row for row in csv.DictReader((out / "gradebook.csv").open())}
    assert rows["broken"]["lab01"] == "0" and "does not compile" in rows["broken"]["notes"]
    assert rows["compiles"]["lab01"] == "" and rows["compiles"]["not_graded"] == str(compiles.not_graded)
    # What was checked without a GPU tells the untouched starter from the solution; neither counts as zero.
    solution = load_grade(student_folder(out, "solution"))
    assert solution.labs[0].not_graded == compiles.labs[0].not_graded > 0 and solution.possible == 0
    assert [check["problems"] for check in solution.labs[0].checks] == [[], [], [], []]
    assert [(check["what"], bool(check["problems"])) for check in compiles.labs[0].checks] == [
        (f"{SOURCE} differs from the starter", True),
        (f"{SOURCE} vetted: nothing graded code may not do", False),
        ("builds: compiled alone, then linked with the course's tests", False),
        ("prediction.txt: every answer given, in a form the grader can score", True),
    ]
    assert rows["solution"]["lab01"] == "" and rows["solution"]["total"] == "0"
    assert "lab01: 4/4 checks without a GPU passed" in rows["solution"]["notes"]
    assert "lab01: 2/4 checks without a GPU passed" in rows["compiles"]["notes"]
    report = (student_folder(out, "compiles") / "report.md").read_text()
    assert (
        "- FAIL  prediction.txt: every answer given, in a form the grader can score: prediction.txt: `blocking:`"
        in report
    )
    assert (
        f"- not checked here: the GPU tests ({compiles.not_graded} points), not graded (not counted as zero)" in report
    )
    results = json.loads((student_folder(out, "broken") / "results.json").read_text())
    assert results["score"] == 0 and all(t["status"] == "failed" for t in results["tests"])
    assert not (out / ".work").exists()  # build folders are removed once graded

    # The hostile submission harmed nothing: the batch ended, another student's grade verifies and holds
    # what the grader wrote, the hostile student has a row, and nothing it started is still running.
    assert load_grade(student_folder(out, "compiles")) == compiles
    assert "does not verify" not in rows["compiles"]["notes"]
    hostile_grade = load_grade(student_folder(out, "hostile"))
    print("hostile:", [(t.name, t.status, t.reason) for lab in hostile_grade.labs for t in lab.tests])
    # Its code ran (or was refused) and failed its tests: never "not graded (no GPU)", never passed.
    assert hostile_grade.labs[0].tests and all(t.status == FAILED for t in hostile_grade.labs[0].tests)
    assert rows["hostile"]["total"] == "0"
    assert leftovers(str(out / ".work" / "hostile")) == []


@pytest.mark.builds
def test_a_lab_recorded_once_is_judged_outside_the_sandbox(tmp_path, grade_without_gpu):
    """Lab 05 without a GPU: the recording runs in the sandbox and finds no GPU; the judges, run after it
    and outside it, read its record and leave every test "not graded (no GPU)"; the record is kept."""
    solved = tmp_path / "subs" / "ada" / "labs" / "05-three-chunks"
    solved.mkdir(parents=True)
    for name in ("three_chunks.cu", "prediction.txt"):
        shutil.copy(ROOT / "solutions" / "05-three-chunks" / name, solved / name)
    out = tmp_path / "out"
    assert grade_without_gpu(tmp_path / "subs", out, lab="05") == 0

    graded = load_grade(student_folder(out, "ada"))
    lab = graded.labs[0]
    assert not lab.problem and len(lab.tests) == 8
    assert all(t.status == NOT_GRADED and t.reason == NO_GPU for t in lab.tests), [
        (t.name, t.reason) for t in lab.tests
    ]
    log = (student_folder(out, "ada") / "grade.log").read_text()
    assert "(the judges, outside the sandbox)" in log
    record = student_folder(out, "ada") / "lab05.yours.record.jsonl"
    assert '"no_gpu"' in record.read_text()
