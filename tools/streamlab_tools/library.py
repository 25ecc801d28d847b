"""The course's C++ library for the tools: the Python module ``streamlab`` (python/),
which `./course build` makes into BUILD/python, where the Python labs import it too.
The plots take the timeline analysis and the pipeline model from it, so that they
show what the graders compute.

The module is found on the import path, else in the build folders of the course's
presets (the newest first); ``STREAMLAB_MODULE_DIR=build-ci/python`` names another
folder to look in first. Where there is none, ModuleMissing says to build it.
"""

from __future__ import annotations

import dataclasses
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from .trace import DeviceOp

ROOT = Path(__file__).resolve().parents[2]
MODULE_NAME = "streamlab"
# Where `./course build` puts the module, by preset (CMakePresets.json's binaryDir).
BUILD_FOLDERS = ("build", "build-ci", "build-debug")


class ModuleMissing(Exception):
    """The module is not built for this Python, or does not load; the message (one line) says to build it."""


def preset_build_folders() -> dict[str, Path]:
    """Each configure preset of CMakePresets.json by name, with the folder it builds in: its binaryDir, or
    that of the preset it inherits from."""
    presets = {p["name"]: p for p in json.loads((ROOT / "CMakePresets.json").read_text())["configurePresets"]}

    def folder(preset: dict[str, Any]) -> Path:
        while "binaryDir" not in preset and "inherits" in preset:
            preset = presets[preset["inherits"]]
        return Path(preset["binaryDir"].replace("${sourceDir}", str(ROOT)))

    return {name: folder(preset) for name, preset in presets.items()}


def preset_of(build: Path) -> str | None:
    """The configure preset that builds in the folder `build`, None where none does."""
    return next((name for name, folder in preset_build_folders().items() if folder == build.resolve()), None)


def module_folders() -> list[Path]:
    """Where the module is looked for, after the import path."""
    named = [Path(os.environ["STREAMLAB_MODULE_DIR"])] if os.environ.get("STREAMLAB_MODULE_DIR") else []
    return named + [ROOT / build / "python" for build in BUILD_FOLDERS]


def module_files() -> list[Path]:
    """The built modules this Python can import, the newest first."""
    files = {
        folder / (MODULE_NAME + suffix)
        for folder in module_folders()
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
    }
    return sorted((f for f in files if f.is_file()), key=lambda f: f.stat().st_mtime, reverse=True)


def load() -> ModuleType:
    """The module ``streamlab`` (imported once); ModuleMissing where this Python has none."""
    if MODULE_NAME in sys.modules:
        return sys.modules[MODULE_NAME]
    on_path = importlib.util.find_spec(MODULE_NAME)
    if on_path is not None and on_path.has_location:  # a file, not a folder that happens to be called so
        return importlib.import_module(MODULE_NAME)
    files = module_files()
    if not files:
        folders = ", ".join(str(folder) for folder in module_folders())
        raise ModuleMissing(
            f"the course's Python module streamlab is not built for {sys.executable} (looked in {folders}): "
            "run ./course build"
        )
    try:
        spec = importlib.util.spec_from_file_location(MODULE_NAME, files[0])
        loaded = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded)
    except ImportError as error:
        raise ModuleMissing(
            f"the Python module streamlab at {files[0]} does not load ({error}): run ./course build"
        ) from None
    sys.modules[MODULE_NAME] = loaded
    return loaded


def to_module_ops(ops: Sequence[DeviceOp]) -> list[Any]:
    """The module's DeviceOp for each op read by streamlab_tools.trace (whose ``name`` is what a viewer shows:
    the module's is the kernel's own name)."""
    streamlab = load()
    made = []
    for op in ops:
        fields = {field.name: getattr(op, field.name) for field in dataclasses.fields(op)}
        fields["name"] = fields.pop("kernel_name")
        made.append(streamlab.DeviceOp(**fields))
    return made


def summarize(ops: Sequence[DeviceOp]) -> dict[str, Any]:
    """The timeline's measures (makespan, busy time per unit, overlaps, streams) as analysis.cpp computes them:
    a dict keyed as streamlab_analyze keys them, times in integer ns."""
    return load().summarize(to_module_ops(ops))
