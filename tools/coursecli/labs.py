"""The labs: finding them, running their programs, plotting, and `course check`."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from . import environment, lab_checks, lab_declaration, records, reference_pictures, sanitize
from .build import build
from .gpu import NO_GPU_EXIT, gpu_presence
from .python_module import TARGET, module_python
from .results import points_of, read_labels
from .scoring import NEEDS_GPUS, NOT_GRADED, PASSED, LabGrade, TestGrade, grade_record, graded_tests
from .shell import COURSE_ERROR, FAILING, ROOT, CommandFailed, CourseError, Log, run, run_logged, say
from .student_files import already_vetted, save_check_without_gpu, save_last_check, save_vetted

SANITIZE_TIMEOUT_S = 900  # per tool: a lab program runs several times slower under compute-sanitizer
# The simulated GPU (common/simgpu): the build that runs a lab on it, the GPU it models, and the labs whose
# verdicts on it were found equal to the H200's for every program the course has an H200 record of (its
# solution, starter and catalogue samples: labs/SIMULATED_GPU_FIDELITY.md), where `course check` without a GPU
# previews them.
SIMULATED_PRESET = "sim"
SIMULATED_GPU = "NVIDIA H200"
SIMULATED_LABS = ("01", "02", "03", "04", "05", "06", "07", "09")
# Set (to anything), `course check` without a GPU makes no preview: for runs that check the rest, as the
# notebooks' tests do, without the simulated build's minutes.
NO_PREVIEW = "STREAMLAB_NO_PREVIEW"
SIMULATED_LABS_NOT_COVERED = (
    "the simulated GPU previews labs " + ", ".join(SIMULATED_LABS) + " only, where its verdicts were found "
    "equal to an H200's; the others need what it does not model yet"
)
# Graded tests whose verdict on the simulated GPU was found to differ from a GPU's for some program
# (labs/SIMULATED_GPU_FIDELITY.md): the preview shows no verdict for them, and says why. By lab, then test;
# SIMULATED_NO_VERDICT_PYTHON for the Python track alone.
SIMULATED_NO_VERDICT = {
    "06": {
        "ManyChunks.MakespanNearTheModel": (
            "no verdict on the simulated GPU: its model is made of the host's fill and drain times, measured "
            "on this CPU beside a simulated GPU, and a slow CPU hides a GPU that waits"
        ),
    },
}
SIMULATED_NO_VERDICT_PYTHON = {
    "09": {
        "Serialize.NoPinnedAllocationWhileBusy": (
            "no verdict on the simulated GPU: in Python, whether a pinned allocation begins while a short memset "
            "still runs turns on the microseconds the interpreter spends between the two calls, timed on this CPU"
        ),
    },
}


def simulated_no_verdict(number: str, test: str, python: bool) -> str | None:
    """Why the preview of lab `number` shows no verdict for `test` (in the Python track with `python`); None
    where it shows the judge's."""
    python_only = SIMULATED_NO_VERDICT_PYTHON.get(number, {}).get(test) if python else None
    return python_only or SIMULATED_NO_VERDICT.get(number, {}).get(test)


# The graded tests that read the student's answer file (answer_files in lab.json), by the end of their names:
# a record does not hold the answers its run was made with, so these read the student's file as it is now.
ANSWER_TESTS = ("YourPredictionMatchesTheTimeline", "SuitsAHostWithOtherWork")


def lab_folders() -> dict[str, Path]:
    """Lab number ("01") -> labs/01-topic, for every lab that has a lab.json."""
    return {folder.name[:2]: folder for folder in lab_declaration.lab_folders(ROOT)}


def lab_folder(number: str) -> Path:
    number = number.zfill(2)
    labs = lab_folders()
    if number not in labs:
        raise CourseError(f"no lab {number} (labs: {', '.join(labs) or 'none yet'})")
    return labs[number]


def plot(trace: Path, image: Path, folder: Path, extra: list[str] | None = None) -> bool:
    """Draws `trace` into `image` with tools/streamlab_tools/plot.py and the module streamlab of the build
    `folder`. True on success."""
    return environment.draw("plot", [trace, "-o", image, *(extra or [])], image, "timelines", folder)


