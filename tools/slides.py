#!/usr/bin/env python3
"""Renders the slide decks (slides/NN-topic.md) to PDF with pandoc's Beamer output.

slides/README.md says how a deck names its code (`<!-- include FILE:FUNCTION from="..." to="..." -->`):
the line is replaced, at every render, by a fenced code block cut from that file (extract), and a region
that cannot be found stops the render naming the deck line, so a slide never shows code the solution no
longer has. The render then reads the LaTeX log and the PDF for anything that runs off a slide (an
overfull box, a word past the page's edge): any of them fails it. The Korean decks (slides/ko/) are set
with xelatex in KOREAN_FONT, since pdflatex has no Hangul, and fail on a character the font lacks, which
xelatex only notes in its log.

Standard library only. The CMake target `slides` and `./course slides` run it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = Path("slides") / "beamer-header.tex"

# Overfull boxes up to this size are TeX rounding, invisible on a slide.
OVERFULL_TOLERANCE_PT = 1.0
# The Korean decks' font (Debian: fonts-noto-cjk); it has Latin letters and the decks' symbols too.
KOREAN_FONT = "Noto Sans CJK KR"
# 16:9 Beamer slides, one per `##` heading, with no section title pages.
PANDOC_OPTIONS = ["--from=markdown", "--to=beamer", "--standalone", "--slide-level=2", "--highlight-style=tango"]
PANDOC_OPTIONS += ["--variable=aspectratio:169", "--variable=fontsize:10pt", "--variable=section-titles:false"]
LATEX_OPTIONS = ["-interaction=nonstopmode", "-halt-on-error", "-file-line-error"]
# The programs a render runs (each an option naming it) and what each is for.
TOOL_USES = {
    "pandoc": "",
    "pdflatex": "",
    "xelatex": ", for the Korean decks in slides/ko/",
    "pdftotext": ", for the check of words past a page's edge (without it only the LaTeX log is checked)",
}

INCLUDE_LINE = re.compile(r"^\s*<!--\s*include\s+(?P<target>\S+)(?P<options>.*?)-->\s*$")
INCLUDE_OPTION = re.compile(r'(\w+)="([^"]*)"')
KNOWN_OPTIONS = {"from", "to", "through"}
# A code block's language, by the suffix of the file it is cut from.
LANGUAGES = {
    **dict.fromkeys([".cu", ".cuh", ".cpp", ".hpp", ".h"], "cpp"),
    ".py": "python",
    ".cmake": "cmake",
    ".sh": "bash",
}


class SlideError(Exception):
    """A deck that cannot be rendered: a missing region, a failed tool, or a slide that overflows."""


# ------------------------------------------------------------------ finding code


def _code_only(line: str) -> str:
    """The line without comments and string or character literals, for counting braces."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    line = re.sub(r"/\*.*?\*/", "", line)
    return line.split("//", 1)[0]


def _block_end(lines: list[str], start: int) -> int | None:
    """Index of the line that closes the first brace block opening at or after `start`.

    An `else` right after the closing brace continues the block. Returns None
    when a `;` at the outer level comes first: then `start` begins a
    declaration or a statement, not a block.
    """
    depth = 0
    opened = False
    parens = 0
    for index in range(start, len(lines)):
        code = _code_only(lines[index])
        for position, char in enumerate(code):
            if char == "(":
                parens += 1
            elif char == ")":
                parens -= 1
            elif char == "{" and parens == 0:
                depth += 1
                opened = True
            elif char == "}" and parens == 0:
                depth -= 1
                if opened and depth == 0 and not _else_follows(code[position + 1 :], lines[index + 1 :]):
                    return index
            elif char == ";" and not opened and parens == 0:
                return None
    return None


def _else_follows(rest_of_line: str, later_lines: list[str]) -> bool:
    """Whether the code after a closing brace goes on with `else`."""
    rest = rest_of_line.strip()
    if not rest:
        rest = next((_code_only(line).strip() for line in later_lines if _code_only(line).strip()), "")
    return re.match(r"else\b", rest) is not None


def _statement_end(lines: list[str], start: int) -> int:
    """Index of the line ending the statement (or block) that starts at `start`."""
    block = _block_end(lines, start)
    if block is not None:
        return block
    for index in range(start, len(lines)):
        if _code_only(lines[index]).rstrip().endswith(";"):
            return index
    return start


def find_function(lines: list[str], name: str) -> tuple[int, int] | None:
    """First and last line index of the definition of function `name`, or None."""
    call = re.compile(rf"(?<![\w.>]){re.escape(name)}\s*\(")
    for index, line in enumerate(lines):
        if call.search(_code_only(line)):
            end = _block_end(lines, index)
            if end is not None:
                return index, end
    return None


