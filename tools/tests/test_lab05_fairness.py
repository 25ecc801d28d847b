"""Lab 05's judges keep full marks for correct pipelines written differently from the solution, on the
committed H200 solution record edited to show them: chunks cut with another rounding than chunk_range's,
and a first copy issued long after the NULL-stream kernel had ended (a pipeline that prints before it
queues anything). The same edits made wrong (a split that leaves elements out or is far from even, streams
that wait) still fail, each with its reason. No GPU: the judges read records only.
"""

from __future__ import annotations

import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from coursecli.results import GtestReport, read_gtest_report
from coursecli.shell import ROOT
from test_lab_records import device_ops, judge, judge_path, solution_record, text_of

LAB = "05"
ANSWERS = ROOT / "solutions" / "05-three-chunks"
EACH_CHUNK = "ThreeChunks.EachChunkRunsInItsOwnStream"
NULL_STREAM = "ThreeChunks.StreamsDoNotWaitForTheNullStream"
# How long after the NULL-stream kernel's end the edited pipeline issues its first copy: as long as the
# printing pipeline that lost these points.
LATE_NS = 828_000_000


def scenario(lines: list[dict], name: str) -> dict:
    return next(line for line in lines if line.get("scenario") == name)


def with_chunk_elements(elements: list[int]) -> list[dict]:
    """The solution's record with its pipeline's three chunks holding `elements` each: both copies of
    chunk i (labelled i + 1) move elements[i] floats."""
    lines = solution_record(LAB)
    for op in device_ops(scenario(lines, "pipeline")):
        if op["args"]["op"] in ("memcpy_h2d", "memcpy_d2h"):
            op["args"]["bytes"] = elements[int(op["args"]["label"]) - 1] * 4
    return lines


