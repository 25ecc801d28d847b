"""What a lab declares, read from its labs/NN-topic/lab.json, for every tool of the course.

Every key of a lab.json, what it means and its default are stated once, in common/lab.schema.json,
which CMake reads too (streamlab_add_lab, cmake/StreamLab.cmake). This reader holds a lab.json to
that schema, through the part of JSON Schema the schema uses (type, enum, pattern, minimum, maximum,
minItems, required, additionalProperties, local $ref), takes each default from it, and hands the tools
the typed declaration. A lab's number and topic are its folder's name (05-three-chunks). A malformed
lab.json raises LabDeclarationError, one line naming the file and what is wrong. Standard library only.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .shell import ROOT, CourseError

LAB_FILE = "lab.json"
SCHEMA_FILE = ROOT / "common" / "lab.schema.json"
FOLDER_NAME = re.compile(r"(\d\d)-([a-z0-9][a-z0-9-]*)")
JSON_TYPES = {"object": dict, "array": list, "string": str, "integer": int, "boolean": bool}


class LabDeclarationError(CourseError):
    """A lab.json the course cannot read: `course` says the one line and exits COURSE_ERROR."""


@dataclass(frozen=True)
class GradedTest:
    """One graded test of a lab's `tests`: `Suite.Name`, on the gpu or the cpu, and its points."""

    name: str
    gpu: bool
    points: int


@dataclass(frozen=True)
class Track:
    """One track of a lab: the C++ lab, or its Python version, which the C++ lab's judges grade."""

    number: str
    topic: str
    student_sources: tuple[str, ...]
    test_source: str  # "" for the Python track, which has no judges of its own
    tests: tuple[GradedTest, ...]

    @property
    def points(self) -> int:
        """What the track's graded tests are worth together."""
        return sum(test.points for test in self.tests)


@dataclass(frozen=True)
class LabDeclaration:
    """What one lab.json declares (common/lab.schema.json says what each key means). The C++ track's own
    settings sit beside it; `python` is None where the lab has no Python version."""

    cpp: Track
    python: Track | None
    answer_files: tuple[str, ...]
    program: str
    recorder: str
    gpus: int
    sanitize_points: int
    allow_symbols: tuple[str, ...]
    allow_asm: bool
    python_bindings: tuple[str, ...]  # () without a Python track
    python_recorder: str  # "" without a Python track
    drawn_scenario: str


@functools.cache
def lab_schema() -> dict:
    """common/lab.schema.json, read once."""
    return json.loads(SCHEMA_FILE.read_text())


def _rules(rules: dict) -> dict:
    """`rules` with the definition its $ref names (#/$defs/NAME) merged under its own keywords."""
    if "$ref" not in rules:
        return rules
    definition = lab_schema()["$defs"][rules["$ref"].removeprefix("#/$defs/")]
    return {**definition, **{keyword: value for keyword, value in rules.items() if keyword != "$ref"}}


def _schema_problem(value: object, rules: dict, where: str = "") -> str | None:
    """The first way `value`, found at `where` in the file ("" for the whole file, "tests[2].points" for a
    part), breaks `rules`, a part of the schema; None where it keeps them."""
    rules = _rules(rules)
    kind, name = rules.get("type"), where or "the file"
    if kind and (not isinstance(value, JSON_TYPES[kind]) or (kind == "integer" and isinstance(value, bool))):
        return f"{name} must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not {json.dumps(value)}"
    if "enum" in rules and value not in rules["enum"]:
        return f"{name} must be one of {', '.join(map(json.dumps, rules['enum']))}, not {json.dumps(value)}"
    if "pattern" in rules and not re.search(rules["pattern"], value):
        return f"{name} must match {rules['pattern']}, and {json.dumps(value)} does not"
    low, high = rules.get("minimum"), rules.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        return f"{name} must be {f'from {low} to {high}' if high is not None else f'{low} or more'}, not {value}"
    if isinstance(value, list) and len(value) < rules.get("minItems", 0):
        return f"{name} must list at least {rules['minItems']}"
    if isinstance(value, list):
        inner = (_schema_problem(item, rules["items"], f"{where}[{index}]") for index, item in enumerate(value))
        return next(filter(None, inner), None)
    if isinstance(value, dict):
        return _object_problem(value, rules, where)
    return None


