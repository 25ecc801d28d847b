"""Cutting a timeline into phases at NVTX ranges and idle gaps, drawing them, and --phase / --window.

The traces are made by synthetic_phases.py with varied stage times and gaps, so
the tests hold for any run of the overlap experiments, not for one fixture; a
recorded trace of common/examples/overlap_experiments, where one is committed
(tools/tests/fixtures/*overlap_experiments*.json), is checked the same way.
"""

import json
from pathlib import Path

import pytest
from streamlab_tools import plot, timelines
from streamlab_tools.phases import IDLE_GAP_FRACTION, in_window, split_phases
from streamlab_tools.trace import load_trace, parse_trace
from synthetic_phases import overlap_experiments

FIXTURES = Path(__file__).parent / "fixtures"
# The synthetic trace here, and the one recorded on an H200 with the course's other GPU fixtures.
H200_FIXTURES = Path(__file__).resolve().parents[2] / "common" / "tests" / "fixtures"
OVERLAP_TRACES = sorted(
    [*FIXTURES.glob("*overlap_experiments*.json"), *H200_FIXTURES.glob("*overlap_experiments*.json")]
)
SHAPES = [
    dict(),
    dict(h2d_ns=1_000_000, kernel_ns=3_000_000, d2h_ns=900_000, gap_ns=20_000_000),
    dict(h2d_ns=40_000, kernel_ns=10_000, d2h_ns=40_000, gap_ns=2_000_000),
]


def synthetic(**shape):
    return parse_trace(overlap_experiments(**shape))


@pytest.mark.parametrize("shape", SHAPES, ids=["default", "long kernels", "short"])
def test_three_experiments_make_three_phases(shape):
    trace = synthetic(**shape)
    phases = split_phases(trace.ops)
    assert [len(phase.ops) for phase in phases] == [3, 12, 12]
    assert {op.stream_kind for op in phases[0].ops} == {"legacy_null"}  # the sequential experiment
    assert all(len({op.stream for op in phase.ops}) == 4 for phase in phases[1:])
    assert sum(len(phase.ops) for phase in phases) == len(trace.ops)


@pytest.mark.parametrize("path", OVERLAP_TRACES, ids=lambda p: p.name)
def test_a_trace_of_the_overlap_experiments_has_one_phase_per_experiment(path):
    phases = split_phases(load_trace(path).ops)
    assert len(phases) == 3, [len(p.ops) for p in phases]
    assert {op.stream_kind for op in phases[0].ops} == {"legacy_null"}
    assert all({op.stream_kind for op in phase.ops} == {"created"} for phase in phases[1:])


def test_short_waits_inside_a_pipeline_do_not_cut_it():
    fixture = load_trace(Path(__file__).resolve().parents[2] / "common/tests/fixtures/h200_three_chunks.json")
    assert len(split_phases(fixture.ops)) == 1  # recorded on an H200: a 5% wait before a kernel
    # A gap just over the fraction but shorter than the longest op does not cut either.
    trace = synthetic(h2d_ns=3_000_000, kernel_ns=3_000_000, d2h_ns=3_000_000, gap_ns=2_500_000)
    whole = max(op.end_ns for op in trace.ops) - trace.ops[0].start_ns
    assert IDLE_GAP_FRACTION * whole < 2_500_000 < max(op.duration_ns for op in trace.ops)
    assert len(split_phases(trace.ops)) == 1


def test_a_window_keeps_the_ops_it_overlaps_and_its_marks():
    trace = synthetic()
    phases = split_phases(trace.ops)
    origin = trace.ops[0].start_ns
    second = (phases[1].start_ns - origin) / 1e6, (phases[1].end_ns - origin) / 1e6
    assert in_window(trace, *second).ops == list(phases[1].ops)


def run_plot(capsys, *argv):
    status = plot.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def trace_file(tmp_path):
    path = tmp_path / "experiments.json"
    path.write_text(json.dumps(overlap_experiments()))
    return path


