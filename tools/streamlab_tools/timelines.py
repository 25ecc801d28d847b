"""Drawing GPU timelines: one bar per op, in a row per stream or per engine, with
the host's marks, the modelled schedule beside or instead of the recording, and
phases one panel each."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import library
from .figures import (
    BAR_COLORS,
    BAR_KIND_NAMES,
    BAR_KIND_OF_STAGE,
    BAR_KIND_OF_UNIT,
    BAR_KINDS,
    BAR_TEXT_COLORS,
    PlotError,
    describe_metadata,
    format_ms,
    plural,
    slide_figure,
    stats_line,
)
from .library import summarize
from .phases import Phase, phase_trace
from .trace import DeviceOp, StreamCall, Trace

# Host-mark names: the heights they may take in the host row, and roughly how
# much of the time axis one character of a 12-point name covers.
MARK_LANES = (0.3, 0.0, -0.3)
MARK_CHAR_WIDTH = 0.0095

ENGINE_ROWS = {"h2d": "H2D copy", "d2h": "D2H copy", "compute": "compute", "other": "other"}
STREAM_KIND_NAMES = {"legacy_null": "NULL stream (legacy)", "per_thread_default": "default stream (per-thread)"}
NULL_STREAM_KINDS = {0: "legacy_null", 2: "per_thread_default"}  # the stream handles that name them

BAR_HEIGHT = 0.7  # of a row's height of 1
BAR_TEXT_SIZES = (13, 11, 9)  # tried in turn until the text fits its bar
MIN_TEXT_BAR_PX = 12  # narrower bars get no text at all
MODELLED_HATCH = "//"
MAX_ROW_NAMES = 12
MAX_PHASE_PANELS = 6  # more phases than this are listed, and drawn one at a time with --phase
HOST_ROW = "host"

# Event records and the waits for them (drawn where the trace comes with its stream calls).
EVENT_MARK = {
    "marker": "D",
    "markersize": 9,
    "markerfacecolor": "white",
    "markeredgecolor": "black",
    "markeredgewidth": 2,
}
WAIT_COLOR = "#d62728"  # red: no bar has it
EVENT_RECORD_NAME = "event recorded"
EVENT_WAIT_NAME = "stream waits for the event"
EVENTS_CAPTION = (
    "An event record is drawn where its stream reached it: after the work queued in that stream before it "
    "(the trace holds no GPU time for events)."
)

# What each issue order of a modelled schedule means (simulate_pipeline refuses any other).
ISSUE_ORDER_CAPTIONS = {
    "chunk": "Chunk order: the host issues chunk 1's H2D, kernel and D2H, then chunk 2's, and so on "
    "(stage order: every H2D first, then every kernel, then every D2H).",
    "stage": "Stage order: the host issues every chunk's H2D first, then every kernel, then every D2H "
    "(chunk order: chunk 1's three, then chunk 2's, and so on).",
}


@dataclass(frozen=True)
class Bar:
    """One bar of a timeline: a row, a span in ms, a colour kind and its text (or "")."""

    row: str
    start: float
    end: float
    kind: str  # one of BAR_KINDS
    text: str


@dataclass(frozen=True)
class EventRecord:
    """An event record (cudaEventRecord) on its stream's row, where its stream reached it (see event_links)."""

    row: str
    at: float
    event: int


@dataclass(frozen=True)
class EventWait:
    """A stream that waits for an event (cudaStreamWaitEvent): from the event's latest record before the
    wait to the waiting stream's row, where the wait was over."""

    from_row: str
    from_at: float
    to_row: str
    to_at: float


@dataclass(frozen=True)
class EventLinks:
    """What a timeline draws of its events: each record, and each wait for one."""

    records: list[EventRecord]
    waits: list[EventWait]


