"""What the grader writes: a report per student, Gradescope's results.json, the gradebook.

Every file is written whole or not at all (a temporary file, then os.replace),
so a grader killed halfway leaves no half-written result behind. A student's
grade.json is written last: it marks the student as graded. Only the grader
writes grades, and a stored grade counts only when it verifies: grade.sig holds
an HMAC of the student's folder name and grade.json under a key the grader
keeps in OUTDIR/.grader-key (0600, never visible to students' code), so a
grade edited, copied or planted by anyone else reads as not graded.

    OUTDIR/gradebook.csv
    OUTDIR/students/<student>/report.md, results.json, grade.json, labNN*.png
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import os
import re
import tempfile
import threading
from pathlib import Path

from .scoring import NO_GPU, NOT_GRADED, PASSED, LabGrade, SubmissionGrade

GRADE_FILE = "grade.json"
SIGNATURE_FILE = "grade.sig"
KEY_FILE = ".grader-key"
REPORT_LIMIT = 1 << 20  # characters of a report.md or results.json; a longer one is cut, with a note
NO_GPU_HERE = (
    "The GPU tests could not be graded here: the machine that graded this submission has no GPU. They are "
    "not scored here, and not counted as zero: your instructor grades them on a machine with an NVIDIA GPU "
    "(the course's GPU machine, or a cluster)."
)
UNVERIFIED = (
    "its grade.json does not verify (changed after grading, or not written by the grader): "
    "not counted; grade it again with --regrade"
)


def write_atomically(path: Path, text: str) -> None:
    """Writes `text` to `path` so that readers see the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors="backslashreplace", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def student_folder(out: Path, student: str) -> Path:
    """OUTDIR/students/<student>, the name reduced to characters safe in any file system."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", student).strip("._") or "student"
    return out / "students" / safe


def grader_key(out: Path) -> bytes:
    """The output folder's signing key, made on first use; readable by the grader's user only.

    Several students are graded at once, so the key is written whole to a file of this
    thread's own and then linked into place: a thread that loses the race reads the
    winner's complete key, never a file still being written."""
    path = out / KEY_FILE
    out.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        draft = out / f"{KEY_FILE}.{os.getpid()}.{threading.get_ident()}"
        handle = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(handle, "wb") as stream:
            stream.write(os.urandom(32))
        try:
            os.link(draft, path)  # atomic; fails when another thread's key is already there
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_bytes()


def _signature(folder: Path, text: bytes) -> str:
    key = grader_key(folder.parent.parent)  # OUTDIR/students/<student>
    return hmac.new(key, folder.name.encode() + b"\0" + text, hashlib.sha256).hexdigest()


def _stored_grade_text(folder: Path) -> bytes | None:
    """grade.json's bytes when it is a plain file of sane size, else None."""
    path = folder / GRADE_FILE
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 16 * REPORT_LIMIT:
            return None
        return path.read_bytes()
    except OSError:
        return None


def verifies(folder: Path) -> bool:
    """True when the folder's grade.json is exactly what the grader wrote there."""
    text = _stored_grade_text(folder)
    try:
        signature = (folder / SIGNATURE_FILE).read_text().strip()
    except (OSError, UnicodeDecodeError):
        return False
    return text is not None and hmac.compare_digest(signature, _signature(folder, text))


def load_grade(folder: Path) -> SubmissionGrade | None:
    """The grade recorded in `folder`, or None when the student is not graded (or the grade does not verify)."""
    if not verifies(folder):
        return None
    try:
        return SubmissionGrade.from_json(json.loads(_stored_grade_text(folder) or b""))
    except (ValueError, KeyError, TypeError):
        return None


def _capped(text: str) -> str:
    if len(text) <= REPORT_LIMIT:
        return text
    return text[:REPORT_LIMIT] + f"\n\n[cut by the grader: {len(text) - REPORT_LIMIT} more characters]\n"


def save_grade(folder: Path, grade: SubmissionGrade) -> None:
    """Writes the student's report.md, results.json and, last, grade.json with its signature."""
    write_atomically(folder / "report.md", _capped(report_markdown(grade)))
    results = gradescope_results(grade)
    results["output"] = _capped(results["output"])
    write_atomically(folder / "results.json", json.dumps(results, indent=2) + "\n")
    text = json.dumps(grade.to_json(), indent=2) + "\n"
    write_atomically(folder / SIGNATURE_FILE, _signature(folder, text.encode()) + "\n")
    write_atomically(folder / GRADE_FILE, text)


