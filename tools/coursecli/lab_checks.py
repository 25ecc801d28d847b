"""The checks of a student's lab that need no GPU, in the grader's own words.

`course check` makes them on every machine, before the graded tests (which
need a GPU), and the batch records them in each student's report
(submission_grader.py), so that a machine without a GPU still tells a starter from a
solution:

- C++: each student source compiled alone and vetted, symbol by symbol
  (objcheck.py: a refused call scores the lab 0 at the grader); each answer
  file read and every answer's form checked (answers.py);
- Python: each student file vetted (pycheck.py), likewise scored 0 when refused;
- in a batch, also: whether each student file differs from the starter, and
  whether the lab builds (compiled alone, then linked with the course's tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import answers, objcheck, pycheck
from .lab_declaration import read_lab
from .shell import ROOT

PASS, FAIL = "pass", "FAIL"


@dataclass
class Verdict:
    """One check: what was checked, whether it passed, and the grader's lines when it did not."""

    what: str  # "null_stream.cu vetted (compiled alone, symbol by symbol)"
    problems: list[str]
    refused: bool = False  # the grader runs nothing of a refused lab: its tests would not run either

    @property
    def passed(self) -> bool:
        return not self.problems

    def to_json(self) -> dict:
        """What a student's grade.json keeps of it (LabGrade.checks)."""
        return {"what": self.what, "problems": self.problems}

    def lines(self) -> list[str]:
        """`pass  what`, or `FAIL  what` with the grader's lines under it."""
        return [f"{PASS if self.passed else FAIL}  {self.what}", *(f"      {p}" for p in self.problems)]


def vetted(names: list[str], problems: list[str], unchanged: bool = False) -> Verdict:
    """The vetting of student files, as the grader words its refusal (one line per finding); `unchanged`:
    vetted by an earlier check, and not changed since."""
    since = " (unchanged since an earlier check vetted it)" if unchanged else ""
    return Verdict(
        f"{', '.join(names)} vetted: nothing graded code may not do{since}", problems, refused=bool(problems)
    )


def changed_from_starter(names: list[str], folder: Path, starter: Path) -> list[Verdict]:
    """Whether each student file in `folder` differs from the starter's in `starter` (an untouched
    starter compiles and is vetted like a solution: without a GPU this tells them apart)."""
    return [
        Verdict(
            f"{name} differs from the starter",
            [f"{name} is the starter's, unchanged"]
            if (folder / name).read_bytes() == (starter / name).read_bytes()
            else [],
        )
        for name in names
    ]


def object_verdicts(lab: Path, sources: Path, build: Path, work: Path) -> list[Verdict]:
    """Lab `lab`'s student sources (under `sources`/lab.name) compiled alone with the course build's
    compile commands (`build`/compile_commands.json) and vetted as the grader vets them; the student's own
    files in labs/, which `build` has just compiled, are vetted in the build's objects."""
    files = list(read_lab(lab).cpp.student_sources)
    if not (build / "compile_commands.json").is_file():
        return [Verdict("the object check", [f"not made: {build} has no compile_commands.json (configure it again)"])]
    compiler = objcheck.CourseCompiler(build, ROOT, reuse_built_objects=True)  # the build just made them
    rules = objcheck.lab_rules(lab, files)
    verdicts = []
    for name in files:  # one at a time: each file gets its own verdict
        refusal, compiler_output = objcheck.check_lab(lab.name, [name], sources, work, rules, compiler)
        if compiler_output:  # the build has shown the errors in full
            lines = compiler_output.strip().splitlines() or ["no output"]
            first = next((line for line in lines if "error" in line.lower()), lines[-1])
            verdicts.append(Verdict(f"{name} compiles alone", [first]))
        else:
            verdicts.append(vetted([name], refusal.details.splitlines() if refusal else []))
    return verdicts


def answer_verdicts(lab: Path, folder: Path) -> list[Verdict]:
    """Each of the lab's answer files (answer_files) in `folder`: every question answered, in a form its
    test can score."""
    number = lab.name[:2]
    return [
        Verdict(
            f"{name}: every answer given, in a form the grader can score",
            answers.answer_problems(number, name, folder / name),
        )
        for name in read_lab(lab).answer_files
    ]


def python_verdicts(lab: Path, folder: Path) -> list[Verdict]:
    """Each of the lab's Python student files (in `folder`) vetted as the grader vets it."""
    verdicts = []
    python = read_lab(lab).python
    for name in python.student_sources if python else ():
        path = folder / name
        text = path.read_bytes().decode(errors="replace") if path.is_file() else ""
        verdicts.append(vetted([name], pycheck.check_python_source(name, text, pycheck.lab_rules(lab.name[:2]))))
    return verdicts
