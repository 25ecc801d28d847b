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

A timeline in which the GPU sat idle between stretches of work (experiments run one
after another, with host checks between them) is cut into phases there, and at the
program's outermost NVTX ranges where it has them (each phase named after its range):
each is drawn in a panel of its own and described in a line of its own (phases.py).

Figures are 16:9 with large fonts, so they read on a slide. A file that cannot be
drawn gives one line on stderr, starting with "plot: ", and exit status 2.
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .analysis import unit_of
from .model import ScheduledOp, makespan
from .native import pipeline_model, simulate_pipeline, summarize  # C++ where the streamlab module is built
from .phases import Phase, describe_phase, find_phase, in_window, phase_trace, split_phases
from .trace import (
    BANDWIDTH_FORMAT,
    CHUNKS_FORMAT,
    TRACE_FORMAT,
    DeviceOp,
    Trace,
    TraceError,
    file_format,
    load_trace,
    parse_json_file,
    parse_trace,
    read_json_object,
)

OUTPUT_SUFFIXES = (".png", ".svg", ".pdf")
FIGURE_SIZE = (12, 6.75)  # inches: 16:9, the shape of a slide
# Host-mark names: the heights they may take in the host row, and roughly how
# much of the time axis one character of a 12-point name covers.
MARK_LANES = (0.3, 0.0, -0.3)
MARK_CHAR_WIDTH = 0.0095
DPI = 150
STYLE = {
    "font.size": 15,
    "axes.titlesize": 16,
    "axes.labelsize": 15,
    "xtick.labelsize": 13,
    "ytick.labelsize": 13,
    "legend.fontsize": 13,
    "figure.titlesize": 18,
}

# Bars are coloured by what the op did; the same colours mean the same thing in every plot.
BAR_KINDS = ("h2d", "kernel", "d2h", "other")
BAR_COLORS = {"h2d": "#1f77b4", "kernel": "#2ca02c", "d2h": "#ff7f0e", "other": "#7f7f7f"}
BAR_TEXT_COLORS = {"h2d": "white", "kernel": "white", "d2h": "black", "other": "white"}
BAR_KIND_NAMES = {"h2d": "H2D copy", "kernel": "kernel", "d2h": "D2H copy", "other": "other"}
BAR_KIND_OF_UNIT = {"h2d": "h2d", "compute": "kernel", "d2h": "d2h", "other": "other"}
BAR_KIND_OF_STAGE = {"H2D": "h2d", "K": "kernel", "D2H": "d2h"}

ENGINE_ROWS = {"h2d": "H2D copy", "d2h": "D2H copy", "compute": "compute", "other": "other"}
STREAM_KIND_NAMES = {"legacy_null": "NULL stream (legacy)", "per_thread_default": "default stream (per-thread)"}

BAR_HEIGHT = 0.7  # of a row's height of 1
BAR_TEXT_SIZES = (13, 11, 9)  # tried in turn until the text fits its bar
MIN_TEXT_BAR_PX = 12  # narrower bars get no text at all
MODELLED_HATCH = "//"
MAX_ROW_NAMES = 12
MIN_FIT_SIZE = 9  # points: the smallest a title is shrunk to so that it fits (see _fit_texts)
MAX_PHASE_PANELS = 6  # more phases than this are listed, and drawn one at a time with --phase
HOST_ROW = "host"


class PlotError(Exception):
    """Something this command cannot draw or write; the message is one line."""


@dataclass(frozen=True)
class Bar:
    """One bar of a timeline: a row, a span in ms, a colour kind and its text (or "")."""

    row: str
    start: float
    end: float
    kind: str  # one of BAR_KINDS
    text: str


@dataclass(frozen=True)
class _PlacedBar:
    bar: Bar
    y: float  # centre of the bar on the y axis
    height: float


# --- timelines ---------------------------------------------------------------------


def plot_trace(
    trace: Trace,
    path: str | Path,
    by: str = "stream",
    model: bool = False,
    title: str | None = None,
) -> None:
    """Draws ``trace`` as a timeline into ``path`` (.png, .svg or .pdf).

    ``by`` picks the rows: "stream" (one per stream) or "engine" (H2D copy, D2H copy,
    compute, other). With ``model``, the modelled schedule of the same workload is drawn
    beneath, on the same time axis. ``title`` replaces the first title line (program
    and device); the measured numbers stay in the line below it.
    """
    if not trace.ops:
        raise PlotError("the trace has no device operations to draw")
    stats = summarize(trace.ops)
    heading = title if title is not None else _describe(trace)
    with _figure(path, panels=2 if model else 1, sources=[trace.metadata]) as (fig, axes):
        measured_ax = axes[0]
        placed = {measured_ax: _draw_trace(measured_ax, trace, by)}
        if model:
            measured_ax.set_title("measured", loc="left")
            model_ax = axes[1]
            placed[model_ax] = _draw_trace_model(model_ax, trace, by)
        _draw_marks(measured_ax, trace)  # after every panel: where names go depends on the whole time axis
        axes[-1].set_xlabel("time since the first operation (ms)")
        fig.suptitle(f"{heading}\n{_stats_line(stats)}")
        _add_kind_legend(fig, [p.bar.kind for bars in placed.values() for p in bars], modelled=model)
        _write_bar_texts(fig, placed)


