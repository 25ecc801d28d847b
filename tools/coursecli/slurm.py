"""`course grade --slurm`: a batch as three Slurm jobs: one builds the course, an array grades, one merges.

The submitting machine (a login node) lists the submissions without a grade
that verifies in OUTDIR (all of them with --regrade) in OUTDIR/slurm/todo.txt,
and writes three scripts there:

- build.sbatch configures and builds the course once, into OUTDIR/slurm/course
  (on a GPU of the partition, so that the default architecture is the nodes'
  own), and marks the folder built;
- grade-array.sbatch, an array of K tasks, runs once the build job ended: task
  i grades every K-th listed submission from the i-th into OUTDIR/shards/i (its
  own gradebook, reports and signing key), linking against that one course
  build (read-only, as every task uses it at once), on the GPUs Slurm gives it
  (CUDA_VISIBLE_DEVICES); a task whose build job failed says so and grades nothing;
- merge.sbatch, which runs once the array ended however it ended
  (--dependency=afterany): it copies each shard's verified grades into OUTDIR,
  signs them with OUTDIR's key and rebuilds the gradebook and Gradescope results.

It also writes submit.sh, the three sbatch commands that chain them. Only
sbatch and Slurm's ordinary options and variables are used
(SLURM_ARRAY_TASK_ID, --gres=gpu:N, --cpus-per-task, --mem), so the scripts
run on any site; --dry-run writes them all without submitting, to be edited
and submitted with submit.sh. A rerun first merges what earlier shards
finished, then grades only what is left.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .batch import already_graded
from .gradebook import load_grade, save_grade, student_folder, summary_table, write_gradebook
from .shell import COURSE_ERROR, ROOT
from .submissions import find_submissions, student_name

SHARDS = "shards"
FOLDER = "slurm"
COURSE_BUILD = "course"  # OUTDIR/slurm/course: the course built once for every array task
BUILD_SCRIPT = "build.sbatch"
ARRAY_SCRIPT = "grade-array.sbatch"
MERGE_SCRIPT = "merge.sbatch"
SUBMIT_SCRIPT = "submit.sh"
TODO = "todo.txt"
LOGS = "logs"


@dataclass
class SlurmSettings:
    """What the jobs ask of the site's Slurm."""

    tasks: int = 4  # array tasks (shards), at most one per submission
    gpus_per_task: int = 1  # --gres=gpu:N for each task; 0 asks for none (CPU-only grading)
    partition: str | None = None  # --partition; None: the site's default partition
    time: str = "04:00:00"  # --time of each task
    cpus_per_task: int | None = None  # --cpus-per-task of the build job and each task; None: the site's default
    mem: str | None = None  # --mem of the build job and each task (as sbatch writes it: 16G); None: the default
    dry_run: bool = False
    forwarded: list[str] = field(default_factory=list)  # `course grade` options each job passes on


def _resources(settings: SlurmSettings, gpus: int) -> list[tuple[str, str]]:
    """The directives that ask for a job's GPUs, partition, CPUs and memory."""
    options = [("gres", f"gpu:{gpus}")] if gpus > 0 else []
    if settings.partition:
        options.append(("partition", settings.partition))
    if settings.cpus_per_task:
        options.append(("cpus-per-task", str(settings.cpus_per_task)))
    if settings.mem:
        options.append(("mem", settings.mem))
    return options


def course_build_folder(out: Path) -> Path:
    return out / FOLDER / COURSE_BUILD


def _course(*arguments: str) -> str:
    return shlex.join([str(ROOT / "course"), *arguments])


def _script(out: Path, comment: str, name: str, options: list[tuple[str, str]], log: str, command: str) -> str:
    """A job's script: the job `name` asking for `options`, its output in OUTDIR/slurm/logs/`log`, running
    `command` in its place."""
    options = [("job-name", name), ("ntasks", "1"), *options, ("output", str(out / FOLDER / LOGS / log))]
    directives = "".join(f"#SBATCH --{option}={value}\n" for option, value in options)
    return f"#!/bin/bash\n# Written by `course grade --slurm`: {comment}\n{directives}set -eu\nexec {command}\n"


def build_script(submissions: Path, out: Path, settings: SlurmSettings) -> str:
    """The job that builds the course once, for every array task (one GPU: the default architecture is its)."""
    built = str(course_build_folder(out))
    options = [*_resources(settings, min(1, settings.gpus_per_task)), ("time", "01:00:00")]
    arguments = ["-o", str(out / FOLDER), "--course-build", built, "--build-course-only", *settings.forwarded]
    command = _course("grade", str(submissions), *arguments)
    return _script(out, f"builds the course once into {built}.", "course-grade-build", options, "build-%j.out", command)


