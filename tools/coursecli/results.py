"""Reading what the tests say: GoogleTest's own report of each judge (its XML: the verdict's proof, the
failure in the test's own words, what the judge measured, its hints and its notes), the tests' labels and
points; and, for `course test`'s summary, ctest's outcomes (JUnit XML) and what the tests printed."""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from .grader_words import GRADER_SKIPS, KEY_HINT, KEY_MEASURE, KEY_NOTE, SKIP_NO_GPU


@dataclass
class Measure:
    """A measured value a test reported next to its threshold."""

    name: str
    value: float
    op: str
    threshold: float
    unit: str

    def describe(self) -> str:
        return f"{self.name}: {self.value:.3g} {self.unit} (needs {self.op} {self.threshold:.3g})"


# GoogleTest's report of a failed assertion, around the test's own message: "Value of: x", "  Actual: false"
# (with an AssertionResult's reason in parentheses), "Expected: true", "Expected: (a) >= (b), actual: 0 vs 2",
# "Expected equality of these values:" and its operands (indented), "Failed" (FAIL, ADD_FAILURE), and
# "Google Test trace:" followed by "file:line: what SCOPED_TRACE said".
GTEST_REPORT = re.compile(r"(Value of: |\s*Actual: |Expected: |\s*Which is: |Failed$)")
EQUALITY, TRACE = "Expected equality of these values:", "Google Test trace:"
LONGEST_REASON = 400  # characters: a reason is one or two sentences


def own_words(lines: list[str]) -> list[str]:
    """What a failed assertion printed, in the test's own words: an AssertionResult's reason and the
    message, after the SCOPED_TRACE context ("blocking streams: ..."); GoogleTest's report of it left out."""
    words, context, operands, tracing = [], [], False, False
    for text in lines:
        operands = text.startswith(EQUALITY) or (operands and text.startswith("  "))
        tracing = tracing or text.startswith(TRACE)
        reason = re.match(r"\s*Actual: \w+ \((.*)\)$", text)
        if reason:
            words.append(reason[1])
        elif tracing and not text.startswith(TRACE):
            context.append(re.sub(r"^\S+:\d+: ", "", text.strip()))
        elif not (operands or tracing or GTEST_REPORT.match(text) or not text.strip()):
            words.append(text.strip())
    if context and words:
        words[0] = f"{', '.join(context)}: {words[0]}"
    return words