def plot_stacked(
    traces: Sequence[Trace],
    labels: Sequence[str],
    path: str | Path,
    by: str = "stream",
    title: str | None = None,
) -> None:
    """Draws several traces one above the other on one time axis (e.g. serial, then pipelined).

    Each timeline starts at its own first operation, so their lengths compare directly.
    ``labels`` name the timelines; ``title`` defaults to the device's name.
    """
    if len(traces) != len(labels):
        raise PlotError(f"{len(traces)} traces but {len(labels)} labels")
    if not traces:
        raise PlotError("no traces to draw")
    for trace, label in zip(traces, labels):
        if not trace.ops:
            raise PlotError(f"the trace {label!r} has no device operations to draw")
    row_counts = [len(_rows_and_bars(trace.ops, by, trace.ops[0].start_ns)[0]) for trace in traces]
    height_ratios = [min(count, MAX_ROW_NAMES) + 1 for count in row_counts]
    with _figure(path, panels=len(traces), height_ratios=height_ratios,
                 sources=[t.metadata for t in traces]) as (fig, axes):
        placed = {}
        for ax, trace, label in zip(axes, traces, labels):
            placed[ax] = _draw_trace(ax, trace, by)
            ax.set_title(f"{label}: {_stats_line(summarize(trace.ops), short=True)}", loc="left")
        for ax, trace in zip(axes, traces):
            _draw_marks(ax, trace)
        axes[-1].set_xlabel("time since the first operation (ms)")
        fig.suptitle(title if title is not None else f"Timelines on {traces[0].device_name or 'an unnamed device'}")
        _add_kind_legend(fig, [p.bar.kind for bars in placed.values() for p in bars])
        _write_bar_texts(fig, placed)


def plot_phases(trace: Trace, phases: Sequence[Phase], path: str | Path, by: str = "stream",
                title: str | None = None) -> None:
    """Draws each phase of ``trace`` (see phases.split_phases) in a panel of its own, on its
    own time axis from its first op, titled with its own makespan and overlap."""
    if not phases:
        raise PlotError("the trace has no device operations to draw")
    traces = [phase_trace(trace, phase) for phase in phases]
    origin_ns = trace.ops[0].start_ns
    row_counts = [len(_rows_and_bars(t.ops, by, t.ops[0].start_ns)[0]) + bool(t.marks) for t in traces]
    with _figure(path, panels=len(phases), height_ratios=[min(count, MAX_ROW_NAMES) + 1 for count in row_counts],
                 sources=[trace.metadata], share_time_axis=False) as (fig, axes):
        placed = {}
        for ax, phase, part in zip(axes, phases, traces):
            placed[ax] = _draw_trace(ax, part, by)
            _draw_marks(ax, part)
            at = (phase.start_ns - origin_ns) / 1e6
            ax.set_title(f"{phase.title}, at {_ms(at)}: {_stats_line(summarize(part.ops), short=True)}",
                         loc="left")
        axes[-1].set_xlabel("time since the phase's first operation (ms)")
        heading = title if title is not None else _describe(trace)
        whole = _ms(summarize(trace.ops)["makespan_ns"] / 1e6)
        named = sum(bool(phase.name) for phase in phases)
        cut = ("at the program's NVTX ranges" if named == len(phases) else
               "at NVTX ranges and idle gaps" if named else "where the GPU was idle")
        fig.suptitle(f"{heading}\n{len(phases)} phases, cut {cut} ({whole} in all)")
        _add_kind_legend(fig, [p.bar.kind for bars in placed.values() for p in bars])
        _write_bar_texts(fig, placed)