@dataclass(frozen=True)
class _PlacedBar:
    bar: Bar
    y: float  # centre of the bar on the y axis
    height: float


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
    heading = title if title is not None else describe_metadata(trace.metadata)
    with slide_figure(path, panels=2 if model else 1, sources=[trace.metadata]) as (fig, axes):
        placed = {axes[0]: _draw_trace(axes[0], trace, by)}
        if model:
            axes[0].set_title("measured", loc="left")
            bars, model_title = trace_model_bars(trace, by)
            placed[axes[1]] = _draw_bars(axes[1], _rows_in_order(bars), bars, modelled=True)
            axes[1].set_title(model_title, loc="left")
        _draw_marks(axes[0], trace)  # after every panel: where names go depends on the whole time axis
        events = _draws_events(trace, by)
        axes[-1].set_xlabel(_time_axis_label(events))
        fig.suptitle(f"{heading}\n{stats_line(summarize(trace.ops))}")
        _finish(fig, placed, modelled=model, events=events)


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
    titles = [f"{label}: {stats_line(summarize(trace.ops), short=True)}" for trace, label in zip(traces, labels)]
    heading = title if title is not None else f"Timelines on {traces[0].device_name or 'an unnamed device'}"
    _plot_panels(path, traces, titles, by, heading, sources=[trace.metadata for trace in traces])


def plot_phases(
    trace: Trace, phases: Sequence[Phase], path: str | Path, by: str = "stream", title: str | None = None
) -> None:
    """Draws each phase of ``trace`` (see phases.split_phases) in a panel of its own, on its
    own time axis from its first op, titled with its own makespan and overlap."""
    if not phases:
        raise PlotError("the trace has no device operations to draw")
    parts = [phase_trace(trace, phase) for phase in phases]
    origin_ns = trace.ops[0].start_ns
    titles = [
        f"{phase.title}, at {format_ms((phase.start_ns - origin_ns) / 1e6)}: "
        f"{stats_line(summarize(part.ops), short=True)}"
        for phase, part in zip(phases, parts)
    ]
    named = sum(bool(phase.name) for phase in phases)
    cut = (
        "at the program's NVTX ranges"
        if named == len(phases)
        else "at NVTX ranges and idle gaps"
        if named
        else "where the GPU was idle"
    )
    whole = format_ms(summarize(trace.ops)["makespan_ns"] / 1e6)
    heading = f"{title if title is not None else describe_metadata(trace.metadata)}\n{len(phases)} phases, cut {cut} ({whole} in all)"
    own_axes = "time since the phase's first operation (ms)"
    _plot_panels(path, parts, titles, by, heading, sources=[trace.metadata], own_time_axes=own_axes)