def run_judge(record: Path, test: str, tmp_path: Path) -> tuple[str, str, GtestReport]:
    """(passed|failed, the failure's text, GoogleTest's report: its notes and hints) of one judge of lab 05
    on `record`."""
    env = {**os.environ, "STREAMLAB_RECORD": str(record), "STREAMLAB_ANSWER_DIR": str(ANSWERS)}
    xml = tmp_path / "judge.xml"
    subprocess.run(
        [judge_path(LAB), f"--gtest_filter={test}", f"--gtest_output=xml:{xml}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    case = next(ET.parse(xml).iter("testcase"))
    failures = [failure.get("message", "") for failure in case.iter("failure")]
    return ("failed" if failures else "passed"), "\n".join(failures), read_gtest_report(xml, test)


def written(lines: list[dict], tmp_path: Path) -> Path:
    record = tmp_path / "edited.record.jsonl"
    record.write_text(text_of(lines))
    return record


def test_the_solutions_record_splits_as_chunk_range_does():
    """The edits below start from chunk_range's split of the committed record's n."""
    setup = next(line["setup"] for line in solution_record(LAB) if "setup" in line)
    assert setup["values"]["n"] == 67108864  # chunk_range: 22369622, 22369622, 22369620
    copies = [op for op in device_ops(scenario(solution_record(LAB), "pipeline")) if "bytes" in op["args"]]
    assert sorted(op["args"]["bytes"] for op in copies) == [4 * 22369620] * 2 + [4 * 22369622] * 4


def test_another_rounding_of_nearly_equal_chunks_keeps_every_verdict(tmp_path):
    """22369622/22369621/22369621 (floor and ceil of n / 3) instead of chunk_range's 22369622/22369622/22369620."""
    verdicts = judge(
        LAB, written(with_chunk_elements([22369622, 22369621, 22369621]), tmp_path), ANSWERS, tmp_path / "all.xml"
    )
    assert {name for name, (status, _) in verdicts.items() if status == "failed"} == set()


@pytest.mark.parametrize(
    "elements",
    [[22369622, 22369622, 22369619], [24606584, 22369622, 20132658], [22369621, 22369620, 22369623]],
    ids=["one-element-short", "one-chunk-ten-percent-larger", "one-element-beyond-the-largest"],
)
def test_a_split_that_is_not_nearly_equal_and_covering_fails(elements, tmp_path):
    """One element left out; a chunk 10% larger than the rest (no faster a copy than the link allows); one
    element more than chunk_range's largest chunk."""
    status, text, _ = run_judge(written(with_chunk_elements(elements), tmp_path), EACH_CHUNK, tmp_path)
    assert status == "failed"
    assert "nearly equal chunks give each 22369620 to 22369622 elements, all 67108864 in all" in text, text


def shifted(event: dict, ns: int) -> None:
    """A trace event (an op or the end mark) moved `ns` later on the timeline."""
    event["ts"] += ns / 1000
    for key in ("start_ns", "end_ns", "time_ns"):
        if key in event["args"]:
            event["args"][key] += ns


def moved_later(lines: list[dict], ns: int, calls_too: bool = True) -> list[dict]:
    """The behind_null_stream scenario with the pipeline's work (its ops in created streams, the end mark
    and, `calls_too`, every runtime call after the NULL-stream kernel's launch) moved `ns` later."""
    line = scenario(lines, "behind_null_stream")
    for event in line["trace"]["traceEvents"]:
        created = event.get("ph") == "X" and event["args"]["stream_kind"] == "created"
        if created or event.get("name") == "recording ends":
            shifted(event, ns)
    if calls_too:
        for call in line["stream_calls"][1:]:
            call["time_ns"] += ns
    return lines


def issued_late(lines: list[dict]) -> list[dict]:
    """The pipeline of behind_null_stream issued LATE_NS after the NULL-stream kernel had ended."""
    line = scenario(lines, "behind_null_stream")
    blocker_end = next(op for op in device_ops(line) if op["args"]["stream_kind"] == "legacy_null")["args"]["end_ns"]
    first_issued = next(call["time_ns"] for call in line["stream_calls"][1:] if call["call"] == "work")
    return moved_later(lines, blocker_end - first_issued + LATE_NS)


def test_a_first_copy_issued_long_after_the_null_stream_kernel_passes_saying_the_record_cannot_tell(tmp_path):
    status, text, report = run_judge(written(issued_late(solution_record(LAB)), tmp_path), NULL_STREAM, tmp_path)
    assert status == "passed", text
    assert any("828.00 ms after the NULL-stream kernel had ended" in note for note in report.notes), report
    assert any("too late for the record to tell" in note for note in report.notes), report
    assert not report.hints, report


def test_a_late_first_copy_from_streams_made_by_cudaStreamCreate_fails_naming_it(tmp_path):
    lines = issued_late(solution_record(LAB))
    calls = scenario(lines, "behind_null_stream")["trace"]["otherData"]["api_calls"]
    calls["cudaStreamCreate"] = calls.pop("cudaStreamCreateWithFlags")
    status, text, report = run_judge(written(lines, tmp_path), NULL_STREAM, tmp_path)
    assert status == "failed"
    assert "too late for the record to tell" in text and "created streams with cudaStreamCreate" in text, text
    assert any("cudaStreamNonBlocking" in hint for hint in report.hints), report


def test_a_first_copy_issued_while_the_null_stream_kernel_ran_and_started_after_it_fails_as_waiting(tmp_path):
    """Blocking streams: the calls were made at once, the ops ran only once the NULL-stream kernel had ended."""
    lines = solution_record(LAB)
    line = scenario(lines, "behind_null_stream")
    blocker = next(op for op in device_ops(line) if op["args"]["stream_kind"] == "legacy_null")
    first_start = min(op["args"]["start_ns"] for op in device_ops(line) if op["args"]["stream_kind"] == "created")
    lines = moved_later(lines, blocker["args"]["end_ns"] - first_start + 2000, calls_too=False)
    status, text, report = run_judge(written(lines, tmp_path), NULL_STREAM, tmp_path)
    assert status == "failed"
    assert "H2D_1 waited for the kernel in the NULL stream" in text, text
    assert any("cudaStreamNonBlocking" in hint for hint in report.hints), report