def plot_model_schedule(
    h2d: float,
    kernel: float,
    d2h: float,
    chunks: int,
    copy_engines: int,
    path: str | Path,
    title: str | None = None,
    order: str = "chunk",
) -> None:
    """Draws the modelled serial and pipelined schedules for stage times in ms.

    ``h2d``, ``kernel`` and ``d2h`` are the stage times (ms) for the whole data. The
    serial schedule runs them in turn in one stream; the pipelined one cuts the data
    into ``chunks`` chunks, one stream each, issued in ``order`` ("chunk" or "stage",
    see model.simulate_pipeline). Both are modelled, not measured, and the
    figure says so: this is the picture to show where no GPU is at hand.
    """
    if h2d + kernel + d2h <= 0:
        raise PlotError("the stage times add up to nothing: there is no schedule to draw")
    serial = simulate_pipeline(h2d, kernel, d2h, chunks=1, streams=1, copy_engines=copy_engines)
    pipelined = simulate_pipeline(h2d, kernel, d2h, chunks, streams=chunks, copy_engines=copy_engines, order=order)
    model = pipeline_model(h2d, kernel, d2h, chunks, copy_engines)
    engines = _plural(copy_engines, "copy engine")
    with _figure(path, panels=2, height_ratios=[2, min(chunks, MAX_ROW_NAMES) + 1]) as (fig, axes):
        serial_bars = [_schedule_bar(op, "serial", text=op.stage) for op in serial]
        pipelined_bars = [_schedule_bar(op, f"stream {op.stream + 1}", text=op.name) for op in pipelined]
        placed = {
            axes[0]: _draw_bars(axes[0], ["serial"], serial_bars, modelled=True),
            axes[1]: _draw_bars(axes[1], _rows_in_order(pipelined_bars), pipelined_bars, modelled=True),
        }
        axes[0].set_title(f"modelled serial: H2D, kernel, D2H in turn, {_ms(makespan(serial))}", loc="left")
        axes[1].set_title(
            f"modelled pipeline: {_plural(chunks, 'chunk')} in {_plural(chunks, 'stream')}, {engines}, {order} order, "
            f"{_ms(makespan(pipelined))} (speedup {model['serial'] / makespan(pipelined):.2f}x)",
            loc="left",
        )
        axes[-1].set_xlabel("time (ms)")
        heading = title if title is not None else "Modelled timelines"
        stages = f"stage times H2D {_ms(h2d)}, kernel {_ms(kernel)}, D2H {_ms(d2h)}"
        fig.suptitle(f"{heading}\n{stages} (modelled, not measured)")
        _add_kind_legend(fig, [bar.kind for bar in serial_bars + pipelined_bars], modelled=True)
        _write_bar_texts(fig, placed)


def _draw_trace(ax: Any, trace: Trace, by: str) -> list[_PlacedBar]:
    """Draws a trace's ops on ``ax``, in ms from its first op, leaving a row on top for
    the host marks (drawn by _draw_marks once the time axis is final)."""
    origin_ns = trace.ops[0].start_ns  # ops are sorted by start
    rows, bars = _rows_and_bars(trace.ops, by, origin_ns)
    if trace.marks:
        rows = [HOST_ROW] + rows  # host marks are named in a row of their own, on top
    return _draw_bars(ax, rows, bars)


def _draw_trace_model(ax: Any, trace: Trace, by: str) -> list[_PlacedBar]:
    """Draws, on ``ax``, the modelled schedule of the workload ``trace`` recorded."""
    bars, title = trace_model_bars(trace, by)
    placed = _draw_bars(ax, _rows_in_order(bars), bars, modelled=True)
    ax.set_title(title, loc="left")
    return placed


def trace_model_bars(trace: Trace, by: str) -> tuple[list[Bar], str]:
    """The bars (in ms) and the title of the modelled schedule of the workload ``trace`` recorded."""
    stage_ns = {unit: sum(op.duration_ns for op in trace.ops if unit_of(op) == unit)
                for unit in ("h2d", "compute", "d2h")}
    if not any(stage_ns.values()):
        raise PlotError("--model needs copies or kernels in the trace")
    chunks = max(1, sum(op.kind == "memcpy_h2d" for op in trace.ops))
    streams = min(chunks, len({op.stream for op in trace.ops}))  # chunks beyond one per stream stay idle
    # A device without a copy engine count on record is assumed to have two (one per direction).
    engines = max(1, trace.copy_engines if trace.copy_engines is not None else 2)
    order = _issue_order(trace.ops)
    schedule = simulate_pipeline(
        stage_ns["h2d"] / 1e6, stage_ns["compute"] / 1e6, stage_ns["d2h"] / 1e6, chunks, streams, engines, order
    )

    def row_of(op: ScheduledOp) -> str:
        if by == "engine":
            unit = {"H2D": "h2d", "K": "compute", "D2H": "d2h"}[op.stage]
            return ENGINE_ROWS[unit] if engines >= 2 or unit == "compute" else "copy"
        return f"stream {op.stream + 1}"

    bars = [_schedule_bar(op, row_of(op), text=op.name) for op in schedule]
    title = (f"modelled: {_plural(chunks, 'chunk')}, {_plural(streams, 'stream')}, "
             f"{_plural(engines, 'copy engine')}, {order} order: {_ms(makespan(schedule))}")
    return bars, title