# ------------------------------------------------------------------ report.md


def lab_points(lab: LabGrade) -> str:
    """'7/14', '7/10 (+4 not graded)' or 'not graded (14 points)'."""
    if not lab.graded:
        return f"not graded ({lab.not_graded} points)"
    text = f"{lab.earned}/{lab.possible}"
    return text + (f" (+{lab.not_graded} not graded)" if lab.not_graded else "")


def not_graded_note(points: int) -> str:
    """The gradebook's and the console's words for points that were not graded (no GPU, say)."""
    return f"{points} points not graded"


def checks_passed(lab: LabGrade) -> str:
    """'3/5' of the checks without a GPU (lab_checks.py) passed."""
    return f"{sum(not check['problems'] for check in lab.checks)}/{len(lab.checks)}"


def check_lines(lab: LabGrade) -> list[str]:
    """What was checked without a GPU and what was not: `pass  what`, `FAIL  what: problem; ...`."""
    lines = [
        f"{'FAIL' if check['problems'] else 'pass'}  {check['what']}"
        + (f": {'; '.join(check['problems'])}" if check["problems"] else "")
        for check in lab.checks
    ]
    if lab.checks and lab.not_graded:
        lines.append(f"not checked here: the GPU tests ({lab.not_graded} points), not graded (not counted as zero)")
    return lines


def test_details(test) -> list[str]:
    """What a report says of one graded test (scoring.TestGrade): measured values, its reason, its hints."""
    return [*test.measures, *([test.reason] if test.reason else []), *(f"hint: {hint}" for hint in test.hints)]


def _notes(grade: SubmissionGrade) -> list[str]:
    """The notes of a student's row: the submission's problem, each lab's, or, where a lab's GPU tests were not
    graded, its checks; edited course files; the points not graded."""
    notes = [grade.problem] if grade.problem else []
    notes += [f"lab{lab.number}: {lab.problem}" for lab in grade.labs if lab.problem]
    notes += [
        f"lab{lab.number}: {checks_passed(lab)} checks without a GPU passed"
        for lab in grade.labs
        if lab.not_graded and lab.checks
    ]
    edited = sum("edited course file" in entry for entry in grade.ignored)
    if edited:
        notes.append(f"{edited} edited course file(s) ignored")
    if grade.not_graded:
        notes.append(not_graded_note(grade.not_graded))
    return notes


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def report_markdown(grade: SubmissionGrade) -> str:
    """The student's report: points per lab and test, measured values, reasons, timelines."""
    lines = [f"# Grade report: {grade.student}", ""]
    if grade.gpu:
        lines += [f"Graded on: {grade.gpu}", ""]
    if grade.isolation:
        lines += [f"Isolation: {grade.isolation}", ""]
    if grade.problem:
        lines += [f"**Not graded:** {grade.problem}", ""]
    total = f"**Total: {grade.earned}/{grade.possible}**"
    if grade.not_graded:
        total += f" ({grade.not_graded} points not graded: they count neither for nor against)"
    lines += [total, "", "| lab | points |", "|---|---|"]
    lines += [f"| {lab.folder} | {lab_points(lab)} |" for lab in grade.labs]
    for lab in grade.labs:
        lines += ["", f"## Lab {lab.folder}: {lab_points(lab)}", ""]
        if lab.problem:
            lines += [f"**{lab.problem}**: every test of this lab scores 0.", ""]
        if lab.details:
            lines += ["```", lab.details.rstrip(), "```", ""]
        if lab.checks:
            lines += [
                f"Checked without a GPU ({checks_passed(lab)} passed):",
                "",
                *(f"- {line}" for line in check_lines(lab)),
                "",
            ]
        lines += ["| test | points | result | details |", "|---|---|---|---|"]
        for test in lab.tests:
            points = f"{test.earned}/{test.points}" if test.status != NOT_GRADED else f"-/{test.points}"
            lines.append(f"| {test.name} | {points} | {test.status} | {_cell(chr(10).join(test_details(test)))} |")
        if lab.timelines:
            lines.append("")
            lines += [f"![timeline of lab {lab.number}: {image}]({image})" for image in lab.timelines]
        if lab.timeline_note:
            lines += ["", lab.timeline_note]
        if lab.sanitizer:
            lines += [
                "",
                "compute-sanitizer (your program run with `--no-trace`; "
                f"`./course check {lab.number} --sanitize` shows the same):",
                "",
                "```",
                *lab.sanitizer,
                "```",
            ]
    if grade.ignored:
        lines += [
            "",
            "## Files not graded",
            "",
            "Only each lab's student sources and answer files are taken; tests, CMake files, `common/` and "
            "thresholds are always the course's own.",
            "",
        ]
        lines += [f"- {_cell(entry)}" for entry in grade.ignored]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ Gradescope


