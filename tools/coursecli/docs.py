"""`course docs`: the API documentation, built by the CMake target `docs` (Doxygen).

Doxygen is optional to the rest of the course. `course docs` needs it and says how
to get it; `course test` builds the docs where Doxygen is (or can be) installed,
and goes on without them elsewhere, saying so.
"""

from __future__ import annotations

from pathlib import Path

from . import environment
from .build import build, configure_again_if_stale
from .shell import COURSE_ERROR, optional_step, say

NOT_INSTALLED = "API docs not built: Doxygen is not installed"


def build_docs(preset: str) -> Path:
    """Builds the `docs` target of `preset`'s build and returns the HTML folder.
    Raises CommandFailed when Doxygen warns (an undocumented public name, say)."""
    configure_again_if_stale(preset, {"DOXYGEN_EXECUTABLE": "doxygen", "DOXYGEN_DOT_EXECUTABLE": "dot"})
    folder = build(preset, ["docs"])
    return folder / "docs" / "html"


def _doxygen_ready() -> bool:
    """Installs what the docs need if it can; True when Doxygen is there (Graphviz only adds graphs)."""
    missing = {r.name for r in environment.install_docs_tools()}
    if "Doxygen" in missing:
        return False
    if "Graphviz" in missing:
        say("Graphviz is not installed: the API docs are built without graphs")
    return True


def run_docs(preset: str) -> int:
    """`course docs`: installs Doxygen and Graphviz if missing, builds the docs, says where they are."""
    if not _doxygen_ready():
        say(NOT_INSTALLED)
        return COURSE_ERROR
    html = build_docs(preset)
    say(f"API docs: {html / 'index.html'}")
    return 0


def docs_step(preset: str) -> bool:
    """The docs part of `course test`: False only when Doxygen ran and warned."""
    return optional_step(
        "" if _doxygen_ready() else NOT_INSTALLED,
        lambda: build_docs(preset),
        "Doxygen's warnings are above (every public name needs a /// comment)",
        lambda html: f"API docs built without warnings: {html / 'index.html'}",
    )