def _issue_order(ops: Sequence[DeviceOp]) -> str:
    """"stage" when the program issued every H2D copy before any kernel, else "chunk".

    Correlation ids number API calls in the order the host made them.
    """
    h2d = [op.correlation_id for op in ops if op.kind == "memcpy_h2d"]
    kernels = [op.correlation_id for op in ops if op.kind == "kernel"]
    if len(h2d) > 1 and kernels and max(h2d) < min(kernels):
        return "stage"
    return "chunk"


def _rows_and_bars(ops: Sequence[DeviceOp], by: str, origin_ns: int) -> tuple[list[str], list[Bar]]:
    """The rows (top to bottom) and bars for ``ops``, with times in ms from ``origin_ns``."""
    if by not in ("stream", "engine"):
        raise PlotError(f'rows must be by "stream" or "engine", not {by!r}')
    bars = []
    for op in ops:
        unit = unit_of(op)
        row = ENGINE_ROWS[unit] if by == "engine" else _stream_row(op)
        # "H2D_1", "K_1", ... for labelled ops; "H2D" or the kernel's short name for others
        text = _short_kernel_name(op.name) if op.kind == "kernel" and not op.label else op.name
        start, end = (op.start_ns - origin_ns) / 1e6, (op.end_ns - origin_ns) / 1e6
        bars.append(Bar(row=row, start=start, end=end, kind=BAR_KIND_OF_UNIT[unit], text=text))
    if by == "engine":
        used = {bar.row for bar in bars}
        rows = [row for row in ENGINE_ROWS.values() if row in used or row != "other"]
    else:
        rows = _rows_in_order(bars)
    return rows, bars


def _short_kernel_name(name: str) -> str:
    """'ns::(anonymous namespace)::work(float*, int)' -> 'work': what fits on a bar."""
    depth, cut = 0, len(name)
    for i, char in enumerate(name):  # drop the parameter list: the first '(' outside <...>
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "(" and depth == 0 and not name.startswith("(anonymous", i):
            cut = i
            break
    short = name[:cut].rsplit("::", 1)[-1]
    head = short.split("<", 1)[0]  # templates come with their return type: "void f<int>"
    if " " in head:
        short = short[head.rfind(" ") + 1:]
    return short or name


def _stream_row(op: DeviceOp) -> str:
    return STREAM_KIND_NAMES.get(op.stream_kind, f"stream {op.stream}")


def _rows_in_order(bars: Sequence[Bar]) -> list[str]:
    """Row names in the order their first bar starts, so the timeline reads top-down."""
    rows: list[str] = []
    for bar in sorted(bars, key=lambda bar: bar.start):
        if bar.row not in rows:
            rows.append(bar.row)
    return rows


def _schedule_bar(op: ScheduledOp, row: str, text: str) -> Bar:
    return Bar(row=row, start=op.start, end=op.end, kind=BAR_KIND_OF_STAGE[op.stage], text=text)


def _draw_bars(ax: Any, rows: Sequence[str], bars: Sequence[Bar], modelled: bool = False) -> list[_PlacedBar]:
    """Draws ``bars`` in ``rows`` (first row on top) and returns where each bar went.

    Bars that overlap in time within one row (concurrent kernels, say) are stacked in
    thinner lanes, so none hides another.
    """
    placed = []
    for index, row in enumerate(rows):
        row_bars = sorted((bar for bar in bars if bar.row == row), key=lambda bar: (bar.start, bar.end))
        lanes = _assign_lanes(row_bars)
        lane_height = BAR_HEIGHT / max(1, max(lanes, default=0) + 1)
        top = index - BAR_HEIGHT / 2
        for bar, lane in zip(row_bars, lanes):
            placed.append(_PlacedBar(bar=bar, y=top + (lane + 0.5) * lane_height, height=lane_height))
    for kind in BAR_KINDS:
        group = [p for p in placed if p.bar.kind == kind]
        if group:
            ax.barh(
                [p.y for p in group],
                [p.bar.end - p.bar.start for p in group],
                left=[p.bar.start for p in group],
                height=[p.height for p in group],
                color=BAR_COLORS[kind],
                edgecolor="black",
                linewidth=[0.8 if p.height > 0.2 else 0.2 for p in group],  # thin lanes, thin edges
                hatch=MODELLED_HATCH if modelled else None,
                alpha=0.75 if modelled else 1.0,
            )
    # With many rows, name every few so the names stay readable.
    step = max(1, math.ceil(len(rows) / MAX_ROW_NAMES))
    ax.set_yticks(range(0, len(rows), step), rows[::step])
    ax.set_ylim(len(rows) - 0.5, -0.5)  # row 0 at the top
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    if modelled:
        ax.set_ylabel("modelled")
    return placed


