"""`course grade`, the batch: grade a folder of submissions, each in its own work folder.

The course is configured and built once per batch (prepare_course,
course_build.py). For each submission: take its student sources
(submissions.py), compile each lab's sources alone with the course's compile
commands and check them symbol by symbol (objcheck.py: a compile error or a
refusal costs that lab only, and nothing of a refused lab runs), link those
same objects after the course's prebuilt code, run the labs' tests with ctest
under a timeout, and score ctest's verdicts with GoogleTest's own reports
(scoring.py). Reports are written as soon as a student is graded
(gradebook.py). Submissions are graded `--jobs` at a time; their tests and
timeline programs each take a GPU of their own (gpu_slots.py), since GPU
timings of two processes sharing a GPU would disturb each other.
"""

from __future__ import annotations

import fcntl
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import environment, judging, lab_checks, python_grading, python_module, recording, records, sandbox, sanitize
from .course_build import CourseBuild, course_targets, starter_library, starter_targets
from .gpu import gpu_devices, gpu_presence  # noqa: F401  (grade_batch asks them; tests replace them here)
from .gpu_slots import GpuSlots, chosen_devices
from .grade_settings import DEFAULT_TIMEOUT_S, GradeSettings  # noqa: F401  (re-exported: the batch's API)
from .gradebook import lab_points, load_grade, save_grade, student_folder, summary_table, write_gradebook
from .lab_cmake import read_lab_cmake
from .objcheck import COMPILE_STOPPED, CourseCompiler, Refusal, check_lab, lab_rules, object_path
from .progress import Progress
from .results import read_gtest_report, read_junit, read_labels
from .sandbox import Isolation, Limits, Sandbox, SandboxUnavailable, View, build_limits, choose_isolation, run_limits
from .scoring import LabGrade, SubmissionGrade, ctest_verdicts, failed_lab, grade_lab, outcome_points
from .shell import COURSE_ERROR, ROOT, CourseError, run_logged
from .submissions import (
    Intake,
    LabSources,
    SubmissionRefused,
    course_labs,
    course_python_labs,
    find_submissions,
    printable,
    stage,
    student_name,
    take_student_sources,
)

BUILD_TIMEOUT_S = 900  # per build step: a compiler stuck on hostile code is stopped too
ERROR_LINES = 12  # compiler lines kept in a report
ERROR_LINE_CHARS = 400  # and characters of each
LOG_LIMIT = 16 << 20  # bytes of a student's grade.log; later commands are listed without their output
TRACE_LIMIT = 64 << 20  # bytes of a trace copied from a lab program's scratch folder into the report
TIMED_OUT = sandbox.TIMED_OUT


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
        settings.module_python, problem = python_grading.the_module_python(build)
        return problem
    return ""


def matplotlib_folder(settings: GradeSettings) -> Path:
    return settings.out / ".work" / ".matplotlib"


def prepare_plotting(settings: GradeSettings) -> None:
    """Builds matplotlib's font cache once for the batch (the grader's own Python, no student input)."""
    python = environment.tools_python()
    if python is None:
        return
    folder = matplotlib_folder(settings)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(
            [python, "-c", "import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot"],
            env={**os.environ, "MPLCONFIGDIR": str(folder)},
            capture_output=True,
            timeout=300,
        )
    except (OSError, subprocess.TimeoutExpired):
        shutil.rmtree(folder, ignore_errors=True)  # each plot then builds its own cache, as without this


def prepare_course(settings: GradeSettings) -> str:
    """Configures the course and builds, once for the batch, what every submission links with: the course's
    libraries and the graded labs' test and program objects. Returns a problem, or ""."""
    problem = configure_course(settings)
    if problem:
        return problem
    started = time.monotonic()
    log = Log(settings.out / ".work" / ".course-build.log", settings.verbose)
    if settings.python:
        # The Python labs need the course's module, and nothing to link; a track recorded once, the harness and
        # the C++ track's judges too.
        judging_targets = [f"lab{lab.number}_judge" for lab in settings.labs if lab.recorded]
        targets = [python_module.TARGET, *judging_targets, *(["streamlab_record"] if judging_targets else [])]
    else:
        targets = [target for lab in settings.labs for target in course_targets(lab.number, lab.recorded)]
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
        settings.module_python, problem = python_grading.the_module_python(course_build_folder(settings))
        if problem:
            return problem
    print(f"course: built the course once for the batch in {time.monotonic() - started:.0f} s", flush=True)
    return ""


