"""The words the grader trusts, read from the one place that defines them:
common/include/streamlab/grader_words.hpp. The C++ tests print them from there and
the module streamlab offers them as streamlab.words; the grader reads the header
itself, so that the steps that need no build need no module.

The header states its format, and this reader holds it to it: each constant on a
line of its own, `inline constexpr char kName[] = "text";`, whose Python name is
NAME in upper snake case (kSkipNoGpu is SKIP_NO_GPU). A line that begins like a constant but breaks the format, or
a word the course needs that is missing, stops the import with the header's path.
"""

from __future__ import annotations

import re
from pathlib import Path

HEADER = Path(__file__).resolve().parents[2] / "common" / "include" / "streamlab" / "grader_words.hpp"
# The words the tools use; the header may define more.
NEEDED = (
    "SKIP_NO_GPU",
    "SKIP_TIMELINE_UNAVAILABLE",
    "SKIP_DEVICE_CANNOT_SHOW",
    "SKIP_NEEDS_GPUS",
    "LINE_MEASURE",
    "LINE_HINT",
    "LINE_NOTE",
    "FAIL_RECORD_REFUSED",
)
_START = "inline constexpr"
_CONSTANT = re.compile(r'inline constexpr char k([A-Z][A-Za-z0-9]*)\[\] = "([^"\\]*)";')


class GraderWordsError(RuntimeError):
    """The header breaks its stated format or lacks a word the tools need."""


def python_name(cpp_name: str) -> str:
    """kSkipNoGpu's Python name without the k: "SkipNoGpu" -> "SKIP_NO_GPU"."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cpp_name).upper()


def read_words(header: Path = HEADER) -> dict[str, str]:
    """Every constant of `header` by its Python name; GraderWordsError when one breaks the format or one of
    NEEDED is missing."""
    words: dict[str, str] = {}
    for number, line in enumerate(header.read_text().splitlines(), start=1):
        if not line.strip().startswith(_START):
            continue
        match = _CONSTANT.fullmatch(line.strip())
        if match is None:
            raise GraderWordsError(f'{header}:{number}: not `inline constexpr char kName[] = "text";`: {line.strip()}')
        words[python_name(match.group(1))] = match.group(2)
    missing = [name for name in NEEDED if name not in words]
    if missing:
        raise GraderWordsError(f"{header} defines no {', '.join(missing)}")
    return words


def grader_skips(words: dict[str, str]) -> tuple[str, ...]:
    """How the skips the grader counts as "not graded" begin: every SKIP_ word."""
    return tuple(text for name, text in words.items() if name.startswith("SKIP_"))


WORDS = read_words()
SKIP_NO_GPU = WORDS["SKIP_NO_GPU"]
SKIP_NEEDS_GPUS = WORDS["SKIP_NEEDS_GPUS"]
LINE_MEASURE = WORDS["LINE_MEASURE"]
LINE_HINT = WORDS["LINE_HINT"]
LINE_NOTE = WORDS["LINE_NOTE"]
FAIL_RECORD_REFUSED = WORDS["FAIL_RECORD_REFUSED"]
GRADER_SKIPS = grader_skips(WORDS)