def _sanitize_setup(number: str, variant: str, folder: Path, what: str, python: bool = False):
    """Lab NN's student files (their texts, and as the sanitizer's reports name them), a work folder under
    `folder` and a runner that logs every command and the program's output there. With `python`, the files of
    the lab's Python track."""
    lab = lab_folder(number)
    declared = lab_declaration.read_lab(lab)
    files = list(declared.python.student_sources if python else declared.cpp.student_sources)
    sources_root = python_student_folder(number, variant) if python else student_root(variant) / lab.name
    texts = [(sources_root / name).read_text(errors="replace") for name in files if (sources_root / name).exists()]
    shown = "labs" if variant == "yours" else "solutions"
    sources = sanitize.lab_sources(f"{lab.name}/python" if python else lab.name, files, shown)
    work = folder / what / f"lab{number}-{'python-' if python else ''}{variant}"
    log = Log(work / f"{what}.log", echo=True)  # every command, and the program's output, kept there

    def runner(command: list[str], env: dict[str, str], timeout_s: float) -> tuple[int, str]:
        return run_logged(command, log, timeout_s, env=env)

    return texts, sources, work, runner


def sanitize_lab(number: str, variant: str, folder: Path, executable: Path) -> sanitize.SanitizeResult:
    """Runs lab NN's program under compute-sanitizer and prints what it found, in the student's words."""
    texts, sources, work, runner = _sanitize_setup(number, variant, folder, "sanitize")
    result = sanitize.sanitize_program(
        executable, sources, sanitize.tools_for(texts), work, SANITIZE_TIMEOUT_S, runner, gpu_presence()
    )
    print()
    print(f"Lab {number} ({variant}) under compute-sanitizer (the program run with --no-trace):")
    for line in result.lines():
        print(f"  {line}")
    if result.clean:
        print("  no memory errors, leaks or uninitialised reads found")
    return result


def _preview_what_is_left_behind(number: str, variant: str, folder: Path, python: bool) -> None:
    """Lab NN's program run once on the simulated GPU (the C++ one with --no-trace), and what it left behind by
    its census: streams, events, device memory and pinned buffers never released (what `--sanitize` finds on a
    GPU)."""
    if python:
        program, runner_python = lab_folder(number) / "python" / f"run_lab{number}.py", module_python(folder)
        env = python_lab_environment(number, variant, folder)
        if runner_python is None or not program.is_file():
            return
    else:
        program, runner_python, env = next(folder.rglob(f"lab{number}_{variant}_run"), None), None, None
        if program is None:
            return
    print()
    how = "" if python else " with --no-trace"
    print(f"What lab {number}'s program ({variant}) left behind on the simulated GPU (run once{how}):")
    _, sources, work, runner = _sanitize_setup(number, variant, folder, "census", python)
    findings, problem = sanitize.census_findings(program, sources, work, SANITIZE_TIMEOUT_S, runner, runner_python, env)
    if problem:
        print(f"  not known: {problem}")
    elif not findings:
        print("  nothing: every stream, event, device allocation and pinned buffer it made was released")
    for index, finding in enumerate(findings, 1):
        described = finding.describe()
        print(f"  {index}. {described[0]}")
        for line in described[1:]:
            print(f"     {line}")


def _show_reference_pictures(number: str) -> None:
    """Points at the solution's pictures recorded on an H200, one per task that has a timeline."""
    say("What the solution's timelines look like, one picture per task:")
    for line in reference_pictures.describe(number, lab_folder(number), ROOT):
        print(f"  {line}")


def _without_gpu(number: str, preset: str, targets: list[str], why: str) -> int:
    """What `course run` does where there is no GPU: say why once, build the lab
    (so compiler errors still show), point at the solution's H200 picture of each task, exit NO_GPU_EXIT."""
    _, reason = gpu_presence()
    say(f"{reason}. {why}: the lab is only built here.")
    try:
        build(preset, targets)
    except CommandFailed as failure:
        say(f"lab {number} does not build ({failure}); fix the compiler errors above first.")
        return FAILING
    say(f"lab {number} builds.")
    _show_reference_pictures(number)
    say(f"exit status {NO_GPU_EXIT}: not run for want of a GPU (not a failing grade)")
    return NO_GPU_EXIT


