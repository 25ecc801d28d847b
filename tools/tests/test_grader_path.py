"""The grader's path (ARCHITECTURE.md, "The grader's path"): intake, vet, record, judge, score, report.
A step's module imports the plumbing below every step and the modules of its own and earlier steps, never
a later step's nor a driver (batch.py, python_grading.py); imports made for type annotations alone
(under `if TYPE_CHECKING:`) are not dependencies and are left out.

Around it, the layers of the tools: no import cycle among tools/' modules (a deferred import inside a
function counts); the student's verbs reach nothing of the batch grader; nothing under labs/ imports the
course command, nor the course command anything under labs/; the student-facing package (python/: the labs'
helpers and the notebooks') imports neither the course command nor its self-checks."""

from __future__ import annotations

import ast
from pathlib import Path

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
# The drivers: the batch (batch.py), what it prepares once (grading_build.py, timeline_pictures.py), and
# what grades one submission along the path (submission_grader.py; python_grading.py for a Python lab).
DRIVERS = {"batch", "grading_build", "timeline_pictures", "submission_grader", "python_grading"}
PLUMBING = {
    "shell",
    "lab_declaration",
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


TOOLS = ROOT / "tools"
# tools/' packages, each a folder of modules: the course command, the trace tools, the grader's self-checks.
PACKAGES = sorted(folder.name for folder in TOOLS.iterdir() if (folder / "__init__.py").is_file())
# The student's verbs (`course run`, `check`, `list`, `reset`, `pack`, `notebook`) and the modules behind
# them; `course trace` and `course plot` are the trace tools' (streamlab_tools), below the course command.
STUDENT_VERBS = {
    "run": "labs",
    "check": "labs",
    "list": "listing",
    "reset": "reset",
    "pack": "pack",
    "notebook": "notebooks",
    "trace": "streamlab_tools.trace_cmd",
    "plot": "streamlab_tools.plot",
}
# The other verbs: the instructor's (grading a class) and the course's own (set-up, build, its tests, ...).
INSTRUCTOR_VERBS = {"grade", "gradescope", "classroom"}
COURSE_VERBS = {"setup", "build", "test", "format", "docs", "slides", "demo", "bench"}
# The batch grader and its front ends: what grades a class, never what a student's verb runs.
BATCH_GRADER = {"batch", "submission_grader", "slurm", "gradescope", "classroom"}


def tools_modules() -> dict[str, Path]:
    """Every module of tools/' packages by its dotted name ("coursecli.batch"; a package by its own name)."""
    return {
        package if path.stem == "__init__" else f"{package}.{path.stem}": path
        for package in PACKAGES
        for path in sorted((TOOLS / package).glob("*.py"))
    }


def imports_of(tree: ast.Module, package: str, known: set[str]) -> set[str]:
    """The modules of `known` that the module `tree` of `package` imports at run time, wherever the import
    stands (a deferred one inside a function too), except under `if TYPE_CHECKING:`."""
    type_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for statement in block.body
        for node in ast.walk(statement)
    }
    imported = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1] + [node.module or ""]) if node.level else node.module
            base = base.rstrip(".")
            for alias in node.names:  # `from . import x` imports the module x; `from .x import y`, the module x
                imported |= {f"{base}.{alias.name}"} if f"{base}.{alias.name}" in known else {base} & known
    return imported


def tools_imports(module: str) -> set[str]:
    """The tools' modules `module` ("coursecli.batch") imports at run time, but itself."""
    modules = tools_modules()
    tree = ast.parse(modules[module].read_text())
    package = module if modules[module].stem == "__init__" else module.rpartition(".")[0]
    return imports_of(tree, package, set(modules)) - {module}


def course_imports(module: str) -> set[str]:
    """The coursecli modules `module` imports at run time (not under `if TYPE_CHECKING:`)."""
    return {name.split(".", 1)[1] for name in tools_imports(f"coursecli.{module}") if name.startswith("coursecli.")}


