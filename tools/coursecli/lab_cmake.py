"""The one reader of a lab's `lab.cmake`: what the lab declares, for every tool of the course.

A lab.cmake declares the C++ lab with `streamlab_add_lab(...)` and, where it has one, its
Python version with `streamlab_add_python_lab(...)` (cmake/StreamLab.cmake defines both).
Their keywords are read from the `cmake_parse_arguments` of those two functions, so a
keyword added there is known here too; the values are read as CMake reads them (a keyword's
values run up to the next keyword) and then checked: a malformed lab.cmake raises
LabCmakeError, one line naming the file and what is wrong. Standard library only.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from .shell import ROOT, CourseError

STREAMLAB_CMAKE = ROOT / "cmake" / "StreamLab.cmake"
CPP_LAB, PYTHON_LAB = "streamlab_add_lab", "streamlab_add_python_lab"
# The keywords a declaration cannot do without (CMake itself would build a broken lab without them).
REQUIRED = {
    CPP_LAB: ("NUMBER", "TOPIC", "STUDENT_SOURCES", "PROGRAM", "RECORDER", "TEST_SOURCE", "TESTS"),
    PYTHON_LAB: ("NUMBER", "TOPIC", "STUDENT_SOURCES", "RECORDER"),
}
# What a Python track cannot declare: it has no tests of its own, the C++ track's judges grade its record.
PYTHON_REFUSED = ("TEST_SOURCE", "TESTS", "TIMEOUT")
MAX_GPUS = 8  # as streamlab_add_lab checks GPUS
DEFAULT_DRAWN_SCENARIO = "pipeline"  # as cmake/StreamLab.cmake documents DRAWN_SCENARIO


class LabCmakeError(CourseError):
    """A lab.cmake the course cannot read: `course` says the one line and exits COURSE_ERROR."""


@dataclass(frozen=True)
class GradedTest:
    """One graded test of a TESTS list: `Suite.Name gpu 3` (C++) or `test_name cpu 2` (Python)."""

    name: str
    gpu: bool
    points: int


@dataclass(frozen=True)
class Track:
    """One declaration: the C++ lab (streamlab_add_lab) or its Python version (streamlab_add_python_lab)."""

    number: str
    topic: str
    student_sources: tuple[str, ...]
    test_source: str
    tests: tuple[GradedTest, ...]

    @property
    def points(self) -> int:
        """What the track's graded tests are worth together."""
        return sum(test.points for test in self.tests)


@dataclass(frozen=True)
class LabCmake:
    """What one lab.cmake declares. The C++ track's own settings sit beside it; `python` is None
    where the lab has no Python version."""

    cpp: Track
    python: Track | None
    answer_files: tuple[str, ...]  # the student's answers (prediction.txt): read by a graded test, never compiled
    program: str
    recorder: str  # RECORDER: the recording program, whose record the judges of TEST_SOURCE read
    gpus: int  # GPUs the graded tests need at once (GPUS N; 1 when absent, as in CMake)
    sanitize_points: int  # what a clean compute-sanitizer run earns in `course grade --sanitize` (0: feedback only)
    allow_symbols: tuple[str, ...]  # what the lab's objects may call beyond the course's list (objcheck)
    allow_asm: bool  # whether the student's code may use inline asm
    python_bindings: tuple[str, ...] = ()  # what the lab adds to the module (BINDINGS): register file first
    # The Python track's RECORDER (python/record_labNN.py): its record is judged by the C++ track's judges,
    # whose tests are then `python.tests` too ("": the lab has no Python track).
    python_recorder: str = ""
    # DRAWN_SCENARIO: the recorded scenario the tools draw (records.py); the lab's pipeline when not named.
    drawn_scenario: str = DEFAULT_DRAWN_SCENARIO


@functools.cache
def declared_keywords(function: str, streamlab_cmake: Path = STREAMLAB_CMAKE) -> tuple[set[str], set[str], set[str]]:
    """(options, one-value keywords, multi-value keywords) of `function`, from its cmake_parse_arguments."""
    body = re.search(rf"function\({function}\)(.*?)endfunction\(\)", streamlab_cmake.read_text(), re.S)
    parse = body and re.search(
        r'cmake_parse_arguments\(\s*PARSE_ARGV\s+0\s+\w+\s+"([^"]*)"\s+"([^"]*)"\s+"([^"]*)"', body.group(1)
    )
    if not parse:
        raise LabCmakeError(f"{streamlab_cmake}: no cmake_parse_arguments(PARSE_ARGV 0 ...) in function({function})")
    options, single, multi = (set(filter(None, group.split(";"))) for group in parse.groups())
    return options, single, multi


def _calls(text: str, function: str) -> list[list[str]]:
    """The words of each call of `function` in the CMake `text` (comments removed, quotes taken off)."""
    calls = []
    for start in re.finditer(rf"^\s*{function}\s*\(", text, re.M):
        words, depth = [], 1
        for token in re.finditer(r'"[^"]*"|[()]|[^\s()"]+', text[start.end() :]):
            word = token.group(0)
            depth += {"(": 1, ")": -1}.get(word, 0)
            if depth == 0:
                break
            words.append(word.strip('"'))
        else:
            raise ValueError(f"{function}( is never closed with ')'")
        calls.append(words)
    return calls


