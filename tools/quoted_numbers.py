#!/usr/bin/env python3
"""The numbers the READMEs and slides quote, and the one file they come from.

common/reference/h200_quoted_numbers.json holds every measurement a README or
slide quotes (each with its device and date) and, under "quotes", where each is
quoted: a file and a text in which {measurement.key} (optionally {key:.2f})
stands for the number. tools/tests/test_quoted_numbers.py checks that every
quote appears in its file with the reference's number. A measurement not yet
taken is null; its quotes then read [[H200: measurement.key]] in the file.

Every measured number in the prose of the READMEs and slides, English and
Korean (outside code blocks: a number in ms, µs or GB/s, a decimal speedup such
as 1.72x, a decimal percentage such as 97.4%) must come from one of
two places: a quote above (in a Korean page: a number of its English twin's
quotes), or a transcript of the same file (a ```text block, the program's
output); either way the number must round to it ("about 14 ms" from 14.04).
`unquoted_numbers` finds the rest; the test fails on any. `points_problems`
holds the transcripts' "(lab NN is worth P of the course's T points, over L
labs)" to the points the labs' lab.cmake declare.

    python3 tools/quoted_numbers.py fill RESULT.json [RESULT.json ...]
    python3 tools/quoted_numbers.py unquoted     # list the numbers no quote or transcript covers

stores each result a measurement program wrote (pageable_overlap --json,
host_allocation_costs --json: their "program" names the measurement) in the
reference file and writes its numbers into the quoting files, and into their
Korean twins (README.ko.md, slides/ko/), where the same fields are pending.
tools/korean_twins.py also holds each Korean page to its English twin's numbers,
section by section.

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from coursecli.lab_cmake import declared_labs
from korean_twins import twin_of

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "common" / "reference" / "h200_quoted_numbers.json"
FIELD = re.compile(r"\{([A-Za-z0-9_.\- ]+?)(?::([^}]+))?\}")
# A measured number in prose: a time or a bandwidth, whole or decimal; a speedup (x, ×) or a
# percentage only when decimal (whole ones are mostly thresholds: "within 10%"). A Korean particle
# may follow the unit ("8.15 ms에"), so only a Latin letter or digit ends it. (A Korean factor, 1.75배,
# is held to its English twin's 1.75x by tools/korean_twins.py, as "1.9 times" and 1.9배 are.)
MEASURED = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s?(ms|µs|GB/s)(?![A-Za-z0-9_])|([x×%])(?![A-Za-z0-9_]))")
TRANSCRIPT_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
QUOTING_FILES = ("README.md", "labs/*/README.md", "slides/*.md")
KOREAN_FILES = ("README.ko.md", "labs/*/README.ko.md", "slides/ko/*.md")
# What `course check` prints under a lab's total (tools/coursecli/labs.py).
POINTS_LINE = re.compile(r"\(lab (\d+) is worth (\d+) of the course's (\d+) points, over (\d+) labs?\)")


def lookup(measurements: dict, key: str):
    """The value at a dotted `key` ("three_chunks.serial_ms"); None while its measurement is pending."""
    value = measurements
    for part in key.split("."):
        if value is None:
            return None
        if not isinstance(value, dict) or part not in value:
            raise KeyError(f"{key}: not in the reference file")
        value = value[part]
    return value


def measured_text(template: str, measurements: dict) -> str | None:
    """The quote with the reference's numbers, or None when one of them is pending."""
    missing = False

    def number(match: re.Match) -> str:
        nonlocal missing
        value = lookup(measurements, match.group(1))
        missing = missing or value is None
        return "" if value is None else format(value, match.group(2) or "")

    text = FIELD.sub(number, template)
    return None if missing else text


def pending_text(template: str) -> str:
    """The quote as it reads while its numbers are pending."""
    return FIELD.sub(lambda match: f"[[H200: {match.group(1)}]]", template)


def fill(results: list[Path], reference: Path = REFERENCE, root: Path = ROOT) -> list[str]:
    """Stores `results` in the reference file and writes the quotes' numbers into their files; returns what changed."""
    data = json.loads(reference.read_text())
    for path in results:
        result = json.loads(path.read_text())
        name = result.get("program")
        if name not in data["measurements"]:
            raise SystemExit(f"quoted_numbers: {path}: 'program' {name!r} is not a measurement of {reference.name}")
        data["measurements"][name] = result
    changed = []
    for quote in data["quotes"]:
        text = measured_text(quote["text"], data["measurements"])
        target = root / quote["file"]
        if text is None:
            continue
        content = target.read_text()
        if pending_text(quote["text"]) in content:
            target.write_text(content.replace(pending_text(quote["text"]), text))
            changed.append(quote["file"])
        changed += _fill_korean_twin(quote["text"], data["measurements"], target, root)
    reference.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return sorted(set(changed))


def _fill_korean_twin(template: str, measurements: dict, page: Path, root: Path) -> list[str]:
    """Writes the quote's numbers into the page's Korean twin (tools/korean_twins.py), whose sentence
    differs but whose pending fields read the same; returns the twin's name if it changed."""
    twin = twin_of(page)
    if not twin.is_file():
        return []
    content = twin.read_text()
    filled = content
    for key, spec in FIELD.findall(template):
        filled = filled.replace(f"[[H200: {key}]]", format(lookup(measurements, key), spec))
    if filled == content:
        return []
    twin.write_text(filled)
    return [twin.relative_to(root).as_posix()]