def array_script(submissions: Path, out: Path, settings: SlurmSettings, tasks: int) -> str:
    """The job array: task SLURM_ARRAY_TASK_ID grades its shard of the listed submissions."""
    options = [("array", f"0-{tasks - 1}"), *_resources(settings, settings.gpus_per_task), ("time", settings.time)]
    shard_folder = f'{shlex.quote(str(out / SHARDS))}/"$SLURM_ARRAY_TASK_ID"'
    todo = shlex.quote(str(out / FOLDER / TODO))
    built = shlex.quote(str(course_build_folder(out)))
    command = (
        f"{_course('grade', str(submissions))} -o {shard_folder} --todo {todo} "
        f'--shard "$SLURM_ARRAY_TASK_ID/{tasks}" --course-build {built} --course-prebuilt'
        + (f" {shlex.join(settings.forwarded)}" if settings.forwarded else "")
    )
    comment = (
        f"task i (0 to {tasks - 1}) grades the submissions on lines\n"
        f"# i, i+{tasks}, i+{2 * tasks}, ... (counted from 0) of {out / FOLDER / TODO}, into {out / SHARDS}/i,\n"
        f"# linked against the course the build job built in {course_build_folder(out)}."
    )
    return _script(out, comment, "course-grade", options, "grade-%A_%a.out", command)


def merge_script(submissions: Path, out: Path, settings: SlurmSettings, labs: list[str]) -> str:
    """The job that merges the shards into OUTDIR once the array has ended (no GPU, CPUs or memory of its own)."""
    options = [("partition", settings.partition)] if settings.partition else []
    command = _course("grade", str(submissions), "-o", str(out), "--merge-shards", "--labs", *labs)
    comment = "merges the shards' grades into one gradebook."
    return _script(out, comment, "course-grade-merge", [*options, ("time", "00:30:00")], "merge-%j.out", command)