def extract(root: Path, target: str, options: dict[str, str]) -> str:
    """The code block of what `target` (FILE:NAME) and its from/to options name; SlideError if absent."""
    unknown = set(options) - KNOWN_OPTIONS
    if unknown:
        raise SlideError(f"unknown include option(s) {', '.join(sorted(unknown))} (known: from, to, through)")
    for option in ("to", "through"):
        if option in options and "from" not in options:
            raise SlideError(f'`{option}="..."` needs a `from="..."`')
    if "to" in options and "through" in options:
        raise SlideError('give `to="..."` or `through="..."`, not both')
    path_text, sep, name = target.rpartition(":")
    if not sep or not path_text or not name:
        raise SlideError(f"{target!r}: write FILE:FUNCTION, e.g. solutions/01-null-stream/null_stream.cu:run_serial")
    path = root / path_text
    if not path.is_file():
        raise SlideError(f"{path_text}: no such file")
    lines = path.read_text().splitlines()

    found = find_function(lines, name)
    if found is None:
        raise SlideError(f"{path_text}: no definition of function {name!r}")
    first, last = found
    where = f"{name} (lines {first + 1}-{last + 1} of {path_text})"

    if "from" in options:
        start = next((i for i in range(first, last + 1) if options["from"] in lines[i]), None)
        if start is None:
            raise SlideError(f"no line containing {options['from']!r} in {where}")
        end_text = options.get("to", options.get("through"))
        if end_text is None:
            end = _statement_end(lines, start)
        else:
            end = next((i for i in range(start + 1, last + 1) if end_text in lines[i]), None)
            if end is None:
                raise SlideError(f"no line containing {end_text!r} after {options['from']!r} in {where}")
            if "through" in options:
                end = _statement_end(lines, end)
        first, last = start, end

    return code_block(path_text, first + 1, last + 1, textwrap.dedent("\n".join(lines[first : last + 1])))


def code_block(path: str, first_line: int, last_line: int, text: str) -> str:
    """Markdown for lines cut from `path` (1-based, inclusive): a fenced code block and a small note saying
    where it is from."""
    language = LANGUAGES.get(Path(path).suffix, "")
    return f"~~~~ {language}\n{text}\n~~~~\n\n\\codesource{{{path}}}{{{first_line}}}{{{last_line}}}\n"


