"""Keeps starters and solutions in step: `.venv/bin/python -m coursecli.check_labs` (from `course setup`).

For every lab (labs/NN-topic with a lab.json):
  - solutions/NN-topic holds exactly the lab's student_sources and answer_files, and so does the starter;
  - an answer file of the starter differs from the solution's (the starter's is unanswered);
  - every starter source has TODO(labNN) blocks, and no solution mentions TODO;
  - outside its TODO blocks a starter is line for line its solution;
  - the lab README has every section the course's READMEs have;
  - a lab that needs several GPUs (`gpus`) asks for them where its code runs, its recording
    program (`record_scenarios(argc, argv, ..., /*gpus=*/N)`).

A TODO block opens with a line containing `TODO(labNN):` and closes with a
line containing `TODO(labNN) end`; everything between is the student's.
Standard library only; `course test` runs it. lab.json is read by lab_declaration.py, against
common/lab.schema.json; a malformed one is a problem of its lab, said in one line.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

from .lab_declaration import LAB_FILE, LabDeclaration, LabDeclarationError, lab_folders, read_lab
from .shell import ROOT

README_SECTIONS = [
    "Goal",
    "Article sections",
    "Concepts and CUDA APIs",
    "Tasks",
    "Build, run, check",
    "When the numbers are wrong",
    "What the grader checks",
    "Hints",
    "Pitfalls",
    "Further reading",
]


def todo_blocks(lines: list[str], lab: str) -> tuple[list[tuple[int, int]], list[str]]:
    """(first, last) line indexes of each TODO block, inclusive, and any problems."""
    blocks, problems, start = [], [], None
    opener, closer = f"TODO({lab}):", f"TODO({lab}) end"
    for i, line in enumerate(lines):
        if closer in line:
            if start is None:
                problems.append(f"line {i + 1}: '{closer}' without an opening '{opener}'")
            else:
                blocks.append((start, i))
                start = None
        elif opener in line:
            if start is not None:
                problems.append(f"line {start + 1}: TODO block not closed before line {i + 1}")
            start = i
    if start is not None:
        problems.append(f"line {start + 1}: TODO block never closed with '{closer}'")
    return blocks, problems


def differences_outside_blocks(starter: list[str], solution: list[str], blocks: list[tuple[int, int]]) -> list[str]:
    """Lines where the starter differs from its solution outside the TODO blocks."""

    def inside(index: int) -> bool:
        return any(first <= index <= last for first, last in blocks)

    problems = []
    matcher = difflib.SequenceMatcher(a=starter, b=solution, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            ok = all(inside(i) for i in range(i1, i2))
        else:  # an insertion sits between two lines
            ok = inside(i1 - 1) or inside(i1)
        if not ok:
            where = f"starter line {i1 + 1}" + (f"-{i2}" if i2 > i1 + 1 else "")
            sample = (solution[j1] if j2 > j1 else starter[i1]).strip()
            problems.append(f"{where} differs from the solution outside a TODO block (near: {sample[:60]!r})")
    return problems


def readme_problems(readme: Path) -> list[str]:
    if not readme.exists():
        return ["README.md is missing"]
    headings = [h.strip().lower() for h in re.findall(r"^##\s+(.+)$", readme.read_text(), re.M)]
    return [
        f"README.md has no '## {section}' section"
        for section in README_SECTIONS
        if not any(h.startswith(section.lower()) for h in headings)
    ]


def check_lab(lab_dir: Path, solutions_root: Path) -> list[str]:
    """Every problem found in one lab, as 'NN-topic: ...' lines."""
    try:
        declared = read_lab(lab_dir)
    except LabDeclarationError as error:
        return [f"{lab_dir.name}: {error}"]
    lab = "lab" + lab_dir.name[:2]
    problems: list[str] = []
    solution_dir = solutions_root / lab_dir.name
    if not solution_dir.is_dir():
        return [f"{lab_dir.name}: no solutions/{lab_dir.name} folder"]
    sources, answers = list(declared.cpp.student_sources), list(declared.answer_files)
    solution_files = sorted(p.name for p in solution_dir.iterdir() if p.is_file())
    if solution_files != sorted(sources + answers):
        problems.append(
            f"solutions/{lab_dir.name} holds {solution_files}, the lab's student files are {sorted(sources + answers)}"
        )
    for name in answers + sources:
        starter_path, solution_path = lab_dir / name, solution_dir / name
        if not starter_path.is_file() or not solution_path.is_file():
            kind = "answer file " if name in answers else ""
            problems.append(f"{name}: {kind}missing in {'labs' if not starter_path.is_file() else 'solutions'}")
            continue
        if name in answers:  # the starter ships the unanswered template, the solution the answer
            if starter_path.read_text() == solution_path.read_text():
                problems.append(f"{name}: the starter's answer file is the solution's (it must be unanswered)")
            continue
        starter = starter_path.read_text().splitlines()
        solution = solution_path.read_text().splitlines()
        blocks, block_problems = todo_blocks(starter, lab)
        problems += [f"{name}: {p}" for p in block_problems]
        if not blocks:
            problems.append(f"{name}: the starter has no TODO({lab}) block")
        if any("TODO" in line for line in solution):
            problems.append(f"{name}: the solution still has a TODO marker")
        problems += [f"{name}: {p}" for p in differences_outside_blocks(starter, solution, blocks)]
    problems += readme_problems(lab_dir / "README.md")
    problems += gpus_problems(lab_dir, declared)
    return [f"{lab_dir.name}: {p}" for p in problems]


def gpus_problems(lab_dir: Path, declared: LabDeclaration) -> list[str]:
    """A lab that needs several GPUs (`gpus` N > 1) must say so where its code runs too, so that
    where fewer are present the grader counts it as not graded: its recording program (recorder) passes
    N to record_scenarios, whose record then says only why, and its judges skip with that reason."""
    needed = declared.gpus
    if needed <= 1:
        return []
    recorder, asks = lab_dir / declared.recorder, f"/*gpus=*/{needed})"
    if not recorder.is_file() or asks not in recorder.read_text():
        needs = f"lab.json needs {needed} GPUs (gpus {needed})"
        return [f"{needs}, but its recording program never asks for them with {asks}"]
    return []


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    args = parser.parse_args(argv)
    labs = lab_folders(args.root)
    problems = [p for lab_dir in labs for p in check_lab(lab_dir, args.root / "solutions")]
    orphans = [
        p.name
        for p in (args.root / "solutions").glob("[0-9][0-9]-*")
        if not (args.root / "labs" / p.name / LAB_FILE).exists()
    ]
    problems += [f"solutions/{name}: no matching lab" for name in orphans]
    for problem in problems:
        print(f"check_labs: {problem}")
    if problems:
        return 1
    print(f"check_labs: {len(labs)} lab(s) consistent: starters match solutions outside their TODO blocks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