def _prose_and_transcripts(text: str) -> tuple[list[tuple[int, int, str]], list[str]]:
    """(line number, offset of the line in `text`, line) of every prose line, and every transcript
    (a fenced block whose opening fence says `text`), of a Markdown file."""
    prose, transcripts, offset = [], [], 0
    block: list[str] | None = None  # the lines of the fenced block we are in
    is_transcript = False
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        stripped = line.strip()
        if stripped.startswith("```") and block is None:
            block, is_transcript = [], stripped == "```text"
        elif stripped.startswith("```"):
            if is_transcript:
                transcripts.append("".join(block))
            block = None
        elif block is None:
            prose.append((number, offset, line))
        else:
            block.append(line)
        offset += len(line)
    return prose, transcripts


def unquoted_numbers(
    name: str, text: str, quotes: list[str], more_transcripts: list[str] = (), twin_quotes: list[str] = ()
) -> list[str]:
    """'name:line: number' for each measured number in the prose of `text` that neither lies in one of
    `quotes` (the file's quotes with their numbers) nor rounds from a number of one of the quotes, of
    `twin_quotes` (a Korean page's: its English twin's quotes), of one of its transcripts or of
    `more_transcripts` (a slide deck's: its lab README's)."""
    covered = [(start, start + len(quote)) for quote in quotes for start in _occurrences(text, quote)]
    prose, transcripts = _prose_and_transcripts(text)
    shown = {
        number
        for source in [*transcripts, *more_transcripts, *quotes, *twin_quotes]
        for number in TRANSCRIPT_NUMBER.findall(source)
    }
    found = []
    for line_number, offset, line in prose:
        for match in MEASURED.finditer(line):
            if match.group(3) and "." not in match.group(1):
                continue  # a whole speedup or percentage: a threshold, not a measurement
            at = offset + match.start()
            if any(start <= at < end for start, end in covered):
                continue
            if any(_rounds_to(number, match.group(1)) for number in shown):
                continue
            found.append(f"{name}:{line_number}: {match.group(0).strip()}")
    return found


def _rounds_to(number: str, quoted: str) -> bool:
    """Whether `number`, as printed, rounds (half up, as people round) to `quoted`'s decimals."""
    places = Decimal(1).scaleb(-len(quoted.partition(".")[2]))
    return Decimal(number).quantize(places, rounding=ROUND_HALF_UP) == Decimal(quoted)


def _occurrences(text: str, part: str) -> list[int]:
    starts, start = [], text.find(part)
    while part and start >= 0:
        starts.append(start)
        start = text.find(part, start + 1)
    return starts


def all_unquoted_numbers(reference: Path = REFERENCE, root: Path = ROOT) -> list[str]:
    """unquoted_numbers for every README and slide deck, English and Korean, with the reference's quotes."""
    data = json.loads(reference.read_text())

    def quotes_of(name: str) -> list[str]:
        return [
            measured_text(q["text"], data["measurements"]) or pending_text(q["text"])
            for q in data["quotes"]
            if q["file"] == name
        ]

    found = []
    for path in sorted({p for pattern in QUOTING_FILES for p in root.glob(pattern)}):
        name = path.relative_to(root).as_posix()
        found += unquoted_numbers(name, path.read_text(), quotes_of(name), _lab_transcripts(path, root))
        twin = twin_of(path)
        if twin.is_file():
            found += unquoted_numbers(
                twin.relative_to(root).as_posix(),
                twin.read_text(),
                [],
                _lab_transcripts(path, root),
                twin_quotes=quotes_of(name),
            )
    return found


def course_points(root: Path = ROOT) -> dict[str, int]:
    """Each lab's points ("01": 16), as its lab.cmake's TESTS list them (Suite.Name gpu|cpu points)."""
    return {folder.name[:2]: declared.cpp.points for folder, declared in declared_labs(root)}


def points_problems(root: Path = ROOT) -> list[str]:
    """'file:line: ...' for each "(lab NN is worth P of the course's T points, over L labs)" in a README
    or slide deck that the labs' lab.cmake do not give (a transcript gone stale)."""
    points = course_points(root)
    total, labs = sum(points.values()), len(points)
    found = []
    for path in sorted({p for pattern in (*QUOTING_FILES, *KOREAN_FILES) for p in root.glob(pattern)}):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for match in POINTS_LINE.finditer(line):
                lab, worth, course, over = match.group(1), *map(int, match.groups()[1:])
                expected = f"(lab {lab} is worth {points.get(lab)} of the course's {total} points, over {labs} labs)"
                if (worth, course, over) != (points.get(lab), total, labs):
                    found.append(
                        f"{path.relative_to(root).as_posix()}:{number}: {match.group(0)}; lab.cmake: {expected}"
                    )
    return found


def _lab_transcripts(path: Path, root: Path) -> list[str]:
    """A slide deck presents its lab (slides/05-three-chunks.md: labs/05-three-chunks), and the
    overview every lab: the transcripts of those READMEs."""
    if path.parent.name != "slides":
        return []
    pattern = "labs/*/README.md" if path.name.startswith("00-") else f"labs/{path.stem}/README.md"
    return [
        transcript
        for readme in sorted(root.glob(pattern))
        for transcript in _prose_and_transcripts(readme.read_text())[1]
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    fill_parser = sub.add_parser("fill", help="store measurement results and write their numbers into the quotes")
    fill_parser.add_argument("results", nargs="+", type=Path)
    sub.add_parser("unquoted", help="list measured numbers in READMEs and slides that no quote or transcript covers")
    args = parser.parse_args(argv)
    if args.command == "unquoted":
        found = all_unquoted_numbers() + points_problems()
        for line in found:
            print(f"quoted_numbers: {line}")
        return 1 if found else 0
    for path in args.results:
        if not path.is_file():
            print(f"quoted_numbers: {path} does not exist")
            return 1
    for name in fill(args.results):
        print(f"quoted_numbers: filled in {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
