"""Drawing the sweeps: a bandwidth sweep (GB/s against transfer size) and a chunk
sweep (speedup against the number of chunks, against the models)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .figures import BAR_COLORS, describe_metadata, slide_figure


def plot_bandwidth(sweep: dict[str, Any], path: str | Path, title: str | None = None) -> None:
    """Draws a bandwidth sweep: GB/s against transfer size, one line per direction and memory kind."""
    points = sweep["points"]
    series: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for point in points:
        series.setdefault((point["direction"], point["memory"]), []).append((point["bytes"], point["gbps"]))
    with slide_figure(path, sources=[sweep["otherData"]]) as (fig, axes):
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


# The lines of a chunk sweep, one of each per intensity: the time the speedup over serial divides by, the
# legend's name and the line's style.
CHUNK_LINES = (
    ("makespan_ms", "measured", {"marker": "o", "linewidth": 2.5}),
    ("model_ms", "model", {"linestyle": "--", "linewidth": 2}),
    ("link_model_ms", "model, interference between directions", {"linestyle": "-.", "linewidth": 1.5}),
    ("bound_ms", "bound", {"linestyle": ":", "linewidth": 2}),
)


def plot_chunks(sweep: dict[str, Any], path: str | Path, title: str | None = None) -> None:
    """Draws a chunk sweep: speedup over serial against the number of chunks.

    Per intensity: measured speedup (solid), the model's (dashed), the model's with
    H2D and D2H slowing each other down as measured, the interference between
    directions (dash-dot, where the file has it) and the bound's (dotted).
    """
    import matplotlib
    from matplotlib.lines import Line2D

    points = sweep["points"]
    intensities = list(dict.fromkeys(point["intensity"] for point in points))
    colors = matplotlib.colormaps["tab10"]
    has_link_model = all("link_model_ms" in point for point in points)
    lines = [line for line in CHUNK_LINES if has_link_model or line[0] != "link_model_ms"]
    with slide_figure(path, sources=[sweep["otherData"]]) as (fig, axes):
        ax = axes[0]
        for index, intensity in enumerate(intensities):
            rows = sorted((p for p in points if p["intensity"] == intensity), key=lambda p: p["chunks"])
            for key, _, style in lines:
                speedups = [p["serial_ms"] / p[key] for p in rows]
                ax.plot([p["chunks"] for p in rows], speedups, color=colors(index % 10), **style)
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
        handles = [
            Line2D([], [], color=colors(index % 10), linewidth=2.5, label=intensity)
            for index, intensity in enumerate(intensities)
        ]
        handles += [Line2D([], [], color="black", label=label, **style) for _, label, style in lines]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        fig.suptitle(title if title is not None else f"Chunked pipeline: {describe_metadata(sweep['otherData'])}")


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
