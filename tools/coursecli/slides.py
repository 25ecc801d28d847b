"""`course slides`: the slide decks as PDF, built by the CMake target `slides`.

pandoc and TeX are optional to the rest of the course. `course slides` needs
them and installs them (or says how); `course test` builds the slides where
they are (or can be) installed, and goes on without them elsewhere, saying so.
The Korean decks (slides/ko/) also need xelatex and a Korean font: both
commands install them too where they can, and the build says in one line where
they are still missing.
"""

from __future__ import annotations

from pathlib import Path

from . import environment
from .build import build, configure_again_if_stale
from .shell import COURSE_ERROR, optional_step, run, say


def _not_installed(missing: list[environment.Requirement]) -> str:
    """Says what is missing; pandoc first, since without it nothing else matters."""
    names = [r.name for r in missing]
    if "pandoc" in names:
        names = ["pandoc"]
    verb = "is" if len(names) == 1 else "are"
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"slides not built: {listed} {verb} not installed"


def build_slides(preset: str) -> Path:
    """Builds the `slides` target of `preset`'s build and returns the folder of PDFs.
    Raises CommandFailed when a deck names code that is gone or a slide overflows."""
    configure_again_if_stale(
        preset, {"PANDOC": "pandoc", "PDFLATEX": "pdflatex", "PDFTOTEXT": "pdftotext", "XELATEX": "xelatex"}
    )
    folder = build(preset, ["slides"])
    return folder / "slides"


def install_korean_tools(preset: str) -> None:
    """Installs xelatex and the Korean font where missing (see install_optional); the Korean decks are
    rendered where they are present."""
    korean_missing = [r for r in environment.korean_slides_requirements() if not r.present]
    if korean_missing and len(environment.install_korean_slide_tools()) < len(korean_missing):
        run(["cmake", "--preset", preset])  # CMake looks the font up when it configures


def run_slides(preset: str) -> int:
    """`course slides`: installs pandoc and TeX if missing, renders every deck, says where they are."""
    missing = environment.install_slide_tools()
    if missing:
        say(_not_installed(missing))
        return COURSE_ERROR
    install_korean_tools(preset)
    pdfs = build_slides(preset)
    say(f"slides: {', '.join(sorted(p.relative_to(pdfs).as_posix() for p in pdfs.rglob('*.pdf')))} in {pdfs}")
    return 0


def slides_step(preset: str) -> bool:
    """The slides part of `course test`: False only when the decks were rendered and failed."""
    missing = environment.install_slide_tools()
    if not missing:
        install_korean_tools(preset)  # so that the Korean decks and their tests are checked too
    return optional_step(
        _not_installed(missing) if missing else "",
        lambda: build_slides(preset),
        "the reason is above (a deck's include, or a slide that runs off the page)",
        lambda pdfs: f"slides built, nothing runs off a slide: {pdfs}",
    )
