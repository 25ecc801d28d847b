"""A lab's answer file (`prediction.txt`, answer_files in lab.json), checked without a GPU.

The graded test that scores a prediction reads the file itself
(common/support/src/answers.cpp) and then compares each answer with the
timeline it recorded. The first half needs no GPU: whether the file reads as
`key: value` lines, whether every question is answered, and whether each
answer has a form the test can score (an order such as `A < B+C`, `yes` or
`no`, a number). That half is done here, with the test's own words, so that
`course check` and a batch without a GPU can say it; whether an answer is
right, only the GPU's timeline says.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

UNANSWERED = "?"


def parse_answer_file(text: str) -> tuple[dict[str, str], str]:
    """(key -> value, problem) as answers.cpp's parse_answer_file reads it: `#` starts a comment,
    blank lines are skipped, any other line is `key: value`; a problem ends the reading."""
    values: dict[str, str] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        content = line.split("#", 1)[0].strip(" \t\r")
        if not content:
            continue
        key, colon, value = content.partition(":")
        key = key.strip(" \t\r")
        if not colon or not key:
            return values, f"line {number} is not `key: value`: {content}"
        if key in values:
            return values, f"line {number} answers `{key}` a second time"
        values[key] = value.strip(" \t\r")
    return values, ""


def order_problem(text: str, names: str) -> str:
    """Why `text` is not an order of the single-letter `names` (answers.cpp's parse_order), or ""."""
    shape = f"`{text}` is not an order such as `A < B < C`, `A+B+C` or `A < B+C`"
    seen: set[str] = set()
    previous, space_since = "<", False
    for c in text:
        if c.isspace():
            space_since = True
            continue
        if c in "<+":
            if previous in "<+":
                return shape
        elif c.isascii() and c.isalpha():
            name = c.upper()
            if previous.isalpha() and space_since:
                return shape + " (between two names write `<`, one after the other, or `+`, together)"
            if name not in names:
                return f"`{text}` names {name}, which is not one of {names}"
            if name in seen:
                return f"`{text}` names {name} twice"
            seen.add(name)
        else:
            return shape
        previous, space_since = c, False
    if previous in "<+":
        return shape
    if len(seen) != len(names):
        return f"`{text}` must name each of {names} once"
    return ""


def _order(names: str) -> Callable[[str], str]:
    return lambda value: order_problem(value, names)


def _one_of(*words: str, any_case: bool = False) -> Callable[[str], str]:
    """An answer that must be one of `words` (lab 04's test lower-cases the answer first: `any_case`)."""

    def problem(value: str) -> str:
        if (value.lower() if any_case else value) in words:
            return ""
        choices = " or ".join(f"`{word}`" for word in words)
        return f"must be {choices}, not `{value}`"

    return problem


def _yes_or_no(value: str) -> str:
    return "" if value in ("yes", "no") else f"answer yes or no, not `{value}`"


_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _speedup(value: str) -> str:
    """A positive number, `x` after it allowed (lab 05's test reads it with strtod)."""
    match = _NUMBER.match(value)
    rest = value[match.end() :].lstrip(" ") if match else value
    if match and rest in ("", "x") and float(match.group(0)) > 0:
        return ""
    return f"must be a number such as 1.5 (or 1.5x), not `{value}`"


def _share(value: str) -> str:
    """A number from 0 to 1, nothing after it (lab 09's test reads it with strtod)."""
    match = _NUMBER.fullmatch(value)
    if match and 0 <= float(value) <= 1:
        return ""
    return f"must be a number from 0 to 1, not `{value}`"


def _anything(value: str) -> str:
    """Free text, read by the instructor: any answer but `?` will do."""
    return ""


# Each lab's questions and the form its prediction test needs (labs/NN-topic/test_labNN.cpp).
ANSWER_FORMS: dict[str, dict[str, Callable[[str], str]]] = {
    "01": {"blocking": _order("ABC"), "nonblocking": _order("ABC")},
    "02": {"last_stream_idle_when_polled": _yes_or_no, "first_stream_idle_after_sync": _yes_or_no},
    "03": {"large": _one_of("pinned", "pageable", "same"), "registered": _one_of("faster", "slower", "same")},
    "04": {"pinned": _one_of("busy", "done", any_case=True), "pageable": _one_of("busy", "done", any_case=True)},
    "05": {"speedup": _speedup},
    "09": {
        "wait": _one_of("spin", "yield", "blocking-sync", "auto", "event", "polling"),
        "cpu": _share,
        "why": _anything,
    },
}


def answer_problems(number: str, name: str, path: Path) -> list[str]:
    """What keeps lab `number`'s answer file `name` (at `path`) from being scored, in the
    graded test's words: empty when every question has an answer of the right form."""
    if not path.is_file():
        return [f"{name} is missing: write your answers there (the starter has a template)"]
    values, problem = parse_answer_file(path.read_text(errors="replace"))
    if problem:
        return [f"{name}: {problem}"]
    problems = []
    for key, form in ANSWER_FORMS.get(number, {}).items():
        if key not in values:
            problems.append(f"{name} has no `{key}:` line")
        elif values[key] in ("", UNANSWERED):
            problems.append(f"{name}: `{key}:` is not answered yet (still `?`)")
        elif form(values[key]):
            problems.append(f"{name}, `{key}:` {form(values[key])}")
    return problems
