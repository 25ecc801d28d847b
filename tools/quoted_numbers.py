#!/usr/bin/env python3
"""The numbers the READMEs and slides quote, and the one file they come from.

common/reference/h200_quoted_numbers.json holds every measurement a README or
slide quotes (each with its device and date) and, under "quotes", where each is
quoted: a file and a text in which {measurement.key} (optionally {key:.2f})
stands for the number; a measurement not yet taken is null, and its quotes read
[[H200: measurement.key]]. tools/tests/test_quoted_numbers.py holds the pages to it:

- every quote appears in its file with the reference's number;
- every measured number in the prose of the READMEs and slides, English and
  Korean, comes from a quote (in a Korean page: of its English twin) or a
  transcript (a ```text block) and rounds to it: `unquoted_numbers`;
- the transcripts' "(lab NN is worth P of ... points, over L labs)" are what the
  labs' lab.json files declare: `points_problems`;
- every committed picture of a lab folder is named by its README, whose caption
  quotes the figures and rows of the picture's measurement, made from the run
  its PNG metadata dates: `picture_problems` (a picture and its text cannot drift apart).

    python3 tools/quoted_numbers.py fill RESULT.json [RESULT.json ...]
    python3 tools/quoted_numbers.py unquoted     # list the numbers no quote or transcript covers

`fill` stores each result a measurement program wrote (its "program" names the
measurement) and writes its numbers into the quoting files and their Korean
twins where the same fields are pending. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import struct
import sys
import zlib
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from coursecli.lab_declaration import declared_labs
from coursecli.reference_pictures import PICTURES
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
# A picture a README names: its file name beside the README, or its path from the root.
PICTURE_NAME = re.compile(r"[\w./-]+\.png")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
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
    values = {key: lookup(measurements, key) for key, _ in FIELD.findall(template)}
    if None in values.values():
        return None
    return FIELD.sub(lambda match: format(values[match.group(1)], match.group(2) or ""), template)


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
    covered = [
        (found.start(), found.start() + len(quote))
        for quote in quotes
        if quote
        for found in re.finditer(f"(?={re.escape(quote)})", text)  # a lookahead: overlapping quotes count too
    ]
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
    """Each lab's points ("01": 16), the sum of the points its lab.json's tests carry."""
    return {folder.name[:2]: declared.cpp.points for folder, declared in declared_labs(root)}


def points_problems(root: Path = ROOT) -> list[str]:
    """'file:line: ...' for each "(lab NN is worth P of the course's T points, over L labs)" in a README
    or slide deck that the labs' lab.json files do not give (a transcript gone stale)."""
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
                        f"{path.relative_to(root).as_posix()}:{number}: {match.group(0)}; lab.json: {expected}"
                    )
    return found


def png_text(path: Path) -> dict[str, str]:
    """The text chunks (tEXt, zTXt, iTXt) of the PNG at `path`, by keyword: the metadata the plot tool
    wrote (Title, Description: the device and date of the run it draws)."""
    data = path.read_bytes()
    if not data.startswith(PNG_SIGNATURE):
        return {}
    texts, at = {}, len(PNG_SIGNATURE)
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        body = data[at + 8 : at + 8 + length]
        at += 12 + length  # length, type, data, CRC
        keyword, _, rest = body.partition(b"\0")
        if kind == b"tEXt":
            texts[keyword.decode("latin-1")] = rest.decode("latin-1")
        elif kind == b"zTXt":
            texts[keyword.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif kind == b"iTXt":  # compressed?, method, language, translated keyword, then the text
            compressed, text = rest[0], rest[2:].split(b"\0", 2)[2]
            texts[keyword.decode("latin-1")] = (zlib.decompress(text) if compressed else text).decode("utf-8")
    return texts


def named_pictures(root: Path = ROOT) -> list[tuple[str, str]]:
    """(README, picture) for each committed picture a lab README names, both as paths from `root`."""
    found = []
    for readme in sorted(root.glob("labs/*/README.md")):
        for name in dict.fromkeys(PICTURE_NAME.findall(readme.read_text())):
            if name.startswith(("build/", ".")):
                continue  # what `course run` draws on the student's machine
            picture = next((p for p in (readme.parent / name, root / name) if p.is_file()), None)
            if picture is not None:
                found.append((readme.relative_to(root).as_posix(), picture.relative_to(root).as_posix()))
    return found


def committed_pictures(root: Path = ROOT) -> list[str]:
    """Every committed picture of a lab folder, as a path from `root`: each labs/NN-topic/*.png and each
    reference picture `course check` shows (common/reference/reference_pictures.json) that is there."""
    found = set(root.glob("labs/*/*.png"))
    for number, pictures in PICTURES.items():
        for folder in root.glob(f"labs/{number}-*"):
            found.update(folder / picture.name for picture in pictures if (folder / picture.name).is_file())
    return sorted(path.relative_to(root).as_posix() for path in found)


def picture_problems(reference: Path = REFERENCE, root: Path = ROOT) -> list[str]:
    """'README: ...' for each picture a lab README names whose figures are not a measurement of the reference
    file made from that picture's run, or that the README's quotes do not show with its rows' names; and
    'PICTURE: ...' for each committed picture of a lab folder that no lab README names."""
    data = json.loads(reference.read_text())
    named = {picture for _, picture in named_pictures(root)}
    measured = {m.get("picture") for m in data["measurements"].values() if m}
    found = []
    for picture in committed_pictures(root):
        if picture in named:
            continue  # its README's caption is checked below
        found.append(
            f"{picture}: no lab README names it: show it in {picture.rsplit('/', 1)[0]}/README.md with a caption "
            "that quotes its figures and rows"
        )
        if picture not in measured:
            found.append(f'{picture}: no measurement of its figures in {reference.name} ("picture": its path)')
    for readme, picture in named_pictures(root):
        entries = {name: m for name, m in data["measurements"].items() if m and m.get("picture") == picture}
        if not entries:
            found.append(
                f'{readme}: {picture} has no measurement of its figures in {reference.name} ("picture": its path)'
            )
        described = png_text(root / picture).get("Description", "")
        for name, measurement in entries.items():
            quotes = [q["text"] for q in data["quotes"] if q["file"] == readme and "{" + name + "." in q["text"]]
            if not quotes:
                found.append(f"{readme}: no quote shows {picture}'s figures ({name}): its caption must say them")
            if measurement["date"] not in described:
                found.append(f"{readme}: {picture} draws a run that {name}'s date {measurement['date']} is not")
            for row in measurement.get("rows", []):
                if not any(_names_row(quote, row) for quote in quotes):
                    found.append(f"{readme}: no caption of {picture} names its row {row!r} as the picture does")
    return found


def _names_row(text: str, row: str) -> bool:
    """Whether `text` names the row `row` as the picture does: "stream 26" by the word stream and its
    number ("stream 26 to 29", "stream 25, 26 and 27" name stream 26 too), any other row by its name."""
    number = re.fullmatch(r"stream (\d+)", row)
    if number is None:
        return row in text
    return "stream" in text and re.search(rf"(?<![\w.]){number.group(1)}(?![\w.])", text) is not None


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
    sub.add_parser(
        "unquoted",
        help="list measured numbers in READMEs and slides that no quote or transcript covers, "
        "and pictures whose captions do not show their figures",
    )
    args = parser.parse_args(argv)
    if args.command == "unquoted":
        found = all_unquoted_numbers() + points_problems() + picture_problems()
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
