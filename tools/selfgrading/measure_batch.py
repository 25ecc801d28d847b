"""How long a class takes: the wall time of grading COUNT submissions of every lab on this machine, where
each lab's time goes, and what a submission that never returns costs.

    python3 -m selfgrading.measure_batch [--count 20] [--labs 01 02 ...] [--jobs N] [--work DIR]

Makes COUNT submissions (every fourth the starters, the others the solutions), builds the course
once (not timed: a batch builds it once too), then grades them all (timed). Prints, per lab, the median
seconds of its recording (the GPU held), its build and its judges, against the course's targets on an
H100 or H200 (RECORD_TARGET_S a lab, SUBMISSION_TARGET_S a submission's recordings); the batch's wall
time and GPU-busy share; and the time 300 submissions would take at that rate. Then grades lab 01 of a
submission whose barrier demo launches a kernel that never ends, beside lab 01 of a solution, one
after the other: what the hang costs over an honest run, against the grader's timeout. Prints the
times and how the hanging lab was graded; exits 1 when grading fails, a solution lacks full points,
a starter has them, or the hanging submission's lab was not stopped at the deadline (nothing hung)
or lost the tests that do not need the scenario that hung.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from coursecli.batch import gpu_presence
from coursecli.grade_settings import DEFAULT_TIMEOUT_S
from coursecli.gradebook import load_grade, student_folder
from coursecli.scoring import FAILED, SubmissionGrade
from coursecli.submissions import selected_labs

from .make_grading_samples import hanging_submission
from .sample_files import student_files, write_folder
from .selfgrade import lab_problems
from .timed_grading import timed_grade

HANG_LAB = "01"
RECORD_TARGET_S = 3.0  # a lab's recording on an H100 or H200 (issue 53)
SUBMISSION_TARGET_S = 15.0  # all of a submission's recordings
CLASS = 300  # the class the projection is for
STEPS = ("record", "build", "judge")  # LabGrade.seconds


def lab_table(grades: list[SubmissionGrade], numbers: list[str]) -> list[str]:
    """Each lab's median seconds over `grades` in each step (its recording holding the GPU, its build, its
    judges) and their sum; a last row with the medians of a submission's totals. A recording over the
    target is marked."""
    rows = [f"{'lab':<5}{'GPU held':>10}{'build':>8}{'judge':>8}{'sum':>8}"]
    totals = {step: [sum(lab.seconds.get(step, 0.0) for lab in g.labs) for g in grades] for step in STEPS}
    for number in numbers:
        labs = [lab for g in grades for lab in g.labs if lab.number == number and lab.seconds]
        if not labs:
            rows.append(f"{number:<5}{'(not run)':>10}")
            continue
        medians = [statistics.median(lab.seconds.get(step, 0.0) for lab in labs) for step in STEPS]
        over = "  over the target" if medians[0] > RECORD_TARGET_S else ""
        rows.append(
            f"{number:<5}"
            + "".join(f"{m:>{w}.2f}" for m, w in zip(medians, (10, 8, 8)))
            + f"{sum(medians):>8.2f}{over}"
        )
    if grades:
        medians = [statistics.median(totals[step]) for step in STEPS]
        over = "  over the target" if medians[0] > SUBMISSION_TARGET_S else ""
        rows.append(
            f"{'all':<5}" + "".join(f"{m:>{w}.2f}" for m, w in zip(medians, (10, 8, 8))) + f"{sum(medians):>8.2f}{over}"
        )
    return rows


def gpu_busy_share(console: str) -> str:
    """The batch's GPU-busy share as its summary line says it ("87%"), or "?" where it says none."""
    found = re.search(r"GPU busy (\d+%) of it", console)
    return found.group(1) if found else "?"