def _object_problem(value: dict, rules: dict, where: str) -> str | None:
    known, said = rules.get("properties", {}), f"{where}: " if where else ""
    missing = [key for key in rules.get("required", []) if key not in value]
    if missing:
        return f"{said}no {', '.join(missing)}"
    unknown = [key for key in value if key not in known]
    if unknown and rules.get("additionalProperties") is False:
        return f"{said}no key {unknown[0]!r} here (its keys: {', '.join(known)})"
    inner = (
        _schema_problem(item, known[key], f"{where}.{key}" if where else key)
        for key, item in value.items()
        if key in known
    )
    return next(filter(None, inner), None)


def _with_defaults(declared: dict, rules: dict) -> dict:
    """`declared` with the schema's default for each key of `rules` it leaves out."""
    defaults = {key: _rules(rule)["default"] for key, rule in rules["properties"].items() if "default" in _rules(rule)}
    return {**defaults, **declared}


def _declaration(number: str, topic: str, declared: dict) -> LabDeclaration:
    """The typed declaration of a lab.json that keeps the schema."""
    cpp = _with_defaults(declared, lab_schema())
    tests = tuple(GradedTest(test["name"], test["device"] == "gpu", test["points"]) for test in cpp["tests"])
    cpp_track = Track(number, topic, tuple(cpp["student_sources"]), cpp["test_source"], tests)
    python = _with_defaults(declared["python"], lab_schema()["properties"]["python"]) if "python" in declared else None
    return LabDeclaration(
        cpp=cpp_track,
        # Recorded once and graded by the C++ track's judges: their tests and points.
        python=Track(number, topic, tuple(python["student_sources"]), "", tests) if python else None,
        answer_files=tuple(cpp["answer_files"]),
        program=cpp["program"],
        recorder=cpp["recorder"],
        gpus=cpp["gpus"],
        sanitize_points=cpp["sanitize_points"],
        allow_symbols=tuple(cpp["allow_symbols"]),
        allow_asm=cpp["allow_asm"],
        python_bindings=tuple(python["bindings"]) if python else (),
        python_recorder=python["recorder"] if python else "",
        drawn_scenario=cpp["drawn_scenario"],
    )


def read_lab(folder: Path) -> LabDeclaration:
    """What the lab.json of the lab folder `folder` declares; LabDeclarationError, naming the file, when it
    is malformed or missing."""
    path = folder / LAB_FILE
    try:
        name = FOLDER_NAME.fullmatch(folder.name)
        if not name:
            raise ValueError(f"its folder's name must be NN-topic (05-three-chunks), not {folder.name!r}")
        declared = json.loads(path.read_text())
        problem = _schema_problem(declared, lab_schema())
        if problem:
            raise ValueError(problem)
    except OSError as error:
        raise LabDeclarationError(f"{path}: cannot be read ({error.strerror})") from None
    except ValueError as error:  # json.JSONDecodeError too: it says the line and column
        raise LabDeclarationError(f"{path}: {error}") from None
    return _declaration(name.group(1), name.group(2), declared)


def lab_folders(root: Path) -> list[Path]:
    """The lab folders of the course at `root`: labs/NN-topic with a lab.json, in order."""
    return [folder for folder in sorted((root / "labs").glob("[0-9][0-9]-*")) if (folder / LAB_FILE).is_file()]


def declared_labs(root: Path) -> list[tuple[Path, LabDeclaration]]:
    """Each lab folder of the course at `root` with what its lab.json declares, in order."""
    return [(folder, read_lab(folder)) for folder in lab_folders(root)]