def test_plot_prints_a_line_per_phase_and_draws_a_panel_each(trace_file, tmp_path, capsys, monkeypatch):
    drawn = []
    monkeypatch.setattr(plot, "plot_phases", lambda trace, phases, path, **kw: drawn.append(len(phases)))
    status, out, err = run_plot(capsys, trace_file, "-o", tmp_path / "p.png")
    assert (status, err, drawn) == (0, "", [3])
    lines = out.splitlines()
    assert lines[0] == (
        "phase 1 (sequential): 0.000 to 0.806 ms, 3 ops in 1 stream(s), makespan 0.806 ms, "
        "copies overlap kernels 0.000 ms (0% of copy time hidden)"
    )
    assert [line.split(":")[0] for line in lines[1:3]] == ["phase 2 (version 1)", "phase 3 (version 2)"]
    assert "makespan 0.440 ms" in lines[1] and lines[3] == f"plot: wrote {tmp_path / 'p.png'}"


def test_phase_panels_are_drawn(trace_file, tmp_path, capsys):
    output = tmp_path / "phases.png"
    assert run_plot(capsys, trace_file, "-o", output)[0] == 0
    assert output.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "zoom, ops",
    [
        (["--phase", "2"], 12),
        (["--phase", "1"], 3),
        (["--window", "0", "1"], 3),
        (["--phase", "version 2"], 12),
        (["--phase", "sequential"], 3),
        (["--window", "5.8", "12"], 24),
    ],
)
def test_phase_and_window_draw_only_their_part(trace_file, tmp_path, capsys, monkeypatch, zoom, ops):
    drawn = []
    monkeypatch.setattr(plot, "plot_trace", lambda trace, path, **kw: drawn.append(len(trace.ops)))
    status, _, err = run_plot(capsys, trace_file, "-o", tmp_path / "z.png", *zoom)
    assert (status, err, drawn) == (0, "", [ops])


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--phase", "4"],
            "plot: --phase 4: the trace has 3 phases "
            '(choose 1 to 3 or one of "sequential", "version 1", "version 2")\n',
        ),
        (
            ["--phase", "issue"],
            "plot: --phase issue: the trace has 3 phases "
            '(choose 1 to 3 or one of "sequential", "version 1", "version 2")\n',
        ),
        (["--window", "2", "3"], "plot: --window 2 3: no operation runs between 2 and 3 ms\n"),
        (["--window", "3", "2"], "plot: --window 3 2: FROM must be at least 0 and below TO\n"),
        (["--model"], "plot: --model describes one pipeline, and the trace has 3 phases: add --phase K\n"),
        (
            ["--phase", "1", "--window", "0", "1"],
            "plot: argument --window: not allowed with argument --phase (see --help)\n",
        ),
    ],
)
def test_bad_zoom_is_one_line_and_nothing_drawn(trace_file, tmp_path, capsys, argv, message):
    output = tmp_path / "z.png"
    assert run_plot(capsys, trace_file, "-o", output, *argv) == (2, "", message)
    assert not output.exists()


@pytest.mark.parametrize("shape", SHAPES, ids=["default", "long kernels", "short"])
def test_outermost_nvtx_ranges_are_the_phases_named_after_them(shape):
    trace = synthetic(**shape)
    assert len(trace.ranges) == 5  # three experiments, and the issuing loop inside each version
    phases = split_phases(trace.ops, ranges=trace.ranges)
    assert [(phase.name, len(phase.ops)) for phase in phases] == [
        ("sequential", 3),
        ("version 1", 12),
        ("version 2", 12),
    ]
    assert [phase.title for phase in phases] == ["phase 1 (sequential)", "phase 2 (version 1)", "phase 3 (version 2)"]


def test_ranges_cut_where_idle_gaps_would_not():
    # Experiments back to back: no idle gap long enough to cut, but the ranges still do.
    trace = synthetic(gap_ns=20_000)
    assert len(split_phases(trace.ops)) == 1
    phases = split_phases(trace.ops, ranges=trace.ranges)
    assert [(phase.name, len(phase.ops)) for phase in phases] == [
        ("sequential", 3),
        ("version 1", 12),
        ("version 2", 12),
    ]


def test_ops_outside_every_range_are_cut_at_idle_gaps():
    trace = synthetic()
    only_first = [r for r in trace.ranges if r.name == "sequential"]
    phases = split_phases(trace.ops, ranges=only_first)
    assert [(phase.name, len(phase.ops)) for phase in phases] == [("sequential", 3), ("", 12), ("", 12)]
    assert [phase.title for phase in phases][1:] == ["phase 2", "phase 3"]
    assert [phase.number for phase in phases] == [1, 2, 3]