def _plot_panels(
    path: str | Path,
    traces: Sequence[Trace],
    titles: Sequence[str],
    by: str,
    heading: str,
    sources: Sequence[dict[str, Any]],
    own_time_axes: str = "",
) -> None:
    """``traces`` one above the other, each in a panel of its own titled with ``titles``: on one time axis,
    or each on its own where ``own_time_axes`` names them."""
    heights = [min(len(_rows_and_bars(t.ops, by, 0)[0]) + bool(t.marks), MAX_ROW_NAMES) + 1 for t in traces]
    with slide_figure(
        path, panels=len(traces), height_ratios=heights, sources=sources, share_time_axis=not own_time_axes
    ) as (fig, axes):
        placed = {ax: _draw_trace(ax, trace, by) for ax, trace in zip(axes, traces)}
        for ax, trace, panel_title in zip(axes, traces, titles):
            _draw_marks(ax, trace)  # after every panel: where names go depends on the whole time axis
            ax.set_title(panel_title, loc="left")
        events = any(_draws_events(trace, by) for trace in traces)
        axes[-1].set_xlabel(own_time_axes or _time_axis_label(events))
        fig.suptitle(heading)
        _finish(fig, placed, events=events)


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
    see model.hpp's simulate_pipeline). Both are modelled, not measured, and the
    figure says so: this is the picture to show where no GPU is at hand.
    """
    if h2d + kernel + d2h <= 0:
        raise PlotError("the stage times add up to nothing: there is no schedule to draw")
    streamlab = library.load()
    serial = streamlab.simulate_pipeline(h2d, kernel, d2h, chunks=1, streams=1, copy_engines=copy_engines)
    pipelined = streamlab.simulate_pipeline(
        h2d, kernel, d2h, chunks, streams=chunks, copy_engines=copy_engines, order=order
    )
    makespan = streamlab.simulated_makespan
    model = streamlab.pipeline_model(h2d, kernel, d2h, chunks, copy_engines)
    engines = plural(copy_engines, "copy engine")
    with slide_figure(path, panels=2, height_ratios=[2, min(chunks, MAX_ROW_NAMES) + 1]) as (fig, axes):
        serial_bars = [_schedule_bar(op, "serial", text=op.stage) for op in serial]
        pipelined_bars = [_schedule_bar(op, f"stream {op.stream + 1}", text=op.name) for op in pipelined]
        placed = {
            axes[0]: _draw_bars(axes[0], ["serial"], serial_bars, modelled=True),
            axes[1]: _draw_bars(axes[1], _rows_in_order(pipelined_bars), pipelined_bars, modelled=True),
        }
        axes[0].set_title(f"modelled serial: H2D, kernel, D2H in turn, {format_ms(makespan(serial))}", loc="left")
        axes[1].set_title(
            f"modelled pipeline: {plural(chunks, 'chunk')} in {plural(chunks, 'stream')}, {engines}, {order} order, "
            f"{format_ms(makespan(pipelined))} (speedup {model['serial'] / makespan(pipelined):.2f}x)",
            loc="left",
        )
        # Under the time axis, so that the layout makes room for it: what the picture does not show by itself.
        axes[-1].set_xlabel(f"time (ms)\n{schedule_caption(copy_engines, order)}")
        heading = title if title is not None else "Modelled timelines"
        stages = f"stage times H2D {format_ms(h2d)}, kernel {format_ms(kernel)}, D2H {format_ms(d2h)}"
        fig.suptitle(f"{heading}\n{stages} (modelled, not measured)")
        _finish(fig, placed, modelled=True)


def schedule_caption(copy_engines: int, order: str) -> str:
    """Two sentences under a modelled schedule: why copies in one direction never overlap, and what its
    issue order means."""
    if copy_engines >= 2:
        copies = (
            "H2D copies never overlap: copies in one direction queue on one copy engine, however many there are "
            f"({copy_engines} here); a second engine lets D2H run beside H2D."
        )
    else:
        copies = "One copy engine: every copy, H2D or D2H, queues behind the copy issued before it."
    return f"{copies}\n{ISSUE_ORDER_CAPTIONS[order]}"


def _draw_trace(ax: Any, trace: Trace, by: str) -> list[_PlacedBar]:
    """Draws a trace's ops on ``ax``, in ms from its first op, leaving a row on top for
    the host marks (drawn by _draw_marks once the time axis is final); by stream, its
    event records and the waits for them too."""
    origin_ns = trace.ops[0].start_ns  # ops are sorted by start
    rows, bars = _rows_and_bars(trace.ops, by, origin_ns)
    if trace.marks:
        rows = [HOST_ROW] + rows  # host marks are named in a row of their own, on top
    placed = _draw_bars(ax, rows, bars)
    if by == "stream":
        _draw_events(ax, event_links(trace), rows)
    return placed


def _draws_events(trace: Trace, by: str) -> bool:
    return by == "stream" and bool(event_links(trace).records)


def _time_axis_label(events: bool) -> str:
    """The time axis's name, and under it, where events are drawn, how their place was found."""
    return "time since the first operation (ms)" + (f"\n{EVENTS_CAPTION}" if events else "")


