"""A student's own files of each lab, and what `course list`, `reset` and `pack` need to know of them.

A lab's files are the ones its lab.json names (the lists `coursecli/lab_declaration.py`
reads, the same the grader takes from a submission): for the C++ track its
student_sources and answer_files (`prediction.txt`), for the Python track the
student_sources of its Python version, in `labs/NN-topic/python/`. The starter
of a file is its committed version in git: what `course reset` puts back and
what `course list` compares with to tell an edited file from an untouched one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .lab_declaration import read_lab
from .scoring import NOT_GRADED, TestGrade
from .shell import ROOT

LAST_CHECK = "last-check.json"  # in the build folder's results/: `course check`'s latest score of each lab
# In the build folder's results/: the sources `course check` compiled alone and found nothing to refuse in,
# by their content, so that neither the next `course check` nor `course pack` compiles them again.
VETTED = "vetted.json"
OBJECT_CHECK = ROOT / "tools" / "coursecli" / "objcheck.py"  # what vets them: a new version vets again


@dataclass
class LabFile:
    """One file of a lab that is the student's: its path under the repository and whether it is an answer file."""

    path: Path
    answer: bool = False

    @property
    def relative(self) -> str:
        return self.path.relative_to(ROOT).as_posix()


def lab_files(lab: Path, python: bool) -> list[LabFile]:
    """The student's files of the lab folder `lab` (labs/NN-topic): the C++ track's or the Python track's."""
    declared = read_lab(lab)
    if python:
        return [LabFile(lab / "python" / name) for name in (declared.python.student_sources if declared.python else ())]
    return [LabFile(lab / name) for name in declared.cpp.student_sources] + [
        LabFile(lab / name, answer=True) for name in declared.answer_files
    ]


