"""The tools' measures of a timeline (library.summarize: ops read by streamlab_tools.trace, measured by the
C++ analysis through the module streamlab), checked against hand-made cases and a brute force count."""

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from streamlab_tools import library
from streamlab_tools.library import summarize
from streamlab_tools.trace import OP_KINDS, DeviceOp, load_trace

FIXTURES = Path(__file__).parent / "fixtures"
TRACE_FIXTURES = sorted(
    path.name
    for path in FIXTURES.glob("*.json")
    if json.loads(path.read_text())["otherData"]["format"] == "streamlab-trace"
)
# The keys every summary has (common/tests/test_analysis.cpp reads the same file).
SUMMARY_KEYS = set(
    (Path(__file__).parents[2] / "common" / "tests" / "fixtures" / "summary_keys.txt").read_text().split()
)


def op(kind, start, end, stream=13, stream_kind="created", label=""):
    return DeviceOp(
        kind=kind, name=kind, label=label, stream=stream, stream_kind=stream_kind, start_ns=start, end_ns=end
    )


# --- summaries of hand-made timelines ------------------------------------------------


def test_summary_has_exactly_the_agreed_keys_and_types():
    summary = summarize([op("kernel", 0, 5)])
    assert set(summary) == SUMMARY_KEYS
    for key, value in summary.items():
        expected_type = float if key == "hidden_copy_fraction" else int
        assert type(value) is expected_type, key


def test_empty_timeline_summary_is_all_zero():
    summary = summarize([])
    assert all(value == 0 for value in summary.values())
    assert summary["hidden_copy_fraction"] == 0.0


def test_serial_null_stream_staircase_has_no_overlap():
    ops = [
        op("memcpy_h2d", 0, 30, stream=7, stream_kind="legacy_null"),
        op("kernel", 30, 60, stream=7, stream_kind="legacy_null"),
        op("memcpy_d2h", 60, 90, stream=7, stream_kind="legacy_null"),
    ]
    summary = summarize(ops)
    assert summary["makespan_ns"] == 90
    assert summary["busy_h2d_ns"] == summary["busy_compute_ns"] == summary["busy_d2h_ns"] == 30
    assert summary["copy_compute_overlap_ns"] == 0
    assert summary["h2d_d2h_overlap_ns"] == 0
    assert summary["kernel_overlap_ns"] == 0
    assert summary["hidden_copy_fraction"] == 0.0
    assert summary["distinct_streams"] == 1
    assert summary["null_stream_ops"] == 3
    assert summary["op_count"] == 3


def test_three_chunk_pipeline_overlaps_copies_with_kernels():
    # Chunk i: H2D in [10(i-1), 10i), kernel in [10i, 10i+10), D2H in [10i+10, 10i+20).
    ops = []
    for chunk in (1, 2, 3):
        stream = 12 + chunk
        ops += [
            op("memcpy_h2d", 10 * (chunk - 1), 10 * chunk, stream=stream),
            op("kernel", 10 * chunk, 10 * chunk + 10, stream=stream),
            op("memcpy_d2h", 10 * chunk + 10, 10 * chunk + 20, stream=stream),
        ]
    summary = summarize(ops)
    assert summary["makespan_ns"] == 50
    assert summary["busy_h2d_ns"] == 30  # [0, 30)
    assert summary["busy_d2h_ns"] == 30  # [20, 50)
    assert summary["busy_compute_ns"] == 30  # [10, 40)
    assert summary["copy_compute_overlap_ns"] == 30  # copies cover [0, 50), kernels [10, 40)
    assert summary["h2d_d2h_overlap_ns"] == 10  # [20, 30)
    assert summary["kernel_overlap_ns"] == 0
    assert summary["hidden_copy_fraction"] == pytest.approx(30 / 50)
    assert summary["distinct_streams"] == 3
    assert summary["null_stream_ops"] == 0


def test_concurrent_kernels_count_once_for_busy_and_once_for_overlap():
    ops = [op("kernel", 0, 10, stream=13), op("kernel", 2, 5, stream=14), op("kernel", 4, 12, stream=15)]
    summary = summarize(ops)
    assert summary["busy_compute_ns"] == 12
    assert summary["kernel_overlap_ns"] == 3 + 6 - 1  # [2, 10): two or three kernels at once
    assert summary["hidden_copy_fraction"] == 0.0  # no copies