def reached(module: str) -> set[str]:
    """Every tools module that importing `module` imports, directly or through others."""
    seen, todo = set(), [module]
    while todo:
        for imported in tools_imports(todo.pop()) - seen:
            seen.add(imported)
            todo.append(imported)
    return seen


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph` (module -> the modules it imports): each set of modules that import
    one another, directly or around a loop (Tarjan's strongly connected components of two or more)."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(module: str) -> None:
        index[module] = lowest[module] = len(index)
        stack.append(module)
        for imported in sorted(graph.get(module, ())):
            if imported not in index:
                visit(imported)
                lowest[module] = min(lowest[module], lowest[imported])
            elif imported in stack:
                lowest[module] = min(lowest[module], index[imported])
        if lowest[module] == index[module]:
            component = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(cycles)


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


def test_no_import_cycle_among_the_tools_modules():
    cycles = import_cycles({module: tools_imports(module) for module in tools_modules()})
    assert not cycles, "modules that import one another: " + "; ".join(" <-> ".join(cycle) for cycle in cycles)


def test_the_cycle_finder_sees_a_loop_and_a_deferred_import():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []
    deferred = ast.parse("def make():\n    from .isolation_samples import make_isolation_samples\n")
    known = {"selfgrading.isolation_samples", "selfgrading.rewriting"}
    assert imports_of(deferred, "selfgrading", known) == {"selfgrading.isolation_samples"}
    typed = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import rewriting\n")
    assert imports_of(typed, "selfgrading", known) == set()


def test_every_verb_of_the_course_command_has_its_place():
    from coursecli.arguments import parser

    verbs = next(action for action in parser()._actions if action.dest == "verb").choices
    assert set(verbs) == set(STUDENT_VERBS) | INSTRUCTOR_VERBS | COURSE_VERBS


@pytest.mark.parametrize("verb", sorted(STUDENT_VERBS))
def test_a_students_verb_reaches_nothing_of_the_batch_grader(verb):
    module = STUDENT_VERBS[verb]
    module = module if "." in module else f"coursecli.{module}"
    assert module in tools_modules()
    batch = {f"coursecli.{name}" for name in BATCH_GRADER}
    assert not reached(module) & batch, f"course {verb} ({module}) imports {sorted(reached(module) & batch)}"


def test_the_layers_of_the_tools_packages():
    """The trace tools import nothing of the course command or the self-checks; the course command nothing
    of the self-checks (which grade it)."""
    for module in tools_modules():
        imported = {name.split(".")[0] for name in tools_imports(module)}
        if module.startswith("streamlab_tools"):
            assert imported <= {"streamlab_tools"}, module
        elif module.startswith("coursecli"):
            assert "selfgrading" not in imported, module


def python_files(*folders: Path) -> list[Path]:
    return [path for folder in folders for path in folder.rglob("*.py") if "__pycache__" not in path.parts]


def top_level_imports(path: Path) -> set[str]:
    """The top-level names of the modules the file `path` imports by their absolute names ("coursecli")."""
    tree = ast.parse(path.read_text())
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and not node.level}
    return {name.split(".")[0] for name in names if name}


def test_nothing_under_labs_imports_the_course_command():
    """A lab's files (a student's, the recording scripts, the notebooks) import the course's Python module
    and the labs' helpers (python/), never the command's internals nor its self-checks."""
    for path in python_files(ROOT / "labs", ROOT / "solutions"):
        reached = top_level_imports(path) & set(PACKAGES) - {"streamlab_tools"}
        assert not reached, f"{path.relative_to(ROOT)} imports {sorted(reached)}"


def test_the_student_facing_package_imports_nothing_of_the_course_command():
    """python/ (lab_program, cuda_check, streamlab_notebook) is what a lab's program and notebook import: it
    reads what it shares with the course command from data files (common/reference/), never from its code."""
    helpers = python_files(ROOT / "python")
    assert {path.stem for path in helpers} >= {"lab_program", "cuda_check", "streamlab_notebook"}
    for path in helpers:
        reached = top_level_imports(path) & {"coursecli", "selfgrading"}
        assert not reached, f"{path.relative_to(ROOT)} imports {sorted(reached)}"


def test_the_course_command_imports_nothing_under_labs():
    """The labs' Python runs in processes of its own (the recording, the notebook's kernel): the course
    command never imports it."""
    lab_modules = {path.stem for path in python_files(ROOT / "labs", ROOT / "solutions")}
    for path in python_files(PACKAGE):
        reached = top_level_imports(path) & lab_modules
        assert not reached, f"{path.name} imports {sorted(reached)} of labs/"
