"""The plot command: every file kind drawn to every output format, and one clear line
with exit status 2 for every file it cannot draw."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from streamlab_tools import plot, sweeps, timelines
from streamlab_tools.trace import load_trace

FIXTURES = Path(__file__).parent / "fixtures"
SERIAL = FIXTURES / "serial_null_stream.json"
PIPELINE = FIXTURES / "pipeline_3_chunks.json"
BANDWIDTH = FIXTURES / "bandwidth_sweep.json"
CHUNKS = FIXTURES / "chunk_sweep.json"
TOOLS = Path(__file__).resolve().parents[1]

# What each kind of output file starts with.
MAGIC = {".png": b"\x89PNG", ".svg": b"<?xml", ".pdf": b"%PDF"}


def assert_image(path, suffix=".png"):
    data = path.read_bytes()
    assert data.startswith(MAGIC[suffix]), path
    assert len(data) > 10_000, f"{path} is only {len(data)} bytes"


def run_plot(capsys, *argv):
    status = plot.main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
@pytest.mark.parametrize("fixture", [SERIAL, PIPELINE, BANDWIDTH, CHUNKS], ids=lambda path: path.stem)
def test_each_file_kind_draws_to_each_format(tmp_path, capsys, fixture, suffix):
    output = tmp_path / f"picture{suffix}"
    status, out, err = run_plot(capsys, fixture, "-o", output)
    assert (status, err) == (0, "")
    assert str(output) in out
    assert_image(output, suffix)


def test_chunk_sweep_with_the_shared_link_model_draws(tmp_path, capsys):
    sweep = json.loads(CHUNKS.read_text())
    for point in sweep["points"]:
        point["link_model_ms"] = point["model_ms"] * 1.05
    source = tmp_path / "with_link.json"
    source.write_text(json.dumps(sweep))
    output = tmp_path / "with_link.png"
    status, _, err = run_plot(capsys, source, "-o", output)
    assert (status, err) == (0, "")
    assert_image(output)


@pytest.mark.parametrize(
    "options",
    [["--by", "engine"], ["--model"], ["--model", "--by", "engine"], ["--title", "Three chunks"]],
    ids=lambda options: " ".join(options),
)
def test_timeline_options(tmp_path, capsys, options):
    output = tmp_path / "timeline.png"
    status, _, err = run_plot(capsys, PIPELINE, "-o", output, *options)
    assert (status, err) == (0, "")
    assert_image(output)


def test_compare_draws_two_timelines(tmp_path, capsys):
    output = tmp_path / "compare.png"
    status, _, err = run_plot(capsys, SERIAL, "--compare", PIPELINE, "--labels", "serial", "pipelined", "-o", output)
    assert (status, err) == (0, "")
    assert_image(output)


def test_output_defaults_to_the_input_with_png(tmp_path, capsys):
    trace = tmp_path / "run.json"
    trace.write_text(PIPELINE.read_text())
    status, _, _ = run_plot(capsys, trace)
    assert status == 0
    assert_image(tmp_path / "run.png")


def test_output_in_a_missing_folder_is_refused_and_nothing_is_made(tmp_path, capsys):
    output = tmp_path / "plots" / "new" / "timeline.svg"
    status, out, err = run_plot(capsys, PIPELINE, "-o", output)
    assert (status, out) == (2, "")
    assert err == f"plot: cannot write {output}: there is no folder {output.parent}\n"
    assert not (tmp_path / "plots").exists()


def test_plot_stacked_and_plot_model_schedule(tmp_path):
    traces = [load_trace(SERIAL), load_trace(PIPELINE)]
    timelines.plot_stacked(traces, ["serial", "pipelined"], tmp_path / "stacked.pdf")
    assert_image(tmp_path / "stacked.pdf", ".pdf")
    for engines in (1, 2):
        for order in ("chunk", "stage"):
            output = tmp_path / f"model-{engines}-{order}.png"
            timelines.plot_model_schedule(3.0, 2.0, 3.0, 3, engines, output, title="no GPU here", order=order)
            assert_image(output)


def test_plot_trace_with_concurrent_kernels_and_many_streams(tmp_path):
    trace = load_trace(PIPELINE)
    # Twenty kernels that all overlap, each in its own stream, and one memset.
    obj = json.loads(PIPELINE.read_text())
    for index in range(20):
        obj["traceEvents"].append(
            {
                "ph": "X",
                "pid": 1,
                "name": f"K_{index}",
                "args": {
                    "op": "kernel",
                    "label": str(index),
                    "stream": 100 + index,
                    "stream_kind": "created",
                    "start_ns": 1000 * index,
                    "end_ns": 4_000_000,
                    "correlation_id": 100 + index,
                    "kernel_name": "spin",
                },
            }
        )
    obj["traceEvents"].append(
        {
            "ph": "X",
            "pid": 1,
            "name": "memset",
            "args": {
                "op": "memset",
                "label": "",
                "stream": 0,
                "stream_kind": "legacy_null",
                "start_ns": 0,
                "end_ns": 10,
                "correlation_id": 1,
                "bytes": 64,
            },
        }
    )
    path = tmp_path / "busy.json"
    path.write_text(json.dumps(obj))
    trace = load_trace(path)
    for by in ("stream", "engine"):
        timelines.plot_trace(trace, tmp_path / f"busy-{by}.png", by=by, model=True)
        assert_image(tmp_path / f"busy-{by}.png")


def test_each_gpu_has_rows_of_its_own(tmp_path):
    obj = json.loads(PIPELINE.read_text())
    for event in obj["traceEvents"]:
        if event["ph"] == "X" and event["args"].get("label") == "2":
            event["pid"] = 2  # chunk 2 ran on GPU 1
    path = tmp_path / "two-gpus.json"
    path.write_text(json.dumps(obj))
    trace = load_trace(path)
    rows, _ = timelines._rows_and_bars(trace.ops, "stream", 0)
    assert any(row.startswith("GPU 1: ") for row in rows) and any(row.startswith("GPU 0: ") for row in rows)
    engine_rows, _ = timelines._rows_and_bars(trace.ops, "engine", 0)
    assert len(engine_rows) == 2 * len(timelines._rows_and_bars(load_trace(PIPELINE).ops, "engine", 0)[0])
    timelines.plot_trace(trace, tmp_path / "two-gpus.png", by="stream")
    assert_image(tmp_path / "two-gpus.png")


def test_overlapping_bars_in_one_row_get_separate_lanes():
    bars = [timelines.Bar("compute", start, end, "kernel", "") for start, end in [(0, 10), (2, 5), (6, 12), (10, 11)]]
    assert timelines._assign_lanes(bars) == [0, 1, 1, 0]


def test_byte_sizes_and_ticks():
    assert sweeps._format_bytes(512) == "512 B"
    assert sweeps._format_bytes(4096) == "4 KiB"
    assert sweeps._format_bytes(3 * 2**20) == "3 MiB"
    assert sweeps._format_bytes(2**30) == "1 GiB"
    assert sweeps._power_of_two_ticks(4096, 2**28, most=10) == [2**e for e in range(12, 29, 2)]
    assert len(sweeps._power_of_two_ticks(1, 2**40, most=10)) <= 10


def test_importing_plot_does_not_choose_a_backend():
    code = "import sys, streamlab_tools.plot; print('matplotlib.pyplot' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=TOOLS, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


# --- every file it cannot draw: one line, "plot: ", status 2 ------------------------------


def trace_with(mutate):
    obj = json.loads(PIPELINE.read_text())
    mutate(obj)
    return json.dumps(obj)


def first_op_args(obj):
    return next(event for event in obj["traceEvents"] if event["ph"] == "X")["args"]


BAD_INPUTS = {
    "empty file": ("", "empty file"),
    "not JSON": ("{ not json", "not JSON"),
    "JSON but not an object": ("[1, 2]", "not an object"),
    "JSON without format": ('{"points": []}', "no otherData.format"),
    "unknown format": (trace_with(lambda obj: obj["otherData"].update(format="streamlab-mystery")), "cannot draw"),
    "missing key": (trace_with(lambda obj: first_op_args(obj).pop("end_ns")), "missing key args.end_ns"),
    "end before start": (
        trace_with(lambda obj: first_op_args(obj).update(end_ns=0, start_ns=5)),
        "ends before it starts",
    ),
    "unknown op kind": (trace_with(lambda obj: first_op_args(obj).update(op="teleport")), "unknown op kind"),
    "unsupported version": (trace_with(lambda obj: obj["otherData"].update(version=99)), "unsupported"),
    "no ops": (trace_with(lambda obj: obj.update(traceEvents=[])), "no device operations"),
    "unknown stream call": (
        trace_with(
            lambda obj: obj["otherData"].update(
                stream_calls=[{"call": "teleport", "function": "f", "stream": 1, "event": 0, "time_ns": 0}]
            )
        ),
        "unknown stream call",
    ),
    "stream call without time": (
        trace_with(
            lambda obj: obj["otherData"].update(
                stream_calls=[{"call": "work", "function": "f", "stream": 1, "event": 0}]
            )
        ),
        "missing key time_ns in otherData.stream_calls[0]",
    ),
    "bandwidth without gbps": (
        json.dumps(
            {**json.loads(BANDWIDTH.read_text()), "points": [{"bytes": 4096, "direction": "H2D", "memory": "pinned"}]}
        ),
        "missing key gbps",
    ),
}


def assert_one_error_line(status, out, err, expected):
    assert status == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("plot: ")
    assert expected in err
    assert "Traceback" not in err


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_gives_one_line_and_status_2(tmp_path, capsys, case):
    content, expected = BAD_INPUTS[case]
    path = tmp_path / "input.json"
    path.write_text(content)
    output = tmp_path / "out.png"
    assert_one_error_line(*run_plot(capsys, path, "-o", output), expected)
    assert not output.exists()


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["{missing}"], "no such file"),
        (["{tmp}"], "folder"),
        ([PIPELINE, "-o", "{tmp}/picture.jpg"], "must end in .png, .svg, .pdf"),
        ([PIPELINE, "-o", "{tmp}/picture"], "must end in"),
        ([BANDWIDTH, "--model", "-o", "{tmp}/b.png"], "--model applies to traces only"),
        ([CHUNKS, "--by", "engine", "-o", "{tmp}/c.png"], "--by applies to traces only"),
        ([PIPELINE, "--compare", "{missing}", "-o", "{tmp}/c.png"], "no such file"),
        ([PIPELINE, "--compare", BANDWIDTH, "-o", "{tmp}/c.png"], "not a streamlab trace"),
        ([PIPELINE, "--labels", "a", "b", "-o", "{tmp}/c.png"], "--labels applies to --compare only"),
        ([PIPELINE, "--by", "time"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_command_line_gives_one_line_and_status_2(tmp_path, capsys, argv, expected):
    argv = [str(arg).format(tmp=tmp_path, missing=tmp_path / "missing.json") for arg in argv]
    assert_one_error_line(*run_plot(capsys, *argv), expected)


def test_help_returns_zero(capsys):
    status, out, _ = run_plot(capsys, "--help")
    assert status == 0
    assert "--compare" in out


def test_command_line_module_runs(tmp_path):
    output = tmp_path / "timeline.png"
    result = subprocess.run(
        [sys.executable, "-m", "streamlab_tools.plot", str(PIPELINE), "-o", str(output)],
        cwd=TOOLS,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert_image(output)
    missing = subprocess.run(
        [sys.executable, "-m", "streamlab_tools.plot", str(tmp_path / "none.json")],
        cwd=TOOLS,
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 2
    assert missing.stderr.startswith("plot: ") and missing.stderr.count("\n") == 1


def test_png_names_the_device_and_date_it_was_recorded_on(tmp_path):
    """Committed figures must say where and when their data was recorded."""
    from PIL import Image

    out = tmp_path / "t.png"
    assert plot.main([str(FIXTURES / "pipeline_3_chunks.json"), "-o", str(out)]) == 0
    description = Image.open(out).info.get("Description", "")
    assert "synthetic device" in description
    assert "recorded" in description


@pytest.mark.parametrize(
    "name, short",
    [
        (
            "streamlab::(anonymous namespace)::workload_kernel(float const*, float*, unsigned long, int)",
            "workload_kernel",
        ),
        ("vec_add", "vec_add"),
        ("void scale<float, 4>(float*, int)", "scale<float, 4>"),
    ],
)
def test_bars_show_short_kernel_names(name, short):
    assert timelines._short_kernel_name(name) == short
