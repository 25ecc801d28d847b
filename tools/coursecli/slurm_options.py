"""`course grade`'s Slurm options: which go together, and the job array's settings they make (slurm.py
writes the jobs)."""

from __future__ import annotations

import argparse
import re

from . import slurm
from .submissions import selected_labs


def shard_problem(args: argparse.Namespace) -> str:
    """Why the Slurm options do not go together, or ""."""
    if args.slurm and args.merge_shards:
        return "--slurm submits the jobs, --merge-shards is what the last one runs: give one of them"
    slurm_only = (args.partition, args.tasks, args.time, args.gpus_per_task, args.cpus_per_task, args.mem)
    if not args.slurm and (args.dry_run or any(value is not None for value in slurm_only)):
        return "--partition, --tasks, --time, --gpus-per-task, --cpus-per-task, --mem and --dry-run go with --slurm"
    if args.slurm and args.course_build:
        return "--course-build is one machine's: with --slurm a build job builds the course once in OUTDIR/slurm/course"
    if (args.build_course_only or args.course_prebuilt) and not args.course_build:
        return "--build-course-only and --course-prebuilt need --course-build DIR"
    return ""


def slurm_settings(args: argparse.Namespace) -> slurm.SlurmSettings:
    """The job array's settings, and the `course grade` options its tasks pass on."""
    labs = selected_labs(args.labs, python=args.python)
    forwarded = ["--labs", *[lab.number for lab in labs], "--timeout", str(args.timeout), "--sandbox", args.sandbox]
    for flag, value in (
        ("--cuda-arch", args.cuda_arch),
        ("--bwrap", args.bwrap),
        ("--jobs", args.jobs),
        ("--sanitize-points", args.sanitize_points),
    ):
        if value is not None:
            forwarded += [flag, str(value)]
    forwarded += ["--sanitize"] * args.sanitize + ["--keep-builds"] * args.keep_builds + ["--python"] * args.python
    defaults = slurm.SlurmSettings()
    # By default each task asks for as many GPUs as the most demanding graded lab needs at once (gpus in its lab.json).
    needed = max([lab.gpus for lab in labs] + [defaults.gpus_per_task])
    return slurm.SlurmSettings(
        tasks=args.tasks or defaults.tasks,
        gpus_per_task=needed if args.gpus_per_task is None else args.gpus_per_task,
        partition=args.partition,
        time=args.time or defaults.time,
        cpus_per_task=args.cpus_per_task,
        mem=args.mem,
        dry_run=args.dry_run,
        forwarded=forwarded,
    )


def slurm_memory(text: str) -> str:
    """An amount of memory as sbatch --mem takes it: a number of megabytes, or with a unit K, M, G or T."""
    if not re.fullmatch(r"[1-9]\d*[KMGT]?", text):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number with a unit K, M, G or T, e.g. 16G")
    return text


def shard_index(text: str) -> tuple[int, int]:
    """I/K: the I-th of K shards (0 <= I < K)."""
    match = re.fullmatch(r"(\d+)/(\d+)", text)
    if not match or not int(match[1]) < int(match[2]):
        raise argparse.ArgumentTypeError(f"{text!r}: give I/K with 0 <= I < K, e.g. 0/4")
    return int(match[1]), int(match[2])