def run_lab(number: str, preset: str, solution: bool, sanitize_it: bool = False, python: bool = False) -> int:
    """`course run NN`: builds and runs the lab's program, writes its trace and picture.
    With `sanitize_it`, runs it under compute-sanitizer instead (no trace, no picture).
    With `python`, the lab's Python program (labs/NN-topic/python/run_labNN.py) on the Python version."""
    number = lab_folder(number).name[:2]
    variant = "solution" if solution else "yours"
    program = lab_folder(number) / "python" / f"run_lab{number}.py"
    if python and not program.exists():
        say(f"lab {number} has no Python program yet ({program.relative_to(ROOT)})")
        return COURSE_ERROR
    target = TARGET if python else f"lab{number}_{variant}_run"
    if not gpu_presence()[0]:
        return _without_gpu(number, preset, [target], f"Lab {number}'s program runs on the GPU")
    # The module streamlab builds in either case: the picture's analysis.
    folder = build_python_side(preset) if python else build(preset, [target, TARGET])
    name = f"lab{number}-python-{variant}" if python else f"lab{number}-{variant}"
    trace, image = folder / "traces" / f"{name}.json", folder / "plots" / f"{name}.png"
    trace.parent.mkdir(parents=True, exist_ok=True)
    env = python_lab_environment(number, variant, folder) if python else None
    program_runner = module_python(folder) if python else next(folder.rglob(target), None)
    if program_runner is None:
        say(
            "the Python module streamlab is not built here: run ./course build"
            if python
            else f"built {target} but cannot find it under {folder}"
        )
        return COURSE_ERROR
    if sanitize_it and not python:
        result = sanitize_lab(number, variant, folder, program_runner)
        if result.runs:
            print(f"\nThe program's own output (under {result.runs[0].tool}):\n{result.runs[0].program_output}")
        return 0 if result.clean or result.problem else 1
    command = [program_runner, program, "--trace", trace] if python else [program_runner, "--trace", trace]
    result = run(command, check=False, env=env)
    if result.returncode != 0:
        say(f"the lab {number} program exited with status {result.returncode}")
    if trace.exists() and plot(trace, image, folder):
        say(f"timeline picture: {image}")
    return result.returncode


def student_root(variant: str) -> Path:
    """Where the student's files of every lab are: labs/ (the starter, which the student edits) or solutions/."""
    return ROOT / ("solutions" if variant == "solution" else "labs")


def python_student_folder(number: str, variant: str) -> Path:
    """Where a Python lab's starter or solution files are: labs/ or solutions/NN-topic/python."""
    return student_root(variant) / lab_folder(number).name / "python"


def python_lab_environment(number: str, variant: str, folder: Path) -> dict[str, str]:
    """How lab NN's Python program imports the student's (or the solution's) files, with the module of the build
    `folder` (environment.python_lab_environment)."""
    student = python_student_folder(number, variant)
    return environment.python_lab_environment(student, lab_folder(number) / "python", ROOT, folder)


def _format_test(test: TestGrade) -> tuple[str, str, str]:
    """Points column, status column, detail lines for one graded test: what its judge measured and noted,
    and for a failure or a skip its own words (and its hints)."""
    points = test.points
    if test.status == PASSED:
        return f"{points}/{points}", "pass", "\n".join(test.measures)
    if test.status == NOT_GRADED:
        return f"-/{points}", "not graded", "\n".join([*test.measures, test.shown])
    return f"0/{points}", "FAIL", "\n".join([*test.measures, test.shown, *(f"hint: {hint}" for hint in test.hints)])


def _record(preset: str, folder: Path, number: str, track: str) -> Path:
    """Course check's record step: lab NN's recording of `track` ("yours", "python-solution", ...), its ctest
    test labNN.TRACK.record, run here on the GPU; where the record is, whatever became of it (the judges
    say so when it is missing or refused). ctest's lines are shown; what the harness printed goes to a log."""
    log = folder / "results" / f"lab{number}-{track}.record.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    ran = run(["ctest", "--preset", preset, "-R", f"^lab{number}\\.{track}\\.record$"], check=False, capture=True)
    log.write_text(ran.stdout + ran.stderr)
    for line in ran.stdout.splitlines():  # shown, never read for a verdict
        if re.match(r"\s*\d+/\d+ Test\s+#|\d+% tests passed|Total Test time", line):
            print(line)
    print(f"(the recording's full output: {log})")
    return records.record_path(folder, number, track)


