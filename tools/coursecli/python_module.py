"""What the Python module `streamlab` (python/, built by CMake) needs: Python's C headers
(python3-dev, from apt) and nanobind (from PyPI, into .venv). Both are optional: without
them the module is not built, CMake says so in one configure message, the Python labs
import python/without_headers/streamlab instead (the same names over the course's C
library, libstreamlab_c.so, loaded with ctypes), and the Python tools use their Python
twins of the model and the analysis (streamlab_tools.native).

The Python labs also need cuda-bindings (PyPI), the article's API, of the CUDA Toolkit's
major version; without it their tests are skipped with that reason."""

from __future__ import annotations

import re
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


def cuda_bindings_spec() -> str:
    """The pip requirement for cuda-bindings of the installed CUDA Toolkit's major version."""
    nvcc = environment.find_nvcc()
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout if nvcc else ""
    major = re.search(r"release (\d+)\.", version)
    return f"cuda-bindings=={major.group(1)}.*" if major else "cuda-bindings"


def _pip_install(python: str, package: str, probe: str, still: list[str]) -> bool:
    """Installs `package` into .venv where `probe` fails; True when it did. Adds what is still missing to `still`."""
    installed = False
    if not _probe(python, probe):
        if Path(python) == environment.VENV / "bin" / "python":
            try:
                run([python, "-m", "pip", "install", "-q", *PIP_PATIENCE, package])
                installed = True
            except CommandFailed as failure:
                say(f"could not install {package} from PyPI: {failure}")
        if not _probe(python, probe):
            still.append(f"{package} (install it with: {python} -m pip install '{package}')")
    return installed


def install() -> bool:
    """Installs the headers (apt) and nanobind (pip, into .venv) where missing; says what
    is still missing. Never raises. True when it installed something, so that a build
    folder configured before is configured again."""
    python = environment.tools_python()
    headers_before = not [r for r in header_requirements() if not r.present]
    still = [r.name for r in environment.install_optional(PURPOSE, header_requirements)]
    installed = not headers_before and not still
    if python:
        installed = _pip_install(python, "nanobind", "import nanobind", still) or installed
    if still:
        say(
            f"{PURPOSE} will not be built (the Python labs use the course's C library in its place, the tools "
            "their Python twins): missing " + "; ".join(still)
        )
    if python:
        labs_missing: list[str] = []
        _pip_install(python, cuda_bindings_spec(), "import cuda.bindings.runtime", labs_missing)
        if labs_missing:
            say("the Python labs' tests will be skipped: missing " + "; ".join(labs_missing))
    return installed


C_LIBRARY = "libstreamlab_c.so"


def _cached(folder: Path, name: str) -> str | None:
    cache = folder / "CMakeCache.txt"
    found = re.search(rf"^{name}:INTERNAL=(.+)$", cache.read_text(), re.M) if cache.exists() else None
    return found.group(1) if found else None


def module_built(folder: Path) -> bool:
    """Whether the build `folder` holds the module itself (not only the C library)."""
    return next((folder / "python").glob("streamlab*.so"), None) is not None


def module_python(folder: Path) -> str | None:
    """The Python that runs the Python labs of the build `folder` (CMake's cache): the one the module
    was built for, or the one that uses the C library in its place; None when neither was built there."""
    if not module_built(folder) and not (folder / "python" / C_LIBRARY).is_file():
        return None
    return _cached(folder, "STREAMLAB_MODULE_PYTHON")


def streamlab_kind(folder: Path) -> str:
    """What the Python labs of the build `folder` import as streamlab, in a sentence."""
    if module_built(folder):
        return "the module streamlab (nanobind)"
    return (
        f"python/without_headers: the module could not be built here (no Python headers or no nanobind; "
        f"the configure step says which), so streamlab is the course's C library {C_LIBRARY} through ctypes"
    )


def python_targets(folder: Path) -> list[str]:
    """The targets the Python labs of the configured build `folder` need: the C library, and the module
    where the configure step could build it."""
    return ["streamlab_c"] + (["streamlab_python"] if _cached(folder, "STREAMLAB_PYTHON_BACKEND") == "module" else [])


def python_path(course_root: Path, folder: Path) -> list[Path]:
    """Where the Python labs find streamlab and the course's helpers: the module of the build `folder`,
    python/, and last python/without_headers, which stands in for the module where it was not built."""
    return [folder / "python", course_root / "python", course_root / "python" / "without_headers"]


def library_environment(folder: Path) -> dict[str, str]:
    """The environment that points python/without_headers at the C library of the build `folder`."""
    return {"STREAMLAB_C_LIBRARY": str(folder / "python" / C_LIBRARY)}
