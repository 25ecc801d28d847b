"""The grader's path (ARCHITECTURE.md, "The grader's path"): intake, vet, record, judge, score, report.
A step's module imports the plumbing below every step and the modules of its own and earlier steps, never
a later step's nor a driver (batch.py, python_grading.py); imports made for type annotations alone
(under `if TYPE_CHECKING:`) are not dependencies and are left out."""

from __future__ import annotations

import ast

import pytest
from coursecli.shell import ROOT

PACKAGE = ROOT / "tools" / "coursecli"
STEPS = [
    ("intake", {"submissions"}),
    ("vet", {"objcheck", "symbols", "pycheck", "lab_checks", "answers"}),
    ("record", {"recording"}),
    ("judge", {"judging", "results"}),
    ("score", {"scoring"}),
    ("report", {"gradebook", "records"}),
]
DRIVERS = {"batch", "python_grading"}
PLUMBING = {
    "shell",
    "lab_cmake",
    "grader_words",
    "sandbox",
    "output_cap",
    "gpu",
    "gpu_slots",
    "course_build",
    "python_module",
    "progress",
    "environment",
    "apt",
    "grade_settings",
}


def course_imports(module: str) -> set[str]:
    """The coursecli modules `module` imports at run time (not under `if TYPE_CHECKING:`)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    type_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for statement in block.body
        for node in ast.walk(statement)
    }
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and id(node) not in type_only:
            imported |= {node.module.split(".")[0]} if node.module else {alias.name for alias in node.names}
    return imported


@pytest.mark.parametrize(("index", "step"), list(enumerate(STEPS)), ids=[step for step, _ in STEPS])
def test_a_steps_modules_import_no_later_step_and_no_driver(index, step):
    allowed = PLUMBING.union(*(modules for _, modules in STEPS[: index + 1]))
    for module in sorted(step[1]):
        reached = course_imports(module) - allowed
        assert not reached, f"{module}.py ({step[0]}) imports {sorted(reached)}: a later step or a driver"


def test_the_plumbing_imports_no_step_and_no_driver():
    steps = DRIVERS.union(*(modules for _, modules in STEPS))
    for module in sorted(PLUMBING):
        assert not course_imports(module) & steps, f"{module}.py imports {sorted(course_imports(module) & steps)}"


def test_every_module_named_here_exists():
    named = DRIVERS | PLUMBING | set().union(*(modules for _, modules in STEPS))
    assert {module for module in named if not (PACKAGE / f"{module}.py").is_file()} == set()


def test_the_python_drivers_step_reads_the_settings_not_the_batch():
    assert "batch" not in course_imports("python_grading")