def _grade(number: str, variant: str, python: bool, folder: Path, record: Path, labels: dict) -> LabGrade:
    """Lab NN's `record` graded by the build `folder`'s judges (scoring.grade_record, as the batch grades a
    submission), against the answer files of `variant` ("yours" or "solution") of the C++ lab or, with
    `python`, of its Python track."""
    lab = lab_folder(number)
    track = f"python-{variant}" if python else variant
    answers = python_student_folder(number, variant) if python else student_root(variant) / lab.name
    reports = folder / "results" / f"lab{number}-{track}"
    tests = graded_tests(labels, number, track)
    graded = grade_record(folder, number, lab.name, record, answers, reports, tests)
    print(f"(every judge's full output: {reports}/*.log)")
    return graded


def judge_record(number: str, preset: str, solution: bool, record: Path, python: bool = False) -> int:
    """`course check NN --record FILE`: the lab's judges on a record made earlier (here or on another
    machine), without a GPU and without running anyone's code: points, measured values, hints. With
    `python`, a record of the lab's Python track, judged by the same judges. The solution's committed record
    is judged as the solution (its answers are the solution's); any other record as yours."""
    lab = lab_folder(number)
    number = lab.name[:2]
    declared = lab_declaration.read_lab(lab)
    if python and declared.python is None:
        say(f"lab {number} has no Python version yet (labs/{lab.name}/python)")
        return COURSE_ERROR
    if not record.is_file():
        say(f"--record {record}: no such file")
        return COURSE_ERROR
    recorded_lab = records.record_lab(record)
    if recorded_lab is not None and recorded_lab != number:
        say(
            f"{record} is a record of lab {recorded_lab}, not of lab {number}: judge it with "
            f"./course check {recorded_lab} --record {record}"
        )
        return COURSE_ERROR
    whose = records.committed_whose(record, ROOT)
    solution = solution or (whose or "").removeprefix("python-") == "solution"
    variant = ("python-" if python else "") + ("solution" if solution else "yours")  # python: labNN.python-yours.*
    try:
        folder = build(preset, [f"lab{number}_judge", "streamlab_record"])
    except CommandFailed as failure:
        say(f"lab {number}'s judges do not build ({failure})")
        return COURSE_ERROR
    described = records.whose_words(record, ROOT)
    print(f"Lab {number} ({variant}): judging {described}")
    labels = read_labels(folder)
    graded = _grade(number, variant.removeprefix("python-"), python, folder, record, labels)
    if whose is not None and not solution:
        graded.tests = _answers_not_scored(graded.tests, whose, declared.answer_files)
    earned, possible = _print_points(number, variant.removeprefix("python-"), graded, labels, python)
    if whose is None and declared.answer_files:
        print(
            f"  ({', '.join(declared.answer_files)} scored as it is now: a record does not hold the answers "
            "its run was made with)"
        )
    if _wanted_more_gpus(number, graded.tests, "the machine that made this record"):
        return NO_GPU_EXIT
    _draw_recorded_timeline(record, folder, number, variant, graded.tests, described)
    return 0 if graded.tests and earned == possible else FAILING


def _answers_not_scored(tests: list[TestGrade], whose: str, answer_files: list[str]) -> list[TestGrade]:
    """`tests` with every answer test left out of the points: the committed run of `whose` was made with
    its own answers, which a record does not hold; what the test found of yours against that run stays shown."""
    maker = "the starter's" if whose.endswith("starter") else "the sample's"
    yours = " and ".join(answer_files) or "answers"
    kept: list[TestGrade] = []
    for test in tests:
        if not test.name.endswith(ANSWER_TESTS):
            kept.append(test)
            continue
        found = "agrees with" if test.status == PASSED else "does not agree with"
        reason = (
            f"not scored: this run was made with {maker} answers, which a record does not hold; "
            f"your {yours} {found} its timeline" + ("" if test.status == PASSED else f" ({test.shown})")
        )
        kept.append(replace(test, status=NOT_GRADED, reason=reason, shown=reason, hints=[]))
    return kept


def _wanted_more_gpus(number: str, tests: list[TestGrade], machine: str) -> bool:
    """Whether every graded test was not graded for want of GPUs (a lab that needs two, on `machine` with
    one: its recording says so); if so, says it and that this is no failing grade."""
    if not (tests and all(t.status == NOT_GRADED and t.shown.startswith(NEEDS_GPUS) for t in tests)):
        return False
    say(f"{tests[0].shown}: lab {number} cannot be graded on {machine}")
    say(f"exit status {NO_GPU_EXIT}: not run for want of GPUs (not a failing grade)")
    return True


