"""Where the Python labs find the Python module `streamlab` of a build folder (python/,
built by CMake with nanobind for the tools' Python; `course setup` installs what it
needs: Python's C headers and nanobind), and which Python runs them."""

from __future__ import annotations

import re
from pathlib import Path

# The build target that makes the module (python/CMakeLists.txt).
TARGET = "streamlab_python"


def module_built(folder: Path) -> bool:
    """Whether the build `folder` holds the module."""
    return next((folder / "python").glob("streamlab*.so"), None) is not None


def module_python(folder: Path) -> str | None:
    """The Python the module of the build `folder` was built for, which runs the Python labs
    (CMake's cache); None when the module was not built there."""
    cache = folder / "CMakeCache.txt"
    if not module_built(folder) or not cache.exists():
        return None
    found = re.search(r"^STREAMLAB_MODULE_PYTHON:INTERNAL=(.+)$", cache.read_text(), re.M)
    return found.group(1) if found else None


def python_path(course_root: Path, folder: Path) -> list[Path]:
    """Where the Python labs find streamlab and the course's helpers: the module of the build `folder`, python/."""
    return [folder / "python", course_root / "python"]
