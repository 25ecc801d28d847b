"""A graded submission's timeline pictures: matplotlib's font cache, warmed once per batch
(prepare_plotting); the environment of each sandboxed plot step, which starts from a copy of that cache;
the traces copied next to the report."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from . import environment, sandbox
from .grade_settings import GradeSettings
from .grading_build import course_build_folder
from .sandbox import Sandbox

TRACE_LIMIT = 64 << 20  # bytes of a trace, or its picture, copied from the scratch folder into the report


def matplotlib_folder(settings: GradeSettings) -> Path:
    return settings.out / ".work" / ".matplotlib"


def prepare_plotting(settings: GradeSettings) -> None:
    """Builds matplotlib's font cache once for the batch (the grader's own Python, no student input)."""
    python = environment.tools_python()
    if python is None:
        return
    folder = matplotlib_folder(settings)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(
            [python, "-c", "import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot"],
            env={**os.environ, "MPLCONFIGDIR": str(folder)},
            capture_output=True,
            timeout=300,
        )
    except (OSError, subprocess.TimeoutExpired):
        shutil.rmtree(folder, ignore_errors=True)  # each plot then builds its own cache, as without this


def plot_environment(settings: GradeSettings, work: Path, box: Sandbox) -> dict[str, str]:
    """The plot tool's environment. matplotlib keeps a font cache in its config folder: each step starts
    from a copy of the one the batch warmed (prepare_plotting), instead of rebuilding it (about 1 s a plot)."""
    env = {
        **environment.import_path([settings.course_root / "tools"]),
        "MPLBACKEND": "Agg",
        "STREAMLAB_MODULE_DIR": str(course_build_folder(settings) / "python"),  # the batch's own build
    }
    warmed = matplotlib_folder(settings)
    if warmed.is_dir():
        own = work / "matplotlib"
        if not own.is_dir():
            shutil.copytree(warmed, own, symlinks=False)
            box.writable_folder(own, tree=True)
        env["MPLCONFIGDIR"] = str(own)
    return env


def copy_traces(scratch: Path, prefix: str, folder: Path) -> list[Path]:
    """Copies the traces in `scratch` (regular files only, each at most TRACE_LIMIT) next to the report."""
    copied = []
    for trace in sorted(scratch.glob(f"{prefix}*.json")):
        if sandbox.is_plain_file(trace, TRACE_LIMIT):
            shutil.copyfile(trace, folder / trace.name, follow_symlinks=False)
            copied.append(folder / trace.name)
    return copied