def hang_problems(out: Path, student: str) -> list[str]:
    """Prints how the hanging submission's lab was graded: the time measured is a hang's only when its
    recording was stopped at the deadline (a reason that says it did not finish) and the tests that do
    not need the hanging scenario still passed."""
    graded = load_grade(student_folder(out, student))
    lab = next((lab for lab in graded.labs if lab.number == HANG_LAB), None) if graded else None
    if lab is None:
        return [f"{student}: lab {HANG_LAB} has no grade"]
    reasons = sorted({test.reason.splitlines()[0] for test in lab.tests if test.status == FAILED and test.reason})
    print(f"measure_batch: {student}'s lab {HANG_LAB}: {lab.earned}/{lab.possible} {lab.problem}".rstrip())
    for reason in reasons:
        print(f"measure_batch:   {reason}")
    problems = []
    if not any("did not finish" in reason for reason in reasons):
        problems.append(f"{student}: no test of lab {HANG_LAB} says its run did not finish: nothing hung")
    if lab.earned == 0:
        problems.append(f"{student}: lab {HANG_LAB} lost every test, not only those of the scenario that hung")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--labs", nargs="+", default=[lab.number for lab in selected_labs(None)], metavar="NN")
    parser.add_argument("--jobs", type=int, help="submissions graded at a time (default: the batch's own)")
    parser.add_argument("--work", type=Path, help="folder for submissions and grades (default: a temporary one)")
    args = parser.parse_args(argv)
    if not gpu_presence()[0]:
        print(f"measure_batch: SKIPPED: {gpu_presence()[1]}")
        return 77
    work = args.work or Path(tempfile.mkdtemp(prefix="measure-batch-"))
    work.mkdir(parents=True, exist_ok=True)
    work.chmod(0o755)  # the sandbox's fallback user must reach it

    warm = work / "warm"
    write_folder(warm / "solution", student_files("solution"))
    built = timed_grade(warm, work / "grades-warm", args.labs, args.jobs)[0]
    print(f"measure_batch: the course built and one solution graded, not timed: {built:.1f} s", flush=True)

    submissions = work / "submissions"
    shutil.rmtree(submissions, ignore_errors=True)
    students = {f"student{i:02d}": i % 4 != 3 for i in range(args.count)}  # True: the solutions
    for student, solution in students.items():
        write_folder(submissions / student, student_files("solution" if solution else "starter"))
    seconds, console = timed_grade(submissions, work / "grades", args.labs, args.jobs)
    each = [grade for grade in (load_grade(student_folder(work / "grades", s)) for s in students) if grade]
    at_a_time = re.search(r"(\d+) at a time", console)
    print(
        f"measure_batch: {args.count} submissions x labs {' '.join(args.labs)}, "
        f"{at_a_time.group(1) if at_a_time else '?'} at a time: {seconds:.1f} s ({seconds / 60:.1f} min), "
        f"GPU busy {gpu_busy_share(console)}; one submission's median {statistics.median(g.seconds for g in each):.1f} s",
        flush=True,
    )
    print(f"measure_batch: median seconds per lab over {len(each)} submissions (GPU held: its recording)")
    for row in lab_table(each, args.labs):
        print(f"measure_batch:   {row}")
    print(
        f"measure_batch: {CLASS} submissions at this rate: about {seconds / args.count * CLASS / 60:.0f} min "
        f"on this machine's GPU(s)",
        flush=True,
    )
    problems = [
        problem
        for student, solution in students.items()
        for problem in lab_problems(student, load_grade(student_folder(work / "grades", student)), solution)
    ]

    pair = work / "hang"
    shutil.rmtree(pair, ignore_errors=True)
    write_folder(pair / "honest", student_files("solution"))
    honest = timed_grade(pair, work / "grades-honest", [HANG_LAB], 1)[0]
    shutil.rmtree(pair / "honest")
    write_folder(pair / "never-returns", hanging_submission())
    hanging = timed_grade(pair, work / "grades-hang", [HANG_LAB], 1)[0]
    print(
        f"measure_batch: lab {HANG_LAB} of a submission that never returns: {hanging:.1f} s, against "
        f"{honest:.1f} s for a solution's (the grader's timeout: {DEFAULT_TIMEOUT_S} s)"
    )
    problems += hang_problems(work / "grades-hang", "never-returns")
    for problem in problems:
        print(f"measure_batch: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
