"""Configuring and building with CMake presets, and where each preset builds."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from . import environment
from .shell import ROOT, CourseError, run, say

DEFAULT_PRESET = "default"


def build_dir(preset: str) -> Path:
    """The binaryDir CMakePresets.json gives `preset`."""
    presets = json.loads((ROOT / "CMakePresets.json").read_text())
    by_name = {p["name"]: p for p in presets["configurePresets"]}
    if preset not in by_name:
        raise CourseError(f"no configure preset named {preset!r} (have: {', '.join(by_name)})")
    entry = by_name[preset]
    while "binaryDir" not in entry and "inherits" in entry:
        entry = by_name[entry["inherits"]]
    return Path(entry["binaryDir"].replace("${sourceDir}", str(ROOT)))


def forget_other_course_folder(folder: Path) -> None:
    """Where the build in `folder` was configured for the course in another folder (this one was moved or
    copied with its build), says so and removes its build system and objects, which name that folder: CMake
    would refuse the cache, and make would build the other folder's sources. Results and traces stay."""
    cache = folder / "CMakeCache.txt"
    if not cache.is_file():
        return
    found = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache.read_text(errors="replace"), re.M)
    if not found or Path(found[1]).resolve() == ROOT.resolve():
        return
    say(
        f"{folder} was configured for the course in {found[1]} (this course folder was moved or copied): "
        "configuring it again for this folder, so everything is compiled once more"
    )
    for build_system in list(folder.rglob("CMakeFiles")):
        shutil.rmtree(build_system, ignore_errors=True)
    for generated in ("CMakeCache.txt", "Makefile", "build.ninja"):
        (folder / generated).unlink(missing_ok=True)


def configure(preset: str) -> Path:
    """Configures `preset` unless it already is (a configure that stopped, for a missing requirement,
    leaves a cache but no build system); returns its build folder."""
    folder = build_dir(preset)
    forget_other_course_folder(folder)
    if not any((folder / name).exists() for name in ("Makefile", "build.ninja")):
        command = ["cmake", "--preset", preset]
        nvcc = environment.find_nvcc()
        if nvcc and not environment.shutil.which("nvcc"):
            command.append(f"-DCMAKE_CUDA_COMPILER={nvcc}")
        run(command)
    return folder


def build(preset: str, targets: list[str] | None = None) -> Path:
    """Configures if needed, then builds `targets` (all when None)."""
    folder = configure(preset)
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
