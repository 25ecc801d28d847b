"""`course grade --slurm`: a batch as a Slurm job array, and a job that merges its shards.

The submitting machine (a login node) lists the submissions without a grade
that verifies in OUTDIR (all of them with --regrade) in OUTDIR/slurm/todo.txt,
and writes two scripts there:

- grade-array.sbatch, an array of K tasks: task i grades every K-th listed
  submission from the i-th into OUTDIR/shards/i (its own gradebook, reports
  and signing key), on the GPUs Slurm gives it (CUDA_VISIBLE_DEVICES);
- merge.sbatch, which runs once the array ended however it ended
  (--dependency=afterany): it copies each shard's verified grades into OUTDIR,
  signs them with OUTDIR's key and rebuilds the gradebook and Gradescope results.

Only sbatch and Slurm's ordinary options and variables are used
(SLURM_ARRAY_TASK_ID, --gres=gpu:N), so the scripts run on any site. A rerun
first merges what earlier shards finished, then grades only what is left.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .batch import already_graded
from .gradebook import load_grade, save_grade, student_folder, summary_table, write_gradebook
from .shell import ROOT
from .submissions import find_submissions, student_name

SHARDS = "shards"
FOLDER = "slurm"
ARRAY_SCRIPT = "grade-array.sbatch"
MERGE_SCRIPT = "merge.sbatch"
TODO = "todo.txt"


@dataclass
class SlurmSettings:
    """What the job array asks of the site's Slurm."""

    tasks: int = 4  # array tasks (shards), at most one per submission
    gpus_per_task: int = 1  # --gres=gpu:N for each task; 0 asks for none (CPU-only grading)
    partition: str | None = None  # --partition; None: the site's default partition
    time: str = "04:00:00"  # --time of each task
    dry_run: bool = False
    forwarded: list[str] = field(default_factory=list)  # `course grade` options each task passes on


def _directives(options: list[tuple[str, str]]) -> str:
    return "".join(f"#SBATCH --{name}={value}\n" for name, value in options)


def array_script(submissions: Path, out: Path, settings: SlurmSettings, tasks: int) -> str:
    """The job array: task SLURM_ARRAY_TASK_ID grades its shard of the listed submissions."""
    options = [("job-name", "course-grade"), ("array", f"0-{tasks - 1}"), ("ntasks", "1")]
    if settings.gpus_per_task > 0:
        options.append(("gres", f"gpu:{settings.gpus_per_task}"))
    if settings.partition:
        options.append(("partition", settings.partition))
    options += [("time", settings.time), ("output", str(out / FOLDER / "logs" / "grade-%A_%a.out"))]
    shard_folder = f'{shlex.quote(str(out / SHARDS))}/"$SLURM_ARRAY_TASK_ID"'
    command = [str(ROOT / "course"), "grade", str(submissions)]
    return (
        "#!/bin/bash\n"
        f"# Written by `course grade --slurm`: task i (0 to {tasks - 1}) grades the submissions on lines\n"
        f"# i, i+{tasks}, i+{2 * tasks}, ... (counted from 0) of {out / FOLDER / TODO}, into {out / SHARDS}/i.\n"
        + _directives(options)
        + "set -eu\n"
        + f"exec {shlex.join(command)} -o {shard_folder} --todo {shlex.quote(str(out / FOLDER / TODO))} "
        + f'--shard "$SLURM_ARRAY_TASK_ID/{tasks}"'
        + (f" {shlex.join(settings.forwarded)}" if settings.forwarded else "")
        + "\n"
    )


