"""The API docs' configuration (Doxyfile.in): warnings fail the build, and the Markdown filter.

The Doxygen runs use the course's own Doxyfile.in on a tiny header and page in
tmp_path, so they take well under a second; they are skipped where Doxygen is
not installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import doxygen_markdown
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOXYFILE_IN = ROOT / "Doxyfile.in"
DOXYGEN = shutil.which("doxygen")
needs_doxygen = pytest.mark.skipif(DOXYGEN is None, reason="Doxygen is not installed (apt-get install doxygen)")

DOCUMENTED_HEADER = """\
/// @file tiny.hpp
/// @brief A header whose every name is documented.
#pragma once

/// What the tests document.
namespace tiny {

/// Twice `x`.
int twice(int x);

}  // namespace tiny
"""

# A GitHub-style page: an in-page link to a heading, and an `&` in a code span.
PAGE = """\
# Tiny page

See [the second part](#the-second-part-really).

## The second part, really

Remove `(void)&first;` when done.
"""


def doxyfile_options(text: str) -> dict[str, str]:
    """NAME = value lines of a Doxyfile (continuation lines joined)."""
    text = text.replace("\\\n", " ")
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"^([A-Z_]+)\s*=(.*)$", text, re.M)}


def configured_doxyfile(work: Path, inputs: list[Path]) -> str:
    """Doxyfile.in with its @NAMES@ filled in as CMake would, for `inputs` in `work`."""
    values = {
        "PROJECT_VERSION": "0",
        "PROJECT_DESCRIPTION": "tiny",
        "PROJECT_SOURCE_DIR": str(work),
        "PROJECT_BINARY_DIR": str(work / "build"),
        "STREAMLAB_DOCS_OUTPUT": str(work / "docs"),
        "STREAMLAB_DOCS_INPUT": " ".join(f'"{path}"' for path in inputs),
        "STREAMLAB_DOCS_IMAGE_PATH": "",
        "STREAMLAB_DOCS_MARKDOWN_FILTER": f"{sys.executable} {ROOT / 'tools' / 'doxygen_markdown.py'}",
        "STREAMLAB_DOCS_HAVE_DOT": "NO",
        "STREAMLAB_DOCS_DOT_PATH": "",
    }

    def fill(name: re.Match) -> str:
        assert name.group(1) in values, f"Doxyfile.in uses @{name.group(1)}@, which this test does not fill in"
        return values[name.group(1)]

    # Comment lines may mention @NAMES@ too; only the settings are filled in.
    lines = [
        line if line.lstrip().startswith("#") else re.sub(r"@([A-Za-z0-9_]+)@", fill, line)
        for line in DOXYFILE_IN.read_text().splitlines()
    ]
    return "\n".join(lines) + "\n"


def run_doxygen(work: Path, header_text: str) -> subprocess.CompletedProcess:
    """Doxygen with the course's configuration on one header and one page (README.md, the main page)."""
    header = work / "tiny.hpp"
    header.write_text(header_text)
    page = work / "README.md"
    page.write_text(PAGE)
    return subprocess.run(
        [DOXYGEN, "-"],
        input=configured_doxyfile(work, [page, header]),
        cwd=work,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_doxyfile_makes_warnings_fail_the_build():
    options = doxyfile_options(DOXYFILE_IN.read_text())
    assert options["WARN_AS_ERROR"] in ("YES", "FAIL_ON_WARNINGS")
    assert options["WARN_IF_UNDOCUMENTED"] == "YES"
    assert options["EXTRACT_ALL"] == "NO"  # YES would document every name, commented or not, silently


@needs_doxygen
def test_documented_header_and_github_page_build_without_a_warning(tmp_path):
    result = run_doxygen(tmp_path, DOCUMENTED_HEADER)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr.strip() == ""
    assert (tmp_path / "docs" / "html" / "index.html").exists()


@needs_doxygen
def test_an_undocumented_function_fails_the_build(tmp_path):
    header = DOCUMENTED_HEADER.replace("}  // namespace tiny", "int thrice(int x);\n\n}  // namespace tiny")
    result = run_doxygen(tmp_path, header)
    assert result.returncode != 0
    assert "thrice" in result.stderr and "not documented" in result.stderr


def test_headings_get_githubs_anchors_and_links_follow_them():
    filtered = doxygen_markdown.filter_markdown(PAGE, "readme")
    assert "## The second part, really {#readme-the-second-part-really}" in filtered
    assert "[the second part](#readme-the-second-part-really)" in filtered
    assert filtered.count("\n") == PAGE.count("\n")  # warnings keep pointing at the right line


def test_repeated_headings_are_numbered_as_github_does():
    filtered = doxygen_markdown.filter_markdown("## Hints\n\n## Hints\n", "p")
    assert filtered.split("\n")[0].endswith("{#p-hints}")
    assert filtered.split("\n")[2].endswith("{#p-hints-1}")


def test_code_is_left_alone_except_for_ampersands_in_code_spans():
    text = "```sh\n# not a heading\nls && cd -\n```\nRemove `(void)&first;` & go.\n"
    filtered = doxygen_markdown.filter_markdown(text, "p")
    assert filtered.split("\n")[:4] == text.split("\n")[:4]
    assert filtered.split("\n")[4] == "Remove `(void)&amp;first;` & go."


def test_page_prefix_names_the_page_by_its_path():
    assert doxygen_markdown.page_prefix(ROOT / "labs" / "01-null-stream" / "README.md") == "labs-01-null-stream-readme"


def test_links_to_korean_pages_become_their_names():
    """The Korean READMEs are not Doxygen inputs: a link to one would be an unresolved reference."""
    page = "# Lab 01\n\n[한국어](README.ko.md)\n\nSee [lab 02](../02-streams/README.md).\n"
    assert doxygen_markdown.filter_markdown(page, "p").split("\n")[2] == "한국어: `README.ko.md`"
    assert "[lab 02](../02-streams/README.md)" in doxygen_markdown.filter_markdown(page, "p")


def test_a_figure_shown_by_its_bare_name_is_written_with_its_folder():
    text = "![The timeline](timeline-h200.png)\n![Another lab's](../05-x/a.png) ![On the web](https://x.org/a.png)\n"
    filtered = doxygen_markdown.filter_markdown(text, "p", "04-async-copies")
    assert filtered.split("\n")[0] == "![The timeline](04-async-copies/timeline-h200.png)"
    assert filtered.split("\n")[1] == text.split("\n")[1]  # a path or an address names its file already