class Log:
    """A student's grading log: every command the grader ran for them, and its output."""

    def __init__(self, path: Path, echo: bool):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.echo = path, echo
        self.written = 0
        path.write_text("")

    def command(self, command: list[str], output: str, returncode: int) -> None:
        line = f"$ {shlex.join(command)}"
        if self.echo:
            print(line, flush=True)
        if self.written + len(output) > LOG_LIMIT:
            output = f"[{len(output)} characters of output not kept: the log reached {LOG_LIMIT >> 20} MiB]"
        text = f"{line}\n{output}\n[exit status {returncode}]\n\n"
        self.written += len(text)
        with self.path.open("a", errors="backslashreplace") as stream:
            stream.write(text)


def student_view(settings: GradeSettings, work: Path, staging: Path) -> View:
    """What a submission's steps see: the course read-only, its work folder writable with its staged
    sources read-only inside, and neither the output folder nor the other submissions."""
    others = settings.submissions
    hidden = [settings.out] + ([others] if others and others.is_dir() else [])  # a lone archive hides nothing
    course_build = [course_build_folder(settings)]  # read-only again inside the hidden output folder: linked with
    return View(
        read_only=[settings.course_root],
        hidden=hidden,
        writable=[work],
        protected=[staging, *course_build],
        build_cache=sandbox.ccache_folder(),
    )


def copy_traces(scratch: Path, prefix: str, folder: Path) -> list[Path]:
    """Copies the traces a lab program wrote (regular files only, each at most TRACE_LIMIT) next to the report."""
    copied = []
    for trace in sorted(scratch.glob(f"{prefix}*.json")):
        if sandbox.is_plain_file(trace, TRACE_LIMIT):
            shutil.copyfile(trace, folder / trace.name, follow_symlinks=False)
            copied.append(folder / trace.name)
    return copied


def first_errors(output: str, staging: Path) -> str:
    """The compiler's first error lines, with the grader's folders shown as labs/..."""
    lines = [
        line[:ERROR_LINE_CHARS]
        for line in output.replace(str(staging) + "/", "labs/").splitlines()
        if not re.match(r"g?make(\[\d+\])?: ", line)
    ]  # make's own "Error 2" lines say nothing more
    first = next((i for i, line in enumerate(lines) if re.search(r"\berror\b", line, re.I)), None)
    if first is None:
        return "\n".join(lines[-ERROR_LINES:])
    return "\n".join(lines[first : first + ERROR_LINES])


def labs_by_gpus(labs: list[LabSources]) -> list[tuple[int, list[LabSources]]]:
    """`labs` grouped by the GPUs their tests need at once (LabSources.gpus), fewest first, each group in
    the labs' order: each group's tests run while the submission holds that many GPUs."""
    needs = sorted({lab.gpus for lab in labs})
    return [(gpus, [lab for lab in labs if lab.gpus == gpus]) for gpus in needs]


