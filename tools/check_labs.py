#!/usr/bin/env python3
"""Keeps starters and solutions in step.

For every lab (labs/NN-topic with a lab.cmake):
  - solutions/NN-topic holds exactly the lab's STUDENT_SOURCES and ANSWER_FILES, and so does the starter;
  - an answer file of the starter differs from the solution's (the starter's is unanswered);
  - every starter source has TODO(labNN) blocks, and no solution mentions TODO;
  - outside its TODO blocks a starter is line for line its solution;
  - the lab README has every section the course's READMEs have;
  - a lab that needs several GPUs (`GPUS N`) has tests that ask for them (SL_REQUIRE_GPUS(N)).

A TODO block opens with a line containing `TODO(labNN):` and closes with a
line containing `TODO(labNN) end`; everything between is the student's.
Standard library only; `course test` runs it.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

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


LAB_KEYWORDS = (
    "NUMBER",
    "TOPIC",
    "STUDENT_SOURCES",
    "ANSWER_FILES",
    "PROGRAM",
    "TEST_SOURCE",
    "TIMEOUT",
    "SANITIZE_POINTS",
    "TESTS",
    "ALLOW_SYMBOLS",
    "ALLOW_ASM",
    "GPUS",
    "BINDINGS",
)


def _lab_list(lab_cmake: Path, keyword: str) -> list[str]:
    """The words a lab.cmake lists after `keyword`, up to the next keyword (empty when absent)."""
    text = re.sub(r"#.*", "", lab_cmake.read_text())
    text = text.split("streamlab_add_python_lab(")[0]  # the C++ lab's declaration only
    others = "|".join(k for k in LAB_KEYWORDS if k != keyword)
    match = re.search(rf"\b{keyword}\s+(.*?)\s*(?:\b(?:{others})\b|\))", text, re.S)
    return match.group(1).split() if match else []


def student_sources(lab_cmake: Path) -> list[str]:
    """The STUDENT_SOURCES listed in a lab.cmake: the files of the student's that are compiled."""
    return _lab_list(lab_cmake, "STUDENT_SOURCES")


def _python_lab_list(lab_cmake: Path, keyword: str) -> list[str]:
    """The words the Python version's declaration (streamlab_add_python_lab) lists after `keyword`."""
    text = re.sub(r"#.*", "", lab_cmake.read_text())
    block = text.partition("streamlab_add_python_lab(")[2]
    others = "|".join(k for k in LAB_KEYWORDS if k != keyword)
    match = re.search(rf"\b{keyword}\s+(.*?)\s*(?:\b(?:{others})\b|\))", block, re.S)
    return match.group(1).split() if match else []


def python_student_sources(lab_cmake: Path) -> list[str]:
    """The STUDENT_SOURCES of a lab's Python version (its streamlab_add_python_lab), empty when it has none."""
    return _python_lab_list(lab_cmake, "STUDENT_SOURCES")


def lab_points(lab_cmake: Path, python: bool = False) -> int:
    """What a lab's graded tests are worth: the sum over its TESTS triples (name, gpu|cpu, points) of the
    C++ lab or, with `python`, of its Python version (0 when it has none)."""
    words = _python_lab_list(lab_cmake, "TESTS") if python else _lab_list(lab_cmake, "TESTS")
    return sum(int(points) for points in words[2::3] if points.isdigit())


def gpus_needed(lab_cmake: Path) -> int:
    """How many GPUs a lab's graded tests need at once: its `GPUS N` (1 when absent, as in CMake)."""
    words = _lab_list(lab_cmake, "GPUS")
    return int(words[0]) if words and words[0].isdigit() else 1


def answer_files(lab_cmake: Path) -> list[str]:
    """The ANSWER_FILES listed in a lab.cmake: the student's answers (a prediction) that a
    graded test reads; never compiled, and optional in a submission."""
    return _lab_list(lab_cmake, "ANSWER_FILES")


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
        starter_lines = range(i1, i2) if i2 > i1 else [i1 - 1, i1]  # an insertion sits between two lines
        if i2 > i1:
            ok = all(inside(i) for i in starter_lines)
        else:
            ok = any(inside(i) for i in starter_lines)
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
    """Every problem found in one lab, as 'labs/NN-topic: ...' lines."""
    lab = "lab" + lab_dir.name[:2]
    problems: list[str] = []
    solution_dir = solutions_root / lab_dir.name
    sources = student_sources(lab_dir / "lab.cmake")
    if not sources:
        return [f"{lab_dir.name}: lab.cmake lists no STUDENT_SOURCES"]
    if not solution_dir.is_dir():
        return [f"{lab_dir.name}: no solutions/{lab_dir.name} folder"]
    answers = answer_files(lab_dir / "lab.cmake")
    solution_files = sorted(p.name for p in solution_dir.iterdir() if p.is_file())
    if solution_files != sorted(sources + answers):
        problems.append(
            f"solutions/{lab_dir.name} holds {solution_files}, the lab's student files are {sorted(sources + answers)}"
        )
    for name in answers:  # the starter ships the unanswered template, the solution the answer
        if not (lab_dir / name).is_file() or not (solution_dir / name).is_file():
            problems.append(
                f"{name}: answer file missing in {'labs' if not (lab_dir / name).is_file() else 'solutions'}"
            )
        elif (lab_dir / name).read_text() == (solution_dir / name).read_text():
            problems.append(f"{name}: the starter's answer file is the solution's (it must be unanswered)")
    for name in sources:
        starter_path, solution_path = lab_dir / name, solution_dir / name
        if not starter_path.exists() or not solution_path.exists():
            problems.append(f"{name}: missing in {'labs' if not starter_path.exists() else 'solutions'}")
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
    problems += gpus_problems(lab_dir)
    return [f"{lab_dir.name}: {p}" for p in problems]


def gpus_problems(lab_dir: Path) -> list[str]:
    """A lab that needs several GPUs (`GPUS N`, N > 1) must say so in its tests too: they skip with
    SL_REQUIRE_GPUS(N) where fewer are present, which the grader counts as not graded."""
    words = _lab_list(lab_dir / "lab.cmake", "GPUS")
    if words and not (words[0].isdigit() and 1 <= int(words[0]) <= 8):
        return [f"lab.cmake: GPUS must be a number of GPUs from 1 to 8, not {words[0]!r}"]
    needed = int(words[0]) if words else 1
    tests = _lab_list(lab_dir / "lab.cmake", "TEST_SOURCE")
    source = lab_dir / tests[0] if tests else None
    if needed > 1 and (source is None or f"SL_REQUIRE_GPUS({needed})" not in source.read_text()):
        return [
            f"lab.cmake needs {needed} GPUs (GPUS {needed}), but its tests never ask for them "
            f"with SL_REQUIRE_GPUS({needed})"
        ]
    return []


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(__file__).resolve().parents[1],
        help="repository root (default: this checkout)",
    )
    args = parser.parse_args(argv)
    labs = sorted(p for p in (args.root / "labs").glob("[0-9][0-9]-*") if (p / "lab.cmake").exists())
    problems = [p for lab_dir in labs for p in check_lab(lab_dir, args.root / "solutions")]
    orphans = [
        p.name
        for p in (args.root / "solutions").glob("[0-9][0-9]-*")
        if not (args.root / "labs" / p.name / "lab.cmake").exists()
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
