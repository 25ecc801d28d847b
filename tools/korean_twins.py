#!/usr/bin/env python3
"""Keeps every Korean page (README.ko.md, slides/ko/NN-topic.md, notebook.ko.py) in step with its English twin.

The Korean pages say the same things in Korean; what a reader compares between the two must be identical
(labs/AUTHORING.md, "The Korean README"). For each pair this checks, outside fenced code blocks:

- the headings: the same number, in the same order, each at the same level;
- the fenced code blocks byte for byte (code and its comments are never translated), and a slide
  deck's `<!-- include ... -->` lines, which become code when it is rendered;
- the figures: the same image targets in the same order;
- the numbers with their units, section by section, as often in each (see NUMBER);
- the same number of collapsed hint blocks (`<details>`) in each section;
- the Korean page's in-page links (`[...](#anchor)`) lead to one of its own headings.

A lab's notebook (Jupytext's percent format) is compared as notebook_page makes it a page. The
top-level README.ko.md translates the whole of README.md (INSTRUCTORS.md is in English only); every
lab README, notebook and slide deck must have a twin.

    python3 tools/korean_twins.py          # checks every pair; prints the first difference of each

tools/tests/test_korean.py runs it in `course test`. Standard library only.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path

from doxygen_markdown import github_anchor  # GitHub's heading ids; Hangul is a word character too

ROOT = Path(__file__).resolve().parents[1]

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
NOTEBOOK_CELL = re.compile(r"^# %%(.*)$")  # a percent-format notebook's cell marker: `# %%` or `# %% [markdown]`
INCLUDE = re.compile(r"^\s*<!--\s*include\s.*-->\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# A figure: its target and the attributes after it ({height=70%}); the alt text may span lines.
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*([^)\s]+)[^)]*\)(\{[^}]*\})?|<img\b[^>]*\bsrc\s*=\s*\"([^\"]+)\"")
DETAILS = re.compile(r"<details\b", re.IGNORECASE)
IN_PAGE_LINK = re.compile(r"\]\(#([^)\s]+)\)")
# A number: not part of a name (H2D, sm_90, lab01), digits grouped by commas allowed, a unit after it.
# A factor reads "4 times as long", "1.9 times" in English and "4배", "1.9배" in Korean: both count
# as 4x (FACTOR_AFTER tells "4 times as long" from "launched 4 times").
NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?"
    r"(?:\s?(ms|µs|us|ns|GB/s|GiB|MiB|KiB|GB|MB|KB|Mi)(?![A-Za-z])|([x×배%])(?![A-Za-z])|\s(times)(?![A-Za-z]))?"
)
UNIT_ALIASES = {"×": "x", "배": "x"}
FACTOR_AFTER = re.compile(r"\s+(?:as|the)\b|\s+\(")


@dataclass
class Section:
    """The part of a page under one heading (the part before the first heading is section 0)."""

    heading: str
    level: int
    numbers: Counter = field(default_factory=Counter)
    details: int = 0


@dataclass
class Page:
    sections: list[Section]
    code_blocks: list[str]
    figures: list[str]
    in_page_links: list[str]

    @property
    def headings(self) -> list[Section]:
        return self.sections[1:]


def parse(text: str) -> Page:
    """The comparable parts of a Markdown page."""
    sections = [Section("(before the first heading)", 0)]
    code_blocks, links, prose = [], [], []
    block: list[str] | None = None
    fence = ""
    for line in text.splitlines(keepends=True):
        opening = FENCE.match(line)
        if block is not None:
            block.append(line)
            if opening and line.strip() == fence:
                code_blocks.append("".join(block))
                block = None
            continue
        if opening:
            block, fence = [line], opening.group(1)
            continue
        if INCLUDE.match(line):
            code_blocks.append(line.strip())
            continue
        heading = HEADING.match(line)
        if heading:
            sections.append(Section(heading.group(2), len(heading.group(1))))
        section = sections[-1]
        section.numbers.update(numbers_in(line))
        section.details += len(DETAILS.findall(line))
        links += IN_PAGE_LINK.findall(line)
        prose.append(line)
    if block is not None:
        code_blocks.append("".join(block))
    figures = [target + attributes or html for target, attributes, html in IMAGE.findall("".join(prose))]
    return Page(sections, code_blocks, figures, links)


def numbers_in(line: str) -> list[str]:
    """Every number of a prose line with its unit, written one way ('1.72x', '64 MiB', '1000')."""
    found = []
    for match in NUMBER.finditer(line):
        whole, decimals, unit, sign, times = match.groups()
        factor = times and (decimals or FACTOR_AFTER.match(line, match.end()))
        unit = unit or ("x" if factor else UNIT_ALIASES.get(sign or "", sign or ""))
        number = whole.replace(",", "") + (decimals or "")
        found.append(f"{number} {unit}".strip() if unit and unit not in "x%" else number + unit)
    return found


def _first_difference(english: list, korean: list) -> tuple[int, object, object] | None:
    pairs = enumerate(zip_longest(english, korean, fillvalue="(nothing)"))
    return next(((index, left, right) for index, (left, right) in pairs if left != right), None)


def _shorten(text: object, width: int = 120) -> str:
    text = str(text).replace("\n", "\\n")
    return text if len(text) <= width else text[:width] + "..."


def compare(english_text: str, korean_text: str, english_name: str, korean_name: str) -> str | None:
    """The first difference between a page and its Korean twin, as one line naming the Korean file;
    None when they are in step."""
    english, korean = parse(english_text), parse(korean_text)
    where = f"{korean_name} (twin of {english_name})"
    levels_e = [s.level for s in english.headings]
    levels_k = [s.level for s in korean.headings]
    difference = _first_difference(levels_e, levels_k)  # never None where the counts differ
    if len(levels_e) != len(levels_k):
        at = difference[0]
        return (
            f"{where}: {len(levels_k)} headings, the English page has {len(levels_e)}; first difference at "
            f"heading {at + 1}: English '{_heading_at(english, at)}', Korean '{_heading_at(korean, at)}'"
        )
    if difference:
        at = difference[0]
        return (
            f"{where}: heading {at + 1} is level {levels_k[at]}, the English one level {levels_e[at]} "
            f"('{english.headings[at].heading}' / '{korean.headings[at].heading}')"
        )

    difference = _first_difference(english.code_blocks, korean.code_blocks)
    if difference:
        at, left, right = difference
        return f"{where}: code block {at + 1} differs: English {_shorten(left)!r}, Korean {_shorten(right)!r}"

    difference = _first_difference(english.figures, korean.figures)
    if difference:
        at, left, right = difference
        return f"{where}: figure {at + 1} differs: English {left}, Korean {right}"

    for section_e, section_k in zip(english.sections, korean.sections):
        name = f"section '{section_e.heading}' / '{section_k.heading}'"
        if section_e.numbers != section_k.numbers:
            only_e = sorted((section_e.numbers - section_k.numbers).elements())
            only_k = sorted((section_k.numbers - section_e.numbers).elements())
            return (
                f"{where}: {name}: numbers differ: only in English {only_e or 'none'}, "
                f"only in Korean {only_k or 'none'}"
            )
        if section_e.details != section_k.details:
            return f"{where}: {name}: {section_k.details} <details> blocks, the English section has {section_e.details}"

    anchors = {github_anchor(s.heading) for s in korean.headings}
    for link in korean.in_page_links:
        if link not in anchors:
            return f"{where}: the link to #{link} leads to no heading of the page"
    return None


def _heading_at(page: Page, index: int) -> str:
    return page.headings[index].heading if index < len(page.headings) else "(none)"


def notebook_page(text: str) -> str:
    """A percent-format notebook as a Markdown page: its Markdown cells as they read (the leading `# `
    taken off), each code cell (and the header before the first cell) as a fenced code block."""
    cells: list[tuple[bool, list[str]]] = [(False, [])]
    for line in text.splitlines(keepends=True):
        marker = NOTEBOOK_CELL.match(line)
        if marker:
            cells.append(("[markdown]" in marker.group(1), []))
        else:
            markdown, lines = cells[-1]
            lines.append(re.sub(r"^# ?", "", line) if markdown else line)
    blocks = []
    for markdown, lines in cells:
        body = "".join(lines).strip("\n")
        if body:
            blocks.append(body if markdown else f"```python\n{body}\n```")
    return "\n\n".join(blocks) + "\n"


def page_text(path: Path) -> str:
    """A page's text as compared: a notebook as notebook_page makes it, a Markdown page as it is."""
    return notebook_page(path.read_text()) if path.suffix == ".py" else path.read_text()