class SubmissionGrader:
    """Grades one submission in its own work folder."""

    def __init__(self, submission: Path, settings: GradeSettings, gpu: tuple[bool, str], gpu_slots: GpuSlots):
        self.submission, self.settings = submission, settings
        self.gpu_present, self.gpu_name = gpu
        self.gpu_slots = gpu_slots
        self.device: dict[str, str] = {}  # CUDA_VISIBLE_DEVICES of this submission's GPU while it holds one
        self.build_seconds = 0.0  # compiling its sources alone (the check) and linking its labs
        self.student = student_name(submission)
        self.folder = student_folder(settings.out, self.student)
        self.work = settings.out / ".work" / self.folder.name
        self.staging = self.work / "labs"
        self.build = self.work / "build"
        self.xml_reports = self.work / "gtest-xml"
        self.objects = self.work / "objcheck"
        self.log = Log(self.folder / "grade.log", settings.verbose)
        isolation = settings.isolation or Isolation(sandbox.NONE)
        self.box = Sandbox(isolation, student_view(settings, self.work, self.staging))

    def _step(
        self,
        command: list,
        timeout_s: float,
        limits: Limits,
        building: bool = False,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> tuple[int, str]:
        """Runs one build or test step of this submission in its sandbox; logs it. (status, output)"""
        env = {**self.device, **(env or {})}
        result = self.box.run(command, timeout_s, limits, cwd=cwd or self.work, env=env, building=building)
        self.log.command([str(part) for part in command], result.output, result.status)
        return result.status, result.output

    def grade(self) -> SubmissionGrade:
        started = time.monotonic()
        grade = SubmissionGrade(
            self.student, gpu=self.gpu_name, isolation=(self.settings.isolation or Isolation(sandbox.NONE)).describe()
        )
        try:
            self._grade_into(grade)
        except Exception as problem:  # noqa: BLE001  one broken submission must not stop the batch
            grade.problem = f"grader error: {problem!r} (see grade.log)"
        finally:
            if not self.settings.keep_builds:
                shutil.rmtree(self.work, ignore_errors=True)
        grade.seconds = round(time.monotonic() - started, 1)
        save_grade(self.folder, grade)
        return grade

    def _grade_into(self, grade: SubmissionGrade) -> None:
        settings = self.settings
        shutil.rmtree(self.work, ignore_errors=True)
        try:
            intake = take_student_sources(self.submission, settings.all_labs, settings.course_root)
        except SubmissionRefused as refusal:  # graded as a submission without files: 0 points, with the reason
            grade.problem = f"submission refused: {printable(str(refusal))}"
            intake = Intake(missing={lab.number: list(lab.files) for lab in settings.all_labs})
        grade.ignored = intake.ignored_summary()
        stage(intake, settings.all_labs, settings.course_root, self.staging)
        self.box.writable_folder(self.work)
        if settings.python:
            self._grade_python_into(grade, intake)
            return
        refusals, compile_errors = self._check_before_linking(intake)
        labels = settings.course_labels or {}
        self.box.writable_folder(self.build / "labs")
        settings.course_build.write_test_lists(self.build, self.xml_reports, self.staging)
        self.box.writable_folder(self.build, tree=True)
        built: list[LabSources] = []
        for lab in settings.labs:
            declared = outcome_points(labels, lab.number)
            if lab.number in intake.missing:
                grade.labs.append(
                    failed_lab(
                        lab.number, lab.folder, declared, "missing file(s): " + ", ".join(intake.missing[lab.number])
                    )
                )
                continue
            refusal = refusals.get(lab.number)
            if refusal is not None:
                lab_grade = failed_lab(lab.number, lab.folder, declared, refusal.problem, refusal.details)
            else:
                status, output = compile_errors.get(lab.number) or self._build_lab(lab)
                if status == 0:
                    built.append(lab)
                    lab_grade = LabGrade(lab.number, lab.folder)
                else:
                    problem = "the build timed out" if status == TIMED_OUT else "does not compile"
                    lab_grade = failed_lab(
                        lab.number, lab.folder, declared, problem, first_errors(output, self.staging)
                    )
            lab_grade.checks = self._checks(lab, refusal, built=lab in built)
            grade.labs.append(lab_grade)
        grade.build_seconds = round(self.build_seconds, 1)
        traces: dict[str, list[Path]] = {}
        # The labs that need one GPU run on one; a lab whose tests need several (GPUS N) holds N together.
        for gpus, group in labs_by_gpus(built):
            with self.gpu_slots.hold(gpus) as device:
                self.device = device
                try:
                    self._test(group, labels, grade)
                    traces.update(self._record_timelines(group, grade))
                    if settings.sanitize:
                        self._sanitize(group, grade)
                finally:
                    self.device = {}
        self._draw_timelines(traces, grade)  # drawing needs no GPU: the next submission's tests may start

    def _grade_python_into(self, grade: SubmissionGrade, intake: Intake) -> None:
        """The Python labs: each checked by pycheck, then recorded once and judged (python_grading.py)."""
        labels = self.settings.course_labels or {}
        self.box.writable_folder(self.xml_reports)
        runnable: list[LabSources] = []
        checks: dict[str, list[lab_checks.Verdict]] = {}
        for lab in self.settings.labs:
            declared = python_grading.declared_python_points(labels, lab.number)
            staged = self.staging.joinpath(*lab.source_path(""))
            if lab.number in intake.missing:
                missing = "missing file(s): " + ", ".join(f"python/{name}" for name in intake.missing[lab.number])
                grade.labs.append(failed_lab(lab.number, lab.folder, declared, missing))
                continue
            verdicts = lab_checks.python_verdicts(self.settings.course_root / "labs" / lab.folder, staged)
            refusals = [problem for verdict in verdicts for problem in verdict.problems]
            checks[lab.number] = [*self._changed(lab), *verdicts]
            if refusals:
                self.log.command(["check the Python source", lab.folder], "\n".join(refusals), 1)
                grade.labs.append(failed_lab(lab.number, lab.folder, declared, refusals[0], "\n".join(refusals)))
            else:
                runnable.append(lab)
        if runnable:
            self._run_python_tests(grade, runnable)
        order = [lab.number for lab in self.settings.labs]
        grade.labs.sort(key=lambda lab: order.index(lab.number))
        for lab_grade in grade.labs:
            lab_grade.checks = [verdict.to_json() for verdict in checks.get(lab_grade.number, [])]

    def _run_python_tests(self, grade: SubmissionGrade, runnable: list[LabSources]) -> None:
        """The Python labs that passed their checks, each recorded on a GPU slot, then judged outside the sandbox."""
        python = self.settings.module_python or sys.executable

        def run_step(command: list, env: dict[str, str], cwd: Path) -> tuple[int, str]:
            timeout = self.settings.timeout_s
            return self._step(command, timeout + 15, run_limits(timeout), env=env, cwd=cwd)

        with self.gpu_slots.hold() as device:
            self.device = device
            try:
                for lab in runnable:
                    staged = self.staging.joinpath(*lab.source_path(""))
                    grade.labs.append(
                        python_grading.grade_python_lab(
                            lab, self.settings, python, self.gpu_present, run_step, staged, self.xml_reports
                        )
                    )
            finally:
                self.device = {}

    def _changed(self, lab: LabSources) -> list[lab_checks.Verdict]:
        """Whether each of the lab's staged student files differs from the course's starter."""
        staged = self.staging.joinpath(*lab.source_path(""))
        return lab_checks.changed_from_starter(
            lab.files, staged, self.settings.course_root.joinpath("labs", *lab.source_path(""))
        )

    def _checks(self, lab: LabSources, refusal: Refusal | None, built: bool) -> list[dict]:
        """What was checked of a C++ lab without a GPU, for the report: changed from the starter, vetted,
        built, and its answer files' form (lab_checks.py)."""
        verdicts = self._changed(lab)
        verdicts.append(lab_checks.vetted(lab.files, refusal.details.splitlines() if refusal else []))
        if refusal is None:
            problems = [] if built else ["does not compile, or does not link with the course's tests"]
            verdicts.append(lab_checks.Verdict("builds: compiled alone, then linked with the course's tests", problems))
        staged = self.staging.joinpath(*lab.source_path(""))
        verdicts += lab_checks.answer_verdicts(self.settings.course_root / "labs" / lab.folder, staged)
        return [verdict.to_json() for verdict in verdicts]

    def _check_before_linking(self, intake: Intake) -> tuple[dict[str, Refusal], dict[str, tuple[int, str]]]:
        """Each lab's student sources, compiled alone and read symbol by symbol (objcheck.py):
        (refusals by lab, (status, compiler output) by lab that did not compile)."""
        if self.settings.compiler is None:  # never graded unchecked
            raise RuntimeError("the course was not prepared for checking objects (prepare_course)")
        refusals, compile_errors = {}, {}
        for lab in self.settings.labs:
            if lab.number in intake.missing:
                continue
            rules = lab_rules(self.settings.course_root / "labs" / lab.folder, lab.files)
            started = time.monotonic()
            refusal, compiler_output = check_lab(
                lab.folder, lab.files, self.staging, self.objects, rules, self.settings.compiler
            )
            self.build_seconds += time.monotonic() - started
            if compiler_output:
                self.log.command(["compile alone", lab.folder], compiler_output, 1)
                timed_out = compiler_output.startswith(COMPILE_STOPPED)
                compile_errors[lab.number] = (TIMED_OUT if timed_out else 1, compiler_output)
            if refusal is not None:
                self.log.command(["check before linking", lab.folder], refusal.details, 1)
                refusals[lab.number] = refusal
        return refusals, compile_errors

    def _build_lab(self, lab: LabSources) -> tuple[int, str]:
        """Links the lab's checked student objects after the course's prebuilt code: its test and lab programs."""
        started = time.monotonic()
        try:
            return self._link_lab(lab)
        finally:
            self.build_seconds += time.monotonic() - started

    def _link_lab(self, lab: LabSources) -> tuple[int, str]:
        labs_folder = self.build / "labs"
        library = labs_folder / starter_library(lab.number)
        library.unlink(missing_ok=True)
        objects = [object_path(self.objects.resolve(), lab.folder, name) for name in lab.files]
        status, output = self._step(
            ["ar", "qc", library, *objects], BUILD_TIMEOUT_S, build_limits(BUILD_TIMEOUT_S), building=True
        )
        for target in starter_targets(lab.number, lab.recorded):
            if status != 0:
                break
            folder, command = self.settings.course_build.link_command(target, lab.number, library, labs_folder / target)
            status, output = self._step(
                command, BUILD_TIMEOUT_S, build_limits(BUILD_TIMEOUT_S), building=True, cwd=folder
            )
        return status, output

    def _test(self, labs: list[LabSources], labels: dict[str, list[str]], grade: SubmissionGrade) -> None:
        """Runs the built labs' tests and grades them from ctest's JUnit files: in the sandbox every test of
        a lab graded while it runs and the recording of a lab recorded once; then, outside it, that lab's
        judges on its record (judging.py)."""
        timeout = self.settings.timeout_s
        junit = self.work / "ctest-junit.xml"
        junit.unlink(missing_ok=True)
        shutil.rmtree(self.xml_reports, ignore_errors=True)  # only this run's reports count
        self.box.writable_folder(self.xml_reports)
        pattern = recording.sandboxed_pattern(labs)
        count = sum(1 for name in labels if re.match(pattern, name))
        command = [
            "ctest",
            "--test-dir",
            self.build,
            "-R",
            pattern,
            "--timeout",
            str(timeout),
            "--output-junit",
            junit,
            "--no-tests=error",
            "--parallel",
            "2",
            # Keep the end of long outputs: GoogleTest's closing lines decide a pass.
            "--test-output-size-passed",
            "262144",
            "--test-output-size-failed",
            "262144",
            "--test-output-truncation",
            "middle",
        ]
        status, console = self._step(command, count * (timeout + 15) + 120, run_limits(timeout))
        verdicts = ctest_verdicts(console)
        try:
            outcomes = read_junit(junit, labels) if sandbox.is_plain_file(junit, 64 << 20) else []
        except ET.ParseError:  # ctest stopped while writing it
            outcomes = []
        judged = judging.judged_pattern(labs)
        if judged is not None:
            removed = judging.fresh_report_folder(self.xml_reports)
            judges_junit = self.work / "judges-junit.xml"
            judges_junit.unlink(missing_ok=True)
            judges_status, judges_console = judging.run_judges(self.build, judged, judges_junit, judging.judge_count())
            note = f"\n(left behind in the sandbox's report folder: {', '.join(removed)})" if removed else ""
            self.log.command(
                ["ctest", "-R", judged, "(the judges, outside the sandbox)"], judges_console + note, judges_status
            )
            verdicts.update(ctest_verdicts(judges_console))
            for lab in labs:
                if lab.recorded:  # beside the report: `course check NN --record FILE` judges it again
                    kept = recording.record_file(self.folder, lab.number, "yours")
                    kept.unlink(missing_ok=True)
                    record = recording.record_file(self.xml_reports, lab.number, "yours")
                    if record.is_file():  # a copy of a plain file (fresh_report_folder)
                        shutil.copyfile(record, kept)
            try:
                outcomes += read_junit(judges_junit, labels) if judges_junit.is_file() else []
            except ET.ParseError:
                pass
        for lab_grade in grade.labs:
            if lab_grade.number not in {lab.number for lab in labs}:
                continue
            mine = [o for o in outcomes if o.name.startswith(f"lab{lab_grade.number}.yours.")]
            reports = {
                o.name: read_gtest_report(self.xml_reports / f"{o.name}.xml", o.name.split(".", 2)[-1]) for o in mine
            }
            graded = grade_lab(lab_grade.number, lab_grade.folder, mine, verdicts, timeout, self.gpu_present, reports)
            lab_grade.tests = graded.tests
            if not mine:
                problem = "the test run was stopped" if status == TIMED_OUT else "ctest reported no results"
                lab_grade.tests = failed_lab(
                    lab_grade.number, lab_grade.folder, outcome_points(labels, lab_grade.number), problem
                ).tests
                lab_grade.problem = problem

    def _record_timelines(self, labs: list[LabSources], grade: SubmissionGrade) -> dict[str, list[Path]]:
        """Runs each lab's program with --trace: the traces it wrote, copied next to the report, by lab."""
        by_number = {lab.number: lab for lab in grade.labs}
        recorded: dict[str, list[Path]] = {}
        for lab in labs:
            lab_grade = by_number[lab.number]
            if not self.gpu_present:
                lab_grade.timeline_note = "No timeline picture: no GPU."
                continue
            for old in self.folder.glob(f"lab{lab.number}*.json"):
                old.unlink()
            if lab.recorded:  # the run the judges judged, from its record: no second run of the student's code
                trace = self.folder / f"lab{lab.number}.json"
                kept = recording.record_file(self.folder, lab.number, "yours")
                drawn = read_lab_cmake(self.settings.course_root / "labs" / lab.folder / "lab.cmake").drawn_scenario
                if records.judges_refused(test.reason for test in lab_grade.tests):
                    lab_grade.timeline_note = "No timeline picture: the judges refused the record."
                elif kept.exists() and records.write_scenario_trace(kept, trace, drawn):
                    recorded[lab.number] = [trace]
                else:
                    lab_grade.timeline_note = "No timeline picture: the record holds no recorded scenario to draw."
                continue
            program = next(self.build.rglob(f"lab{lab.number}_yours_run"), None)
            if program is None:
                continue
            scratch = self.box.writable_folder(self.work / "traces")
            status, _ = self._step(
                [program, "--trace", scratch / f"lab{lab.number}.json"],
                self.settings.timeout_s,
                run_limits(self.settings.timeout_s),
            )
            traces = copy_traces(scratch, f"lab{lab.number}", self.folder)
            if not traces:
                why = "timed out" if status == TIMED_OUT else f"exit status {status}"
                lab_grade.timeline_note = f"No timeline picture: the lab program wrote no trace ({why})."
                continue
            recorded[lab.number] = traces
        return recorded

    def _draw_timelines(self, traces: dict[str, list[Path]], grade: SubmissionGrade) -> None:
        """Draws the recorded traces next to the report, each in a sandboxed step (a trace is the student's
        program's output: only the grader's plot tool reads it)."""
        by_number = {lab.number: lab for lab in grade.labs}
        python = environment.tools_python()
        scratch = self.work / "traces"
        for number, trace_files in traces.items():
            lab_grade = by_number[number]
            if python is None:
                lab_grade.timeline_note = (
                    "Traces written, not drawn: no Python for the course's tools (./course setup)."
                )
                continue
            for trace_file in trace_files:
                image = trace_file.with_suffix(".png")
                drawn_image = scratch / image.name
                drawn, _ = self._step(
                    [python, "-m", "streamlab_tools.plot", scratch / trace_file.name, "-o", drawn_image],
                    120,
                    run_limits(120),
                    env=self._plot_environment(),
                )
                if drawn == 0 and sandbox.is_plain_file(drawn_image, TRACE_LIMIT):
                    shutil.copyfile(drawn_image, image, follow_symlinks=False)
                    lab_grade.timelines.append(image.name)

    def _plot_environment(self) -> dict[str, str]:
        """The plot tool's environment. matplotlib keeps a font cache in its config folder: each step starts
        from a copy of the one the batch warmed (prepare_plotting), instead of rebuilding it (about 1 s a plot)."""
        env = {
            **environment.import_path([self.settings.course_root / "tools"]),
            "MPLBACKEND": "Agg",
            "STREAMLAB_MODULE_DIR": str(course_build_folder(self.settings) / "python"),  # the batch's own build
        }
        warmed = matplotlib_folder(self.settings)
        if warmed.is_dir():
            own = self.work / "matplotlib"
            if not own.is_dir():
                shutil.copytree(warmed, own, symlinks=False)
                self.box.writable_folder(own, tree=True)
            env["MPLCONFIGDIR"] = str(own)
        return env

    def _sanitize(self, labs: list[LabSources], grade: SubmissionGrade) -> None:
        """Each lab's program under compute-sanitizer: findings in the report, points only when asked for."""
        by_number = {lab.number: lab for lab in grade.labs}
        for lab in labs:
            program = next(self.build.rglob(f"lab{lab.number}_yours_run"), None)
            if program is None:
                continue
            result = sanitize.sanitize_submission_lab(
                program,
                lab.folder,
                lab.files,
                self.staging,
                # The program writes its reports there: the steps' user must be able to (fallback isolation).
                self.box.writable_folder(self.work / "sanitize" / lab.number),
                self.settings.timeout_s,
                lambda command, env, timeout: self._step(command, timeout, run_limits(timeout), env=env),
                (self.gpu_present, self.gpu_name),
            )
            by_number[lab.number].sanitizer = result.lines()
            points = self.settings.sanitize_points
            if points is None:
                points = read_lab_cmake(self.settings.course_root / "labs" / lab.folder / "lab.cmake").sanitize_points
            if points > 0:
                by_number[lab.number].tests.append(sanitize.points_test(result, points))


def grade_batch(submissions: Path, settings: GradeSettings) -> int:
    """Grades every submission in `submissions`; writes OUTDIR; prints progress and a summary."""
    if not submissions.exists():
        print(f"course: {submissions} does not exist")
        return COURSE_ERROR
    found = find_submissions(submissions)
    if not found:
        print(f"course: no submissions in {submissions} (folders, .zip or .tar.gz files)")
        return COURSE_ERROR
    folders = [student_folder(settings.out, student_name(p)).name for p in found]
    clashes = sorted({name for name in folders if folders.count(name) > 1})
    if clashes:
        print(f"course: several submissions share a student name: {', '.join(clashes)}; rename them")
        return COURSE_ERROR
    found = shard_of(found, settings)
    numbers = [lab.number for lab in settings.labs]
    if not prepare_isolation(submissions, settings):
        return COURSE_ERROR
    started = time.monotonic()
    gpu = gpu_presence()
    slots = GpuSlots(chosen_devices(gpu_devices(), settings.gpus) if gpu[0] else [])
    # One more submission than GPUs: it builds while the others test, so that no GPU waits for a build.
    jobs = max(settings.jobs, len(slots.devices) + 1) if settings.isolation.kind != sandbox.FALLBACK else 1
    gpus = f"{len(slots.devices)} GPU(s), one submission's tests on each" if slots.devices else "tests on the CPU only"
    print(
        f"course: grading {len(found)} submission(s), labs {' '.join(numbers)}, {jobs} at a time, "
        f"{settings.timeout_s} s per test; GPU: {gpu[1]}; {gpus}",
        flush=True,
    )
    print(f"course: isolation: {settings.isolation.describe()}", flush=True)
    to_grade = [s for s in found if settings.regrade or not already_graded(settings.out, student_name(s), numbers)]
    if settings.course_prebuilt:  # read by every Slurm array task at once: no lock, nothing built
        problem = use_prebuilt_course(settings) if to_grade else ""
    else:
        lock = lock_course_build(settings) if to_grade else None
        if to_grade and lock is None:
            print(
                f"course: another batch is using the course build in {course_build_folder(settings)}; "
                "wait for it to end, or give another --course-build"
            )
            return COURSE_ERROR
        problem = prepare_course(settings) if to_grade else ""
    if to_grade and gpu[0]:  # timelines are drawn only where a GPU recorded them
        prepare_plotting(settings)
    if problem:
        print(f"course: {problem}")
        return COURSE_ERROR
    print_lock = threading.Lock()
    progress = Progress(len(found), jobs)
    build_seconds: list[float] = []

    def grade_one(submission: Path) -> None:
        student = student_name(submission)
        if submission not in to_grade:
            progress.finish(student, "already graded (--regrade to grade again)", None)
            return
        progress.start(student)
        grade = grade_or_explain(submission, settings, gpu, slots)
        with print_lock:
            write_gradebook(settings.out, numbers)
            build_seconds.append(grade.build_seconds)
        labs = ", ".join(
            f"lab{lab.number} {lab_points(lab)}" + (f" ({lab.problem})" if lab.problem else "") for lab in grade.labs
        )
        built = "" if settings.python else f", build {grade.build_seconds:.1f} s"
        message = f"{labs}  [{grade.seconds:.0f} s{built}]" + (f"  {grade.problem}" if grade.problem else "")
        progress.finish(student, message, grade.seconds)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for future in [pool.submit(grade_one, s) for s in found]:
            future.result()
    progress.close()
    grades = write_gradebook(settings.out, numbers)
    if not settings.keep_builds:
        shutil.rmtree(settings.out / ".work", ignore_errors=True)
    print()
    print(summary_table(grades, numbers))
    if build_seconds and settings.python:  # nothing of a Python submission is built
        print(f"\ncourse: {len(build_seconds)} graded in {time.monotonic() - started:.0f} s (wall)")
    elif build_seconds:
        print(
            f"\ncourse: {len(build_seconds)} graded in {time.monotonic() - started:.0f} s (wall); build per "
            f"submission (compile alone + link): mean {sum(build_seconds) / len(build_seconds):.1f} s, "
            f"max {max(build_seconds):.1f} s"
        )
    print(f"\ncourse: gradebook {settings.out / 'gradebook.csv'}; reports in {settings.out / 'students'}")
    return 0


def already_graded(out: Path, student: str, numbers: list[str]) -> bool:
    """Whether `student` has a grade that verifies and covers every lab in `numbers`."""
    previous = load_grade(student_folder(out, student))
    return previous is not None and set(numbers) <= {lab.number for lab in previous.labs}


def shard_of(found: list[Path], settings: GradeSettings) -> list[Path]:
    """The submissions this run grades: those the --todo file lists (all without one), then every
    count-th from the index-th (a Slurm array task's shard, slurm.py)."""
    if settings.todo is not None:
        listed = set(settings.todo.read_text().splitlines())
        found = [submission for submission in found if str(submission) in listed]
    index, count = settings.shard
    return found[index::count]


def prepare_isolation(submissions: Path, settings: GradeSettings) -> bool:
    """Chooses the batch's isolation (settings.isolation); False, with the reason printed, when it cannot run."""
    try:
        settings.isolation = choose_isolation(settings.sandbox, settings.bwrap)
    except SandboxUnavailable as problem:
        print(f"course: cannot grade in a sandbox: {problem}")
        return False
    settings.submissions = submissions
    if settings.isolation.kind != sandbox.FALLBACK:
        return True
    if settings.jobs > 1:  # the fallback hides nothing: one submission at a time, so none can reach another's build
        print("course: without bubblewrap, submissions are graded one at a time")
        settings.jobs = 1
    settings.out.mkdir(parents=True, exist_ok=True)
    tools = [shutil.which(name) or name for name in ("cmake", "ctest")] + [environment.find_nvcc() or "nvcc"]
    unreachable = Sandbox(settings.isolation, View()).unreachable(
        [settings.course_root, settings.out, Path(sys.executable), *map(Path, tools)]
        + [folder for folder in [course_build_folder(settings)] if folder.exists()]
    )
    if unreachable:
        print(
            f"course: uid {sandbox.NOBODY} cannot read {', '.join(map(str, unreachable))}: put the course, the "
            "output folder and the tools where every user may read them, or install bubblewrap"
        )
        return False
    return True


def grade_or_explain(
    submission: Path, settings: GradeSettings, gpu: tuple[bool, str], slots: GpuSlots
) -> SubmissionGrade:
    """Grades one submission; whatever goes wrong, the student still gets a row that says what."""
    try:
        return SubmissionGrader(submission, settings, gpu, slots).grade()
    except Exception as problem:  # noqa: BLE001  one submission must never stop the batch
        grade = SubmissionGrade(student_name(submission), problem=f"grader error: {problem!r}"[:500])
        try:
            save_grade(student_folder(settings.out, grade.student), grade)
        except Exception:  # noqa: BLE001  the row is still printed and the batch goes on
            pass
        return grade


def selected_labs(numbers: list[str] | None, root: Path = ROOT, python: bool = False) -> list[LabSources]:
    """The labs asked for (all when None), checked against labs/*/lab.cmake; their Python versions with `python`."""
    labs = course_python_labs(root) if python else course_labs(root)
    if not numbers:
        return labs
    by_number = {lab.number: lab for lab in labs}
    wanted = [n.zfill(2) for n in numbers]
    unknown = [n for n in wanted if n not in by_number]
    if unknown:
        which = "labs with a Python version" if python else "labs"
        raise CourseError(f"no lab {', '.join(unknown)} ({which}: {', '.join(by_number) or 'none'})")
    return [by_number[n] for n in wanted]


def default_cuda_arch(gpu_present: bool) -> str:
    """The GPU at hand when there is one (fastest to build), else one architecture, to check compiling."""
    return "native" if gpu_present else "90"


def default_jobs() -> int:
    """Submissions graded at a time: one per four cores, at most four (grade_batch raises it to one per GPU)."""
    return max(1, min(4, (os.cpu_count() or 1) // 4))
