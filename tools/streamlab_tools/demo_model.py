"""The demo's picture where no GPU is at hand: the model's timelines for stage times
measured on another GPU and committed with the course.

    python -m streamlab_tools.demo_model common/reference/h200_stage_times.json -o demo.png

The stage-times file is one JSON object: ``device``, ``date``, ``copy_engines``,
``chunks``, ``bytes`` and ``h2d_ms``, ``kernel_ms``, ``d2h_ms`` (each the whole data's
stage, alone). It prints what the model predicts and draws the serial and pipelined
schedules, marked as modelled, with the course's model (the module streamlab, which
`./course build` makes). A file it cannot use, or a missing module, gives one line on
stderr starting with "demo_model: ", and exit status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from . import library
from .figures import PlotError, check_output_path
from .timelines import plot_model_schedule

# What each field's type (a string here: annotations are not evaluated) takes from JSON.
JSON_KINDS = {"str": str, "int": int, "float": (int, float)}


class StageTimesError(Exception):
    """A stage-times file is missing, unreadable or incomplete; the message is one line."""


@dataclasses.dataclass(frozen=True)
class ReferenceStageTimes:
    """Stage times measured on one GPU (ms, whole data), and what they were measured on."""

    device: str
    date: str
    copy_engines: int
    chunks: int
    bytes: int
    h2d_ms: float
    kernel_ms: float
    d2h_ms: float


def load_stage_times(path: str | Path) -> ReferenceStageTimes:
    """Reads and checks a stage-times file; raises StageTimesError saying what is wrong."""
    try:
        obj = json.loads(Path(path).read_text())
    except OSError as error:
        raise StageTimesError(f"cannot read {path}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise StageTimesError(f"{path} is not JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(obj, dict):
        raise StageTimesError(f"{path} does not hold a JSON object")
    fields = dataclasses.fields(ReferenceStageTimes)
    for field in fields:
        if field.name not in obj:
            raise StageTimesError(f"{path} has no {field.name!r}")
        value = obj[field.name]
        if not isinstance(value, JSON_KINDS[field.type]) or isinstance(value, bool):
            raise StageTimesError(f"{path}: {field.name!r} has the wrong type ({type(value).__name__})")
    times = ReferenceStageTimes(**{field.name: obj[field.name] for field in fields})
    if min(times.copy_engines, times.chunks, times.bytes) < 1:
        raise StageTimesError(f"{path}: copy_engines, chunks and bytes must be at least 1")
    if min(times.h2d_ms, times.kernel_ms, times.d2h_ms) <= 0:
        raise StageTimesError(f"{path}: every stage time must be positive")
    return times


def describe(times: ReferenceStageTimes) -> str:
    """What the model predicts for these stage times, in a few lines."""
    streamlab = library.load()
    model = streamlab.pipeline_model(times.h2d_ms, times.kernel_ms, times.d2h_ms, times.chunks, times.copy_engines)
    schedule = streamlab.simulate_pipeline(
        times.h2d_ms, times.kernel_ms, times.d2h_ms, times.chunks, times.chunks, times.copy_engines
    )
    pipelined = streamlab.simulated_makespan(schedule)
    return (
        f"Modelled, not measured: stage times of {times.bytes >> 20} MiB measured on {times.device} ({times.date}):\n"
        f"  H2D {times.h2d_ms:.2f} ms, kernel {times.kernel_ms:.2f} ms, D2H {times.d2h_ms:.2f} ms\n"
        f"  serial {model['serial']:.2f} ms; {times.chunks} chunks in {times.chunks} streams {pipelined:.2f} ms "
        f"(speedup {model['serial'] / pipelined:.2f}x)\n"
        f"  bound {model['bound']:.2f} ms (the busiest engine's total: no chunk count goes faster)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Prints the model's numbers and draws its timelines; returns the exit status."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no window
    parser = argparse.ArgumentParser(prog="demo_model", description=__doc__.split("\n")[0])
    parser.add_argument("stage_times", help="stage-times JSON file, e.g. common/reference/h200_stage_times.json")
    parser.add_argument("-o", "--output", required=True, help="picture to write: .png, .svg or .pdf")
    args = parser.parse_args(argv)
    try:
        check_output_path(args.output)
        times = load_stage_times(args.stage_times)
        print(describe(times))
        plot_model_schedule(
            times.h2d_ms,
            times.kernel_ms,
            times.d2h_ms,
            times.chunks,
            times.copy_engines,
            args.output,
            title=f"What the model predicts on {times.device} (no GPU here)",
        )
    except (StageTimesError, PlotError, ValueError, library.ModuleMissing) as error:
        print(f"demo_model: {error}", file=sys.stderr)
        return 2
    print(f"demo_model: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
