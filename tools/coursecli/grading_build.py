"""The course as the grader configures and builds it, for `course grade` (and for `course pack`, which
configures it the same way to compile each source as the grader will).

A batch configures the course once in its build folder (the batch's own, or one
kept between batches with --course-build, which one batch at a time uses):
its compile commands check every student's objects (objcheck.py) and its
tests' labels give each lab's points; then it builds what every submission
links with (prepare_course). On a Slurm cluster a build job builds it once
(build_course_only) and every array task reads it as it is (use_prebuilt_course).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from pathlib import Path

from . import environment, python_module, sandbox
from .course_build import CourseBuild, course_targets
from .grade_settings import GradeSettings
from .objcheck import CourseCompiler
from .results import read_labels
from .shell import Log, run_logged

BUILD_TIMEOUT_S = 900  # per build step: a compiler stuck on hostile code is stopped too


def configure_command(settings: GradeSettings, build: Path) -> list:
    """The cmake command that configures the course in `build` for grading: the tests' timeout, their output
    cap and a report folder that each submission's copy of the tests replaces (course_build.py)."""
    command = [
        "cmake",
        "-S",
        settings.course_root,
        "-B",
        build,
        "-G",
        "Unix Makefiles",
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DSTREAMLAB_DEFAULT_TIMEOUT={settings.timeout_s}",
        # The starters stand in for every student (and for the solutions, which a grader may not have).
        f"-DSTREAMLAB_STARTER_ROOT={settings.course_root / 'labs'}",
        f"-DSTREAMLAB_SOLUTION_ROOT={settings.course_root / 'labs'}",
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
        f"-DSTREAMLAB_GTEST_XML_DIR={CourseBuild(build).xml_placeholder()}",
        f"-DSTREAMLAB_ANSWER_ROOT={CourseBuild(build).answers_placeholder()}",
        f"-DCMAKE_CROSSCOMPILING_EMULATOR={sandbox.output_cap_launcher()}",
    ]
    if settings.cuda_arch:
        command.append(f"-DCMAKE_CUDA_ARCHITECTURES={settings.cuda_arch}")
    nvcc = environment.find_nvcc()
    if nvcc and not shutil.which("nvcc"):
        command.append(f"-DCMAKE_CUDA_COMPILER={nvcc}")
    return command


def course_build_folder(settings: GradeSettings) -> Path:
    if settings.course_build_dir is not None:
        return settings.course_build_dir
    return settings.out / ".work" / ".course"  # a dot: no student folder is named so


def lock_course_build(settings: GradeSettings):
    """An open file holding the course build's lock for the batch (released when it is closed), or None when
    another batch holds it: a kept course build is configured and built again by each batch that uses it."""
    folder = course_build_folder(settings)
    folder.mkdir(parents=True, exist_ok=True)
    lock = (folder / ".batch.lock").open("a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return None
    return lock


def configure_course(settings: GradeSettings) -> str:
    """Configures the course once for the batch: its compile commands check every student's objects
    (objcheck.py) and its tests' labels give each lab's points. Returns a problem, or ""."""
    build = course_build_folder(settings)
    log = Log(settings.out / ".work" / ".course.log", settings.verbose)
    status, _ = run_logged(configure_command(settings, build), log, BUILD_TIMEOUT_S)
    if status != 0:
        return f"the course did not configure (see {log.path})"
    settings.compiler = CourseCompiler(build, settings.course_root)
    settings.course_labels = read_labels(build)
    settings.course_build = CourseBuild(build)
    return ""


# Written into a course build once it built every target the labs in it need (build_course_only); a Slurm
# array task (course_prebuilt) grades only the labs it lists.
BUILT_MARK = ".built-labs"


def built_mark(settings: GradeSettings) -> str:
    return " ".join([lab.number for lab in settings.labs] + (["python"] if settings.python else []))


def build_course_only(settings: GradeSettings) -> int:
    """Configures and builds the course in course_build_dir for the labs, grades nothing (Slurm's build job)."""
    mark = course_build_folder(settings) / BUILT_MARK
    lock = lock_course_build(settings)
    if lock is None:
        print(f"course: another batch is using the course build in {course_build_folder(settings)}")
        return 1
    with lock:
        mark.unlink(missing_ok=True)
        problem = prepare_course(settings)
        if problem:
            print(f"course: {problem}")
            return 1
        mark.write_text(built_mark(settings) + "\n")
    print(f"course: the course is built in {course_build_folder(settings)} for labs {built_mark(settings)}")
    return 0


def use_prebuilt_course(settings: GradeSettings) -> str:
    """Takes the course build a job before built (course_prebuilt) as it is: read, never configured nor built
    again, so that every array task can use it at once. Returns a problem, or ""."""
    build = course_build_folder(settings)
    mark = build / BUILT_MARK
    if not mark.is_file() or set(built_mark(settings).split()) - set(mark.read_text().split()):
        return (
            f"the course was not built in {build} for these labs: the build job failed "
            "(its log is build-JOBID.out next to this one)"
        )
    settings.compiler = CourseCompiler(build, settings.course_root)
    settings.course_labels = read_labels(build)
    settings.course_build = CourseBuild(build)
    if settings.python:
        settings.module_python, problem = python_module.the_module_python(build)
        return problem
    return ""


def prepare_course(settings: GradeSettings) -> str:
    """Configures the course and builds, once for the batch, what every submission links with: the course's
    libraries, the graded labs' judges and their recording and lab programs. Returns a problem, or ""."""
    problem = configure_course(settings)
    if problem:
        return problem
    started = time.monotonic()
    log = Log(settings.out / ".work" / ".course-build.log", settings.verbose)
    if settings.python:
        # The Python labs need the course's module, and nothing to link; the harness and the C++ track's judges.
        judging_targets = [f"lab{lab.number}_judge" for lab in settings.labs]
        targets = [python_module.TARGET, *judging_targets, "streamlab_record"]
    else:
        targets = [target for lab in settings.labs for target in course_targets(lab.number)]
        if (settings.course_root / "python" / "CMakeLists.txt").exists():
            targets.append(python_module.TARGET)  # the plot tool draws the timelines with the module's analysis
    status, _ = run_logged(
        [
            "cmake",
            "--build",
            course_build_folder(settings),
            "--parallel",
            str(os.cpu_count() or 1),
            "--target",
            *targets,
        ],
        log,
        BUILD_TIMEOUT_S,
    )
    if status != 0:
        return f"the course did not build (see {log.path})"
    if settings.python:
        settings.module_python, problem = python_module.the_module_python(course_build_folder(settings))
        if problem:
            return problem
    print(f"course: built the course once for the batch in {time.monotonic() - started:.0f} s", flush=True)
    return ""
