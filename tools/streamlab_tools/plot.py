"""Drawing the labs' files: GPU timelines, bandwidth sweeps and chunk sweeps.

The kind of file is read from its ``otherData.format``::

    python -m streamlab_tools.plot trace.json                   # timeline -> trace.png
    python -m streamlab_tools.plot trace.json --by engine -o t.svg
    python -m streamlab_tools.plot trace.json --model           # + the modelled schedule
    python -m streamlab_tools.plot serial.json --compare pipelined.json -o both.png
    python -m streamlab_tools.plot experiments.json --phase 2    # one phase of several
    python -m streamlab_tools.plot experiments.json --phase "version 1"  # a phase by its NVTX range
    python -m streamlab_tools.plot experiments.json --window 4 6 # 4 to 6 ms after the first op
    python -m streamlab_tools.plot bandwidth.json -o bandwidth.pdf
    python -m streamlab_tools.plot chunks.json -o chunks.png

A timeline cut into phases (at idle gaps and NVTX ranges: phases.py) is drawn a panel
and described a line per phase. Its measures and modelled schedule come from the
course's C++ library, through the module streamlab that `./course build` makes (library.py).

Figures are 16:9 with large fonts, so they read on a slide. A file that cannot be
drawn, or a timeline without the module, gives one line on stderr, starting with
"plot: ", and exit status 2.
"""

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .figures import PlotError, check_output_path, describe_metadata, plural
from .library import ModuleMissing
from .phases import describe_phase, find_phase, in_window, phase_trace, split_phases
from .sweeps import plot_bandwidth, plot_chunks
from .timelines import MAX_PHASE_PANELS, plot_phases, plot_stacked, plot_trace
from .trace import (
    BANDWIDTH_FORMAT,
    CHUNKS_FORMAT,
    TRACE_FORMAT,
    Trace,
    TraceError,
    file_format,
    load_trace,
    parse_json_file,
    parse_trace,
    read_json_object,
)


