#!/usr/bin/env python3
"""Doxygen's input filter for the course's Markdown pages (FILTER_PATTERNS in Doxyfile.in).

The READMEs are written for GitHub; Doxygen 1.9.4 reads two things in them differently:

- In-page links such as `[The article, more precisely](#the-article-more-precisely)`:
  GitHub derives an anchor from every heading, Doxygen does not. Each heading gets
  GitHub's anchor as an explicit Doxygen id (`## Title {#id}`). Doxygen's ids are
  global, and every lab README has a section of the same name, so ids and links
  are prefixed with the page's path (`labs-01-null-stream-readme-...`).
- An `&` in a code span, as in `(void)&first;`, is read as the start of an HTML
  entity: it is written as `&amp;`, which Doxygen shows as `&`.
- A figure shown by its bare name (`![...](timeline-h200.png)`, next to the README)
  is looked up by name in every folder of IMAGE_PATH, and several labs have a
  figure of the same name: it is written with its folder (`04-async-copies/...`),
  which names one of them.
- A link to another Markdown file becomes a reference to that page, which must be
  one of Doxygen's inputs. The Korean pages (`README.ko.md`) are not: a link to
  one is written as its text and the file's name (`한국어: README.ko.md`).

The text goes to stdout with the same number of lines, so Doxygen's warnings
still point at the right line. Standard library only.

    python3 tools/doxygen_markdown.py labs/01-null-stream/README.md
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADING = re.compile(r"^(#{2,6})\s+(.*?)\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
IN_PAGE_LINK = re.compile(r"\]\(#([^)\s]+)\)")
KOREAN_PAGE_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+\.ko\.md)\)")
LOCAL_FIGURE = re.compile(r"(!\[[^\]]*\]\()([^/)\s]+\.(?:png|svg|jpg))\)")


def github_anchor(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def page_prefix(path: Path) -> str:
    """A prefix that makes a page's anchors unique: its path from the repository root, as one word."""
    try:
        relative = path.resolve().relative_to(ROOT)
    except ValueError:
        relative = Path(path.name)
    return github_anchor(str(relative.with_suffix("")).replace("/", "-").replace(".", "-"))


def escape_code_spans(line: str) -> str:
    """Writes `&` inside code spans as `&amp;`."""
    return CODE_SPAN.sub(lambda span: span.group(0).replace("&", "&amp;"), line)


def filter_markdown(text: str, prefix: str, folder: str = "") -> str:
    """The page as Doxygen should read it (see the module's description); line for line.
    `folder`: the name of the page's folder, which its figures lie in."""
    lines = text.split("\n")
    seen: dict[str, int] = {}
    in_fence = False
    for number, line in enumerate(lines):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = HEADING.match(line)
        if heading and not line.rstrip().endswith("}"):
            anchor = github_anchor(heading.group(2))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            if count:  # GitHub numbers repeated headings: title, title-1, title-2, ...
                anchor = f"{anchor}-{count}"
            line = f"{line.rstrip()} {{#{prefix}-{anchor}}}"
        line = IN_PAGE_LINK.sub(lambda link: f"](#{prefix}-{link.group(1)})", line)
        line = KOREAN_PAGE_LINK.sub(lambda link: f"{link.group(1)}: `{link.group(2)}`", line)
        if folder:
            line = LOCAL_FIGURE.sub(lambda figure: f"{figure.group(1)}{folder}/{figure.group(2)})", line)
        lines[number] = escape_code_spans(line)
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: doxygen_markdown.py FILE.md   (writes the filtered page to stdout)", file=sys.stderr)
        return 2
    path = Path(argv[0])
    sys.stdout.write(filter_markdown(path.read_text(encoding="utf-8"), page_prefix(path), path.resolve().parent.name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
