"""The figure machinery every drawing shares: slide-sized figures, fonts, colours,
text that must fit, the image file's provenance, and how times and counts are written."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

OUTPUT_SUFFIXES = (".png", ".svg", ".pdf")
FIGURE_SIZE = (12, 6.75)  # inches: 16:9, the shape of a slide
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

MIN_FIT_SIZE = 9  # points: the smallest a title is shrunk to so that it fits (see fit_texts)

# Bars are coloured by what the op did; the same colours mean the same thing in every plot.
BAR_KINDS = ("h2d", "kernel", "d2h", "other")
BAR_COLORS = {"h2d": "#1f77b4", "kernel": "#2ca02c", "d2h": "#ff7f0e", "other": "#7f7f7f"}
BAR_TEXT_COLORS = {"h2d": "white", "kernel": "white", "d2h": "black", "other": "white"}
BAR_KIND_NAMES = {"h2d": "H2D copy", "kernel": "kernel", "d2h": "D2H copy", "other": "other"}
BAR_KIND_OF_UNIT = {"h2d": "h2d", "compute": "kernel", "d2h": "d2h", "other": "other"}
BAR_KIND_OF_STAGE = {"H2D": "h2d", "K": "kernel", "D2H": "d2h"}


class PlotError(Exception):
    """Something this command cannot draw or write; the message is one line."""


@contextmanager
def slide_figure(
    path: str | Path,
    panels: int = 1,
    height_ratios: Sequence[float] | None = None,
    sources: Sequence[dict[str, Any]] = (),
    share_time_axis: bool = True,
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
        fig, axes = plt.subplots(
            panels,
            1,
            sharex=share_time_axis,
            squeeze=False,
            figsize=FIGURE_SIZE,
            layout="constrained",
            gridspec_kw={"height_ratios": height_ratios},
        )
        try:
            yield fig, list(axes[:, 0])
            fit_texts(fig)
            try:
                fig.savefig(path, dpi=DPI, metadata=provenance(path, sources))
            except OSError as error:
                raise PlotError(f"cannot write {path} ({error.strerror or error})") from None
        finally:
            plt.close(fig)


def fit_texts(fig: Any) -> None:
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


def provenance(path: Path, sources: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Image metadata saying what was drawn and where and when it was recorded."""
    described = (
        "; ".join(
            f"{describe_metadata(source)}, recorded {source.get('date', 'at an unknown date')}" for source in sources
        )
        or "modelled, not recorded"
    )
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


def describe_metadata(metadata: dict[str, Any]) -> str:
    program, device = metadata.get("program", ""), metadata.get("device", {}).get("name", "")
    return f"{program} on {device}" if program and device else program or device


def stats_line(stats: dict[str, Any], short: bool = False) -> str:
    """Makespan and copy/compute overlap; `short` for a panel title that shares a line with a label."""
    overlap = format_ms(stats["copy_compute_overlap_ns"] / 1e6)
    hidden = f"{stats['hidden_copy_fraction']:.0%}"
    if short:  # shares a panel's title line with a label: kept short enough to fit
        return f"{format_ms(stats['makespan_ns'] / 1e6)}, {hidden} of copy time hidden"
    return f"makespan {format_ms(stats['makespan_ns'] / 1e6)}, copy/compute overlap {overlap} ({hidden} of copy time hidden)"


def format_ms(value: float) -> str:
    """A time in ms with about three significant digits."""
    if value >= 100:
        return f"{value:.0f} ms"
    if value >= 1:
        return f"{value:.2f} ms"
    return f"{value:.3g} ms"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