def _draw_recorded_timeline(
    record: Path, folder: Path, number: str, variant: str, tests: list[TestGrade], described: str | None = None
) -> None:
    """Draws the timeline the judges judged, from the record: the lab's pipeline as it ran for grading. A
    record `described` (judged with --record) gets a picture named after its file, never your run's name.
    Where the judges refused the record itself, nothing was judged, and nothing is drawn."""
    name = f"lab{number}-{variant}" if described is None else f"lab{number}-record-{record.name.split('.')[0]}"
    trace = folder / "traces" / f"{name}.json"
    image = folder / "plots" / f"{name}.png"
    drawn = lab_declaration.read_lab(lab_folder(number)).drawn_scenario
    for earlier in (trace, image):  # never a picture of an earlier run under this one's name
        earlier.unlink(missing_ok=True)
    if records.judges_refused(test.reason for test in tests):
        print("No timeline picture: the judges refused the record (the reason is above).")
    elif not records.write_scenario_trace(record, trace, drawn):
        print("No timeline picture: the record holds no recorded scenario to draw.")
    elif plot(trace, image, folder) and described is not None:
        print(f"Timeline of the judged run, {described}: {image}")
    elif image.exists():
        whose = "your" if variant.endswith("yours") else "the solution's"
        run_of = "run on the simulated GPU (a preview)" if variant.startswith("simulated-") else "graded run"
        print(f"Timeline of {whose} {run_of}: {image}")
    else:
        print("No timeline picture: the plot tool could not draw the judged run (its message is above).")


def check_lab(number: str, preset: str, solution: bool, sanitize_it: bool = False, python: bool = False) -> int:
    """`course check NN`: runs the lab's graded tests and prints points and reasons; with
    `sanitize_it`, then the lab's program under compute-sanitizer (findings make the check fail).
    With `python`, the lab's Python version (labs/NN-topic/python) instead: recorded once, graded by the
    C++ version's judges."""
    lab = lab_folder(number)
    number = lab.name[:2]
    variant = "solution" if solution else "yours"
    track = f"python-{variant}" if python else variant
    checked = _python_checks(lab, preset, variant) if python else _cpp_checks(lab, preset, variant)
    if isinstance(checked, int):
        return checked
    folder, labels, verdicts = checked
    first = "what the Python labs import builds" if python else f"lab {number} builds"
    stop = _print_verdicts(number, f"{variant}, Python" if python else variant, verdicts, first)
    if stop is not None:
        return stop
    if not gpu_presence()[0]:
        if variant == "yours":
            save_check_without_gpu(folder, number, python, sum(not v.passed for v in verdicts))  # for `course list`
        status = _not_graded_here(number, labels, f"lab{number}.{track}.", verdicts)
        _preview_on_the_simulated_gpu(number, variant, python)
        return status  # a preview never changes the exit status: it is no grade
    record = _record(preset, folder, number, track)
    graded = _grade(number, variant, python, folder, record, labels)
    earned, possible = _print_points(number, variant, graded, labels, python)
    if variant == "yours":
        save_last_check(folder, number, python, graded.tests)  # for `course list`
    if _wanted_more_gpus(number, graded.tests, "this machine"):
        return NO_GPU_EXIT
    # The timeline of the student's own run, to look at: the run the judges judged.
    _draw_recorded_timeline(record, folder, number, track, graded.tests)
    executable = next(folder.rglob(f"lab{number}_{variant}_run"), None) if sanitize_it and not python else None
    if executable is not None:
        sanitized = sanitize_lab(number, variant, folder, executable)
        if not (sanitized.clean or sanitized.problem):  # a missing tool changes nothing
            return FAILING
    return 0 if graded.tests and earned == possible else FAILING


