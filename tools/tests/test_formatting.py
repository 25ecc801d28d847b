"""The formatting check of `course test`: what it runs, that drift fails it, and that a
missing formatter is said and skipped, never passed in silence."""

import shutil
import subprocess

import pytest
from coursecli import environment, formatting
from coursecli.environment import Requirement
from coursecli.shell import ROOT

UNFORMATTED = "int  main( ){if(true)return 0;}\n"


def git_repo(root, files):
    root.mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_the_check_lists_every_cxx_and_cuda_file_git_knows_and_no_other(tmp_path):
    root = git_repo(
        tmp_path / "repo", {"a.cu": "", "b/c.hpp": "", "d.py": "", "build/e.cpp": "", ".gitignore": "build/\n"}
    )
    clang, ruff_check, ruff_format = formatting.commands(False, "clang-format-19", "py", root)
    assert clang == ["clang-format-19", "--dry-run", "--Werror", str(root / "a.cu"), str(root / "b/c.hpp")]
    assert ruff_check == ["py", "-m", "ruff", "check", "."]
    assert ruff_format == ["py", "-m", "ruff", "format", "--check", "."]
    assert formatting.commands(True, "cf", "py", root)[0] == ["cf", "-i", str(root / "a.cu"), str(root / "b/c.hpp")]


def test_a_missing_formatter_is_said_and_skipped(monkeypatch, capsys):
    missing = [Requirement("clang-format-19", "clang-format-19", False)]
    monkeypatch.setattr(environment, "install_format_tools", lambda: missing)
    assert formatting.format_step() is True
    out = capsys.readouterr().out
    assert out.startswith("course: formatting check skipped: clang-format-19 not installed here")
    assert formatting.run_format(check_only=True) == 2  # asked for by name, a missing tool: the course's error


def test_drift_fails_the_step(monkeypatch, capsys):
    monkeypatch.setattr(environment, "install_format_tools", lambda: [])
    monkeypatch.setattr(environment, "ruff_python", lambda: "python3")
    monkeypatch.setattr(formatting, "commands", lambda fix, clang, ruff: [["true"], ["false"]])
    assert formatting.format_step() is False
    assert "`./course format` rewrites them" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which(environment.CLANG_FORMAT) is None, reason=f"{environment.CLANG_FORMAT} not installed")
def test_clang_format_with_the_course_style_refuses_an_unformatted_file(tmp_path):
    root = git_repo(tmp_path / "repo", {"bad.cpp": UNFORMATTED})
    shutil.copy(ROOT / ".clang-format", root / ".clang-format")
    command = formatting.commands(False, environment.CLANG_FORMAT, "python3", root)[0]
    assert subprocess.run(command, capture_output=True).returncode != 0
    subprocess.run(formatting.commands(True, environment.CLANG_FORMAT, "python3", root)[0], check=True)
    assert "if (true) {" in (root / "bad.cpp").read_text()  # braces on every if body
    assert subprocess.run(command, capture_output=True).returncode == 0