def shortened(text: str) -> str:
    """`text` within LONGEST_REASON characters, cut after a whole sentence or clause, never inside a word."""
    if len(text) <= LONGEST_REASON:
        return text
    cut = text[:LONGEST_REASON]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return (cut[: end + 1] if end > LONGEST_REASON // 2 else cut[: cut.rfind(" ")]) + " ..."


def failure_words(message: str) -> str:
    """A failed test's reason in its own words, from its first failure's message in GoogleTest's report:
    GoogleTest's account of the assertion (the expression and its values) left out where the test says more."""
    lines = message.splitlines()
    words = own_words(lines) or [text.strip() for text in lines if text.strip()]
    return shortened(" ".join(words))


def points_of(labels: list[str]) -> int:
    """A test's points, from its `pts:N` label (0 when it has none)."""
    for label in labels:
        if label.startswith("pts:"):
            return int(label[4:])
    return 0


@dataclass
class TestOutcome:
    """One ctest test as it ran (`course test`; a lab's grade is scoring.py's, from the judges' reports)."""

    name: str
    status: str  # "passed", "failed", "skipped"
    labels: list[str] = field(default_factory=list)
    output: str = ""

    def skip_reason(self) -> str:
        """GoogleTest prints 'file:line: Skipped' and the reason on the next line(s)."""
        lines = self.output.splitlines()
        for i, line in enumerate(lines):
            if line.endswith(": Skipped") and i + 1 < len(lines):
                return lines[i + 1].strip()
            if line.startswith("SKIPPED: "):  # scripts that exit with ctest's SKIP_RETURN_CODE
                return line[len("SKIPPED: ") :].strip()
            harness_skip = line.removeprefix("[  SKIPPED ] ")
            if harness_skip != line and harness_skip.startswith(GRADER_SKIPS):  # streamlab_record's "not run"
                return harness_skip.strip()
            if f": {SKIP_NO_GPU}" in line:  # a lab program's own word (python/lab_program.py), ctest's skip pattern
                return SKIP_NO_GPU + line.split(f": {SKIP_NO_GPU}", 1)[1].strip()
        return "skipped"


def read_labels(build_dir: Path) -> dict[str, list[str]]:
    """Every test's LABELS, from `ctest --show-only=json-v1`."""
    listing = subprocess.run(
        ["ctest", "--test-dir", str(build_dir), "--show-only=json-v1"], capture_output=True, text=True
    )
    try:
        tests = json.loads(listing.stdout).get("tests", [])
    except ValueError:
        raise RuntimeError(
            f"ctest could not list the tests in {build_dir}: "
            + (listing.stderr.strip().splitlines() or ["no output"])[0]
        ) from None
    labels: dict[str, list[str]] = {}
    for test in tests:
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels[test["name"]] = list(prop.get("value", []))
        labels.setdefault(test["name"], [])
    return labels


def read_junit(path: Path, labels: dict[str, list[str]]) -> list[TestOutcome]:
    """Outcomes from the JUnit file `ctest --output-junit` wrote."""
    outcomes = []
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name", "")
        if case.find("skipped") is not None or case.get("status") == "notrun":
            status = "skipped"
        elif case.find("failure") is not None or case.get("status") == "fail":
            status = "failed"
        else:
            status = "passed"
        output = case.findtext("system-out") or ""
        outcomes.append(TestOutcome(name, status, labels.get(name, []), output))
    return outcomes


@dataclass
class GtestReport:
    """What GoogleTest's own XML report (--gtest_output=xml:PATH) says about one test: its result, and what
    the test reported besides (streamlab/testing.hpp: one property each, numbered keys streamlab.measure.1, streamlab.hint.1, ...)."""

    result: str  # "passed", "failed" or "skipped"
    message: str = ""  # the skip's reason or the first failure, without GoogleTest's "file:line" line
    measures: list[Measure] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # "name: text", a prediction next to what the timeline shows

    def details(self) -> list[str]:
        """The measured values next to their thresholds, then the notes: shown whatever the verdict."""
        return [m.describe() for m in self.measures] + self.notes


def read_gtest_report(path: Path, name: str) -> GtestReport | None:
    """The report of test `name` (Suite.Name) in the XML file at `path`, or None when the file is
    missing, unreadable, or does not show exactly that one test run to its end."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    ran = [case for case in root.iter("testcase") if case.get("status") == "run"]
    if len(ran) != 1 or f"{ran[0].get('classname')}.{ran[0].get('name')}" != name:
        return None
    case = ran[0]

    def message(element: ET.Element) -> str:
        text = element.get("message", "")
        return text.split("\n", 1)[1].strip() if re.match(r"[^\n]*:\d+\n", text) else text.strip()

    skipped, failure = case.find("skipped"), case.find("failure")
    if failure is not None:
        report = GtestReport("failed", message(failure))
    elif case.get("result") == "skipped" or skipped is not None:
        report = GtestReport("skipped", message(skipped) if skipped is not None else "")
    elif case.get("result", "completed") == "completed":
        report = GtestReport("passed")
    else:
        return None
    report.hints = _reported(case, KEY_HINT)
    for measure in _json_objects(_reported(case, KEY_MEASURE)):
        try:
            report.measures.append(
                Measure(
                    measure["name"],
                    float(measure["value"]),
                    measure["op"],
                    float(measure["threshold"]),
                    measure.get("unit", ""),
                )
            )
        except (ValueError, KeyError, TypeError):
            continue  # an unreadable measure is left out: not worth failing the report for
    notes = [note for note in _json_objects(_reported(case, KEY_NOTE)) if {"name", "text"} <= note.keys()]
    report.notes = [f"{note['name']}: {note['text']}" for note in notes]  # "name: text"
    return report


def _reported(case: ET.Element, key: str) -> list[str]:
    """The values the test recorded under `key`.1, `key`.2, ... (its <properties>), in the order reported."""
    numbered = re.compile(rf"{re.escape(key)}\.\d+")
    return [
        found.get("value", "")
        for found in case.findall("properties/property")
        if numbered.fullmatch(found.get("name", ""))
    ]


def _json_objects(values: list[str]) -> list[dict]:
    """The values of a report that are JSON objects (measures, notes); an unreadable one is left out."""
    found = []
    for value in values:
        try:
            found.append(json.loads(value))
        except ValueError:
            continue
    return [data for data in found if isinstance(data, dict)]
