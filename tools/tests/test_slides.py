"""The slide renderer (tools/slides.py): code included from the sources, and the check
that nothing runs off a slide.

The include tests need nothing but Python. The render tests need pandoc and
pdflatex (`./course slides` installs them) and are skipped, with the reason,
where they are missing.
"""

import re
import shutil
from pathlib import Path

import pytest

import slides

REPO = Path(__file__).resolve().parents[2]
DECKS = sorted((REPO / "slides").glob("[0-9][0-9]-*.md")) + sorted((REPO / "slides" / "ko").glob("[0-9][0-9]-*.md"))

SOURCE = """\
#include "x.hpp"

int helper(int x);  // a declaration, not the definition

int helper(int x) {
    return x + 1;
}

float run(const float* input, int n,
          int iterations) {
    float sum = 0.0F;  // { a brace in a comment
    for (int i = 0; i < n; ++i) {
        sum += input[i] * helper(iterations);
    }
    if (sum > 0.0F) {
        sum = 1.0F;
    } else {
        sum = -1.0F;
    }
    return sum;
}
"""


@pytest.fixture
def source_root(tmp_path: Path) -> Path:
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "x.cu").write_text(SOURCE)
    return tmp_path


def include(root: Path, line: str) -> str:
    return slides.expand_includes(f"## A slide\n\n{line}\n", root, "deck.md")


# ------------------------------------------------------------------ includes


def test_function_is_included_whole_with_its_lines(source_root):
    text = include(source_root, "<!-- include solutions/x.cu:run -->")
    code = re.search(r"~~~~ cpp\n(.*?)\n~~~~", text, re.S).group(1)
    assert code.splitlines()[0] == "float run(const float* input, int n,"
    assert code.splitlines()[-1] == "}"
    assert code == "\n".join(SOURCE.splitlines()[8:21])
    assert r"\codesource{solutions/x.cu}{9}{21}" in text


def test_definition_is_found_past_its_declaration(source_root):
    text = include(source_root, "<!-- include solutions/x.cu:helper -->")
    assert "int helper(int x) {\n    return x + 1;\n}" in text
    assert r"\codesource{solutions/x.cu}{5}{7}" in text


def test_from_alone_takes_the_block_it_opens_and_dedents(source_root):
    text = include(source_root, '<!-- include solutions/x.cu:run from="for (int i" -->')
    assert "for (int i = 0; i < n; ++i) {\n    sum += input[i] * helper(iterations);\n}\n~~~~" in text


def test_an_else_continues_the_block(source_root):
    text = include(source_root, '<!-- include solutions/x.cu:run from="if (sum" -->')
    assert "} else {\n    sum = -1.0F;\n}\n~~~~" in text


def test_from_to_takes_the_lines_between(source_root):
    text = include(source_root, '<!-- include solutions/x.cu:run from="float sum" to="return sum" -->')
    code = re.search(r"~~~~ cpp\n(.*?)\n~~~~", text, re.S).group(1)
    assert code.startswith("float sum = 0.0F;") and code.endswith("return sum;")
    assert len(code.splitlines()) == 10


def test_through_ends_with_the_block_of_its_line(source_root):
    text = include(source_root, '<!-- include solutions/x.cu:run from="float sum" through="for (int i" -->')
    code = re.search(r"~~~~ cpp\n(.*?)\n~~~~", text, re.S).group(1)
    assert code.splitlines()[-1] == "}" and "if (sum" not in code


def test_missing_region_names_the_deck_line_and_the_text(source_root):
    with pytest.raises(slides.SlideError) as problem:
        include(source_root, '<!-- include solutions/x.cu:run from="while (true)" -->')
    message = str(problem.value)
    assert message.startswith("deck.md:3: include solutions/x.cu:run:")
    assert "no line containing 'while (true)'" in message and "lines 9-21" in message


def test_missing_function_and_missing_file_fail_clearly(source_root):
    with pytest.raises(slides.SlideError, match="no definition of function 'run_pipeline'"):
        include(source_root, "<!-- include solutions/x.cu:run_pipeline -->")
    with pytest.raises(slides.SlideError, match="solutions/y.cu: no such file"):
        include(source_root, "<!-- include solutions/y.cu:run -->")


def test_unknown_option_and_missing_function_name_fail(source_root):
    with pytest.raises(slides.SlideError, match="unknown include option"):
        include(source_root, '<!-- include solutions/x.cu:run lines="3-4" -->')
    with pytest.raises(slides.SlideError, match="write FILE:FUNCTION"):
        include(source_root, "<!-- include solutions/x.cu -->")
    with pytest.raises(slides.SlideError, match="needs a `from"):
        include(source_root, '<!-- include solutions/x.cu:run to="return" -->')


def test_other_lines_pass_unchanged(source_root):
    deck = "# Title\n\n<!-- a plain comment -->\n- item\n"
    assert slides.expand_includes(deck, source_root) == deck


@pytest.mark.parametrize("deck", DECKS, ids=[d.relative_to(REPO / "slides").as_posix() for d in DECKS])
def test_every_deck_includes_code_that_exists(deck):
    """A solution edit that removes code a slide shows fails here, without pandoc."""
    text = slides.expand_includes(deck.read_text(), REPO, deck.name)
    assert "<!-- include" not in text
    for path, first, last in re.findall(r"\\codesource\{(.+?)\}\{(\d+)\}\{(\d+)\}", text):
        assert (REPO / path).is_file()
        assert 1 <= int(first) <= int(last) <= len((REPO / path).read_text().splitlines())