def submit_script(out: Path) -> str:
    """The three sbatch commands, chained: what `course grade --slurm` runs, for scripts written with --dry-run."""
    folder = shlex.quote(str(out / FOLDER))
    return (
        "#!/bin/bash\n"
        "# Written by `course grade --slurm`: submits the build job, the array once it ended and the merge job\n"
        "# once the array ended (however each ended: a task whose build failed says so in its log).\n"
        "set -eu\n"
        f"cd {folder}\n"
        f"build=$(sbatch --parsable {BUILD_SCRIPT})\n"
        f'array=$(sbatch --parsable --dependency=afterany:"${{build%%;*}}" {ARRAY_SCRIPT})\n'
        f'merge=$(sbatch --parsable --dependency=afterany:"${{array%%;*}}" {MERGE_SCRIPT})\n'
        f'echo "submitted build job ${{build%%;*}}, job array ${{array%%;*}} and merge job ${{merge%%;*}}; '
        f'logs in {out / FOLDER / LOGS}"\n'
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


# What sbatch's refusals mean for the options of `course grade --slurm` that wrote the directive it refused:
# (a pattern of sbatch's message, what to change). Slurm's wording, from its own error strings.
REFUSALS = [
    (
        r"gres|generic resource",
        "--gpus-per-task {gpus} asked for --gres=gpu:{gpus}, which this cluster does not offer: give "
        "--gpus-per-task 0 to grade without GPUs, or write the scripts with --dry-run and ask for GPUs "
        "the site's way (--gpus=N, a gres type such as gpu:h100:N)",
    ),
    (r"partition", "--partition {partition}: give a partition that sinfo lists (or none: the site's default)"),
    (r"time limit|--time", "--time {time}: give a limit the partition allows, as sbatch writes it (e.g. 02:00:00)"),
    (r"memory|mem", "--mem {mem}: give an amount a node has, as sbatch writes it (e.g. 16G)"),
    (
        r"node configuration is not available|processors|cpus",
        "no node has what each job asks: lower --cpus-per-task ({cpus}), --mem ({mem}) or --gpus-per-task ({gpus})",
    ),
    (r"account|qos", "the site needs an account or QOS: write the scripts with --dry-run, add it, and run submit.sh"),
]


def refusal_advice(message: str, settings: SlurmSettings) -> str:
    """What to change, for sbatch's refusal `message` ("" when the course cannot tell)."""
    for pattern, advice in REFUSALS:
        if re.search(pattern, message, re.IGNORECASE):
            return advice.format(
                gpus=settings.gpus_per_task,
                partition=settings.partition or "(the site's default)",
                time=settings.time,
                mem=settings.mem or "(the site's default)",
                cpus=settings.cpus_per_task or "the site's default",
            )
    return ""


class SbatchRefused(Exception):
    """sbatch did not submit a job; the message is the course's one line about it."""


def sbatch(script: Path, settings: SlurmSettings, dependency: str | None = None) -> str:
    """Submits `script` (after job `dependency` ended, however it ended); its job id."""
    command = ["sbatch", "--parsable", *([f"--dependency=afterany:{dependency}"] if dependency else []), str(script)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        said = re.sub(r"^sbatch: error: (Batch job submission failed: )?", "", said)
        advice = refusal_advice(said, settings)
        raise SbatchRefused(f"sbatch refused {script.name} ({said})" + (f": {advice}" if advice else ""))
    return done.stdout.strip().split(";")[0]


def write_scripts(submissions: Path, out: Path, labs: list[str], settings: SlurmSettings, todo: list[Path]) -> int:
    """Writes OUTDIR/slurm: the list of submissions, the logs folder and the four scripts. The array's size."""
    tasks = min(settings.tasks, len(todo))
    folder = out / FOLDER
    (folder / LOGS).mkdir(parents=True, exist_ok=True)
    (folder / TODO).write_text("".join(f"{submission}\n" for submission in todo))
    scripts = {
        BUILD_SCRIPT: build_script(submissions, out, settings),
        ARRAY_SCRIPT: array_script(submissions, out, settings, tasks),
        MERGE_SCRIPT: merge_script(submissions, out, settings, labs),
        SUBMIT_SCRIPT: submit_script(out),
    }
    for name, text in scripts.items():
        (folder / name).write_text(text)
    (folder / SUBMIT_SCRIPT).chmod(0o755)
    return tasks


def submit(submissions: Path, out: Path, labs: list[str], settings: SlurmSettings, regrade: bool) -> int:
    """Writes the jobs' scripts into OUTDIR/slurm and (unless dry_run) submits them; prints what it did."""
    if not settings.dry_run and shutil.which("sbatch") is None:
        print("course: sbatch not found: run this on a Slurm login node (or add --dry-run to write the scripts)")
        return COURSE_ERROR
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
    if not settings.dry_run:
        shutil.rmtree(out / SHARDS, ignore_errors=True)  # merged above
    tasks = write_scripts(submissions, out, labs, settings, todo)
    folder = out / FOLDER
    if settings.dry_run:
        print(
            f"course: wrote {folder}: {TODO} ({len(todo)} submission(s), graded in {tasks} array task(s)), "
            f"{BUILD_SCRIPT}, {ARRAY_SCRIPT}, {MERGE_SCRIPT} and {SUBMIT_SCRIPT}; submitted nothing"
        )
        for name in (BUILD_SCRIPT, ARRAY_SCRIPT, MERGE_SCRIPT, SUBMIT_SCRIPT):
            print(f"\n# ---- {folder / name}\n{(folder / name).read_text()}", end="")
        print(
            f"\n# ---- edit them if your site needs it, then submit the three jobs with\nbash {folder / SUBMIT_SCRIPT}"
        )
        return 0
    return _submit_jobs(folder, settings, tasks, len(todo))


def _submit_jobs(folder: Path, settings: SlurmSettings, tasks: int, submissions: int) -> int:
    """Submits the build job, the array after it and the merge job after the array; on a refusal, cancels
    what it submitted and says what to change."""
    submitted: list[str] = []
    try:
        for script in (BUILD_SCRIPT, ARRAY_SCRIPT, MERGE_SCRIPT):
            submitted.append(sbatch(folder / script, settings, submitted[-1] if submitted else None))
    except SbatchRefused as refusal:
        if submitted:
            subprocess.run(["scancel", *submitted], capture_output=True)
        print(f"course: {refusal}; nothing was submitted")
        return COURSE_ERROR
    build, array, merge = submitted
    print(
        f"course: submitted build job {build}, job array {array} ({tasks} task(s), {submissions} submission(s)) "
        f"and merge job {merge}; logs in {folder / LOGS}; the gradebook appears in {folder.parent} when job "
        f"{merge} ends"
    )
    return 0
