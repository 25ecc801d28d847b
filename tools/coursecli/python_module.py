"""What the Python module `streamlab` (python/, built by CMake) needs: Python's C headers
(python3-dev, from apt) and nanobind (from PyPI, into .venv). Both are optional: without
them the module is not built, CMake says so in one configure message, and the Python
tools use their Python twins of the model and the analysis (streamlab_tools.native)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from . import environment
from .environment import Requirement
from .shell import CommandFailed, run, say

PURPOSE = "the Python module streamlab"
HEADERS_PROBE = (
    "import os, sysconfig; raise SystemExit(not os.path.isfile(sysconfig.get_paths()['include'] + '/Python.h'))"
)
# Where there is no package registry (a GPU machine, say) pip gives up soon.
PIP_PATIENCE = ["--retries", "1", "--timeout", "20"]


def _probe(python: str, code: str) -> bool:
    return subprocess.run([python, "-c", code], capture_output=True).returncode == 0


def header_requirements() -> list[Requirement]:
    """Python's C headers, for the Python that runs the tools (and builds the module)."""
    python = environment.tools_python()
    return [
        Requirement(
            "Python's C headers (Python.h)", "python3-dev", python is not None and _probe(python, HEADERS_PROBE)
        )
    ]


def install() -> bool:
    """Installs the headers (apt) and nanobind (pip, into .venv) where missing; says what
    is still missing. Never raises. True when it installed something, so that a build
    folder configured before is configured again."""
    python = environment.tools_python()
    headers_before = not [r for r in header_requirements() if not r.present]
    still = [r.name for r in environment.install_optional(PURPOSE, header_requirements)]
    installed = not headers_before and not still
    if python and not _probe(python, "import nanobind"):
        if Path(python) == environment.VENV / "bin" / "python":
            try:
                run([python, "-m", "pip", "install", "-q", *PIP_PATIENCE, "nanobind"])
                installed = True
            except CommandFailed as failure:
                say(f"could not install nanobind from PyPI: {failure}")
        if not _probe(python, "import nanobind"):
            still.append(f"nanobind (install it with: {python} -m pip install nanobind)")
    if still:
        say(f"{PURPOSE} will not be built (the tools use their Python twins): missing " + "; ".join(still))
    return installed
