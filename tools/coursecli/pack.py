"""`course pack`: your work in one archive, in the layout `course grade` reads, vetted as the grader will.

The archive holds each lab's student files at labs/NN-topic/NAME (the Python
track's at labs/NN-topic/python/NAME) and nothing else. It is then read back
with the grader's own code: the intake (submissions.py: what is taken, what
would be ignored, what is missing) and the check before anything runs
(objcheck.py for C++: each source compiled alone with the course's command line
and read symbol by symbol; pycheck.py for Python), so what `pack` says is what
the grader will find. A lab whose code is the starter's is not compiled (the
starter passes the check) but named, for it scores nothing; sources that
`course check` already compiled alone and passed, unchanged since, are not
compiled again.
"""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

from . import lab_checks
from .grade_settings import GradeSettings
from .grading_build import configure_course
from .objcheck import CourseCompiler, check_lab, lab_rules
from .shell import ROOT, say
from .student_files import already_vetted, committed_text, predictions
from .submissions import (
    Intake,
    LabSources,
    SubmissionRefused,
    printable,
    selected_labs,
    stage,
    take_student_sources,
)


def write_archive(labs: list[LabSources], output: Path) -> list[str]:
    """Writes the student's files of `labs` into the zip `output`; the paths it holds."""
    names = []
    output.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as archive:
        for lab in labs:
            for name in lab.files + lab.answers:
                path = ROOT.joinpath("labs", *lab.source_path(name))
                if path.is_file():
                    member = "/".join(("labs", *lab.source_path(name)))
                    archive.write(path, member)
                    names.append(member)
    return names


def course_compiler(out: Path) -> CourseCompiler | None:
    """The grader's compile commands: the course configured as `course grade` configures it, in `out`."""
    settings = GradeSettings(out=out, labs=[], all_labs=[])
    say(f"configuring the course as the grader does, in {out} (a minute the first time)")
    problem = configure_course(settings)
    if problem:
        say(problem)
    return settings.compiler


def vet_cpp(labs: list[LabSources], staged: Path, work: Path, compiler: CourseCompiler) -> list[str]:
    """The grader's check before linking, lab by lab: one line each, "" where a lab passes."""
    problems = []
    for lab in labs:
        rules = lab_rules(ROOT / "labs" / lab.folder, lab.files)
        refusal, compiler_output = check_lab(lab.folder, lab.files, staged, work, rules, compiler)
        if compiler_output:
            problems.append(f"lab {lab.number}: does not compile alone:\n{compiler_output.strip()}")
        elif refusal is not None:
            problems.append(f"lab {lab.number}: refused: {refusal.problem}")
        else:
            say(f"lab {lab.number}: compiles alone and calls only what graded code may")
    return problems


def vet_python(labs: list[LabSources], staged: Path) -> list[str]:
    problems = []
    for lab in labs:
        verdicts = lab_checks.python_verdicts(ROOT / "labs" / lab.folder, staged.joinpath(*lab.source_path("")))
        refusals = [problem for verdict in verdicts for problem in verdict.problems]
        if refusals:
            problems.append(f"lab {lab.number}: refused: {refusals[0]}")
        else:
            say(f"lab {lab.number}: its Python passes the source check")
    return problems


def report_intake(intake: Intake, labs: list[LabSources]) -> list[str]:
    """Says what the grader takes and ignores; the problems that would cost points (missing files)."""
    for lab in labs:
        taken = sorted(intake.taken.get(lab.number, {})) + sorted(intake.answers.get(lab.number, {}))
        if taken:
            say(f"lab {lab.number}: the grader takes {', '.join(taken)}")
        for name, content in sorted(intake.answers.get(lab.number, {}).items()):
            answered, asked = predictions(content.decode(errors="replace"))
            if answered < asked:
                say(f"lab {lab.number}: {name} has {asked - answered} of {asked} answers still `?` (its test scores 0)")
    for line in intake.ignored_summary():
        say(f"ignored: {line}")
    return [f"lab {number}: missing {', '.join(names)}" for number, names in sorted(intake.missing.items())]


def lab_sources(intake: Intake, lab: LabSources) -> dict[str, bytes]:
    """The lab's code in the archive, by its path under labs/ (its answer files left out)."""
    return {"/".join(lab.source_path(name)): content for name, content in intake.taken.get(lab.number, {}).items()}


def is_starter(sources: dict[str, bytes]) -> bool:
    """Whether every one of `sources` (path under labs/ -> content) is the starter as committed."""
    return all(
        content.decode(errors="replace") == committed_text(ROOT / "labs" / relative, "HEAD")
        for relative, content in sources.items()
    )


def untouched_labs(intake: Intake, labs: list[LabSources]) -> list[LabSources]:
    """The labs whose code is still the starter's: the grader takes them, and their graded tests score 0."""
    return [lab for lab in labs if is_starter(lab_sources(intake, lab))]


def pack(numbers: list[str] | None, python: bool, output: Path, work: Path) -> int:
    """`course pack`: writes `output` and vets it. 0 when the grader would take every lab as it is and none
    is an untouched starter, else 1. `work` is build/pack of the preset's build, where `course check` keeps
    which sources it vetted."""
    labs = selected_labs(numbers, python=python)
    members = write_archive(labs, output)
    say(f"wrote {output} ({len(members)} files of {len(labs)} labs); checking it as `course grade` will")
    try:
        intake = take_student_sources(output, labs, ROOT)
    except SubmissionRefused as refusal:
        say(f"the grader would refuse it: {printable(str(refusal))}")
        return 1
    problems = report_intake(intake, labs)
    present = [lab for lab in labs if lab.number not in intake.missing]
    starters = untouched_labs(intake, present)
    if not python:  # the starter passes the object check; sources `course check` vetted need no second time
        vetted = [
            lab for lab in present if lab not in starters and already_vetted(work.parent, lab_sources(intake, lab))
        ]
        for lab in vetted:
            say(f"lab {lab.number}: compiled alone and vetted by `course check {lab.number}`, unchanged since")
        present = [lab for lab in present if lab not in starters and lab not in vetted]
    with tempfile.TemporaryDirectory(prefix="course-pack-") as scratch:
        staged = Path(scratch) / "staged"
        stage(intake, present, ROOT, staged)  # a lab with a file missing is not checked (it scores 0)
        if python:
            problems += vet_python(present, staged)
        else:
            compiler = course_compiler(work) if present else None
            if present and compiler is None:
                problems.append("the course did not configure, so the sources were not checked (see above)")
            elif compiler is not None:
                problems += vet_cpp(present, staged, Path(scratch) / "objects", compiler)
    if starters:
        done = [lab.number for lab in labs if lab not in starters]
        problems.append(
            f"untouched, the starter's code as handed out (their graded tests score 0): labs "
            f"{' '.join(lab.number for lab in starters)}; finish them"
            + (f", or pack only the labs you did: ./course pack --labs {' '.join(done)}" if done else "")
        )
    for problem in problems:
        say(problem)
    if problems:
        say(f"{output}: the grader would give the labs named above 0 points as they are: fix them and pack again")
        return 1
    say(f"{output} is ready: hand it in as your instructor asks (named after you, e.g. ada.zip)")
    return 0
