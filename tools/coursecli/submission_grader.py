"""One submission of a batch (batch.py), graded in its own work folder.

Take its student sources (submissions.py), compile each lab's sources alone
with the course's compile commands and check them symbol by symbol
(objcheck.py: a compile error or a refusal costs that lab only, and nothing of
a refused lab runs), link those same objects after the course's prebuilt code
(grading_build.py, course_build.py), record each lab with its recording test
under ctest and a timeout, then judge and score each record outside the
sandbox (scoring.grade_record); the Python labs are checked, recorded and
judged by python_grading.py. Every
step runs in the submission's sandbox (sandbox.py) and is written into its
grade.log; its timelines are drawn from its records (timeline_pictures.py).

Only the recordings (and compute-sanitizer's runs) hold a GPU slot: checking,
building, judging and drawing run on the CPU, beside other submissions'
recordings, so that a GPU never waits for a compiler or a judge. Each lab's
time in each of those steps is kept in its grade (LabGrade.seconds).
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from pathlib import Path

from . import environment, judging, lab_checks, python_grading, recording, records, sandbox, sanitize
from .course_build import starter_library, starter_targets
from .gpu_slots import GpuSlots
from .grade_settings import GradeSettings
from .gradebook import save_grade, student_folder
from .grading_build import BUILD_TIMEOUT_S, course_build_folder
from .lab_declaration import read_lab
from .objcheck import COMPILE_STOPPED, Refusal, check_lab, lab_rules, object_path
from .sandbox import Isolation, Limits, Sandbox, View, build_limits, run_limits
from .scoring import FAILED, LabGrade, SubmissionGrade, failed_lab, grade_record, graded_tests
from .shell import Log
from .submissions import Intake, LabSources, SubmissionRefused, printable, stage, student_name, take_student_sources
from .timeline_pictures import TRACE_LIMIT, copy_traces, plot_environment

ERROR_LINES = 12  # compiler lines kept in a report
ERROR_LINE_CHARS = 400  # and characters of each
TIMED_OUT = sandbox.TIMED_OUT


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
        self.lab_seconds: dict[str, dict[str, float]] = {}  # by lab: seconds in each step (LabGrade.seconds)
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
            declared = graded_tests(labels, lab.number, "yours")
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
        # The labs that need one GPU run on one; a lab whose tests need several (its gpus) holds them together.
        for gpus, group in labs_by_gpus(built):
            with self.gpu_slots.hold(gpus) as device:
                self.device = device
                try:
                    self._record(group)
                    sanitized = self._sanitize(group) if settings.sanitize else {}
                finally:
                    self.device = {}
            # Judging and drawing need no GPU: another submission's recordings run meanwhile.
            self._judge(group, labels, grade)
            self._score_sanitizer(sanitized, grade)
            traces.update(self._record_timelines(group, grade))
        self._draw_timelines(traces, grade)
        self._keep_lab_seconds(grade)

    def _keep_lab_seconds(self, grade: SubmissionGrade) -> None:
        """Each lab's seconds in each step, as _timed added them up, into its grade."""
        for lab_grade in grade.labs:
            steps = self.lab_seconds.get(lab_grade.number, {})
            lab_grade.seconds = {step: round(seconds, 2) for step, seconds in steps.items()}

    def _timed(self, number: str, step: str, started: float) -> None:
        """Adds the time since `started` to lab `number`'s `step` (LabGrade.seconds)."""
        steps = self.lab_seconds.setdefault(number, {})
        steps[step] = steps.get(step, 0.0) + time.monotonic() - started

    def _grade_python_into(self, grade: SubmissionGrade, intake: Intake) -> None:
        """The Python labs: each checked by pycheck, then recorded once and judged (python_grading.py)."""
        labels = self.settings.course_labels or {}
        self.box.writable_folder(self.xml_reports)
        runnable: list[LabSources] = []
        checks: dict[str, list[lab_checks.Verdict]] = {}
        for lab in self.settings.labs:
            declared = graded_tests(labels, lab.number, "python-yours")
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
        self._keep_lab_seconds(grade)

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
                    started = time.monotonic()
                    staged = self.staging.joinpath(*lab.source_path(""))
                    python_grading.record_python_lab(lab, self.settings, python, run_step, staged, self.xml_reports)
                    self._timed(lab.number, "record", started)
            finally:
                self.device = {}
        for lab in runnable:  # the judges need no GPU: another submission's recordings run meanwhile
            started = time.monotonic()
            staged = self.staging.joinpath(*lab.source_path(""))
            judged = python_grading.judge_python_lab(lab, self.settings, self.gpu_present, staged, self.xml_reports)
            grade.labs.append(judged)
            self._timed(lab.number, "judge", started)

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
            self._timed(lab.number, "build", started)
            if compiler_output:
                self.log.command(["compile alone", lab.folder], compiler_output, 1)
                timed_out = compiler_output.startswith(COMPILE_STOPPED)
                compile_errors[lab.number] = (TIMED_OUT if timed_out else 1, compiler_output)
            if refusal is not None:
                self.log.command(["check before linking", lab.folder], refusal.details, 1)
                refusals[lab.number] = refusal
        return refusals, compile_errors

    def _build_lab(self, lab: LabSources) -> tuple[int, str]:
        """Links the lab's checked student objects after the course's prebuilt code: its recording and lab programs."""
        started = time.monotonic()
        try:
            return self._link_lab(lab)
        finally:
            self.build_seconds += time.monotonic() - started
            self._timed(lab.number, "build", started)

    def _link_lab(self, lab: LabSources) -> tuple[int, str]:
        labs_folder = self.build / "labs"
        library = labs_folder / starter_library(lab.number)
        library.unlink(missing_ok=True)
        objects = [object_path(self.objects.resolve(), lab.folder, name) for name in lab.files]
        status, output = self._step(
            ["ar", "qc", library, *objects], BUILD_TIMEOUT_S, build_limits(BUILD_TIMEOUT_S), building=True
        )
        for target in starter_targets(lab.number):
            if status != 0:
                break
            folder, command = self.settings.course_build.link_command(target, lab.number, library, labs_folder / target)
            status, output = self._step(
                command, BUILD_TIMEOUT_S, build_limits(BUILD_TIMEOUT_S), building=True, cwd=folder
            )
        return status, output

    def _record(self, labs: list[LabSources]) -> None:
        """Records the built labs in the sandbox, on this submission's GPU slot: each lab's recording test
        (labNN.yours.record) under ctest, one lab at a time so that each one's GPU time is known."""
        timeout = self.settings.timeout_s
        shutil.rmtree(self.xml_reports, ignore_errors=True)  # only this run's records count
        self.box.writable_folder(self.xml_reports)
        for lab in labs:
            started = time.monotonic()
            pattern = recording.sandboxed_pattern([lab])
            command = ["ctest", "--test-dir", self.build, "-R", pattern, "--timeout", str(timeout), "--no-tests=error"]
            self._step(command, timeout + 135, run_limits(timeout))
            self._timed(lab.number, "record", started)

    def _judge(self, labs: list[LabSources], labels: dict[str, list[str]], grade: SubmissionGrade) -> None:
        """Judges each recorded lab outside the sandbox, on the CPU: its judges on its record
        (scoring.grade_record), read from a folder the sandbox never had."""
        removed = judging.fresh_report_folder(self.xml_reports)
        if removed:
            self.log.command(["the sandbox's report folder"], f"left behind: {', '.join(removed)}", 0)
        course_build = self.settings.course_build.folder
        for lab_grade in grade.labs:
            lab = next((lab for lab in labs if lab.number == lab_grade.number), None)
            if lab is None:
                continue
            started = time.monotonic()
            record = recording.record_file(self.xml_reports, lab.number, "yours")  # a copy of a plain file
            kept = recording.record_file(self.folder, lab.number, "yours")  # `course check NN --record FILE`
            kept.unlink(missing_ok=True)
            if record.is_file():
                shutil.copyfile(record, kept)
            tests = graded_tests(labels, lab.number, "yours")
            answers = self.staging / lab.folder
            graded = grade_record(
                course_build, lab.number, lab.folder, record, answers, self.xml_reports, tests, self.gpu_present
            )
            lab_grade.tests = graded.tests
            self.log.command(
                ["judge", record.name, "(the judges, outside the sandbox)"],
                "\n".join(f"{test.name}: {test.status} {test.reason}".rstrip() for test in graded.tests),
                0 if all(test.status != FAILED for test in graded.tests) else 1,
            )
            self._timed(lab.number, "judge", started)

    def _record_timelines(self, labs: list[LabSources], grade: SubmissionGrade) -> dict[str, list[Path]]:
        """Each lab's trace of the run the judges judged, from its record (no second run of the student's
        code): written where the plot step reads it and copied next to the report, by lab."""
        by_number = {lab.number: lab for lab in grade.labs}
        recorded: dict[str, list[Path]] = {}
        for lab in labs:
            lab_grade = by_number[lab.number]
            if not self.gpu_present:
                lab_grade.timeline_note = "No timeline picture: no GPU."
                continue
            for old in self.folder.glob(f"lab{lab.number}*.json"):
                old.unlink()
            scratch = self.box.writable_folder(self.work / "traces")
            kept = recording.record_file(self.folder, lab.number, "yours")
            drawn = read_lab(self.settings.course_root / "labs" / lab.folder).drawn_scenario
            if records.judges_refused(test.reason for test in lab_grade.tests):
                lab_grade.timeline_note = "No timeline picture: the judges refused the record."
            elif kept.exists() and records.write_scenario_trace(kept, scratch / f"lab{lab.number}.json", drawn):
                recorded[lab.number] = copy_traces(scratch, f"lab{lab.number}", self.folder)
            else:
                lab_grade.timeline_note = "No timeline picture: the record holds no recorded scenario to draw."
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
                    env=plot_environment(self.settings, self.work, self.box),
                )
                if drawn == 0 and sandbox.is_plain_file(drawn_image, TRACE_LIMIT):
                    shutil.copyfile(drawn_image, image, follow_symlinks=False)
                    lab_grade.timelines.append(image.name)

    def _sanitize(self, labs: list[LabSources]) -> dict[str, sanitize.SanitizeResult]:
        """Each lab's program under compute-sanitizer, on this submission's GPU slot: its findings by lab."""
        results = {}
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
            results[lab.number] = result
        return results

    def _score_sanitizer(self, results: dict[str, sanitize.SanitizeResult], grade: SubmissionGrade) -> None:
        """compute-sanitizer's findings in each lab's report, after its judges' tests; points only when asked for."""
        for lab_grade in grade.labs:
            result = results.get(lab_grade.number)
            if result is None:
                continue
            lab_grade.sanitizer = result.lines()
            points = self.settings.sanitize_points
            if points is None:
                points = read_lab(self.settings.course_root / "labs" / lab_grade.folder).sanitize_points
            if points > 0:
                lab_grade.tests.append(sanitize.points_test(result, points))