def _assign_lanes(bars: Sequence[Bar]) -> list[int]:
    """For bars sorted by start, the lowest lane each can use without overlapping another."""
    lane_ends: list[float] = []  # when the last bar in each lane ends
    lanes = []
    for bar in bars:
        free = [lane for lane, end in enumerate(lane_ends) if end <= bar.start]
        if free:
            lane = free[0]
            lane_ends[lane] = bar.end
        else:  # every lane is busy: open a new one
            lane = len(lane_ends)
            lane_ends.append(bar.end)
        lanes.append(lane)
    return lanes


def _draw_marks(ax: Any, trace: Trace) -> None:
    """Host marks: a dashed vertical line each, named in the host row (row 0).

    Call it after every panel sharing the time axis is drawn: names of marks in the last
    quarter of the axis go left of their line, so they stay inside the axes. Each name
    takes the first of three heights where it does not run into a name already placed.
    """
    origin_ns = trace.ops[0].start_ns
    left, right = ax.get_xlim()
    end = left + 0.75 * (right - left)
    char_width = MARK_CHAR_WIDTH * (right - left)  # a name's width, roughly, in ms
    taken: dict[float, list[tuple[float, float]]] = {lane: [] for lane in MARK_LANES}
    for mark in trace.marks:
        x = (mark.time_ns - origin_ns) / 1e6
        ax.axvline(x, color="0.2", linestyle="--", linewidth=1.2)
        on_the_right = x > end
        width = char_width * (len(mark.name) + 1)
        span = (x - width, x) if on_the_right else (x, x + width)
        free = [lane for lane in MARK_LANES if all(span[1] < a or span[0] > b for a, b in taken[lane])]
        lane = free[0] if free else min(MARK_LANES, key=lambda candidate: len(taken[candidate]))
        taken[lane].append(span)
        name = ax.annotate(
            mark.name,
            xy=(x, lane if len(trace.marks) > 1 else 0.0),
            xytext=(-5 if on_the_right else 5, 0),
            textcoords="offset points",
            ha="right" if on_the_right else "left",
            va="center",
            fontsize=12,
            color="0.2",
        )
        name.set_in_layout(False)


