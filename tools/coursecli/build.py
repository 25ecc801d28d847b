"""Configuring and building with CMake presets, where each preset builds, and which build the course's
tests are run on."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from streamlab_tools.library import preset_build_folders

from . import environment
from .shell import ROOT, CourseError, run, say

DEFAULT_PRESET = "default"
# `course test` builds one GPU architecture (the preset's, or the GPUs' here) rather than all of them:
# the tests need no more, and on two cores it compiles in a fraction of the time.
TEST_PRESET = "ci"
# The build `course test` made, named to its tests (pytest's and ctest's) in this variable.
BUILD_VARIABLE = "STREAMLAB_BUILD"
NO_COURSE_BUILD = f"no course build: run ./course test (or name a built one in {BUILD_VARIABLE})"


def build_dir(preset: str) -> Path:
    """The folder CMakePresets.json has `preset` build in."""
    folders = preset_build_folders()
    if preset not in folders:
        raise CourseError(f"no configure preset named {preset!r} (have: {', '.join(folders)})")
    return folders[preset]


def build_under_test() -> Path | None:
    """The build the tests run on, as `course test` names it to them; None where no build is named
    (a test run by hand, outside `course test`)."""
    named = os.environ.get(BUILD_VARIABLE)
    return Path(named) if named else None


def architectures_here() -> str | None:
    """The GPU architectures of the GPUs on this machine as CMake names them ("90", "80;90"), None where
    the driver shows none: a build for them runs its GPU tests here."""
    try:
        listed = subprocess.run(
            ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True, text=True
        )
    except OSError:  # no driver, so no nvidia-smi
        return None
    found = sorted({line.strip().replace(".", "") for line in listed.stdout.splitlines() if line.strip()})
    if listed.returncode != 0 or not all(name.isdigit() for name in found):
        return None
    return ";".join(found) or None


def cached(folder: Path, variable: str) -> str | None:
    """The value of the cache `variable` of the build in `folder`, None where it has none (or no cache yet)."""
    cache = folder / "CMakeCache.txt"
    text = cache.read_text(errors="replace") if cache.is_file() else ""
    found = re.search(rf"^{variable}:\w+=(.*)$", text, re.M)
    return found[1] if found else None


def forget_other_course_folder(folder: Path) -> None:
    """Where the build in `folder` was configured for the course in another folder (this one was moved or
    copied with its build), says so and removes its build system and objects, which name that folder: CMake
    would refuse the cache, and make would build the other folder's sources. Results and traces stay."""
    home = cached(folder, "CMAKE_HOME_DIRECTORY")
    if home is None or Path(home).resolve() == ROOT.resolve():
        return
    say(
        f"{folder} was configured for the course in {home} (this course folder was moved or copied): "
        "configuring it again for this folder, so everything is compiled once more"
    )
    for build_system in list(folder.rglob("CMakeFiles")):
        shutil.rmtree(build_system, ignore_errors=True)
    for generated in ("CMakeCache.txt", "Makefile", "build.ninja"):
        (folder / generated).unlink(missing_ok=True)


def configure(preset: str, architectures: str | None = None) -> Path:
    """Configures `preset` unless it already is (a configure that stopped, for a missing requirement,
    leaves a cache but no build system), or for `architectures` where it was for others; returns its
    build folder."""
    folder = build_dir(preset)
    forget_other_course_folder(folder)
    other_architectures = architectures is not None and cached(folder, "CMAKE_CUDA_ARCHITECTURES") != architectures
    if other_architectures or not any((folder / name).exists() for name in ("Makefile", "build.ninja")):
        command = ["cmake", "--preset", preset]
        if architectures is not None:
            command.append(f"-DCMAKE_CUDA_ARCHITECTURES={architectures}")
        nvcc = environment.find_nvcc()
        if nvcc and not environment.shutil.which("nvcc"):
            command.append(f"-DCMAKE_CUDA_COMPILER={nvcc}")
        run(command)
    return folder


def build(preset: str, targets: list[str] | None = None, architectures: str | None = None) -> Path:
    """Configures if needed (for `architectures` where given), then builds `targets` (all when None)."""
    folder = configure(preset, architectures)
    # One compile per core: a bare --parallel lets make start every compile at once, which on
    # a machine with few cores made a build a third slower than this.
    command = ["cmake", "--build", "--preset", preset, "--parallel", str(os.cpu_count() or 1)]
    if targets:
        command += ["--target", *targets]
    run(command)
    return folder


def configure_again_if_stale(preset: str, programs: dict[str, str]) -> None:
    """Configures `preset` again when its build folder predates an optional tool's
    target (the cache lacks the first of `programs`' cache variables), or when CMake
    remembers one of `programs` (cache variable -> program) as not found and it is
    now installed."""
    cache = build_dir(preset) / "CMakeCache.txt"
    if not cache.exists():
        return  # build() configures it from scratch
    text = cache.read_text(errors="replace")
    stale = f"{next(iter(programs))}:" not in text
    for variable, program in programs.items():
        if re.search(rf"^{variable}:\w+=.*NOTFOUND$", text, re.M) and shutil.which(program):
            stale = True
    if stale:
        run(["cmake", "--preset", preset])