def twin_of(page: Path) -> Path:
    """Where an English page's Korean twin lives: README.ko.md beside a README, notebook.ko.py beside a
    notebook, slides/ko/ for a deck."""
    if page.suffix == ".py":
        return page.with_name(page.stem + ".ko.py")
    return page.with_name("README.ko.md") if page.name == "README.md" else page.parent / "ko" / page.name


def twins(root: Path = ROOT) -> list[tuple[Path, Path]]:
    """(English page, its Korean twin's path) for every page that must have a twin: the top README,
    every lab README, every lab notebook and every slide deck."""
    pages = [
        root / "README.md",
        *sorted(root.glob("labs/[0-9][0-9]-*/README.md")),
        *sorted(root.glob("labs/[0-9][0-9]-*/python/notebook.py")),
        *sorted(root.glob("slides/[0-9][0-9]-*.md")),
    ]
    return [(page, twin_of(page)) for page in pages]


def link_problems(english: Path, korean: Path, root: Path) -> list[str]:
    """A lab or top README links to its Korean twin near its top, and the twin back to it."""
    if english.parent.parent.name == "slides" or english.parent.name == "slides" or english.suffix == ".py":
        return []
    problems = []
    for page, other in ((english, korean), (korean, english)):
        head = "".join(page.read_text().splitlines(keepends=True)[:5])
        if f"]({other.name})" not in head:
            problems.append(f"{page.relative_to(root)}: no link to {other.name} in its first lines")
    return problems


def check(root: Path = ROOT) -> list[str]:
    """One line for each page out of step with its twin (or without one)."""
    problems = []
    for english, korean in twins(root):
        english_name = english.relative_to(root).as_posix()
        korean_name = korean.relative_to(root).as_posix()
        if not korean.is_file():
            problems.append(f"{english_name}: has no Korean twin {korean_name}")
            continue
        difference = compare(page_text(english), page_text(korean), english_name, korean_name)
        if difference:
            problems.append(difference)
        problems += link_problems(english, korean, root)
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the course's folder (default: this checkout)")
    args = parser.parse_args(argv)
    problems = check(args.root)
    for problem in problems:
        print(f"korean_twins: {problem}")
    if not problems:
        print(f"korean_twins: {len(twins(args.root))} Korean pages in step with their English twins")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
