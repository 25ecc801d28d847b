"""`course format` and the formatting step of `course test`.

The C++ and CUDA sources are formatted by clang-format (the style is in
.clang-format), the Python by ruff (lint and format, configured in tools/pyproject.toml),
each at the one version environment.py names. `course test` checks that running
them would change nothing, so CI fails on a file that drifted; `course format`
rewrites the files. Where a formatter is not installed and cannot be (a machine
that reaches no package registry), the check says so and is skipped: it is not
a failure, and not a pass either.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from . import environment
from .shell import COURSE_ERROR, FAILING, ROOT, run, say

CXX_SUFFIXES = (".cpp", ".cu", ".hpp", ".cuh", ".h")


def cxx_files(root: Path = ROOT) -> list[Path]:
    """The C++ and CUDA files under `root` that git tracks, or would (new files it does not ignore)."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
    )
    if listed.returncode != 0:
        return []
    names = sorted({name for name in listed.stdout.split("\0") if name.endswith(CXX_SUFFIXES)})
    return [root / name for name in names if (root / name).is_file()]


def commands(fix: bool, clang_format: str, ruff_python: str, root: Path = ROOT) -> list[list[str]]:
    """The formatter runs: checks that change nothing (fix False), or the rewrites (fix True)."""
    cxx = [str(path) for path in cxx_files(root)]
    ruff = [ruff_python, "-m", "ruff"]
    if fix:
        return [[clang_format, "-i", *cxx], [*ruff, "check", "--fix", "."], [*ruff, "format", "."]]
    return [[clang_format, "--dry-run", "--Werror", *cxx], [*ruff, "check", "."], [*ruff, "format", "--check", "."]]


def _tools() -> tuple[str, str] | None:
    """clang-format and the Python with ruff, installed where missing; None (said why) when either is not."""
    missing = environment.install_format_tools()
    if missing:
        say(
            "formatting check skipped: "
            + ", ".join(r.name for r in missing)
            + " not installed here (./course test installs them where a package registry is reachable)"
        )
        return None
    ruff_python = environment.ruff_python()
    assert ruff_python is not None  # install_format_tools reported it otherwise
    return environment.CLANG_FORMAT, ruff_python


def _check(tools: tuple[str, str]) -> bool:
    """Runs the checks; True when no formatter would change a file."""
    failed = [command for command in commands(False, *tools) if run(command, check=False).returncode != 0]
    if failed:
        say(
            "the files above are not formatted as .clang-format and tools/pyproject.toml say: "
            "`./course format` rewrites them"
        )
        return False
    say("every C++, CUDA and Python file is formatted")
    return True


def format_step() -> bool:
    """The formatting part of `course test`: False only when a formatter ran and would change a file."""
    tools = _tools()
    return True if tools is None else _check(tools)


def run_format(check_only: bool) -> int:
    """`course format [--check]`: rewrites the files (or only checks them); FAILING when a file would change,
    COURSE_ERROR when a tool is missing."""
    tools = _tools()
    if tools is None:
        return COURSE_ERROR
    if check_only:
        return 0 if _check(tools) else FAILING
    statuses = [run(command, check=False).returncode for command in commands(True, *tools)]
    return 0 if all(status == 0 for status in statuses) else COURSE_ERROR
