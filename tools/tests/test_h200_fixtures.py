"""The Python tools on timelines recorded on an NVIDIA H200 (common/tests/fixtures/h200_*.json)."""

from pathlib import Path

import pytest
from streamlab_tools import library, plot
from streamlab_tools.trace import load_trace

FIXTURES = Path(__file__).resolve().parents[2] / "common" / "tests" / "fixtures"
RECORDED = sorted(FIXTURES.glob("h200_*.json"))


def test_there_are_recorded_fixtures():
    assert len(RECORDED) >= 5


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_metadata_names_device_and_date(path):
    trace = load_trace(path)
    assert "H200" in trace.device_name
    assert trace.metadata["date"].startswith("2026-")
    assert trace.ops


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_plots_at_slide_size(path, tmp_path):
    out = tmp_path / f"{path.stem}.png"
    assert plot.main([str(path), "-o", str(out), "--by", "engine"]) == 0
    assert out.stat().st_size > 10_000


def test_serial_run_has_no_overlap_and_pipeline_has():
    serial = library.summarize(load_trace(FIXTURES / "h200_lab01_serial.json").ops)
    pipeline = library.summarize(load_trace(FIXTURES / "h200_three_chunks.json").ops)
    assert serial["copy_compute_overlap_ns"] == 0
    assert serial["null_stream_ops"] == 3
    assert pipeline["copy_compute_overlap_ns"] > 0
    assert pipeline["distinct_streams"] == 3
    assert 0.0 < pipeline["hidden_copy_fraction"] <= 1.0


def test_non_blocking_barrier_demo_runs_kernels_together():
    blocking = library.summarize(load_trace(FIXTURES / "h200_lab01_blocking.json").ops)
    non_blocking = library.summarize(load_trace(FIXTURES / "h200_lab01_nonblocking.json").ops)
    assert blocking["kernel_overlap_ns"] == 0
    assert non_blocking["kernel_overlap_ns"] > 0
