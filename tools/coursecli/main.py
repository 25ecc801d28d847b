"""The verbs of the `course` command."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from . import (
    batch,
    bench,
    classroom,
    demo,
    docs,
    environment,
    formatting,
    gradescope,
    labs,
    listing,
    notebooks,
    pack,
    reset,
    sandbox,
    slides,
    slurm,
)
from .build import BUILD_VARIABLE, DEFAULT_PRESET, TEST_PRESET, architectures_here, build, build_dir
from .gpu import gpu_presence
from .results import read_junit, read_labels
from .shell import COURSE_ERROR, FAILING, ROOT, CommandFailed, CourseError, run, say
from .submissions import ARCHIVE_SUFFIXES, find_submissions
from .tally import Tally, add_pytest_junit


def _setup_or_fail() -> None:
    if environment.setup(quiet_if_ready=True) != 0:
        raise SystemExit(COURSE_ERROR)


def cmd_setup(args: argparse.Namespace) -> int:
    status = environment.setup()
    environment.install_sandbox_tools()  # optional: `course grade` says which isolation it could use
    environment.install_notebook_tools()  # optional: the labs' notebooks (course notebook NN)
    return status


def cmd_build(args: argparse.Namespace) -> int:
    _setup_or_fail()
    build(args.preset)
    return 0


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
    _setup_or_fail()
    environment.install_sandbox_tools()  # so that the grader's sandbox tests run where it can
    environment.install_compile_cache()  # the grading tests then build the course from the cache this build fills
    environment.install_notebook_tools()  # so that the notebooks' tests run every notebook where pip can run
    environment.install_workflow_check_tools()  # tools/tests/test_classroom.py checks the classroom workflow
    environment.install_docs_tools()
    if slides_too and not environment.install_slide_tools():
        slides.install_korean_tools(preset)  # so that the Korean decks and their tests are checked too
    return labs.cpu_count() > 1 and environment.install_parallel_pytest(environment.tools_python())


def cmd_test(args: argparse.Namespace) -> int:
    """Everything a developer or CI checks: C++ tests (not those of the labs' student code), lab consistency,
    the slides and the API docs where their tools are installed or can be, and the Python
    tests (after the docs and slides steps, which install what some of them use). Every test is told
    which build it tests (BUILD_VARIABLE)."""
    slides_too = not args.no_slides
    note = environment.slide_tools_note() if slides_too else ""
    if note:
        say(f"{note}; `./course test --no-slides` skips them")
    steps = Steps(TEST_STEPS)
    steps.next("install what is missing")
    parallel_pytest = _install_for_tests(args.preset, slides_too)
    steps.next("build")
    # The test preset builds for the GPUs here, so that their tests run; other presets as they say.
    folder = build(args.preset, architectures=architectures_here() if args.preset == TEST_PRESET else None)
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
            args.preset,
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
    elif not slides.slides_step(args.preset):
        failures.append("slides")
    steps.next("API docs")
    if not docs.docs_step(args.preset):
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


def cmd_format(args: argparse.Namespace) -> int:
    _setup_or_fail()  # ruff goes into .venv, which setup makes
    return formatting.run_format(args.check)


def cmd_docs(args: argparse.Namespace) -> int:
    _setup_or_fail()
    return docs.run_docs(args.preset)


def cmd_slides(args: argparse.Namespace) -> int:
    _setup_or_fail()
    return slides.run_slides(args.preset)


def cmd_demo(args: argparse.Namespace) -> int:
    _setup_or_fail()
    return demo.run_demo(args.preset)


def cmd_bench(args: argparse.Namespace) -> int:
    _setup_or_fail()
    return bench.run_bench(args.preset, args.repeats, args.lab)


def cmd_run(args: argparse.Namespace) -> int:
    _setup_or_fail()
    return labs.run_lab(args.lab, args.preset, args.solution, args.sanitize, args.python)


def cmd_check(args: argparse.Namespace) -> int:
    _setup_or_fail()
    if args.record:
        if args.sanitize:
            say("--record judges a record: it runs nothing, so it takes no --sanitize")
            return COURSE_ERROR
        return labs.judge_record(args.lab, args.preset, args.solution, Path(args.record), args.python)
    return labs.check_lab(args.lab, args.preset, args.solution, args.sanitize, args.python)


def cmd_notebook(args: argparse.Namespace) -> int:
    _setup_or_fail()
    return notebooks.run_notebook(args.lab, args.preset, args.solution, args.korean)


def cmd_list(args: argparse.Namespace) -> int:
    return listing.print_labs(labs.lab_folders(), build_dir(args.preset))


def cmd_reset(args: argparse.Namespace) -> int:
    return reset.reset_lab(labs.lab_folder(args.lab), args.python, args.source)


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
        _setup_or_fail()
    command = [environment.tools_python(), "-m", "streamlab_tools.plot", *plot_args]
    env = {**environment.TOOLS_ENV, "STREAMLAB_PLOT_PROG": "course plot"}  # its usage line says `course plot`
    if {"-h", "--help"} & set(plot_args):  # the help alone, not the interpreter's command line before it
        return subprocess.run(command, env={**os.environ, **env}).returncode
    return run(command, check=False, env=env).returncode


def cmd_trace(args: argparse.Namespace) -> int:
    if args.output and not Path(args.output).parent.is_dir():  # said before minutes of building
        say(f"cannot write {args.output}: there is no folder {Path(args.output).parent}")
        return COURSE_ERROR
    _setup_or_fail()
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
    numbers = [lab.number for lab in batch.selected_labs(args.labs, python=args.python)]
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
        labs=batch.selected_labs(args.labs, python=args.python),
        all_labs=batch.selected_labs(None, python=args.python),
        timeout_s=args.timeout,
        jobs=args.jobs or batch.default_jobs(),
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
        return batch.build_course_only(settings)
    if not gpu_present:  # said before the builds, which take minutes
        say(
            f"{gpu_text}. The submissions are built and their CPU tests run; "
            "their GPU tests are reported as not graded, counting neither for nor against."
        )
    return batch.grade_batch(args.submissions.resolve(), settings)


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
    forwarded = [
        "--labs",
        *[lab.number for lab in batch.selected_labs(args.labs, python=args.python)],
        "--timeout",
        str(args.timeout),
        "--sandbox",
        args.sandbox,
    ]
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
    # By default each task asks for as many GPUs as the most demanding graded lab needs at once (GPUS N).
    needed = max([lab.gpus for lab in batch.selected_labs(args.labs, python=args.python)] + [defaults.gpus_per_task])
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
    labs = batch.selected_labs(args.labs, python=args.python)
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
        name: str, func, help_text: str, preset: bool = True, preset_default: str = DEFAULT_PRESET
    ) -> argparse.ArgumentParser:
        sub = verbs.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(func=func, verb_parser=sub)
        if preset:
            sub.add_argument(
                "--preset", default=preset_default, help="CMake preset (default, debug, ci); default: %(default)s"
            )
        return sub

    verb("setup", cmd_setup, "install what is missing (apt packages, Python packages in .venv)", preset=False)
    verb("build", cmd_build, "configure and build everything")
    test_verb = verb(
        "test",
        cmd_test,
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
        cmd_format,
        f"format the C++ and CUDA sources ({environment.CLANG_FORMAT}) and the "
        f"Python (ruff {environment.RUFF_VERSION}), installed if missing",
        preset=False,
    )
    format_verb.add_argument("--check", action="store_true", help="change nothing; fail if a file would change")
    verb("docs", cmd_docs, "build the API documentation with Doxygen (installed if missing): build/docs/html")
    verb(
        "slides",
        cmd_slides,
        "render the slide decks to PDF with pandoc and Beamer (installed if missing): build/slides/",
    )
    verb("demo", cmd_demo, "the main job: show what the GPU at hand does with streams")
    bench_verb = verb(
        "bench",
        cmd_bench,
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
    for name, func, text in (
        ("run", cmd_run, "build and run lab NN's program on your code; draw its timeline"),
        ("check", cmd_check, "grade your lab NN: points, measured values, hints"),
    ):
        sub = verb(name, func, text)
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
        cmd_notebook,
        "run lab NN's notebook (labs/NN-topic/python/notebook.py) top to bottom and write it with its outputs",
    )
    notebook_verb.add_argument("lab", metavar="NN", help=f"the lab: {lab_choices()}")
    notebook_verb.add_argument("--solution", action="store_true", help="run it on the reference solution")
    notebook_verb.add_argument("--korean", action="store_true", help="the Korean notebook (notebook.ko.py)")
    verb("list", cmd_list, "the labs, their points, what of each you have done and your last checked score")
    reset_verb = verb(
        "reset",
        cmd_reset,
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
        cmd_pack,
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
    verb("plot", cmd_plot, "draw a trace, a bandwidth sweep or a chunk sweep (course plot --help)", preset=False)
    trace = verb("trace", cmd_trace, "record any CUDA program's timeline: course trace -o t.json -- PROGRAM ARGS")
    trace.add_argument("-o", "--output", help="trace file to write (default: trace.json)")
    trace.add_argument("trace_args", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS...")
    grade_verb = verb(
        "grade", cmd_grade, "grade a folder of submissions: gradebook, reports, Gradescope results", preset=False
    )
    grade_verb.add_argument(
        "submissions", type=Path, help="folder of submissions (folders, .zip, .tar.gz named after each student)"
    )
    grade_verb.add_argument("-o", "--output", type=Path, required=True, help="folder for the gradebook and reports")
    grade_verb.add_argument("--labs", nargs="+", metavar="NN", help="labs to grade (default: all)")
    grade_verb.add_argument("--regrade", action="store_true", help="grade again students already graded")
    grade_verb.add_argument(
        "--jobs",
        type=positive_int,
        help=f"submissions graded at a time (default: {batch.default_jobs()} here, from the "
        "CPU count, and at least one per GPU)",
    )
    grade_verb.add_argument(
        "--timeout",
        type=positive_int,
        default=batch.DEFAULT_TIMEOUT_S,
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
        "(default: each lab.cmake's SANITIZE_POINTS, none when unset)",
    )
    grade_verb.add_argument(
        "--gpus",
        type=positive_int,
        metavar="N",
        help="use at most N GPUs, one submission's tests on each (default: every GPU the "
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
        "the most at once, GPUS in its lab.cmake: 2 with lab 08, else 1; 0: none, CPU-only grading)",
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
    scope = verb("gradescope", cmd_gradescope, "build the Gradescope autograder zip for chosen labs", preset=False)
    scope.add_argument("-o", "--output", type=Path, default=Path("autograder.zip"), help="default: %(default)s")
    scope.add_argument("--labs", nargs="+", metavar="NN", help="labs to grade (default: all)")
    scope.add_argument("--timeout", type=positive_int, default=batch.DEFAULT_TIMEOUT_S, help="seconds per test")
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
        cmd_classroom,
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
        "--timeout", type=positive_int, default=batch.DEFAULT_TIMEOUT_S, help="seconds per test (default: %(default)s)"
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


def main(argv: list[str]) -> int:
    if argv[:1] == ["plot"]:
        return cmd_plot(argv[1:])
    args, unknown = parser().parse_known_args(argv)
    if unknown:  # the verb's own usage, not the top level's
        args.verb_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return args.func(args)
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