def _preview_on_the_simulated_gpu(number: str, variant: str, python: bool) -> None:
    """Without a GPU: lab NN's recording run on the simulated GPU (the build of preset `sim`, whose programs
    link common/simgpu's stand-in CUDA runtime, as its module streamlab does for the Python track) and judged
    by that build's judges, with the timeline drawn: what a GPU would most likely say of the student's own
    code. A preview, never a grade: the record says it is simulated, and the judges of a real build refuse
    it."""
    if os.environ.get(NO_PREVIEW):
        print(f"No preview on the simulated GPU: {NO_PREVIEW} is set.")
        return
    if number not in SIMULATED_LABS:
        print(f"No preview on the simulated GPU for lab {number}: {SIMULATED_LABS_NOT_COVERED}.")
        return
    print()
    print(f"Preview on the simulated GPU (a model of an {SIMULATED_GPU}): a preview, not your grade")
    track = f"python-{variant}" if python else variant
    runs = [TARGET] if python else [f"lab{number}_{variant}_record", f"lab{number}_{variant}_run"]
    try:
        folder = build(SIMULATED_PRESET, [*runs, f"lab{number}_judge", "streamlab_record"])
    except CommandFailed as failure:
        say(f"no preview: the simulated GPU's build failed ({failure})")
        return
    labels = read_labels(folder)
    if not any(name.startswith(f"lab{number}.{track}.") for name in labels):
        missing = "no Python module" if python else f"no tests of lab {number}"
        say(f"no preview: the simulated build has {missing} (its configure step says why)")
        return
    record = _record(SIMULATED_PRESET, folder, number, track)
    graded = _grade(number, variant, python, folder, record, labels)
    for test in graded.tests:
        why = simulated_no_verdict(number, test.name, python)
        if why:
            test.status, test.reason, test.shown, test.measures = NOT_GRADED, why, why, []
    _print_points(number, f"{variant}, simulated {SIMULATED_GPU}: a preview", graded, labels, python)
    _draw_recorded_timeline(record, folder, number, f"simulated-{track}", graded.tests)
    _preview_what_is_left_behind(number, variant, folder, python)


def _cpp_checks(lab: Path, preset: str, variant: str) -> tuple[Path, dict, list[lab_checks.Verdict]] | int:
    """What `course check` does before the GPU, C++ track: builds the recording, the judges and the program,
    checks the student's objects and answer files. The build folder, the tests' labels and the verdicts, or
    the exit status where the lab does not build."""
    number = lab.name[:2]
    try:
        # The recording program, the judges and the harness; the program; the module, which draws the timeline.
        recording = [f"lab{number}_{variant}_record", f"lab{number}_judge", "streamlab_record"]
        folder = build(preset, [*recording, f"lab{number}_{variant}_run", TARGET])
    except CommandFailed as failure:
        say(f"lab {number} does not build ({failure}); fix the compiler errors above first.")
        return FAILING
    sources = student_root(variant)
    names = lab_declaration.read_lab(lab).cpp.student_sources
    files = {f"{lab.name}/{name}": sources / lab.name / name for name in names}
    contents = {relative: path.read_bytes() for relative, path in files.items() if path.is_file()}
    if variant == "yours" and len(contents) == len(files) and already_vetted(folder, contents):
        # Unchanged since a check vetted them: compiling them alone again would find the same.
        verdicts = [lab_checks.vetted([name], [], unchanged=True) for name in names]
    else:
        verdicts = lab_checks.object_verdicts(lab, sources, folder, folder / "objcheck" / f"lab{number}-{variant}")
        if variant == "yours" and all(verdict.passed for verdict in verdicts):
            save_vetted(folder, contents)  # neither the next check nor `course pack` compiles them again
    return folder, read_labels(folder), verdicts + lab_checks.answer_verdicts(lab, sources / lab.name)


def _python_checks(lab: Path, preset: str, variant: str) -> tuple[Path, dict, list[lab_checks.Verdict]] | int:
    """The same for the Python track: builds the module and, as the track is recorded once and judged by the
    C++ track's judges, the judges and the harness; checks the student's Python and answer files."""
    number = lab.name[:2]
    if not (lab / "python").is_dir():
        say(f"lab {number} has no Python version yet (labs/{lab.name}/python)")
        return COURSE_ERROR
    try:
        folder = build(preset, [TARGET, f"lab{number}_judge", "streamlab_record"])
    except CommandFailed as failure:
        say(f"the course's Python module does not build ({failure})")
        return COURSE_ERROR
    labels = read_labels(folder)
    if not any(name.startswith(f"lab{number}.python-{variant}.") for name in labels):
        say("the Python labs' tests are not registered in this build: no Python was found (the configure step says so)")
        return COURSE_ERROR
    student = python_student_folder(number, variant)  # its answer files sit in the Python folder too
    return folder, labels, lab_checks.python_verdicts(lab, student) + lab_checks.answer_verdicts(lab, student)


