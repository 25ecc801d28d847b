"""`course list`: the labs, what each is worth, what of each you have done, and your last checked score."""

from __future__ import annotations

from pathlib import Path

from .lab_declaration import read_lab
from .student_files import committed_text, lab_files, predictions, read_last_checks, todo_blocks_left, track_name


def code_state(lab: Path, python: bool, ref: str) -> str:
    """Your code of one track, in a word or two: untouched (as committed), edited (N TODO blocks still as
    the starter has them), missing, or - where the track does not exist."""
    sources = [f for f in lab_files(lab, python) if not f.answer]
    if not sources:
        return "-"
    if not all(f.path.is_file() for f in sources):
        return "missing"
    texts = [f.path.read_text(errors="replace") for f in sources]
    starters = [committed_text(f.path, ref) for f in sources]
    if texts == starters:
        return "untouched"
    left = sum(todo_blocks_left(text, starter) for text, starter in zip(texts, starters))
    return f"edited, {left} TODO left" if left else "edited"


def prediction_state(lab: Path) -> str:
    """How many of the lab's predictions are answered ("1/2 answered"), or - where it asks for none."""
    answers = [f for f in lab_files(lab, python=False) if f.answer]
    if not answers:
        return "-"
    answered = asked = 0
    for f in answers:
        if f.path.is_file():
            done, total = predictions(f.path.read_text(errors="replace"))
            answered, asked = answered + done, asked + total
    return f"{answered}/{asked} answered" if asked else "missing"


def score_text(score: dict | None) -> str:
    """One track's last checked score: "12/16 (2026-12-03 09:31)", with the points not graded said."""
    if not score:
        return "not checked"
    if score.get("without_gpu"):
        failed = score.get("checks_failed", 0)
        verdict = f"{failed} check(s) failed" if failed else "checks passed"
        return f"without a GPU: {verdict}, tests not run ({score.get('when', '?')})"
    text = f"{score.get('earned', 0)}/{score.get('possible', 0)}"
    if score.get("not_graded"):
        text += f", {score['not_graded']} not graded"
    return f"{text} ({score.get('when', '?')})"


def lab_rows(labs: dict[str, Path], build: Path, ref: str) -> list[list[str]]:
    """One row per lab: number, topic, points, your C++ and Python code, predictions, last checks."""
    checks = read_last_checks(build)
    rows = []
    for number, lab in labs.items():
        declared = read_lab(lab)
        python_points = declared.python.points if declared.python else 0
        scores = checks.get(number, {})
        last = [
            f"{name} {score_text(scores.get(track_name(python)))}"
            for name, python in (("C++", False), ("Python", True))
            if track_name(python) in scores or not python
        ]
        rows.append(
            [
                number,
                lab.name[3:],
                f"{declared.cpp.points}" + (f" / {python_points}" if python_points else " / -"),
                code_state(lab, False, ref),
                code_state(lab, True, ref),
                prediction_state(lab),
                "; ".join(last),
            ]
        )
    return rows


HEADER = ["lab", "topic", "points C++ / Python", "your C++", "your Python", "prediction", "last check"]


def print_labs(labs: dict[str, Path], build: Path, ref: str = "HEAD") -> int:
    """Prints the table of `course list`."""
    rows = [HEADER, *lab_rows(labs, build, ref)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER) - 1)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1])
    print()
    print(
        f"'untouched': as committed in git ({ref}); 'N TODO left': blocks between TODO markers still as "
        "the starter has them. "
        "Your last check is what `course check NN` last scored here."
    )
    print(
        "course check NN grades a lab; course reset NN puts it back to its starter; course pack makes what you hand in."
    )
    return 0