def _git_output(*arguments: str) -> str | None:
    """What `git ARGUMENTS` prints in the repository, or None where it fails (or git is missing)."""
    try:
        shown = subprocess.run(["git", "-C", str(ROOT), *arguments], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return shown.stdout.decode(errors="replace") if shown.returncode == 0 else None


def committed_text(path: Path, ref: str) -> str | None:
    """The file's text as committed in `ref` (git show REF:PATH), or None where git has no such version."""
    return _git_output("show", f"{ref}:{path.relative_to(ROOT).as_posix()}")


def commit_name(ref: str) -> str | None:
    """`ref` as its short hash and date ("a0ebae0 (2026-12-03)"), or None when git does not know it."""
    shown = _git_output("log", "-1", "--date=short", "--format=%h (%ad)", ref, "--")
    return shown.strip() if shown else None


def predictions(text: str) -> tuple[int, int]:
    """(answered, asked) of an answer file: its `key: value` lines outside `#` comments, a value of `?` or
    nothing being unanswered (the rule of common/support/src/answers.cpp, which grades the file)."""
    values = []
    for line in text.splitlines():
        content = line.split("#", 1)[0].strip()
        key, colon, value = content.partition(":")
        if content and colon and key.strip():
            values.append(value.strip())
    return sum(1 for v in values if v not in ("", "?")), len(values)


# A TODO block: from its `TODO(labNN): ...` line to its `TODO(labNN) end` line. The README asks the student
# to write between these lines and keep them, so a marker left says nothing; a block's body does.
TODO_BLOCK = re.compile(r"TODO\(lab\d\d\):.*?\n(.*?)TODO\(lab\d\d\) end", re.S)


def todo_blocks(text: str) -> list[str]:
    """The body of each TODO block in `text`, in order (the comment lines that open a block included)."""
    return TODO_BLOCK.findall(text)


def todo_blocks_left(text: str, starter: str | None) -> int:
    """How many of the `starter`'s TODO blocks `text` still has as the starter has them: the ones not done
    yet. Blocks are matched in order; where the markers no longer pair up with the starter's (some were
    deleted), the blocks still found as in the starter."""
    if starter is None:
        return 0
    starter_blocks, blocks = todo_blocks(starter), todo_blocks(text)
    if len(blocks) == len(starter_blocks):
        return sum(block == untouched for block, untouched in zip(blocks, starter_blocks))
    return sum(block in starter_blocks for block in blocks)


def track_name(python: bool) -> str:
    return "python" if python else "cpp"


def save_last_check(build: Path, number: str, python: bool, tests: list[TestGrade]) -> None:
    """Keeps `course check NN`'s score of the student's code in build/results/last-check.json for `course list`."""
    graded = [test for test in tests if test.status != NOT_GRADED]
    score = {
        "earned": sum(test.earned for test in tests),
        "possible": sum(test.points for test in tests),
        "not_graded": sum(test.points for test in tests if test.status == NOT_GRADED),
        "graded_tests": len(graded),
        "when": time.strftime("%Y-%m-%d %H:%M"),
    }
    _keep_check(build, number, python, score)


def save_check_without_gpu(build: Path, number: str, python: bool, checks_failed: int) -> None:
    """Keeps a `course check NN` made without a GPU for `course list`: the checks that need none, and how
    many of them failed; the graded tests did not run."""
    score = {"without_gpu": True, "checks_failed": checks_failed, "when": time.strftime("%Y-%m-%d %H:%M")}
    _keep_check(build, number, python, score)


def _keep_check(build: Path, number: str, python: bool, score: dict) -> None:
    """Writes `score` as lab `number`'s last check of one track into build/results/last-check.json."""
    scores = read_last_checks(build)
    scores.setdefault(number, {})[track_name(python)] = score
    _write_results(build, LAST_CHECK, scores)


def _read_results(build: Path, name: str) -> dict:
    """The JSON object build/results/`name` holds; {} when none (or unreadable)."""
    try:
        kept = json.loads((build / "results" / name).read_text())
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _write_results(build: Path, name: str, kept: dict) -> None:
    """Replaces build/results/`name` with `kept`, at once (a reader never sees half of it). Each writer has a
    partial file of its own: two checks at once (a notebook and a terminal) never move each other's."""
    path = build / "results" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=f"{name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(handle, "w") as out:
        out.write(json.dumps(kept, indent=1, sort_keys=True) + "\n")
    Path(partial).replace(path)


def read_last_checks(build: Path) -> dict:
    """{lab number: {"cpp" | "python": score}} as `course check` left them; {} when none (or unreadable)."""
    return _read_results(build, LAST_CHECK)


def _vetting_key(build: Path, relative: str, content: bytes) -> str:
    """What a vetting holds for: the file's path and content, and what else decides what its object holds
    and how it is read: the object check's own code, the build's compile commands and the lab's headers."""
    digest = hashlib.sha256(OBJECT_CHECK.read_bytes())
    commands = build / "compile_commands.json"
    digest.update(commands.read_bytes() if commands.is_file() else b"")
    lab = ROOT / "labs" / relative.split("/")[0]
    for header in sorted(path for pattern in ("*.h", "*.hpp", "*.cuh") for path in lab.glob(pattern)):
        digest.update(header.name.encode() + b"\0" + header.read_bytes())
    digest.update(relative.encode() + b"\0" + content)
    return digest.hexdigest()


def save_vetted(build: Path, sources: dict[str, bytes]) -> None:
    """Keeps that `course check` vetted `sources` (path under labs/ -> content) and found nothing to refuse."""
    vetted = _read_results(build, VETTED)
    vetted.update({relative: _vetting_key(build, relative, content) for relative, content in sources.items()})
    _write_results(build, VETTED, vetted)


def already_vetted(build: Path, sources: dict[str, bytes]) -> bool:
    """Whether `course check` vetted every one of `sources` (path under labs/ -> content) as it is now."""
    vetted = _read_results(build, VETTED)
    return bool(sources) and all(vetted.get(r) == _vetting_key(build, r, c) for r, c in sources.items())