def expand_includes(text: str, root: Path, source: str = "<deck>") -> str:
    """The deck with every include line replaced by its code block; SlideError names the bad line."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = INCLUDE_LINE.match(line)
        if not match:
            out.append(line)
            continue
        options = dict(INCLUDE_OPTION.findall(match.group("options")))
        leftover = INCLUDE_OPTION.sub("", match.group("options")).strip()
        try:
            if leftover:
                raise SlideError(f'cannot read {leftover!r} (write options as name="text")')
            out.append(extract(root, match.group("target"), options))
        except SlideError as problem:
            raise SlideError(f"{source}:{number}: include {match.group('target')}: {problem}") from None
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ checking the result


def overflows(log_text: str, tolerance_pt: float = OVERFULL_TOLERANCE_PT) -> list[str]:
    """The overfull boxes in a LaTeX log larger than `tolerance_pt`, one line each, with their page.

    An overfull \\hbox is a line (of text, of a table, of code) wider than the
    slide; an overfull \\vbox is a frame taller than the page. A warning
    belongs to the page after the last one the log shows shipped out (`[N`).
    """
    found = []
    event = re.compile(r"^Overfull \\([hv])box \(([\d.]+)pt too (?:wide|high)\)(.*)$|\[(\d+)[\s\]<{]", re.M)
    pages_done = 0
    for match in event.finditer(log_text):
        kind, size, rest, page = match.groups()
        if page is not None:
            if int(page) == pages_done + 1:  # page numbers go up one by one; anything else is not a page
                pages_done += 1
        elif float(size) > tolerance_pt:
            what = "too wide" if kind == "h" else "too tall"
            found.append(f"page {pages_done + 1}: {what} by {float(size):.1f}pt{rest.rstrip()}")
    return found


def missing_characters(log_text: str) -> list[str]:
    """The characters a font lacked ('Missing character: There is no 한 (U+D55C) in font ...'), once each."""
    found = re.findall(r"^Missing character: There is no (.+?) in font ([^/:;!\n]+)", log_text, re.M)
    return sorted({f"{char} (font {font})" for char, font in found})


def font_installed(family: str, fc_list: str | None = None) -> bool:
    """Whether fontconfig knows a font of `family` (the Korean decks need KOREAN_FONT)."""
    fc_list = fc_list or shutil.which("fc-list")
    if fc_list is None:
        return False
    result = subprocess.run([fc_list, family, "family"], capture_output=True, text=True)
    return result.returncode == 0 and bool(result.stdout.strip())


def words_off_page(pdf: Path, pdftotext: str) -> list[str]:
    """Words that `pdftotext -bbox` places past a page's edge, as 'page N: word'."""
    result = subprocess.run([pdftotext, "-bbox", str(pdf), "-"], capture_output=True, text=True)
    if result.returncode != 0:
        raise SlideError(f"pdftotext failed on {pdf}: {result.stderr.strip()}")
    found = []
    page_pattern = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', re.S)
    word_pattern = re.compile(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">(.*?)</word>')
    for number, (width, height, body) in enumerate(page_pattern.findall(result.stdout), start=1):
        for *box, word in word_pattern.findall(body):
            x_min, y_min, x_max, y_max = map(float, box)
            if min(x_min, y_min) < 0 or x_max > float(width) + 0.5 or y_max > float(height) + 0.5:
                found.append(f"page {number}: {word}")
    return found


# ------------------------------------------------------------------ rendering


def _run(command: list[str], cwd: Path, what: str) -> subprocess.CompletedProcess:
    # max_print_line: TeX writes each message on one line instead of cutting it at 79 characters.
    environment = {**os.environ, "max_print_line": "10000"}
    result = subprocess.run(
        [str(c) for c in command], cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, env=environment
    )
    if result.returncode != 0:
        output = (result.stdout + result.stderr).strip().splitlines()
        errors = [line for line in output if line.startswith("!") or "error" in line.lower()]
        detail = "\n".join((errors or output)[-15:])
        raise SlideError(f"{what} failed ({result.returncode}):\n{detail}")
    return result


def render(
    deck: Path,
    out_dir: Path,
    *,
    root: Path = ROOT,
    pandoc: str = "pandoc",
    pdflatex: str = "pdflatex",
    pdftotext: str | None = None,
    xelatex: str | None = "xelatex",
) -> Path:
    """Renders one deck to out_dir/NAME.pdf and checks that nothing runs off a slide.

    Image paths in a deck are relative to the repository root, where LaTeX
    runs. A Korean deck (slides/ko/) is set with xelatex in KOREAN_FONT. Raises
    SlideError for a missing include region, a failing or missing tool, a
    character the font lacks or an overflowing slide.
    """
    fonts, latex = [], pdflatex
    if deck.parent.name == "ko":  # a Korean deck
        if not xelatex or not font_installed(KOREAN_FONT):
            raise SlideError(
                f"{deck}: a Korean deck needs xelatex and the {KOREAN_FONT} font "
                "(apt-get install texlive-xetex fonts-noto-cjk)"
            )
        fonts, latex = [f"--variable=mainfont:{KOREAN_FONT}", f"--variable=sansfont:{KOREAN_FONT}"], xelatex
    out_dir.mkdir(parents=True, exist_ok=True)
    expanded = out_dir / deck.name
    tex = out_dir / f"{deck.stem}.tex"
    try:
        source_name = str(deck.resolve().relative_to(root.resolve()))
    except ValueError:
        source_name = str(deck)
    expanded.write_text(expand_includes(deck.read_text(), root, source_name))

    header = f"--include-in-header={root / HEADER}"
    _run([pandoc, expanded, *PANDOC_OPTIONS, header, *fonts, f"--output={tex}"], root, f"pandoc on {source_name}")
    # Twice: the first run writes the frame count and navigation the second one shows.
    for _ in range(2):
        _run([latex, *LATEX_OPTIONS, f"-output-directory={out_dir}", tex], root, f"{Path(latex).name} on {tex.name}")

    pdf = out_dir / f"{deck.stem}.pdf"
    log = (out_dir / f"{deck.stem}.log").read_text(errors="replace")
    problems = overflows(log) + [f"no glyph for {char}" for char in missing_characters(log)]
    if pdftotext:
        problems += [f"past the page edge: {word}" for word in words_off_page(pdf, pdftotext)]
    if problems:
        raise SlideError(
            f"{source_name}: something runs off a slide or has no glyph (see {tex.name} and its .log):\n  "
            + "\n  ".join(problems)
        )
    return pdf


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description="Render slide decks to PDF (pandoc, Beamer), code included "
        "from the sources, and check that nothing runs off a slide."
    )
    parser.add_argument("decks", nargs="+", type=Path, help="slides/NN-topic.md (or slides/ko/NN-topic.md) files")
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=ROOT / "build" / "slides",
        help="where the .tex and .pdf files go (default: build/slides)",
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository root (include paths start here)")
    for tool, use in TOOL_USES.items():
        parser.add_argument(f"--{tool}", default=shutil.which(tool), help=f"{tool} executable{use} (default: on PATH)")
    parser.add_argument(
        "--expand-only", action="store_true", help="print the decks with their code included, render nothing"
    )
    args = parser.parse_args(argv)

    try:
        if args.expand_only:
            for deck in args.decks:
                sys.stdout.write(expand_includes(deck.read_text(), args.root, str(deck)))
            return 0
        missing = [name for name, path in (("pandoc", args.pandoc), ("pdflatex", args.pdflatex)) if not path]
        if missing:
            print(f"slides: {' and '.join(missing)} not found; ./course slides installs them", file=sys.stderr)
            return 1
        for deck in args.decks:
            tools = {tool: getattr(args, tool) for tool in TOOL_USES}
            pdf = render(deck, args.out_dir.resolve(), root=args.root.resolve(), **tools)
            print(f"slides: {pdf}")
        if not args.pdftotext:
            print("slides: pdftotext (poppler-utils) not found: checked the LaTeX log only", file=sys.stderr)
    except SlideError as problem:
        print(f"slides: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
