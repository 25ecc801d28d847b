"""The `course` command's arguments: every verb, its options and their help (main.py runs the verb)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from . import batch, bench, classroom, environment, gradescope, labs, sandbox, slurm
from .build import DEFAULT_PRESET, TEST_PRESET
from .grade_settings import DEFAULT_TIMEOUT_S
from .shell import ROOT
from .slurm_options import shard_index, slurm_memory


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (a timeout, a count of jobs)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: it must be at least 1")
    return value


EXIT_STATUSES = """exit status, of every verb:
  0   done: everything graded passed
  1   a check or a graded test failed (the grader would not give full points)
  2   the course could not do what was asked: a bad argument, a missing file,
      a step of its own that failed
  77  not graded: no GPU here (nothing failed; ctest's "skipped" status)"""


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="course",
        description="CUDA Streams Lab: set up, build, test, run and check the labs.\n"
        "Every cmake/ctest command is printed before it runs.",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = top.add_subparsers(dest="verb", required=True, metavar="VERB")

    def verb(
        name: str, help_text: str, preset: bool = True, preset_default: str = DEFAULT_PRESET
    ) -> argparse.ArgumentParser:
        sub = verbs.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(verb_parser=sub)
        if preset:
            sub.add_argument(
                "--preset", default=preset_default, help="CMake preset (default, debug, ci); default: %(default)s"
            )
        return sub

    verb("setup", "install what is missing (apt packages, Python packages in .venv)", preset=False)
    verb("build", "configure and build everything")
    test_verb = verb(
        "test",
        "install what the course's own tests need, build them (preset ci: for the GPUs here, or for sm_90 where "
        "there is none) and run them: C++ tests without the labs' student code, labs check, formatting, slides, "
        "API docs, pytest; each step's time, then the count. CI runs exactly this",
        preset_default=TEST_PRESET,
    )
    test_verb.add_argument(
        "--no-slides",
        action="store_true",
        help="neither install pandoc and TeX nor build the slides' PDFs (CI builds them): the other tests all run",
    )
    format_verb = verb(
        "format",
        f"format the C++ and CUDA sources ({environment.CLANG_FORMAT}) and the "
        f"Python (ruff {environment.RUFF_VERSION}), installed if missing",
        preset=False,
    )
    format_verb.add_argument("--check", action="store_true", help="change nothing; fail if a file would change")
    verb("docs", "build the API documentation with Doxygen (installed if missing): build/docs/html")
    verb(
        "slides",
        "render the slide decks to PDF with pandoc and Beamer (installed if missing): build/slides/",
    )
    verb("demo", "the main job: show what the GPU at hand does with streams")
    bench_verb = verb(
        "bench",
        "lab 05's pipeline from 1 to 256 chunks (or lab 06's ring from 4 to 256) "
        "against the model; results and plot in build/bench/",
    )
    bench_verb.add_argument(
        "--repeats", type=positive_int, default=5, help="runs per configuration, the median kept (default: %(default)s)"
    )
    bench_verb.add_argument(
        "--lab",
        choices=sorted(bench.BENCHES),
        default="05",
        help="whose reference solution: 05, the three-chunk pipeline, or 06, the streaming ring (default: %(default)s)",
    )
    for name, text in (
        ("run", "build and run lab NN's program on your code; draw its timeline"),
        ("check", "grade your lab NN: points, measured values, hints"),
    ):
        sub = verb(name, text)
        sub.add_argument("lab", metavar="NN", help=f"the lab: {lab_choices()}")
        sub.add_argument("--solution", action="store_true", help="use the reference solution instead of yours")
        sub.add_argument(
            "--sanitize",
            action="store_true",
            help="run the lab's program under compute-sanitizer (memcheck with leak check, "
            "initcheck; racecheck and synccheck for kernels of your own) and explain what it "
            "finds: memory errors, leaks, uninitialised reads",
        )
        sub.add_argument(
            "--python",
            action="store_true",
            help="the lab's Python version (cuda-bindings): its recording judged by the C++ version's judges "
            "(check), its program (run)",
        )
        if name == "check":
            sub.add_argument(
                "--record",
                metavar="FILE",
                help="judge this record of an earlier graded run again (a lab recorded once; with "
                "--python, a record of a Python version recorded once): no GPU needed and no code run, e.g. after "
                "a threshold changed",
            )
    notebook_verb = verb(
        "notebook",
        "run lab NN's notebook (labs/NN-topic/python/notebook.py) top to bottom and write it with its outputs",
    )
    notebook_verb.add_argument("lab", metavar="NN", help=f"the lab: {lab_choices()}")
    notebook_verb.add_argument("--solution", action="store_true", help="run it on the reference solution")
    notebook_verb.add_argument("--korean", action="store_true", help="the Korean notebook (notebook.ko.py)")
    verb("list", "the labs, their points, what of each you have done and your last checked score")
    reset_verb = verb(
        "reset",
        "put lab NN's files back to its starter (as committed in git); a copy of yours is kept in reset-copies/",
        preset=False,
    )
    reset_verb.add_argument("lab", metavar="NN", help=f"the lab: {lab_choices()}")
    reset_verb.add_argument("--python", action="store_true", help="the lab's Python files instead of its C++ ones")
    reset_verb.add_argument(
        "--from",
        dest="source",
        default="HEAD",
        metavar="COMMIT",
        help="the commit holding the starter, if you committed your own work (default: %(default)s)",
    )
    pack_verb = verb(
        "pack",
        "your work in one archive, in the layout `course grade` reads, checked the way the grader will",
    )
    pack_verb.add_argument(
        "-o",
        "--output",
        type=Path,
        help="the .zip to write (default: build/pack/submission.zip, or submission-python.zip)",
    )
    pack_verb.add_argument("--labs", nargs="+", metavar="NN", help="labs to pack (default: all)")
    pack_verb.add_argument("--python", action="store_true", help="the labs' Python files (course grade --python)")
    # Listed for the top-level help only: main() hands `plot ...` to the plot tool as it is.
    verb("plot", "draw a trace, a bandwidth sweep or a chunk sweep (course plot --help)", preset=False)
    trace = verb("trace", "record any CUDA program's timeline: course trace -o t.json -- PROGRAM ARGS")
    trace.add_argument("-o", "--output", help="trace file to write (default: trace.json)")
    trace.add_argument("trace_args", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS...")
    grade_verb = verb("grade", "grade a folder of submissions: gradebook, reports, Gradescope results", preset=False)
    grade_verb.add_argument(
        "submissions", type=Path, help="folder of submissions (folders, .zip, .tar.gz named after each student)"
    )
    grade_verb.add_argument("-o", "--output", type=Path, required=True, help="folder for the gradebook and reports")
    grade_verb.add_argument("--labs", nargs="+", metavar="NN", help="labs to grade (default: all)")
    grade_verb.add_argument("--regrade", action="store_true", help="grade again students already graded")
    grade_verb.add_argument(
        "--jobs",
        type=positive_int,
        help="submissions graded at a time (default: three per GPU, at most one per two cores; "
        f"without a GPU, {batch.default_jobs(os.cpu_count() or 1, 0)} here, one per four cores)",
    )
    grade_verb.add_argument(
        "--timeout",
        type=positive_int,
        default=DEFAULT_TIMEOUT_S,
        help="seconds each test may run (default: %(default)s)",
    )
    grade_verb.add_argument("--cuda-arch", help="CMAKE_CUDA_ARCHITECTURES (default: native with a GPU, else 90)")
    grade_verb.add_argument("--keep-builds", action="store_true", help="keep each submission's build folder")
    grade_verb.add_argument(
        "--sandbox",
        choices=sandbox.MODES,
        default="auto",
        help="isolation of each build and test step: bubblewrap where it runs, else the "
        "fallback (auto); none only to measure what the sandbox costs",
    )
    grade_verb.add_argument("--bwrap", help=f"bwrap's path when it is not on PATH (or set {sandbox.BWRAP_VARIABLE})")
    grade_verb.add_argument("-v", "--verbose", action="store_true", help="print every command (always in grade.log)")
    grade_verb.add_argument(
        "--python",
        action="store_true",
        help="grade the labs' Python versions (labs/NN-topic/python: cuda-bindings) instead of the C++ ones",
    )
    grade_verb.add_argument(
        "--sanitize",
        action="store_true",
        help="also run each lab's program under compute-sanitizer; findings go into the reports "
        "(feedback only, unless points are put on it)",
    )
    grade_verb.add_argument(
        "--sanitize-points",
        type=int,
        metavar="N",
        help="with --sanitize: a clean run earns N points in every lab "
        "(default: each lab.json's sanitize_points, none when unset)",
    )
    grade_verb.add_argument(
        "--gpus",
        type=positive_int,
        metavar="N",
        help="use at most N GPUs, one submission's recordings on each (default: every GPU the "
        "driver shows, or CUDA_VISIBLE_DEVICES lists)",
    )
    grade_verb.add_argument(
        "--course-build",
        type=Path,
        metavar="DIR",
        help="keep the course's own build in DIR between batches (brought up to date by each "
        "batch, one batch at a time) instead of building it in each batch's output folder",
    )
    cluster = grade_verb.add_argument_group("grading on a Slurm cluster (INSTRUCTORS.md: Grading on a cluster)")
    cluster.add_argument(
        "--slurm",
        action="store_true",
        help="write and submit a job that builds the course once, an sbatch job array that grades the batch "
        "in shards, and a job that merges them into OUTDIR when the array ends (scripts in OUTDIR/slurm)",
    )
    cluster.add_argument("--partition", help="Slurm partition of the jobs (default: the site's default)")
    cluster.add_argument(
        "--gpus-per-task",
        type=int,
        metavar="N",
        help="GPUs each array task asks for, as --gres=gpu:N (default: as many as the graded lab that needs "
        "the most at once, gpus in its lab.json: 2 with lab 08, else 1; 0: none, CPU-only grading)",
    )
    cluster.add_argument(
        "--tasks",
        type=positive_int,
        metavar="K",
        help=f"array tasks, each grading its shard (default: {slurm.SlurmSettings.tasks})",
    )
    cluster.add_argument(
        "--time", metavar="T", help=f"each task's time limit, as sbatch --time (default: {slurm.SlurmSettings.time})"
    )
    cluster.add_argument(
        "--cpus-per-task",
        type=positive_int,
        metavar="N",
        help="CPU cores of the build job and each array task, as sbatch --cpus-per-task (default: the site's)",
    )
    cluster.add_argument(
        "--mem",
        type=slurm_memory,
        metavar="M",
        help="memory of the build job and each array task, as sbatch --mem, e.g. 16G (default: the site's)",
    )
    cluster.add_argument(
        "--dry-run",
        action="store_true",
        help="write the scripts and OUTDIR/slurm/submit.sh, which submits them; print them; submit nothing",
    )
    # What the jobs run (slurm.py writes them); not for typing.
    grade_verb.add_argument("--build-course-only", action="store_true", help=argparse.SUPPRESS)
    grade_verb.add_argument("--course-prebuilt", action="store_true", help=argparse.SUPPRESS)
    grade_verb.add_argument("--todo", type=Path, help=argparse.SUPPRESS)
    grade_verb.add_argument("--shard", type=shard_index, help=argparse.SUPPRESS)
    grade_verb.add_argument("--merge-shards", action="store_true", help=argparse.SUPPRESS)
    scope = verb("gradescope", "build the Gradescope autograder zip for chosen labs", preset=False)
    scope.add_argument("-o", "--output", type=Path, default=Path("autograder.zip"), help="default: %(default)s")
    scope.add_argument("--labs", nargs="+", metavar="NN", help="labs to grade (default: all)")
    scope.add_argument("--timeout", type=positive_int, default=DEFAULT_TIMEOUT_S, help="seconds per test")
    scope.add_argument(
        "--cuda-version",
        default="13-0",
        help="CUDA Toolkit apt package version setup.sh installs (default: %(default)s)",
    )
    scope.add_argument("--python", action="store_true", help="grade the labs' Python versions (course grade --python)")
    scope.add_argument(
        "--cuda-arch",
        default=gradescope.DEFAULT_CUDA_ARCH,
        help="the runners' GPU architectures, as CMAKE_CUDA_ARCHITECTURES: setup.sh builds the course for them "
        "once, and each submission is compiled for them (default: %(default)s, Hopper; e.g. '80;90')",
    )
    room = verb(
        "classroom",
        "write GitHub Classroom's autograding workflow for chosen labs, graded by this course on a self-hosted "
        "GPU runner (INSTRUCTORS.md: GitHub Classroom)",
        preset=False,
    )
    room.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path(".github/workflows/classroom.yml"),
        help="the workflow file to write (default: %(default)s)",
    )
    room.add_argument("--labs", nargs="+", metavar="NN", help="labs to grade (default: all)")
    room.add_argument("--python", action="store_true", help="grade the labs' Python versions (course grade --python)")
    room.add_argument(
        "--course",
        type=Path,
        default=ROOT,
        help="the instructor's checkout of the course on the runner's machine, which grades (default: this one, "
        "%(default)s)",
    )
    room.add_argument(
        "--course-build",
        type=Path,
        metavar="DIR",
        help="the course build there that every run links with (default: COURSE/build-classroom, "
        "or build-classroom-python)",
    )
    room.add_argument(
        "--build-course",
        action="store_true",
        help="also build the course there for these labs, once (run it on the runner's machine, again after "
        "updating the course)",
    )
    room.add_argument(
        "--runs-on",
        nargs="+",
        default=list(classroom.DEFAULT_RUNS_ON),
        metavar="LABEL",
        help="the self-hosted GPU runner's labels (default: %(default)s)",
    )
    room.add_argument(
        "--timeout", type=positive_int, default=DEFAULT_TIMEOUT_S, help="seconds per test (default: %(default)s)"
    )
    room.add_argument(
        "--try",
        dest="try_repository",
        type=Path,
        metavar="REPO",
        help="then run the workflow's commands here on the folder of a student's repository, as the runner "
        "would, and print the points Classroom would get",
    )
    # What the workflow's test steps run (classroom.py writes them); not for typing.
    room.add_argument("--result", nargs=2, metavar=("NN", "TEST"), help=argparse.SUPPRESS)
    room.add_argument("--grades", type=Path, help=argparse.SUPPRESS)
    return top


def lab_choices() -> str:
    """The labs for a verb's help: "01 null-stream, 02 streams, ..."."""
    return ", ".join(f"{number} {folder.name[3:]}" for number, folder in labs.lab_folders().items())