def _values(words: list[str], function: str) -> dict[str, list[str]]:
    """Keyword -> its values, as cmake_parse_arguments assigns them; ValueError on what it would not take."""
    options, single, multi = declared_keywords(function)
    values: dict[str, list[str]] = {}
    keyword = None
    for word in words:
        if word in options | single | multi:
            if word in values:
                raise ValueError(f"{function}: {word} is given twice")
            keyword, values[word] = word, []
        elif keyword is None or keyword in options:
            raise ValueError(f"{function}: {word!r} follows no keyword that takes values")
        else:
            values[keyword].append(word)
    for keyword, given in values.items():
        if keyword in single and len(given) != 1:
            raise ValueError(f"{function}: {keyword} takes one value, not {len(given)} ({' '.join(given) or 'none'})")
    missing = [keyword for keyword in REQUIRED[function] if not values.get(keyword)]
    if missing:
        raise ValueError(f"{function}: no {', '.join(missing)}")
    return values


def _number(values: dict[str, list[str]], keyword: str, default: int, low: int = 0, high: int | None = None) -> int:
    text = values.get(keyword, [str(default)])[0]
    if not text.isdigit() or int(text) < low or (high is not None and int(text) > high):
        limits = f"from {low} to {high}" if high is not None else f"{low} or more"
        raise ValueError(f"{keyword} must be a whole number {limits}, not {text!r}")
    return int(text)


def _tests(words: list[str]) -> tuple[GradedTest, ...]:
    if len(words) % 3:
        raise ValueError(f"TESTS must be triples 'Name gpu|cpu points', and {len(words)} words are not")
    tests = []
    for name, device, points in zip(words[0::3], words[1::3], words[2::3]):
        if device not in ("gpu", "cpu") or not points.isdigit():
            raise ValueError(f"TESTS: {name} {device} {points} is not 'Name gpu|cpu points'")
        tests.append(GradedTest(name, device == "gpu", int(points)))
    return tuple(tests)


def _track(values: dict[str, list[str]], function: str) -> Track:
    """The C++ track `values` declares."""
    number = values["NUMBER"][0]
    try:
        if not re.fullmatch(r"\d\d", number):
            raise ValueError(f"NUMBER must be two digits (01), not {number!r}")
        tests = _tests(values["TESTS"])
    except ValueError as error:
        raise ValueError(f"{function}: {error}") from None
    return Track(number, values["TOPIC"][0], tuple(values["STUDENT_SOURCES"]), values["TEST_SOURCE"][0], tests)


def _python_track(values: dict[str, list[str]], judged_by: Track) -> Track:
    """The Python track `values` declares: recorded once, graded by `judged_by`'s (the C++ track's) judges."""
    number = values["NUMBER"][0]
    if number != judged_by.number:
        raise ValueError(f"{PYTHON_LAB}: NUMBER {number} is not the C++ lab's {judged_by.number}")
    return Track(number, values["TOPIC"][0], tuple(values["STUDENT_SOURCES"]), "", judged_by.tests)


def _declaration(text: str, function: str, required: bool) -> dict[str, list[str]] | None:
    calls = _calls(text, function)
    if len(calls) > 1 or (required and not calls):
        raise ValueError(
            f"it must call {function}(...) {'once' if required else 'at most once'}, not {len(calls)} times"
        )
    if function == PYTHON_LAB and calls:
        refused = [keyword for keyword in PYTHON_REFUSED if keyword in calls[0]]
        if refused:
            raise ValueError(
                f"{function}: no {', '.join(refused)}: a Python track has no tests of its own, "
                "the C++ lab's judges grade the record its RECORDER writes"
            )
    return _values(calls[0], function) if calls else None


def read_lab_cmake(path: Path) -> LabCmake:
    """What the lab.cmake at `path` declares; LabCmakeError, naming the file, when it is malformed or missing."""
    try:
        text = re.sub(r"#[^\n]*", "", path.read_text())  # no '#' in the values the course reads
        cpp = _declaration(text, CPP_LAB, required=True)
        python = _declaration(text, PYTHON_LAB, required=False)
        assert cpp is not None  # required
        cpp_track = _track(cpp, CPP_LAB)
        return LabCmake(
            cpp=cpp_track,
            python=_python_track(python, cpp_track) if python else None,
            answer_files=tuple(cpp.get("ANSWER_FILES", [])),
            program=cpp["PROGRAM"][0],
            recorder=cpp["RECORDER"][0],
            gpus=_number(cpp, "GPUS", 1, low=1, high=MAX_GPUS),
            sanitize_points=_number(cpp, "SANITIZE_POINTS", 0),
            allow_symbols=tuple(cpp.get("ALLOW_SYMBOLS", [])),
            allow_asm="ALLOW_ASM" in cpp,
            python_bindings=tuple(python.get("BINDINGS", [])) if python else (),
            python_recorder=python["RECORDER"][0] if python else "",
            drawn_scenario=cpp.get("DRAWN_SCENARIO", [DEFAULT_DRAWN_SCENARIO])[0],
        )
    except OSError as error:
        raise LabCmakeError(f"{path}: cannot be read ({error.strerror})") from None
    except ValueError as error:
        raise LabCmakeError(f"{path}: {error}") from None


def lab_folders(root: Path) -> list[Path]:
    """The lab folders of the course at `root`: labs/NN-topic with a lab.cmake, in order."""
    return [folder for folder in sorted((root / "labs").glob("[0-9][0-9]-*")) if (folder / "lab.cmake").is_file()]


def declared_labs(root: Path) -> list[tuple[Path, LabCmake]]:
    """Each lab folder of the course at `root` with what its lab.cmake declares, in order."""
    return [(folder, read_lab_cmake(folder / "lab.cmake")) for folder in lab_folders(root)]