def _draw_events(ax: Any, links: EventLinks, rows: Sequence[str]) -> None:
    """Each wait as an arrow from the event's record to the waiting stream's row, each record as a mark on
    its stream's row, above the bars."""
    y_of_row = {row: index for index, row in enumerate(rows)}
    for wait in links.waits:
        ax.annotate(
            "",
            xy=(wait.to_at, y_of_row[wait.to_row]),
            xytext=(wait.from_at, y_of_row[wait.from_row]),
            arrowprops={"arrowstyle": "-|>", "color": WAIT_COLOR, "linewidth": 2, "shrinkA": 6, "shrinkB": 2},
            zorder=4,
        ).set_in_layout(False)
    if links.records:
        ax.plot(
            [record.at for record in links.records],
            [y_of_row[record.row] for record in links.records],
            linestyle="none",
            zorder=5,
            **EVENT_MARK,
        )


def trace_model_bars(trace: Trace, by: str) -> tuple[list[Bar], str]:
    """The bars (in ms) and the title of the modelled schedule of the workload ``trace`` recorded."""
    stage_ns = {
        unit: sum(op.duration_ns for op in trace.ops if _unit_of(op) == unit) for unit in ("h2d", "compute", "d2h")
    }
    if not any(stage_ns.values()):
        raise PlotError("--model needs copies or kernels in the trace")
    chunks = max(1, sum(op.kind == "memcpy_h2d" for op in trace.ops))
    streams = min(chunks, len({op.stream for op in trace.ops}))  # chunks beyond one per stream stay idle
    # A device without a copy engine count on record is assumed to have two (one per direction).
    engines = max(1, trace.copy_engines if trace.copy_engines is not None else 2)
    streamlab = library.load()
    order = streamlab.issue_order(library.to_module_ops(trace.ops))  # "stage" where every H2D came first
    schedule = streamlab.simulate_pipeline(
        stage_ns["h2d"] / 1e6, stage_ns["compute"] / 1e6, stage_ns["d2h"] / 1e6, chunks, streams, engines, order
    )

    def row_of(op: Any) -> str:  # a streamlab.SimulatedOp
        if by == "engine":
            unit = {"H2D": "h2d", "K": "compute", "D2H": "d2h"}[op.stage]
            return ENGINE_ROWS[unit] if engines >= 2 or unit == "compute" else "copy"
        return f"stream {op.stream + 1}"

    bars = [_schedule_bar(op, row_of(op), text=op.name) for op in schedule]
    title = (
        f"modelled: {plural(chunks, 'chunk')}, {plural(streams, 'stream')}, "
        f"{plural(engines, 'copy engine')}, {order} order: {format_ms(streamlab.simulated_makespan(schedule))}"
    )
    return bars, title


def _rows_and_bars(ops: Sequence[DeviceOp], by: str, origin_ns: int) -> tuple[list[str], list[Bar]]:
    """The rows (top to bottom) and bars for ``ops``, with times in ms from ``origin_ns``."""
    if by not in ("stream", "engine"):
        raise PlotError(f'rows must be by "stream" or "engine", not {by!r}')
    # Several GPUs: each GPU's rows are named after it (stream ids are each GPU's own).
    devices = sorted({op.device for op in ops})

    def on_gpu(device: int, row: str) -> str:
        return _on_gpu(device, row, several=len(devices) > 1)

    bars = []
    for op in ops:
        unit = _unit_of(op)
        row = on_gpu(op.device, ENGINE_ROWS[unit] if by == "engine" else _stream_row(op))
        # "H2D_1", "K_1", ... for labelled ops; "H2D" or the kernel's short name for others
        text = _short_kernel_name(op.name) if op.kind == "kernel" and not op.label else op.name
        start, end = (op.start_ns - origin_ns) / 1e6, (op.end_ns - origin_ns) / 1e6
        bars.append(Bar(row=row, start=start, end=end, kind=BAR_KIND_OF_UNIT[unit], text=text))
    if by == "engine":
        used = {bar.row for bar in bars}
        rows = [
            on_gpu(device, row)
            for device in devices or [0]
            for row in ENGINE_ROWS.values()
            if on_gpu(device, row) in used or row != "other"
        ]
    else:
        rows = _rows_in_order(bars)
    return rows, bars


