"""The `course` command: each verb's function, and main, which runs the one asked for (arguments.py reads
the command line)."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

from . import (
    batch,
    bench,
    classroom,
    demo,
    developer_tests,
    docs,
    environment,
    formatting,
    gradescope,
    grading_build,
    labs,
    listing,
    notebooks,
    pack,
    reset,
    slides,
    slurm,
)
from .arguments import parser
from .build import build, build_dir
from .gpu import gpu_presence
from .shell import COURSE_ERROR, CommandFailed, CourseError, run, say
from .slurm_options import shard_problem, slurm_settings
from .submissions import ARCHIVE_SUFFIXES, find_submissions, selected_labs


def cmd_setup(args: argparse.Namespace) -> int:
    status = environment.setup()
    environment.install_sandbox_tools()  # optional: `course grade` says which isolation it could use
    environment.install_notebook_tools()  # optional: the labs' notebooks (course notebook NN)
    return status


def cmd_build(args: argparse.Namespace) -> int:
    build(args.preset)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    if args.record:
        if args.sanitize:
            say("--record judges a record: it runs nothing, so it takes no --sanitize")
            return COURSE_ERROR
        return labs.judge_record(args.lab, args.preset, args.solution, Path(args.record), args.python)
    return labs.check_lab(args.lab, args.preset, args.solution, args.sanitize, args.python)


def cmd_pack(args: argparse.Namespace) -> int:
    folder = build_dir(args.preset) / "pack"
    output = args.output or folder / ("submission-python.zip" if args.python else "submission.zip")
    if output.is_dir() or output.suffix != ".zip" or not output.parent.is_dir() and args.output:
        say(f"-o {output}: give the name of a .zip file in a folder that exists, e.g. -o ada.zip")
        return COURSE_ERROR
    return pack.pack(args.labs, args.python, output, folder)


def cmd_plot(plot_args: list[str]) -> int:
    """Hands every argument, --help included, to the plot tool, which has its own help."""
    if environment.tools_python() is None:
        say("drawing needs matplotlib: setting up the course's Python tools first")
        environment.setup_or_exit()
    command = [environment.tools_python(), "-m", "streamlab_tools.plot", *plot_args]
    env = {**environment.TOOLS_ENV, "STREAMLAB_PLOT_PROG": "course plot"}  # its usage line says `course plot`
    if {"-h", "--help"} & set(plot_args):  # the help alone, not the interpreter's command line before it
        return subprocess.run(command, env={**os.environ, **env}).returncode
    return run(command, check=False, env=env).returncode


def cmd_trace(args: argparse.Namespace) -> int:
    if args.output and not Path(args.output).parent.is_dir():  # said before minutes of building
        say(f"cannot write {args.output}: there is no folder {Path(args.output).parent}")
        return COURSE_ERROR
    environment.setup_or_exit()
    python = environment.tools_python()
    folder = build(args.preset, ["streamlab_inject"])
    inject = next(folder.rglob("libstreamlab_inject.so"), None)
    if inject is None:
        say("the injection library was not built")
        return COURSE_ERROR
    trace_args = list(args.trace_args)
    if trace_args and trace_args[0] == "--":
        trace_args = trace_args[1:]
    output = ["-o", args.output] if args.output else []
    gpu_present, gpu_text = gpu_presence()  # where the course knows there is none, the tool says so plainly
    no_gpu = [] if gpu_present else ["--no-gpu", gpu_text]
    return run(
        [python, "-m", "streamlab_tools.trace_cmd", "--inject", inject, *output, *no_gpu, "--", *trace_args],
        check=False,
        env=environment.TOOLS_ENV,
    ).returncode


def cmd_grade(args: argparse.Namespace) -> int:
    """Grades a folder of submissions (standard library only, so it starts anywhere)."""
    if args.sanitize_points is not None and (not args.sanitize or args.sanitize_points < 0):
        say("--sanitize-points needs --sanitize and a number of points, 0 or more")
        return COURSE_ERROR
    if args.python and args.sanitize:
        say("--sanitize checks the C++ labs' programs; the Python labs are graded without it (leave out one)")
        return COURSE_ERROR
    submissions = args.submissions
    if not submissions.exists():
        say(f"{submissions} does not exist: give a folder holding one submission per student")
        return COURSE_ERROR
    if submissions.is_file() and not submissions.name.endswith(ARCHIVE_SUFFIXES):
        say(f"{submissions} is a file, not a folder of submissions (or one .zip / .tar.gz submission)")
        return COURSE_ERROR
    if args.output.is_file():
        say(f"-o {args.output} is a file: give a folder for the gradebook and reports")
        return COURSE_ERROR
    problem = shard_problem(args)
    if problem:
        say(problem)
        return COURSE_ERROR
    numbers = [lab.number for lab in selected_labs(args.labs, python=args.python)]
    if args.merge_shards:
        return slurm.merge_shards(args.output.resolve(), numbers)
    # Said first: before the no-GPU banner, and before writing Slurm jobs (the course's build alone needs none).
    if not args.build_course_only and not find_submissions(submissions):
        say(f"no submissions in {submissions} (folders, .zip or .tar.gz files)")
        return COURSE_ERROR
    if args.slurm:
        return slurm.submit(
            args.submissions.resolve(), args.output.resolve(), numbers, slurm_settings(args), args.regrade
        )
    gpu_present, gpu_text = gpu_presence()
    settings = batch.GradeSettings(
        out=args.output.resolve(),
        labs=selected_labs(args.labs, python=args.python),
        all_labs=selected_labs(None, python=args.python),
        timeout_s=args.timeout,
        jobs=args.jobs,
        regrade=args.regrade,
        cuda_arch=args.cuda_arch or batch.default_cuda_arch(gpu_present),
        keep_builds=args.keep_builds,
        verbose=args.verbose,
        sanitize=args.sanitize,
        sanitize_points=args.sanitize_points,
        sandbox=args.sandbox,
        bwrap=args.bwrap,
        gpus=args.gpus,
        todo=args.todo.resolve() if args.todo else None,
        shard=args.shard or (0, 1),
        course_build_dir=args.course_build.resolve() if args.course_build else None,
        course_prebuilt=args.course_prebuilt,
        python=args.python,
    )
    if args.build_course_only:  # Slurm's build job: the course, once, for every array task
        return grading_build.build_course_only(settings)
    if not gpu_present:  # said before the builds, which take minutes
        say(
            f"{gpu_text}. The submissions are built and their CPU tests run; "
            "their GPU tests are reported as not graded, counting neither for nor against."
        )
    return batch.grade_batch(args.submissions.resolve(), settings)


def cmd_gradescope(args: argparse.Namespace) -> int:
    if args.output.suffix != ".zip" or args.output.is_dir():
        say(f"-o {args.output}: give the name of the .zip file to write, e.g. -o autograder.zip")
        return COURSE_ERROR
    if not re.fullmatch(r"\d+-\d+", args.cuda_version):
        say(
            f"--cuda-version {args.cuda_version}: give the toolkit's major-minor version as apt names it, "
            "e.g. 13-0 or 12-6"
        )
        return COURSE_ERROR
    labs = selected_labs(args.labs, python=args.python)
    if not re.fullmatch(r"[0-9a-z;-]+", args.cuda_arch):  # it goes into the zip's shell scripts
        say(f"--cuda-arch {args.cuda_arch}: give architectures as CMake names them, e.g. 90 or '80;90'")
        return COURSE_ERROR
    names = gradescope.build_autograder(
        args.output, labs, args.timeout, args.cuda_version, python=args.python, cuda_arch=args.cuda_arch
    )
    say(f"wrote {args.output} ({len(names)} files): upload it as the autograder of a Gradescope assignment")
    return 0


def cmd_classroom(args: argparse.Namespace) -> int:
    if args.result:
        if args.grades is None:
            say("--result needs --grades DIR, the grading step's output folder")
            return COURSE_ERROR
        return classroom.report_result(args.grades, args.result[0].zfill(2), args.result[1])
    if not args.course.is_absolute():
        say(f"--course {args.course}: give the course's absolute path on the runner's machine, e.g. /opt/streamlab")
        return COURSE_ERROR
    bad = [label for label in args.runs_on if not re.fullmatch(r"[A-Za-z0-9._-]+", label)]
    if bad:
        say(f"--runs-on {bad[0]!r}: a runner label is letters, digits, '.', '_' and '-' (e.g. self-hosted gpu)")
        return COURSE_ERROR
    if args.output.is_dir():
        say(f"-o {args.output} is a folder: give the workflow file to write, e.g. -o .github/workflows/classroom.yml")
        return COURSE_ERROR
    if args.try_repository and not args.try_repository.is_dir():
        say(f"--try {args.try_repository}: give the folder of a student's repository (a checkout or a copy)")
        return COURSE_ERROR
    settings = classroom.WorkflowSettings(
        course=args.course,
        course_build=args.course_build or classroom.default_course_build(args.course, args.python),
        runs_on=tuple(args.runs_on),
        timeout_s=args.timeout,
        python=args.python,
    )
    steps = classroom.graded_steps(args.labs, args.python)
    if args.build_course:
        if not (args.course / "course").is_file():
            say(f"--build-course builds the course at --course {args.course}, and there is none there")
            return COURSE_ERROR
        if classroom.build_course(args.labs, settings) != 0:
            return COURSE_ERROR
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(classroom.workflow_text(steps, settings))
    points = sum(step.points for step in steps)
    say(
        f"wrote {args.output}: {len(steps)} graded tests, {points} points, runs on a runner labelled "
        f"{', '.join(args.runs_on)}; the course at {settings.course} grades, linking with {settings.course_build}"
    )
    if args.try_repository:
        return classroom.try_workflow(steps, settings, args.try_repository.resolve())
    return 0


# The function that runs each verb (`course plot` is handed to the plot tool as it is, in main).
COMMANDS = {
    "setup": cmd_setup,
    "build": cmd_build,
    "test": lambda args: developer_tests.run_course_test(args.preset, slides_too=not args.no_slides),
    "format": lambda args: formatting.run_format(args.check),
    "docs": lambda args: docs.run_docs(args.preset),
    "slides": lambda args: slides.run_slides(args.preset),
    "demo": lambda args: demo.run_demo(args.preset),
    "bench": lambda args: bench.run_bench(args.preset, args.repeats, args.lab),
    "run": lambda args: labs.run_lab(args.lab, args.preset, args.solution, args.sanitize, args.python),
    "check": cmd_check,
    "notebook": lambda args: notebooks.run_notebook(args.lab, args.preset, args.solution, args.korean),
    "list": lambda args: listing.print_labs(labs.lab_folders(), build_dir(args.preset)),
    "reset": lambda args: reset.reset_lab(labs.lab_folder(args.lab), args.python, args.source),
    "pack": cmd_pack,
    "trace": cmd_trace,
    "grade": cmd_grade,
    "gradescope": cmd_gradescope,
    "classroom": cmd_classroom,
}
# The verbs that first install what is missing, saying nothing where all is there (`format`: ruff goes into
# .venv, which setup makes). `trace` does so itself, after checking its arguments.
SET_UP_FIRST = {"build", "format", "docs", "slides", "demo", "bench", "run", "check", "notebook"}


def main(argv: list[str]) -> int:
    if argv[:1] == ["plot"]:
        return cmd_plot(argv[1:])
    args, unknown = parser().parse_known_args(argv)
    if unknown:  # the verb's own usage, not the top level's
        args.verb_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        if args.verb in SET_UP_FIRST:
            environment.setup_or_exit()
        return COMMANDS[args.verb](args)
    except (CommandFailed, CourseError, RuntimeError) as problem:
        say(str(problem))
        return COURSE_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output went away (`course list | head`): that ends the command, quietly.
        # stdout is pointed at /dev/null so that the interpreter's last flush raises nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