def _print_verdicts(number: str, variant: str, verdicts: list[lab_checks.Verdict], first: str) -> int | None:
    """Prints what was checked without a GPU (after `first`, a check that passed to get here).
    FAILING when a refusal keeps the graded tests from running, as at the grader; else None."""
    print()
    print(f"Lab {number} ({variant}): checks made before the GPU tests")
    print(f"  {lab_checks.PASS}  {first}")
    for verdict in verdicts:
        for line in verdict.lines():
            print(f"  {line}")
    if any(verdict.refused for verdict in verdicts):
        say(f"lab {number} is refused (above): the grader runs none of its tests and scores it 0")
        return FAILING
    return None


def _not_graded_here(number: str, labels: dict, prefix: str, verdicts: list[lab_checks.Verdict]) -> int:
    """The end of `course check` without a GPU, the same for both tracks: the one no-GPU reason, what it
    leaves ungraded, the solution's picture, and the exit status (FAILING when a check above failed)."""
    _, reason = gpu_presence()
    points = [points_of(lab_labels) for name, lab_labels in labels.items() if name.startswith(prefix)]
    points = [p for p in points if p > 0]
    say(
        f"{reason}. Lab {number}'s {len(points)} graded tests ({sum(points)} points) run on the GPU: "
        "not graded here, counting neither for nor against."
    )
    _show_reference_pictures(number)
    _point_at_committed_records(number)
    failed = sum(not verdict.passed for verdict in verdicts)
    if failed:
        say(f"exit status {FAILING}: {failed} check(s) above failed; the grader would fail them too")
        return FAILING
    say(f"exit status {NO_GPU_EXIT}: not graded for want of a GPU (not a failing grade)")
    return NO_GPU_EXIT


def _point_at_committed_records(number: str) -> None:
    """Points a student without a GPU at the lab's records committed with the course: runs made on a GPU
    that the judges grade here, the solution's and typical mistakes'."""
    found = records.committed_records(ROOT, lab_folder(number).name)
    if not found:
        return
    solution = next((r for r in found if records.committed_whose(r, ROOT) == "solution"), found[0])
    mistakes = [r for r in found if (records.committed_whose(r, ROOT) or "").startswith("wrong-lab")]
    folder = solution.parent.relative_to(ROOT)
    say(
        f"Without a GPU, the judges can grade runs made on one: ./course check {number} --record "
        f"{solution.relative_to(ROOT)} (the solution's run)"
        + (f", or one of {len(mistakes)} typical mistakes in {folder}/*-wrong-*" if mistakes else "")
    )


def _print_points(number: str, variant: str, graded: LabGrade, labels: dict, python: bool = False) -> tuple[int, int]:
    """The table of graded tests `course check` prints, with what their judges measured; returns (points
    earned, points possible). The lab's share is of its track's points: the C++ labs' or, with `python`,
    the Python labs'."""
    print()
    print(f"Lab {number} ({variant}{', Python' if python else ''}): graded tests")
    name_width = max([len(test.name) for test in graded.tests] + [4])
    print(f"  {'test':<{name_width}}  {'points':>7}  result")
    for test in graded.tests:
        points_text, status, details = _format_test(test)
        print(f"  {test.name:<{name_width}}  {points_text:>7}  {status}")
        for line in details.splitlines():
            print(f"  {'':<{name_width}}  {'':>7}    {line}")
    possible = sum(test.points for test in graded.tests)
    print(
        f"  {'total':<{name_width}}  {graded.earned:>3}/{possible:<3}"
        + ("" if not graded.not_graded else f"  ({graded.not_graded} points not graded)")
    )
    track = ".python-yours." if python else ".yours."
    course_points = sum(points_of(lab_labels) for name, lab_labels in labels.items() if track in name)
    lab_count = len({name.split(".")[0] for name in labels if track in name})
    whose = "the Python track's" if python else "the course's"
    labs_word = "lab" if lab_count == 1 else "labs"
    print(f"  (lab {number} is worth {possible} of {whose} {course_points} points, over {lab_count} {labs_word})")
    return graded.earned, possible


def build_python_side(preset: str) -> Path:
    """Builds what the Python labs import: the module streamlab."""
    return build(preset, [TARGET])


def cpu_count() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