def _on_gpu(device: int, row: str, several: bool) -> str:
    return f"GPU {device}: {row}" if several else row


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
        short = short[head.rfind(" ") + 1 :]
    return short or name


def _stream_row(op: DeviceOp) -> str:
    return STREAM_KIND_NAMES.get(op.stream_kind, f"stream {op.stream}")


def event_links(trace: Trace) -> EventLinks:
    """The event records and the waits for them in ``trace``'s stream calls, on the rows of its streams.

    Each is placed where its stream reached it in stream order: after the ops its stream's earlier work
    calls made, and after the records it waited for (never before the host made the call). A record or
    wait in a stream that has no row (it ran no op the calls can be tied to) is left out, and so is a wait
    for an event never recorded (it waits for nothing).
    """
    if not trace.ops:
        return EventLinks(records=[], waits=[])
    origin_ns = trace.ops[0].start_ns
    op_of_call = _ops_of_work_calls(trace)
    row_of_stream = _rows_of_streams(trace, op_of_call)
    reached_ns: dict[tuple[int, int], int] = {}  # per stream: when it got through what was queued in it so far
    latest_record: dict[int, tuple[str | None, int]] = {}  # per event: its latest record's row and time
    records, waits = [], []
    for index, call in enumerate(trace.stream_calls):
        stream = _stream_key(call)
        row = row_of_stream.get(stream)
        if call.call == "work" and index in op_of_call:
            reached_ns[stream] = max(reached_ns.get(stream, 0), op_of_call[index].end_ns)
        elif call.call == "event_record":
            at_ns = max(call.time_ns, reached_ns.get(stream, 0))
            latest_record[call.event] = (row, at_ns)
            if row is not None:
                records.append(EventRecord(row=row, at=(at_ns - origin_ns) / 1e6, event=call.event))
        elif call.call == "stream_wait_event" and call.event in latest_record:
            from_row, from_ns = latest_record[call.event]
            at_ns = max(call.time_ns, reached_ns.get(stream, 0), from_ns)
            reached_ns[stream] = at_ns
            if row is not None and from_row is not None:
                waits.append(
                    EventWait(
                        from_row=from_row,
                        from_at=(from_ns - origin_ns) / 1e6,
                        to_row=row,
                        to_at=(at_ns - origin_ns) / 1e6,
                    )
                )
    return EventLinks(records=records, waits=waits)


def _stream_key(call: StreamCall) -> tuple[int, int]:
    """A stream call's stream: a created stream's handle is one on every GPU; the NULL streams' handles
    (0, the legacy NULL stream; 2, cudaStreamPerThread) are each GPU's own."""
    return (call.device if call.stream in NULL_STREAM_KINDS else -1, call.stream)


def _ops_of_work_calls(trace: Trace) -> dict[int, DeviceOp]:
    """The op each work call made, by the call's index in the stream calls. The runtime numbers its calls
    in the order they are made (correlation ids), so the i-th op of a family (kernels, copies, memsets) is
    the i-th work call's of that family, where their counts agree: a call that failed made no op, a graph's
    launch many, and a synchronous copy is no work call (record_consistency.cpp pairs them alike)."""
    if any(op.graph_id for op in trace.ops):
        return {}
    pairs = {}
    for family in ("kernel", "copy", "memset"):
        ops = sorted((op for op in trace.ops if _family_of_op(op) == family), key=lambda op: op.correlation_id)
        calls = [
            index
            for index, call in enumerate(trace.stream_calls)
            if call.call == "work" and _family_made_by(call.function) == family
        ]
        if len(ops) == len(calls):
            pairs.update(zip(calls, ops))
    return pairs


def _family_of_op(op: DeviceOp) -> str:
    return "copy" if op.kind.startswith("memcpy_") else op.kind  # "kernel", "memset"