def test_copy_fully_under_a_kernel_is_fully_hidden():
    ops = [op("kernel", 0, 100), op("memcpy_h2d", 10, 20, stream=14), op("memset", 0, 100, stream=0)]
    summary = summarize(ops)
    assert summary["hidden_copy_fraction"] == 1.0
    assert summary["busy_h2d_ns"] == 10
    assert summary["op_count"] == 3
    assert summary["distinct_streams"] == 3


def test_per_thread_default_stream_counts_as_null_stream():
    ops = [op("kernel", 0, 1, stream_kind="per_thread_default"), op("kernel", 1, 2, stream_kind="created")]
    assert summarize(ops)["null_stream_ops"] == 1


# --- a brute force reference: count every time step ------------------------------------


def brute_force_summary(ops):
    """summarize() computed the slow, obvious way: how many ops of each unit run at every
    time step. Times are divided by their greatest common divisor to keep the arrays small."""
    if not ops:
        return summarize([])
    step = math.gcd(*[time for o in ops for time in (o.start_ns, o.end_ns)]) or 1
    origin = min(o.start_ns for o in ops) // step
    length = max(o.end_ns for o in ops) // step - origin
    running = {unit: np.zeros(length, dtype=np.int32) for unit in ("h2d", "d2h", "compute", "other")}
    for o in ops:
        running[library.load().unit_of_kind(o.kind)][o.start_ns // step - origin : o.end_ns // step - origin] += 1
    h2d, d2h, kernels = running["h2d"] > 0, running["d2h"] > 0, running["compute"] > 0
    copies = h2d | d2h
    overlap = int(np.sum(copies & kernels)) * step
    copy_time = int(np.sum(copies)) * step
    return {
        "makespan_ns": length * step,
        "busy_h2d_ns": int(np.sum(h2d)) * step,
        "busy_d2h_ns": int(np.sum(d2h)) * step,
        "busy_compute_ns": int(np.sum(kernels)) * step,
        "copy_compute_overlap_ns": overlap,
        "h2d_d2h_overlap_ns": int(np.sum(h2d & d2h)) * step,
        "kernel_overlap_ns": int(np.sum(running["compute"] >= 2)) * step,
        "hidden_copy_fraction": overlap / copy_time if copy_time else 0.0,
        "distinct_streams": len({o.stream for o in ops}),
        "null_stream_ops": sum(o.stream_kind != "created" for o in ops),
        "op_count": len(ops),
    }


@pytest.mark.parametrize("seed", range(25))
def test_summary_matches_brute_force_on_random_timelines(seed):
    rng = random.Random(seed)
    ops = []
    for _ in range(rng.randint(1, 12)):
        start = rng.randint(0, 60)
        ops.append(
            op(
                rng.choice(OP_KINDS),
                start,
                start + rng.randint(0, 25),
                stream=rng.choice([0, 7, 13, 14, 15]),
                stream_kind=rng.choice(["created", "created", "legacy_null", "per_thread_default"]),
            )
        )
    assert summarize(ops) == pytest.approx(brute_force_summary(ops))


@pytest.mark.parametrize("name", TRACE_FIXTURES)
def test_summary_matches_brute_force_on_fixtures(name):
    ops = load_trace(FIXTURES / name).ops
    assert summarize(ops) == pytest.approx(brute_force_summary(ops))


def test_fixture_pipeline_overlaps_and_serial_does_not():
    serial = summarize(load_trace(FIXTURES / "serial_null_stream.json").ops)
    pipeline = summarize(load_trace(FIXTURES / "pipeline_3_chunks.json").ops)
    assert serial["copy_compute_overlap_ns"] == 0
    assert serial["null_stream_ops"] == serial["op_count"] == 3
    assert pipeline["copy_compute_overlap_ns"] > 0
    assert pipeline["h2d_d2h_overlap_ns"] > 0
    assert pipeline["distinct_streams"] == 3
    assert pipeline["makespan_ns"] < serial["makespan_ns"]
