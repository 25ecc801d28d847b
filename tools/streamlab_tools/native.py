"""One implementation for both languages: the pipeline model and the timeline analysis
of the C++ library, through the Python module ``streamlab`` where the course's build
made it (python/ in the repository, built into BUILD/python), and their Python twins
(model.py, analysis.py) where it did not, so that plots work without a build.

The functions here have the signatures and results of the Python twins; the tools
(plot.py, demo_model.py) call these. Two environment variables steer the choice:

    STREAMLAB_MODULE_DIR=build-ci/python   look for the module there first
    STREAMLAB_PURE_PYTHON=1                use the Python twins even where the module is built

``python -m streamlab_tools.native`` says which one the tools use, and why.
"""

from __future__ import annotations

import argparse
import functools
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from . import analysis, model
from .model import ScheduledOp
from .trace import DeviceOp

ROOT = Path(__file__).resolve().parents[2]
MODULE_NAME = "streamlab"
# Where `./course build` puts the module, by preset (CMakePresets.json's binaryDir).
BUILD_FOLDERS = ("build", "build-ci", "build-debug")

_found: dict[str, Any] = {}  # "module" and "reason", once looked for


def module_files() -> list[Path]:
    """The built modules this Python could import, the newest first."""
    folders = [Path(os.environ["STREAMLAB_MODULE_DIR"])] if os.environ.get("STREAMLAB_MODULE_DIR") else []
    folders += [ROOT / build / "python" for build in BUILD_FOLDERS]
    files = [folder / (MODULE_NAME + suffix) for folder in folders for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    return sorted({f for f in files if f.is_file()}, key=lambda f: f.stat().st_mtime, reverse=True)


def load_module() -> ModuleType | None:
    """The ``streamlab`` module: one on sys.path, else the newest the build made; None
    when there is none (missing_reason says why)."""
    if "reason" in _found:
        return _found["module"]
    _found["module"], _found["reason"] = None, ""
    on_path = importlib.util.find_spec(MODULE_NAME)
    if on_path is not None and on_path.has_location:  # a file, not a folder that happens to be called so
        _found["module"] = importlib.import_module(MODULE_NAME)
        return _found["module"]
    files = module_files()
    if not files:
        _found["reason"] = (
            "the Python module streamlab is not built (./course build makes it where "
            "nanobind and Python's headers are installed; see the configure message)"
        )
    for path in files:
        try:
            spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
        except ImportError as error:
            _found["reason"] = f"the Python module streamlab at {path} does not load: {error}"
            continue
        sys.modules[MODULE_NAME] = loaded
        _found.update(module=loaded, reason="")
        break
    return _found["module"]


def missing_reason() -> str:
    """Why the tools use the Python twins ("" when they use the C++ library)."""
    if os.environ.get("STREAMLAB_PURE_PYTHON", "") not in ("", "0"):
        return "STREAMLAB_PURE_PYTHON is set"
    load_module()
    return _found["reason"]


def _native() -> ModuleType | None:
    return None if missing_reason() else load_module()


def implementation() -> str:
    """Which implementation the tools use, in words."""
    native = _native()
    if native is not None:
        return f"C++ (the streamlab module, {native.__file__})"
    return f"Python (model.py, analysis.py: {missing_reason()})"


def pipeline_model(h2d: float, kernel: float, d2h: float, chunks: int, copy_engines: int) -> dict[str, float]:
    """model.pipeline_model, computed by model.cpp where the module is built."""
    native = _native()
    if native is None:
        return model.pipeline_model(h2d, kernel, d2h, chunks, copy_engines)
    return native.pipeline_model(h2d, kernel, d2h, chunks, copy_engines)


@functools.wraps(model.simulate_pipeline)
def simulate_pipeline(*args: Any, **kwargs: Any) -> list[ScheduledOp]:
    """model.simulate_pipeline (the same arguments), computed by model.cpp where the module is built."""
    native = _native()
    if native is None:
        return model.simulate_pipeline(*args, **kwargs)
    call = inspect.signature(model.simulate_pipeline).bind(*args, **kwargs)
    call.apply_defaults()
    given = dict(call.arguments)
    link = given.pop("link")
    ops = native.simulate_pipeline(*given.values(), native.LinkSharing(link.h2d, link.d2h))
    return [ScheduledOp(chunk=op.chunk, stage=op.stage, stream=op.stream, start=op.start, end=op.end) for op in ops]


def summarize(ops: Sequence[DeviceOp]) -> dict[str, Any]:
    """analysis.summarize, computed by analysis.cpp where the module is built."""
    native = _native()
    if native is None:
        return analysis.summarize(ops)
    return native.summarize(to_native_ops(native, ops))


def to_native_ops(native: ModuleType, ops: Sequence[DeviceOp]) -> list[Any]:
    """The module's DeviceOp for each op read by streamlab_tools.trace."""
    return [
        native.DeviceOp(
            kind=op.kind,
            start_ns=op.start_ns,
            end_ns=op.end_ns,
            stream=op.stream,
            stream_kind=op.stream_kind,
            bytes=op.bytes,
            name=op.kernel_name,
            label=op.label,
            host_memory=op.host_memory,
            correlation_id=op.correlation_id,
            graph_id=op.graph_id,
            graph_node_id=op.graph_node_id,
            device=op.device,
        )
        for op in ops
    ]


def main(argv: list[str] | None = None) -> int:
    """Prints which implementation the tools use; returns 0."""
    parser = argparse.ArgumentParser(prog="native", description=__doc__.split("\n")[0])
    parser.parse_args(argv)
    print(f"the model and the analysis: {implementation()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
