"""Busy time and overlap of timelines, checked against hand-made cases and a brute force count."""

import json
import math
import os
import random
import subprocess
from pathlib import Path

import numpy as np
import pytest
from streamlab_tools.analysis import (
    covered_at_least,
    intersection_length,
    merge_intervals,
    summarize,
    total_length,
    unit_of,
)
from streamlab_tools.trace import OP_KINDS, DeviceOp, load_trace

FIXTURES = Path(__file__).parent / "fixtures"
TRACE_FIXTURES = sorted(
    path.name
    for path in FIXTURES.glob("*.json")
    if json.loads(path.read_text())["otherData"]["format"] == "streamlab-trace"
)
# The keys every summary has, in Python and in C++ (common/tests/test_analysis.cpp reads the same file).
SUMMARY_KEYS = set(
    (Path(__file__).parents[2] / "common" / "tests" / "fixtures" / "summary_keys.txt").read_text().split()
)


def op(kind, start, end, stream=13, stream_kind="created", label=""):
    return DeviceOp(
        kind=kind, name=kind, label=label, stream=stream, stream_kind=stream_kind, start_ns=start, end_ns=end
    )


# --- intervals -----------------------------------------------------------------------


def test_merge_intervals_joins_overlapping_touching_and_nested():
    assert merge_intervals([(5, 10), (0, 3), (2, 4)]) == [(0, 4), (5, 10)]
    assert merge_intervals([(0, 5), (5, 9)]) == [(0, 9)]  # touching
    assert merge_intervals([(0, 10), (2, 3)]) == [(0, 10)]  # nested
    assert merge_intervals([(4, 4), (1, 2)]) == [(1, 2)]  # empty one dropped
    assert merge_intervals([]) == []


def test_total_length_counts_covered_time_once():
    assert total_length([(0, 10), (2, 3)]) == 10  # nested
    assert total_length([(0, 5), (5, 9)]) == 9  # touching
    assert total_length([(0, 2), (10, 13)]) == 5  # disjoint
    assert total_length([(0, 6), (4, 10)]) == 10  # overlapping


def test_intersection_length_of_nested_touching_and_disjoint_sets():
    assert intersection_length([(0, 10)], [(5, 15)]) == 5
    assert intersection_length([(0, 10)], [(2, 3), (4, 6)]) == 3  # nested
    assert intersection_length([(0, 5)], [(5, 9)]) == 0  # touching
    assert intersection_length([(0, 2)], [(3, 4)]) == 0  # disjoint
    assert intersection_length([(0, 4), (6, 10)], [(3, 7)]) == 2
    assert intersection_length([(0, 4), (2, 6)], [(1, 3), (3, 5)]) == 4  # each side overlaps itself
    assert intersection_length([], [(0, 4)]) == 0


def test_covered_at_least_two_ignores_touching():
    assert covered_at_least([(0, 10), (2, 5)], 2) == 3
    assert covered_at_least([(0, 5), (5, 9)], 2) == 0
    assert covered_at_least([(0, 10), (0, 10), (0, 10)], 3) == 10
    assert covered_at_least([(0, 10), (5, 15)], 1) == 15


def test_unit_of_each_kind():
    units = {kind: unit_of(op(kind, 0, 1)) for kind in OP_KINDS}
    assert units == {
        "kernel": "compute",
        "memcpy_h2d": "h2d",
        "memcpy_d2h": "d2h",
        "memcpy_d2d": "other",
        "memcpy_p2p": "other",
        "memcpy_other": "other",
        "memset": "other",
    }


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
        running[unit_of(o)][o.start_ns // step - origin : o.end_ns // step - origin] += 1
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


# --- the C++ side computes the same numbers ---------------------------------------------


def analyze_with_cpp(path):
    """The C++ summary of the trace at ``path``, or a skip when the program is not at hand."""
    program = os.environ.get("STREAMLAB_ANALYZE", "")
    if not (program and os.path.isfile(program) and os.access(program, os.X_OK)):
        pytest.skip("STREAMLAB_ANALYZE does not point to an executable streamlab_analyze (set it to compare with C++)")
    result = subprocess.run([program, str(path)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def assert_same_summary(cpp, python):
    for key, value in python.items():
        assert key in cpp, f"streamlab_analyze printed no {key}"
        if isinstance(value, float):
            assert cpp[key] == pytest.approx(value, abs=1e-9), key
        else:
            assert cpp[key] == value, key


@pytest.mark.parametrize("name", TRACE_FIXTURES)
def test_matches_cpp_analysis(name):
    path = FIXTURES / name
    assert_same_summary(analyze_with_cpp(path), summarize(load_trace(path).ops))


@pytest.mark.parametrize("seed", range(5))
def test_matches_cpp_analysis_on_random_traces(tmp_path, seed):
    # The same random timelines as above, written as trace files.
    obj = json.loads((FIXTURES / "pipeline_3_chunks.json").read_text())
    rng = random.Random(seed)
    events = []
    for index in range(rng.randint(1, 12)):
        kind = rng.choice(OP_KINDS)
        start = rng.randint(0, 60)
        args = {
            "op": kind,
            "label": "",
            "stream": rng.choice([0, 7, 13, 14]),
            "stream_kind": rng.choice(["created", "legacy_null", "per_thread_default"]),
            "start_ns": start,
            "end_ns": start + rng.randint(0, 25),
            "correlation_id": index,
        }
        if kind == "kernel":
            args["kernel_name"] = "k"
        else:
            args["bytes"] = 64
        if kind.startswith("memcpy_"):
            args["host_memory"] = "pinned"
        if kind == "memcpy_p2p":
            args["source_device"], args["destination_device"] = 1, 0
        events.append({"ph": "X", "pid": 1, "tid": args["stream"], "name": kind, "ts": 0, "dur": 0, "args": args})
    obj["traceEvents"] = events
    path = tmp_path / "random.json"
    path.write_text(json.dumps(obj))
    assert_same_summary(analyze_with_cpp(path), summarize(load_trace(path).ops))