def _family_made_by(function: str) -> str:
    """The family of ops a runtime function makes ("" for none)."""
    if function == "cudaLaunchHostFunc":  # runs a host function: no op on the GPU
        return ""
    prefixes = (("cudaLaunch", "kernel"), ("cudaMemcpy", "copy"), ("cudaMemset", "memset"))
    return next((family for prefix, family in prefixes if function.startswith(prefix)), "")


def _rows_of_streams(trace: Trace, op_of_call: dict[int, DeviceOp]) -> dict[tuple[int, int], str]:
    """The row (by stream) of each stream the calls name: that of the ops its work calls made; a NULL
    stream's is that of its ops, where it ran any."""
    several = len({op.device for op in trace.ops}) > 1
    rows = {}
    for index, op in op_of_call.items():
        rows[_stream_key(trace.stream_calls[index])] = _on_gpu(op.device, _stream_row(op), several)
    for op in trace.ops:
        handle = next((h for h, kind in NULL_STREAM_KINDS.items() if kind == op.stream_kind), None)
        if handle is not None:
            rows.setdefault((op.device, handle), _on_gpu(op.device, _stream_row(op), several))
    return rows


def _rows_in_order(bars: Sequence[Bar]) -> list[str]:
    """Row names in the order their first bar starts, so the timeline reads top-down."""
    rows: list[str] = []
    for bar in sorted(bars, key=lambda bar: bar.start):
        if bar.row not in rows:
            rows.append(bar.row)
    return rows


def _unit_of(op: DeviceOp) -> str:
    """The GPU unit an op keeps busy: "compute", "h2d", "d2h" or "other" (analysis.hpp's unit_of)."""
    return library.load().unit_of_kind(op.kind)


def _schedule_bar(op: Any, row: str, text: str) -> Bar:
    """The bar of a streamlab.SimulatedOp."""
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
        lane = next((lane for lane, end in enumerate(lane_ends) if end <= bar.start), len(lane_ends))
        if lane == len(lane_ends):  # every lane is busy: open a new one
            lane_ends.append(bar.end)
        lane_ends[lane] = bar.end
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


def _finish(fig: Any, placed: dict[Any, list[_PlacedBar]], modelled: bool = False, events: bool = False) -> None:
    """Below the plots, one legend entry per kind of bar drawn, and the marks of events where they are drawn;
    then the bars' texts."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    kinds = {p.bar.kind for bars in placed.values() for p in bars}
    handles = [
        Patch(facecolor=BAR_COLORS[kind], edgecolor="black", label=BAR_KIND_NAMES[kind])
        for kind in BAR_KINDS
        if kind in kinds
    ]
    if modelled:
        handles.append(Patch(facecolor="white", edgecolor="black", hatch=MODELLED_HATCH, label="modelled"))
    if events:
        handles.append(Line2D([], [], linestyle="none", label=EVENT_RECORD_NAME, **EVENT_MARK))
        handles.append(Line2D([0, 1], [0, 0], color=WAIT_COLOR, linewidth=2, marker=">", label=EVENT_WAIT_NAME))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)
    _write_bar_texts(fig, placed)


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
            (left, bottom), (right, top) = ax.transData.transform(
                [(p.bar.start, p.y + p.height / 2), (p.bar.end, p.y - p.height / 2)]
            )
            width_px, height_px = abs(right - left), abs(top - bottom)
            if width_px < MIN_TEXT_BAR_PX:
                continue
            text = ax.text(
                (p.bar.start + p.bar.end) / 2,
                p.y,
                p.bar.text,
                ha="center",
                va="center",
                color=BAR_TEXT_COLORS[p.bar.kind],
                fontweight="bold",
                clip_on=True,
            )
            text.set_in_layout(False)
            for size in BAR_TEXT_SIZES:
                text.set_fontsize(size)
                extent = text.get_window_extent()
                if extent.width <= 0.9 * width_px and extent.height <= 0.95 * height_px:
                    break
            else:
                text.remove()  # too narrow even for the smallest size