def test_a_trace_without_ranges_is_cut_at_idle_gaps_as_before(tmp_path):
    path = tmp_path / "no_nvtx.json"
    path.write_text(json.dumps(overlap_experiments(nvtx=False)))
    trace = load_trace(path)
    assert trace.ranges == []
    assert [phase.name for phase in split_phases(trace.ops, ranges=trace.ranges)] == ["", "", ""]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda r: r["args"].update(end_ns=1), "NVTX range ends before it starts in event"),
        (lambda r: r["args"].pop("start_ns"), "missing key args.start_ns in event"),
        (lambda r: r.update(name=7), "name in event"),
        (lambda r: r.update(pid=1), "an NVTX range with pid 1 in event"),
    ],
)
def test_a_malformed_range_is_one_line_naming_the_event(tmp_path, edit, message):
    from streamlab_tools.trace import TraceError

    data = overlap_experiments()
    edit(next(e for e in data["traceEvents"] if e.get("cat") == "nvtx" and e["name"] == "version 1"))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TraceError) as error:
        load_trace(path)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert str(error.value).startswith(f"{path}: ")


def test_a_trace_of_one_phase_is_drawn_as_before(tmp_path, capsys, monkeypatch):
    drawn = []
    monkeypatch.setattr(plot, "plot_trace", lambda trace, path, **kw: drawn.append(len(trace.ops)))
    status, out, _ = run_plot(capsys, FIXTURES / "pipeline_3_chunks.json", "-o", tmp_path / "p.png")
    assert (status, drawn) == (0, [9])
    assert not out.startswith("phase")


def test_the_committed_synthetic_fixture_is_what_the_generator_makes():
    committed = json.loads((FIXTURES / "synthetic_overlap_experiments.json").read_text())
    assert committed == overlap_experiments()
    assert committed["otherData"]["program"].startswith("synthetic: ")


def test_every_title_fits_the_picture(tmp_path, monkeypatch):
    """A long program name and long labels (the demo's) are shrunk, never cut off."""
    import matplotlib.pyplot as plt

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)  # keep the figure to look at it
    trace = load_trace(FIXTURES / "pipeline_3_chunks.json")
    trace.metadata["program"] = "a_program_with_a_very_long_name --and --many --arguments " * 3
    timelines.plot_stacked([trace, trace], ["serial, NULL stream", "three chunks, three streams"], tmp_path / "a.png")
    timelines.plot_trace(trace, tmp_path / "b.png")
    for figure in figures:
        figure.draw_without_rendering()
        titles = [figure._suptitle] + [ax._left_title for ax in figure.axes]
        for title in titles:
            box = title.get_window_extent()
            assert 0 <= box.x0 and box.x1 <= figure.bbox.width, title.get_text()
    assert len(figures) == 2 and all(figure._suptitle.get_text() for figure in figures)


def test_more_phases_than_panels_are_listed_and_drawn_whole(tmp_path, capsys, monkeypatch):
    obj = overlap_experiments(nvtx=False)
    ops = [e for e in obj["traceEvents"] if e["ph"] == "X"]
    shift = 20_000_000
    for copy in range(1, 3):  # three runs of the three experiments: nine phases
        for event in ops:
            moved = json.loads(json.dumps(event))
            moved["args"]["start_ns"] += copy * shift
            moved["args"]["end_ns"] += copy * shift
            obj["traceEvents"].append(moved)
    path = tmp_path / "nine.json"
    path.write_text(json.dumps(obj))
    drawn = []
    monkeypatch.setattr(plot, "plot_trace", lambda trace, out, **kw: drawn.append(len(trace.ops)))
    status, out, _ = run_plot(capsys, path, "-o", tmp_path / "n.png")
    assert (status, drawn) == (0, [81])
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines[:9]] == [f"phase {k}" for k in range(1, 10)]
    assert lines[9] == (
        "plot: 9 phases are too many to draw one above the other: the whole timeline is drawn; draw one with --phase K"
    )
