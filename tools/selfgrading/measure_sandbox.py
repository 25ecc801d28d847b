"""What the sandbox costs: the wall time of grading the same batch with and without it.

    python3 -m selfgrading.measure_sandbox [--copies 10] [--lab 05] [--rounds 1] [--work DIR]

Makes COPIES submissions of one lab's solution, grades them once to warm the
compiler cache (not timed), then ROUNDS times each with `--sandbox auto`
(bubblewrap where it runs) and `--sandbox none`, alternating, each into a fresh
output folder. Prints each time and the cost of the sandbox as a percentage of
the time without it (median of the rounds). Exits 1 when a graded batch fails.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from coursecli.sandbox import choose_isolation

from .sample_files import student_files, write_folder
from .timed_grading import timed_grade


def grade_once(submissions: Path, out: Path, lab: str, sandbox: str, jobs: int | None) -> float:
    """Seconds to grade `submissions` into a fresh `out` under `sandbox`."""
    seconds, console = timed_grade(submissions, out, [lab], jobs, sandbox)
    isolation = next((line for line in console.splitlines() if "isolation:" in line), "")
    print(f"measure_sandbox: {sandbox:>5}: {seconds:7.1f} s  {isolation}", flush=True)
    return seconds


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--lab", default="05")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--jobs", type=int, help="submissions graded at a time (default: the batch's own)")
    parser.add_argument("--work", type=Path, help="folder for submissions and grades (default: a temporary one)")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="measure-sandbox-"))
    work.mkdir(parents=True, exist_ok=True)
    work.chmod(0o755)  # the fallback's uid 65534 must reach it
    print(f"measure_sandbox: sandbox here: {choose_isolation().describe()}")
    submissions = work / "submissions"
    shutil.rmtree(submissions, ignore_errors=True)
    for copy in range(args.copies):
        write_folder(submissions / f"student{copy:02d}", student_files("solution"))
    warm = work / "warm"
    write_folder(warm / "student00", student_files("solution"))
    grade_once(warm, work / "grades-warm", args.lab, "auto", args.jobs)
    times: dict[str, list[float]] = {"auto": [], "none": []}
    for _ in range(args.rounds):
        for sandbox in ("auto", "none"):
            times[sandbox].append(grade_once(submissions, work / f"grades-{sandbox}", args.lab, sandbox, args.jobs))
    boxed, bare = statistics.median(times["auto"]), statistics.median(times["none"])
    print(
        f"measure_sandbox: {args.copies} submissions of lab {args.lab}: {boxed:.1f} s sandboxed, {bare:.1f} s "
        f"without: the sandbox costs {100 * (boxed - bare) / bare:+.1f}% (goal: under 10%)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
