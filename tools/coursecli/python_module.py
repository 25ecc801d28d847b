"""Where the Python labs find the Python module `streamlab` of a build folder (python/,
built by CMake with nanobind for the tools' Python; `course setup` installs what it
needs: Python's C headers and nanobind), and which Python runs them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

# The build target that makes the module (python/CMakeLists.txt).
TARGET = "streamlab_python"


def module_python(folder: Path) -> str | None:
    """The Python the module of the build `folder` was built for, which runs the Python labs
    (CMake's cache); None when the module was not built there."""
    cache = folder / "CMakeCache.txt"
    built = next((folder / "python").glob("streamlab*.so"), None) is not None
    if not built or not cache.exists():
        return None
    found = re.search(r"^STREAMLAB_MODULE_PYTHON:INTERNAL=(.+)$", cache.read_text(), re.M)
    return found.group(1) if found else None


def python_path(course_root: Path, folder: Path) -> list[Path]:
    """Where the Python labs find streamlab and the course's helpers: the module of the build `folder`, python/."""
    return [folder / "python", course_root / "python"]


def the_module_python(course_build: Path) -> tuple[str | None, str]:
    """(the Python that runs the Python labs, "") or (None, why they cannot be graded): the one the course's
    module was built for.

    That Python must also have cuda-bindings: without it every recording would fail at its
    imports, and the students would pay for what the grading machine lacks."""
    python = module_python(course_build)
    if python is None:
        return None, (
            "the course's Python module `streamlab` was not built (the configure step says what to install), "
            "so the Python labs cannot be graded"
        )
    probe = subprocess.run([python, "-c", "import cuda.bindings.runtime"], capture_output=True, text=True)
    if probe.returncode != 0:
        missing = (probe.stderr.strip().splitlines() or ["it could not start"])[-1]
        return None, (
            f"{python} lacks what the Python labs need ({missing}); `./course setup` installs "
            "cuda-bindings, so the Python labs cannot be graded here yet"
        )
    return python, ""