class _ArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser that reports usage errors as PlotError (one line, status 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise PlotError(f"{message} (see --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog=os.environ.get("STREAMLAB_PLOT_PROG", "plot"),  # `course plot` when the course runs it
        description="Draw a streamlab trace (timeline), bandwidth sweep or chunk sweep; "
        "the kind is read from the file's otherData.format.",
    )
    parser.add_argument("file", help="the JSON file a lab wrote")
    parser.add_argument("-o", "--output", help="image to write: .png, .svg or .pdf (default: FILE with .png)")
    parser.add_argument(
        "--by",
        choices=("stream", "engine"),
        default="stream",
        help="timeline rows: one per stream (default) or one per engine",
    )
    parser.add_argument(
        "--model", action="store_true", help="draw the modelled schedule of the same workload beneath the timeline"
    )
    parser.add_argument(
        "--compare",
        metavar="OTHER_TRACE",
        help="draw OTHER_TRACE's timeline beneath this one (e.g. serial above pipelined)",
    )
    parser.add_argument(
        "--labels",
        nargs=2,
        metavar=("FIRST", "SECOND"),
        help="names of the two timelines with --compare (default: their programs)",
    )
    parser.add_argument("--title", help="title to use instead of program and device")
    zoom = parser.add_mutually_exclusive_group()
    zoom.add_argument(
        "--phase",
        metavar="K",
        help="draw only phase K (a number from 1, or an NVTX range's name) of a timeline cut "
        "into phases at NVTX ranges and where the GPU was idle",
    )
    zoom.add_argument(
        "--window",
        nargs=2,
        type=float,
        metavar=("FROM", "TO"),
        help="draw only the operations between FROM and TO ms after the first one",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the plot command; returns the exit status (0, or 2 for a file it cannot draw)."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no window: works on machines without a display
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as done:  # --help printed the help
            return int(done.code or 0)
        output = Path(args.output) if args.output else Path(args.file).with_suffix(".png")
        check_output_path(output)
        _plot_file(args, output)
    except (TraceError, PlotError, ValueError, ModuleMissing) as error:
        message = " ".join(str(error).split())  # exactly one line, whatever the text held
        print(f"plot: {message}", file=sys.stderr)
        return 2
    print(f"plot: wrote {output}")
    return 0


SWEEP_PLOTS = {BANDWIDTH_FORMAT: plot_bandwidth, CHUNKS_FORMAT: plot_chunks}


def _used_options(args: argparse.Namespace, options: Sequence[str]) -> list[str]:
    """Which of ``options`` the command line gave a value other than its default."""
    parser = build_parser()
    return [option for option in options if getattr(args, option[2:]) != parser.get_default(option[2:])]


def _plot_file(args: argparse.Namespace, output: Path) -> None:
    obj = read_json_object(args.file)
    try:
        kind = file_format(obj)
        if kind not in (TRACE_FORMAT, *SWEEP_PLOTS):
            known = ", ".join((TRACE_FORMAT, *SWEEP_PLOTS))
            raise TraceError(f"cannot draw otherData.format {kind!r} (known: {known})")
        data: Any = parse_trace(obj) if kind == TRACE_FORMAT else parse_json_file(obj, kind)
    except TraceError as error:
        raise TraceError(f"{args.file}: {error}") from None

    if kind in SWEEP_PLOTS:
        used = _used_options(args, ("--model", "--compare", "--labels", "--by", "--phase", "--window"))
        if used:
            raise PlotError(f"{used[0]} applies to traces only, and {args.file} is a {kind} file")
        SWEEP_PLOTS[kind](data, output, title=args.title)
    elif args.compare:
        used = _used_options(args, ("--model", "--phase", "--window"))
        if used:
            raise PlotError(f"{used[0]} and --compare cannot be combined")
        other = load_trace(args.compare)
        labels = args.labels or [data.program or args.file, other.program or args.compare]
        plot_stacked([data, other], labels, output, by=args.by, title=args.title)
    elif args.labels:
        raise PlotError("--labels applies to --compare only")
    else:
        _plot_timeline(data, args, output)


def _plot_timeline(trace: Trace, args: argparse.Namespace, output: Path) -> None:
    """One trace: whole, one phase of it (--phase), a window of it (--window), or, when the
    GPU sat idle between phases of work, each phase in its own panel; prints a line per phase."""
    phases = split_phases(trace.ops, ranges=trace.ranges)
    lines = [describe_phase(phase, trace.ops[0].start_ns) for phase in phases] if len(phases) > 1 else []
    title = args.title
    if args.phase is not None:
        chosen = find_phase(phases, args.phase)
        if chosen is None:
            names = [f'"{phase.name}"' for phase in phases if phase.name]
            raise PlotError(
                f"--phase {args.phase}: the trace has {plural(len(phases), 'phase')} "
                f"(choose 1 to {len(phases)}{' or one of ' + ', '.join(names) if names else ''})"
            )
        trace = phase_trace(trace, chosen)
        title = title if title is not None else f"{describe_metadata(trace.metadata)}, {chosen.title}"
    elif args.window is not None:
        start, end = args.window
        if not 0 <= start < end:
            raise PlotError(f"--window {start:g} {end:g}: FROM must be at least 0 and below TO")
        trace = in_window(trace, start, end)
        if not trace.ops:
            raise PlotError(f"--window {start:g} {end:g}: no operation runs between {start:g} and {end:g} ms")
        title = title if title is not None else f"{describe_metadata(trace.metadata)}, {start:g} to {end:g} ms"
    elif len(phases) > MAX_PHASE_PANELS:
        lines.append(
            f"plot: {len(phases)} phases are too many to draw one above the other: "
            "the whole timeline is drawn; draw one with --phase K"
        )
    elif len(phases) > 1 and args.model:
        raise PlotError(f"--model describes one pipeline, and the trace has {len(phases)} phases: add --phase K")
    if args.phase is None and args.window is None and 1 < len(phases) <= MAX_PHASE_PANELS:
        plot_phases(trace, phases, output, by=args.by, title=title)
    else:
        plot_trace(trace, output, by=args.by, model=args.model, title=title)
    print("\n".join(lines), end="\n" if lines else "")  # once drawn: a refusal is one line, and only that


if __name__ == "__main__":
    sys.exit(main())