def test_every_deck_names_device_and_date_under_its_figures():
    for deck in DECKS:
        for caption in re.findall(r"!\[(.*?)\]\(", deck.read_text(), re.S):
            assert "H200" in caption and "2026-11-30" in caption, (deck.name, caption)


# ------------------------------------------------------------------ the overflow check


LOG = """\
Overfull \\hbox (0.4pt too wide) in paragraph at lines 3--3
[1

{/var/lib/texmf/fonts/map/pdftex/updmap/pdftex.map}] [2 <./labs/a.png>]
Overfull \\hbox (35.2pt too wide) in paragraph at lines 7--7
|| ||\\T1/lmtt/m/n/8 x = outputs[1]; y[3] = 0;
[3]
Overfull \\vbox (9.7pt too high) detected at line 168
[4]
"""


def test_overflows_ignores_rounding_and_names_the_page():
    assert slides.overflows(LOG) == [
        "page 3: too wide by 35.2pt in paragraph at lines 7--7",
        "page 4: too tall by 9.7pt detected at line 168",
    ]


def test_overflows_is_empty_for_a_clean_log():
    assert slides.overflows("[1] [2]\nUnderfull \\hbox (badness 10000)\n") == []


def test_missing_characters_are_named_once_with_their_font():
    log = (
        "Missing character: There is no \U0001f642 (U+1F642) in font Noto Sans CJK KR/OT:script=latn;!\n"
        "Missing character: There is no \U0001f642 (U+1F642) in font Noto Sans CJK KR/OT:script=latn;!\n"
        "Missing character: There is no ^^e2 in font cmr10!\n"
    )
    assert slides.missing_characters(log) == ["^^e2 (font cmr10)", "\U0001f642 (U+1F642) (font Noto Sans CJK KR)"]
    assert slides.missing_characters("[1] [2]\n") == []


def test_a_korean_deck_without_xelatex_fails_with_what_to_install(tmp_path):
    deck = tmp_path / "ko" / "99-x.md"
    deck.parent.mkdir()
    deck.write_text("---\ntitle: x\n---\n\n## 슬라이드\n\n한국어\n")
    with pytest.raises(slides.SlideError, match="needs xelatex and the Noto Sans CJK KR font .*fonts-noto-cjk"):
        slides.render(deck, tmp_path / "out", root=REPO, xelatex=None)
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ rendering

needs_tex = pytest.mark.skipif(
    shutil.which("pandoc") is None or shutil.which("pdflatex") is None,
    reason="pandoc or pdflatex is not installed (./course slides installs them)",
)


@needs_tex
def test_the_deck_with_the_most_code_renders_with_nothing_off_a_slide(tmp_path):
    deck = REPO / "slides" / "05-three-chunks.md"
    pdf = slides.render(deck, tmp_path, root=REPO, pdftotext=shutil.which("pdftotext"))
    assert pdf.is_file() and pdf.stat().st_size > 0
    log = (tmp_path / "05-three-chunks.log").read_text(errors="replace")
    assert slides.overflows(log) == []


@needs_tex
def test_code_too_wide_for_the_slide_fails_the_render(tmp_path):
    deck = tmp_path / "99-wide.md"
    deck.write_text("---\ntitle: wide\n---\n\n## Code\n\n~~~~ cpp\n" + "x" * 400 + "\n~~~~\n")
    with pytest.raises(slides.SlideError, match=r"page 2: too wide by \d+"):
        slides.render(deck, tmp_path / "out", root=REPO)


@needs_tex
def test_a_frame_taller_than_the_page_fails_the_render(tmp_path):
    deck = tmp_path / "99-tall.md"
    items = "\n".join(f"- item {i}" for i in range(30))
    deck.write_text(f"---\ntitle: tall\n---\n\n## First\n\ntext\n\n## Tall\n\n{items}\n")
    with pytest.raises(slides.SlideError, match=r"page 3: too tall by \d+"):
        slides.render(deck, tmp_path / "out", root=REPO)


needs_korean_tex = pytest.mark.skipif(
    shutil.which("pandoc") is None or shutil.which("xelatex") is None or not slides.font_installed(slides.KOREAN_FONT),
    reason="pandoc, xelatex or the Noto Sans CJK KR font is not installed (./course slides installs them)",
)


@needs_korean_tex
def test_the_korean_deck_with_the_most_code_renders_with_every_glyph_and_nothing_off_a_slide(tmp_path):
    deck = REPO / "slides" / "ko" / "05-three-chunks.md"
    pdf = slides.render(deck, tmp_path, root=REPO, pdftotext=shutil.which("pdftotext"))
    log = (tmp_path / "05-three-chunks.log").read_text(errors="replace")
    assert pdf.is_file() and slides.overflows(log) == [] and slides.missing_characters(log) == []


@needs_korean_tex
def test_a_character_the_korean_font_lacks_fails_the_render(tmp_path):
    deck = tmp_path / "ko" / "99-glyph.md"
    deck.parent.mkdir()
    deck.write_text("---\ntitle: t\n---\n\n## 슬라이드\n\n한국어 \U0001f642\n")
    with pytest.raises(slides.SlideError, match=r"no glyph for .*U\+1F642.*Noto Sans CJK KR"):
        slides.render(deck, tmp_path / "out", root=REPO)