def merge_script(submissions: Path, out: Path, settings: SlurmSettings, labs: list[str]) -> str:
    """The job that merges the shards into OUTDIR once the array has ended."""
    options = [("job-name", "course-grade-merge"), ("ntasks", "1")]
    if settings.partition:
        options.append(("partition", settings.partition))
    options += [("time", "00:30:00"), ("output", str(out / FOLDER / "logs" / "merge-%j.out"))]
    command = [str(ROOT / "course"), "grade", str(submissions), "-o", str(out), "--merge-shards", "--labs", *labs]
    return (
        "#!/bin/bash\n"
        "# Written by `course grade --slurm`: merges the shards' grades into one gradebook.\n"
        + _directives(options)
        + "set -eu\n"
        + f"exec {shlex.join(command)}\n"
    )


def merge_shards(out: Path, labs: list[str]) -> int:
    """Copies every shard's verified grades into OUTDIR (signed with OUTDIR's key); rebuilds the gradebook."""
    merged, unverified = 0, []
    for folder in sorted((out / SHARDS).glob("*/students/*")):
        grade = load_grade(folder)
        if grade is None:
            unverified.append(str(folder))
            continue
        target = student_folder(out, grade.student)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(folder, target, symlinks=True)
        save_grade(target, grade)  # the report, Gradescope results and grade.json, under OUTDIR's key
        merged += 1
    grades = write_gradebook(out, labs)
    print(f"course: merged {merged} grade(s) from {out / SHARDS}")
    for folder in unverified:
        print(f"course: not merged, its grade does not verify: {folder}")
    print(summary_table(grades, labs))
    print(f"\ncourse: gradebook {out / 'gradebook.csv'}; reports in {out / 'students'}")
    return 0


def sbatch(arguments: list[str]) -> str:
    """Submits a job; its id."""
    done = subprocess.run(["sbatch", "--parsable", *arguments], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"sbatch failed: {(done.stderr.strip() or done.stdout.strip() or 'no output')}")
    return done.stdout.strip().split(";")[0]


def submit(submissions: Path, out: Path, labs: list[str], settings: SlurmSettings, regrade: bool) -> int:
    """Writes and (unless dry_run) submits the job array and the merge job; prints what it did."""
    if not settings.dry_run and shutil.which("sbatch") is None:
        print("course: sbatch not found: run this on a Slurm login node (or add --dry-run to see the scripts)")
        return 1
    if not settings.dry_run and (out / SHARDS).is_dir():  # what an earlier run finished counts
        merge_shards(out, labs)
    todo = [
        submission
        for submission in find_submissions(submissions)
        if regrade or not already_graded(out, student_name(submission), labs)
    ]
    if not todo:
        print(
            f"course: every submission in {submissions} has a grade in {out}; nothing to submit "
            "(--regrade to grade them again)"
        )
        return 0
    tasks = min(settings.tasks, len(todo))
    scripts = {
        ARRAY_SCRIPT: array_script(submissions, out, settings, tasks),
        MERGE_SCRIPT: merge_script(submissions, out, settings, labs),
    }
    folder = out / FOLDER
    if settings.dry_run:
        print(f"course: would grade {len(todo)} submission(s) in {tasks} array task(s), listed in {folder / TODO}")
        for name, text in scripts.items():
            print(f"\n# ---- {folder / name}\n{text}", end="")
        print(
            f"\n# ---- submitted with\nsbatch --parsable {folder / ARRAY_SCRIPT}\n"
            f"sbatch --parsable --dependency=afterany:<array job id> {folder / MERGE_SCRIPT}"
        )
        return 0
    shutil.rmtree(out / SHARDS, ignore_errors=True)  # merged above
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    (folder / TODO).write_text("".join(f"{submission}\n" for submission in todo))
    for name, text in scripts.items():
        (folder / name).write_text(text)
    array = sbatch([str(folder / ARRAY_SCRIPT)])
    merge = sbatch([f"--dependency=afterany:{array}", str(folder / MERGE_SCRIPT)])
    print(
        f"course: submitted job array {array} ({tasks} task(s), {len(todo)} submission(s)) and merge job {merge}; "
        f"logs in {folder / 'logs'}; the gradebook appears in {out} when job {merge} ends"
    )
    return 0
