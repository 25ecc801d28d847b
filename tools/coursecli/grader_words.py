"""The words the grader trusts, read from the one file that states them: common/grader_words.json.
CMake writes the C++ header streamlab/grader_words.hpp from it and the module streamlab offers them
as streamlab.words; the grader reads the file itself, so that the steps that need no build need no
module.

A word's Python name is its C++ name in upper snake case, without the k (kSkipNoGpu is SKIP_NO_GPU),
as CMake names it for the module (cmake/StreamLab.cmake). A word that breaks the file's stated
format (a kCamelCase name, a text of no quote and no backslash), or a word the course needs that is
missing, stops the import with the file's path.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

WORDS_FILE = Path(__file__).resolve().parents[2] / "common" / "grader_words.json"
# The words the tools use; the file may state more.
NEEDED = (
    "SKIP_NO_GPU",
    "SKIP_TIMELINE_UNAVAILABLE",
    "SKIP_DEVICE_CANNOT_SHOW",
    "SKIP_NEEDS_GPUS",
    "KEY_MEASURE",
    "KEY_HINT",
    "KEY_NOTE",
    "FAIL_RECORD_REFUSED",
)
_CPP_NAME = re.compile(r"k[A-Z][A-Za-z0-9]*")
_TEXT = re.compile(r'[^"\\]*')


class GraderWordsError(RuntimeError):
    """The words' file breaks its stated format or lacks a word the tools need."""


def python_name(cpp_name: str) -> str:
    """A word's Python name: "kSkipNoGpu" -> "SKIP_NO_GPU"."""
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", cpp_name[1:]).upper()


def read_words(path: Path = WORDS_FILE) -> dict[str, str]:
    """Every word of `path` by its Python name, in the file's order; GraderWordsError when one breaks
    the format or one of NEEDED is missing."""
    words: dict[str, str] = {}
    for number, word in enumerate(json.loads(path.read_text())["words"]):
        name, text = word.get("name", ""), word.get("text")
        if not _CPP_NAME.fullmatch(name) or not isinstance(text, str) or not _TEXT.fullmatch(text):
            raise GraderWordsError(
                f"{path}: word {number} is not a kCamelCase name with a text of no quote or backslash: {word}"
            )
        words[python_name(name)] = text
    missing = [name for name in NEEDED if name not in words]
    if missing:
        raise GraderWordsError(f"{path} states no {', '.join(missing)}")
    return words


def grader_skips(words: dict[str, str]) -> tuple[str, ...]:
    """How the skips the grader counts as "not graded" begin: every SKIP_ word."""
    return tuple(text for name, text in words.items() if name.startswith("SKIP_"))


WORDS = read_words()
SKIP_NO_GPU = WORDS["SKIP_NO_GPU"]
SKIP_NEEDS_GPUS = WORDS["SKIP_NEEDS_GPUS"]
KEY_MEASURE = WORDS["KEY_MEASURE"]
KEY_HINT = WORDS["KEY_HINT"]
KEY_NOTE = WORDS["KEY_NOTE"]
FAIL_RECORD_REFUSED = WORDS["FAIL_RECORD_REFUSED"]
GRADER_SKIPS = grader_skips(WORDS)