def gradescope_results(grade: SubmissionGrade) -> dict:
    """Gradescope's autograder results: a test per graded test, and the total score.

    A test that was not graded (no GPU) has max_score 0, so it counts neither way.
    """
    tests = []
    for lab in grade.labs:
        for test in lab.tests:
            entry = {
                "name": f"Lab {lab.number}: {test.name}",
                "score": test.earned,
                "max_score": test.points if test.status != NOT_GRADED else 0,
                "output": "\n".join(test_details(test)),
            }
            if test.status == NOT_GRADED:
                entry["name"] += f" - {test.reason or NOT_GRADED}"
            else:
                entry["status"] = "passed" if test.status == PASSED else "failed"
            if lab.details and test.status != PASSED:
                entry["output"] += "\n" + lab.details
            tests.append(entry)
    summary = []
    for lab in grade.labs:
        summary.append(f"{lab.folder}: {lab_points(lab)}" + (f" ({lab.problem})" if lab.problem else ""))
        summary += [f"  {line}" for line in check_lines(lab)]
    if grade.problem:
        summary.insert(0, f"Not graded: {grade.problem}")
    if any(test.reason == NO_GPU for lab in grade.labs for test in lab.tests):
        summary[:0] = [NO_GPU_HERE, ""]
    if grade.isolation:
        summary.append(f"Isolation: {grade.isolation}")
    if grade.ignored:
        summary += ["", "Files not graded:", *grade.ignored]
    return {"score": grade.earned, "output": "\n".join(summary), "tests": tests}


# ------------------------------------------------------------------ gradebook.csv


def _graded_labs(grade: SubmissionGrade, lab_numbers: list[str]) -> list[LabGrade | None]:
    """The grade's lab of each of `lab_numbers`, in order; None where that lab was not graded."""
    by_number = {lab.number: lab for lab in grade.labs if lab.graded}
    return [by_number.get(number) for number in lab_numbers]


def gradebook_csv(grades: list[SubmissionGrade], lab_numbers: list[str]) -> str:
    """A row per student, a column per lab (blank where nothing was graded), total and notes."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", *(f"lab{n}" for n in lab_numbers), "total", "out_of", "not_graded", "notes"])
    for grade in sorted(grades, key=lambda g: g.student):
        cells = [str(lab.earned) if lab else "" for lab in _graded_labs(grade, lab_numbers)]
        notes = "; ".join(_notes(grade))
        writer.writerow([grade.student, *cells, grade.earned, grade.possible, grade.not_graded, notes])
    return buffer.getvalue()


def write_gradebook(out: Path, lab_numbers: list[str]) -> list[SubmissionGrade]:
    """Rebuilds OUTDIR/gradebook.csv from every graded student; returns their grades."""
    grades = []
    for folder in sorted((out / "students").glob("*")):
        grade = load_grade(folder)
        if grade is None and (folder / GRADE_FILE).exists():  # never silently: the instructor sees the row
            grade = SubmissionGrade(folder.name, problem=UNVERIFIED)
        if grade is not None:
            grades.append(grade)
    write_atomically(out / "gradebook.csv", gradebook_csv(grades, lab_numbers))
    return grades


def summary_table(grades: list[SubmissionGrade], lab_numbers: list[str]) -> str:
    """The table printed at the end of a batch."""
    width = max([len(g.student) for g in grades] + [7])
    header = f"{'student':<{width}}  " + "  ".join(f"{'lab' + n:>8}" for n in lab_numbers) + f"  {'total':>9}  notes"
    rows = [header, "-" * len(header)]
    for grade in sorted(grades, key=lambda g: g.student):
        cells = [f"{f'{lab.earned}/{lab.possible}' if lab else '-':>8}" for lab in _graded_labs(grade, lab_numbers)]
        total = f"{grade.earned}/{grade.possible}"
        rows.append(f"{grade.student:<{width}}  " + "  ".join(cells) + f"  {total:>9}  {'; '.join(_notes(grade))}")
    return "\n".join(rows)