def _add_kind_legend(fig: Any, kinds: Sequence[str], modelled: bool = False) -> None:
    """One legend entry per op kind present, below the plots."""
    from matplotlib.patches import Patch

    handles = [
        Patch(facecolor=BAR_COLORS[kind], edgecolor="black", label=BAR_KIND_NAMES[kind])
        for kind in BAR_KINDS
        if kind in kinds
    ]
    if modelled:
        handles.append(Patch(facecolor="white", edgecolor="black", hatch=MODELLED_HATCH, label="modelled"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)


def _write_bar_texts(fig: Any, placed: dict[Any, list[_PlacedBar]]) -> None:
    """Writes each bar's text inside it, in the largest size that fits, or not at all.

    Whether a text fits depends on the bar's size on the page, known only once the
    layout is done; the texts stay out of the layout so adding them changes nothing.
    """
    fig.draw_without_rendering()  # runs the layout: axes now have their final size
    for ax, bars in placed.items():
        for p in bars:
            if not p.bar.text:
                continue
            (left, bottom), (right, top) = ax.transData.transform([(p.bar.start, p.y + p.height / 2),
                                                                    (p.bar.end, p.y - p.height / 2)])
            width_px, height_px = abs(right - left), abs(top - bottom)
            if width_px < MIN_TEXT_BAR_PX:
                continue
            text = ax.text((p.bar.start + p.bar.end) / 2, p.y, p.bar.text, ha="center", va="center",
                           color=BAR_TEXT_COLORS[p.bar.kind], fontweight="bold", clip_on=True)
            text.set_in_layout(False)
            for size in BAR_TEXT_SIZES:
                text.set_fontsize(size)
                extent = text.get_window_extent()
                if extent.width <= 0.9 * width_px and extent.height <= 0.95 * height_px:
                    break
            else:
                text.remove()  # too narrow even for the smallest size


# --- sweeps ------------------------------------------------------------------------


def plot_bandwidth(sweep: dict[str, Any], path: str | Path, title: str | None = None) -> None:
    """Draws a bandwidth sweep: GB/s against transfer size, one line per direction and memory kind."""
    points = sweep["points"]
    series: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for point in points:
        series.setdefault((point["direction"], point["memory"]), []).append((point["bytes"], point["gbps"]))
    with _figure(path, sources=[sweep['otherData']]) as (fig, axes):
        ax = axes[0]
        # H2D before D2H, pinned before pageable, in the legend as in the labs' text.
        def legend_order(item: tuple[tuple[str, str], Any]) -> tuple[bool, bool]:
            (direction, memory), _ = item
            return direction != "H2D", memory != "pinned"

        for (direction, memory), values in sorted(series.items(), key=legend_order):
            values.sort()
            ax.plot(
                [size for size, _ in values],
                [gbps for _, gbps in values],
                color=BAR_COLORS["h2d" if direction == "H2D" else "d2h"],
                linestyle="-" if memory == "pinned" else "--",
                marker="o" if memory == "pinned" else "s",
                linewidth=2.5,
                markersize=7,
                label=f"{direction}, {memory}",
            )
        ax.set_xscale("log", base=2)
        sizes = [point["bytes"] for point in points]
        ticks = _power_of_two_ticks(min(sizes), max(sizes))
        ax.set_xticks(ticks, [_format_bytes(tick) for tick in ticks])
        ax.set_ylim(bottom=0)
        ax.set_xlabel("transfer size")
        ax.set_ylabel("bandwidth (GB/s)")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left")
        device = sweep["otherData"].get("device", {}).get("name", "")
        fig.suptitle(title if title is not None else f"Copy bandwidth on {device or 'an unnamed device'}")


def plot_chunks(sweep: dict[str, Any], path: str | Path, title: str | None = None) -> None:
    """Draws a chunk sweep: speedup over serial against the number of chunks.

    Per intensity: measured speedup (solid), the model's (dashed), the model's with
    H2D and D2H sharing the link as measured (dash-dot, where the file has it) and
    the bound's (dotted).
    """
    import matplotlib
    from matplotlib.lines import Line2D

    points = sweep["points"]
    intensities = list(dict.fromkeys(point["intensity"] for point in points))
    colors = matplotlib.colormaps["tab10"]
    has_link_model = all("link_model_ms" in point for point in points)
    with _figure(path, sources=[sweep['otherData']]) as (fig, axes):
        ax = axes[0]
        for index, intensity in enumerate(intensities):
            rows = sorted((p for p in points if p["intensity"] == intensity), key=lambda p: p["chunks"])
            chunks = [p["chunks"] for p in rows]
            color = colors(index % 10)

            def speedups(key: str) -> list[float]:
                return [p["serial_ms"] / p[key] for p in rows]

            ax.plot(chunks, speedups("makespan_ms"), color=color, marker="o", linewidth=2.5)
            ax.plot(chunks, speedups("model_ms"), color=color, linestyle="--", linewidth=2)
            if has_link_model:
                ax.plot(chunks, speedups("link_model_ms"), color=color, linestyle="-.", linewidth=1.5)
            ax.plot(chunks, speedups("bound_ms"), color=color, linestyle=":", linewidth=2)
        ax.axhline(1.0, color="0.4", linewidth=1)
        ax.set_xscale("log", base=2)
        ticks = sorted({point["chunks"] for point in points})
        ax.set_xticks(ticks, [str(tick) for tick in ticks])
        ax.minorticks_off()
        ax.set_xlabel("chunks")
        ax.set_ylabel("speedup over serial (x)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        # One legend entry per colour (the workload) and one per line style (what the line is).
        handles = [Line2D([], [], color=colors(index % 10), linewidth=2.5, label=intensity)
                   for index, intensity in enumerate(intensities)]
        handles += [
            Line2D([], [], color="black", marker="o", linewidth=2.5, label="measured"),
            Line2D([], [], color="black", linestyle="--", linewidth=2, label="model"),
        ]
        if has_link_model:
            handles.append(Line2D([], [], color="black", linestyle="-.", linewidth=1.5, label="model, shared link"))
        handles.append(Line2D([], [], color="black", linestyle=":", linewidth=2, label="bound"))
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        fig.suptitle(title if title is not None else f"Chunked pipeline: {_describe_metadata(sweep['otherData'])}")


def _power_of_two_ticks(smallest: int, largest: int, most: int = 10) -> list[int]:
    """Powers of two from ``smallest`` to ``largest``, thinned to at most ``most`` ticks."""
    low, high = math.floor(math.log2(smallest)), math.ceil(math.log2(largest))
    step = max(1, math.ceil((high - low + 1) / most))
    return [2**exponent for exponent in range(low, high + 1, step)]


def _format_bytes(size: int) -> str:
    """4096 -> "4 KiB", 3 << 20 -> "3 MiB"."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} B"


# --- figures and text ----------------------------------------------------------------


@contextmanager
def _figure(
    path: str | Path, panels: int = 1, height_ratios: Sequence[float] | None = None,
    sources: Sequence[dict[str, Any]] = (), share_time_axis: bool = True,
) -> Iterator[tuple[Any, list[Any]]]:
    """A slide-sized figure with ``panels`` axes stacked (on one shared x axis unless
    ``share_time_axis`` is False), saved to ``path`` when the block ends. ``sources`` (the
    drawn files' otherData) name, in the image file's own metadata, the device and date
    the data was recorded on."""
    import matplotlib
    import matplotlib.pyplot as plt

    path = Path(path)
    check_output_path(path)
    with matplotlib.rc_context(STYLE):
        fig, axes = plt.subplots(panels, 1, sharex=share_time_axis, squeeze=False, figsize=FIGURE_SIZE, layout="constrained",
                                 gridspec_kw={"height_ratios": height_ratios})
        try:
            yield fig, list(axes[:, 0])
            _fit_texts(fig)
            try:
                fig.savefig(path, dpi=DPI, metadata=_provenance(path, sources))
            except OSError as error:
                raise PlotError(f"cannot write {path} ({error.strerror or error})") from None
        finally:
            plt.close(fig)


def _fit_texts(fig: Any) -> None:
    """Shrinks every text of the layout (titles, above all) that would run past the figure's
    left or right edge until it fits, down to MIN_FIT_SIZE points, then cuts it into lines:
    a long program name or label must not run off the picture."""
    from matplotlib.text import Text

    fig.draw_without_rendering()  # the layout: texts now have their final places
    renderer = fig.canvas.get_renderer()
    for text in fig.findobj(Text):
        if not (text.get_visible() and text.get_in_layout() and text.get_text()):
            continue
        while not _fits(text, fig, renderer) and text.get_fontsize() > MIN_FIT_SIZE:
            text.set_fontsize(text.get_fontsize() - 1)
        if not _fits(text, fig, renderer):  # still too long at the smallest size: cut into lines
            share = fig.bbox.width / text.get_window_extent(renderer).width
            lines = text.get_text().split("\n")
            width = max(10, int(0.9 * share * max(len(line) for line in lines)))
            text.set_text("\n".join(textwrap.fill(line, width) for line in lines))


def _fits(text: Any, fig: Any, renderer: Any) -> bool:
    box = text.get_window_extent(renderer)
    return box.x0 >= 0 and box.x1 <= fig.bbox.width


def _provenance(path: Path, sources: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Image metadata saying what was drawn and where and when it was recorded."""
    described = "; ".join(
        f"{_describe_metadata(source)}, recorded {source.get('date', 'at an unknown date')}" for source in sources
    ) or "modelled, not recorded"
    key = {".png": "Description", ".pdf": "Subject", ".svg": "Description"}[path.suffix.lower()]
    return {"Title": path.stem, key: described}


def check_output_path(path: str | Path) -> None:
    """Raises PlotError unless ``path`` names a .png, .svg or .pdf file in a folder that exists."""
    suffix = Path(path).suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        raise PlotError(f"cannot write {path}: the output must end in {', '.join(OUTPUT_SUFFIXES)}")
    folder = Path(path).parent
    if not folder.is_dir():  # a mistyped folder is not made silently
        raise PlotError(f"cannot write {path}: there is no folder {folder}")


def _describe(trace: Trace) -> str:
    return _describe_metadata(trace.metadata)


def _describe_metadata(metadata: dict[str, Any]) -> str:
    program, device = metadata.get("program", ""), metadata.get("device", {}).get("name", "")
    return f"{program} on {device}" if program and device else program or device


def _stats_line(stats: dict[str, Any], short: bool = False) -> str:
    """Makespan and copy/compute overlap; `short` for a panel title that shares a line with a label."""
    overlap = _ms(stats["copy_compute_overlap_ns"] / 1e6)
    hidden = f"{stats['hidden_copy_fraction']:.0%}"
    if short:  # shares a panel's title line with a label: kept short enough to fit
        return f"{_ms(stats['makespan_ns'] / 1e6)}, {hidden} of copy time hidden"
    return f"makespan {_ms(stats['makespan_ns'] / 1e6)}, copy/compute overlap {overlap} ({hidden} of copy time hidden)"


def _ms(value: float) -> str:
    """A time in ms with about three significant digits."""
    if value >= 100:
        return f"{value:.0f} ms"
    if value >= 1:
        return f"{value:.2f} ms"
    return f"{value:.3g} ms"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


# --- command line ------------------------------------------------------------------


class _ArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser that reports usage errors as PlotError (one line, status 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise PlotError(f"{message} (see --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="plot",
        description="Draw a streamlab trace (timeline), bandwidth sweep or chunk sweep; "
        "the kind is read from the file's otherData.format.",
    )
    parser.add_argument("file", help="the JSON file a lab wrote")
    parser.add_argument("-o", "--output", help="image to write: .png, .svg or .pdf (default: FILE with .png)")
    parser.add_argument("--by", choices=("stream", "engine"), default="stream",
                        help="timeline rows: one per stream (default) or one per engine")
    parser.add_argument("--model", action="store_true",
                        help="draw the modelled schedule of the same workload beneath the timeline")
    parser.add_argument("--compare", metavar="OTHER_TRACE",
                        help="draw OTHER_TRACE's timeline beneath this one (e.g. serial above pipelined)")
    parser.add_argument("--labels", nargs=2, metavar=("FIRST", "SECOND"),
                        help="names of the two timelines with --compare (default: their programs)")
    parser.add_argument("--title", help="title to use instead of program and device")
    zoom = parser.add_mutually_exclusive_group()
    zoom.add_argument("--phase", metavar="K",
                      help="draw only phase K (a number from 1, or an NVTX range's name) of a timeline cut "
                           "into phases at NVTX ranges and where the GPU was idle")
    zoom.add_argument("--window", nargs=2, type=float, metavar=("FROM", "TO"),
                      help="draw only the operations between FROM and TO ms after the first one")
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
    except (TraceError, PlotError, ValueError) as error:
        message = " ".join(str(error).split())  # exactly one line, whatever the text held
        print(f"plot: {message}", file=sys.stderr)
        return 2
    print(f"plot: wrote {output}")
    return 0


def _plot_file(args: argparse.Namespace, output: Path) -> None:
    obj = read_json_object(args.file)
    try:
        kind = file_format(obj)
        if kind == TRACE_FORMAT:
            data: Any = parse_trace(obj)
        elif kind in (BANDWIDTH_FORMAT, CHUNKS_FORMAT):
            data = parse_json_file(obj, kind)
        else:
            known = ", ".join((TRACE_FORMAT, BANDWIDTH_FORMAT, CHUNKS_FORMAT))
            raise TraceError(f"cannot draw otherData.format {kind!r} (known: {known})")
    except TraceError as error:
        raise TraceError(f"{args.file}: {error}") from None

    if kind != TRACE_FORMAT:
        for option, used in (("--model", args.model), ("--compare", args.compare), ("--labels", args.labels),
                             ("--by", args.by != "stream"), ("--phase", args.phase is not None),
                             ("--window", args.window is not None)):
            if used:
                raise PlotError(f"{option} applies to traces only, and {args.file} is a {kind} file")
    if kind == BANDWIDTH_FORMAT:
        plot_bandwidth(data, output, title=args.title)
    elif kind == CHUNKS_FORMAT:
        plot_chunks(data, output, title=args.title)
    elif args.compare:
        for option, used in (("--model", args.model), ("--phase", args.phase is not None),
                             ("--window", args.window is not None)):
            if used:
                raise PlotError(f"{option} and --compare cannot be combined")
        other = load_trace(args.compare)
        labels = args.labels or [data.program or args.file, other.program or args.compare]
        plot_stacked([data, other], labels, output, by=args.by, title=args.title)
    else:
        if args.labels:
            raise PlotError("--labels applies to --compare only")
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
            raise PlotError(f"--phase {args.phase}: the trace has {_plural(len(phases), 'phase')} "
                            f"(choose 1 to {len(phases)}{' or one of ' + ', '.join(names) if names else ''})")
        trace = phase_trace(trace, chosen)
        title = title if title is not None else f"{_describe(trace)}, {chosen.title}"
    elif args.window is not None:
        start, end = args.window
        if not 0 <= start < end:
            raise PlotError(f"--window {start:g} {end:g}: FROM must be at least 0 and below TO")
        trace = in_window(trace, start, end)
        if not trace.ops:
            raise PlotError(f"--window {start:g} {end:g}: no operation runs between {start:g} and {end:g} ms")
        title = title if title is not None else f"{_describe(trace)}, {start:g} to {end:g} ms"
    elif len(phases) > MAX_PHASE_PANELS:
        lines.append(f"plot: {len(phases)} phases are too many to draw one above the other: "
                     "the whole timeline is drawn; draw one with --phase K")
    elif len(phases) > 1:
        if args.model:
            raise PlotError(f"--model describes one pipeline, and the trace has {len(phases)} phases: "
                            "add --phase K")
    if args.phase is None and args.window is None and 1 < len(phases) <= MAX_PHASE_PANELS:
        plot_phases(trace, phases, output, by=args.by, title=title)
    else:
        plot_trace(trace, output, by=args.by, model=args.model, title=title)
    print("\n".join(lines), end="\n" if lines else "")  # once drawn: a refusal is one line, and only that


if __name__ == "__main__":
    sys.exit(main())
