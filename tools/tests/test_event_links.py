"""The timeline draws event records and the waits for them: the picture `course check` draws of a record
(coursecli/records.py takes the drawn scenario's trace and its stream calls) marks each cudaEventRecord on
its stream's row and draws each cudaStreamWaitEvent as an arrow from the record to the waiting stream, so
that lab 05's forgotten join (a stop recorded in one stream, joined by none) does not look like a right run.
The tests read what the drawing uses (timelines.event_links), on the records committed with the course."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from coursecli import records
from coursecli.shell import ROOT
from streamlab_tools import plot, timelines
from streamlab_tools.trace import DeviceOp, StreamCall, Trace, load_trace

LAB05_SOLUTION = records.committed_record(ROOT, "05-three-chunks", "h200", "solution")
LAB05_STOP_WITHOUT_JOIN = records.committed_record(ROOT, "05-three-chunks", "h200", "wrong-lab05-stop-without-join")
LAB07_SOLUTION = records.committed_record(ROOT, "07-dependencies-and-graphs", "h200", "solution")
PIPELINE_FIXTURE = Path(__file__).parent / "fixtures" / "pipeline_3_chunks.json"


def drawn_trace(record: Path, scenario: str, tmp_path: Path) -> Trace:
    """The trace `course check` draws of `record`'s `scenario`, read back as the plot tool reads it."""
    trace_file = tmp_path / f"{record.stem}.json"
    assert records.write_scenario_trace(record, trace_file, scenario)
    return load_trace(trace_file)


def joins(links: timelines.EventLinks) -> list[timelines.EventWait]:
    """The waits for an event recorded after work began: a join (the fork's record comes before any op)."""
    return [wait for wait in links.waits if wait.from_at > 0]


def last_end_ms(trace: Trace, row: str) -> float:
    origin = trace.ops[0].start_ns
    return max(op.end_ns for op in trace.ops if f"stream {op.stream}" == row) / 1e6 - origin / 1e6


def test_the_solutions_picture_draws_the_join_before_stop(tmp_path):
    trace = drawn_trace(LAB05_SOLUTION, "pipeline", tmp_path)
    links = timelines.event_links(trace)
    stop = links.records[-1]
    joined = joins(links)
    # Both other streams join the stop's stream, each where its own last op ended.
    assert {wait.to_row for wait in joined} == {stop.row}
    assert sorted(wait.from_row for wait in joined) == sorted({f"stream {op.stream}" for op in trace.ops} - {stop.row})
    for wait in joined:
        assert wait.from_at == pytest.approx(last_end_ms(trace, wait.from_row))
    # The stop is drawn where the last op of the whole pipeline ended: after every stream's work.
    assert stop.at == pytest.approx(max(op.end_ns for op in trace.ops) / 1e6 - trace.ops[0].start_ns / 1e6)


def test_the_forgotten_join_draws_no_wait_into_the_stops_stream(tmp_path):
    trace = drawn_trace(LAB05_STOP_WITHOUT_JOIN, "pipeline", tmp_path)
    links = timelines.event_links(trace)
    assert joins(links) == []
    # Only the fork is drawn: waits for the start's record, made before any op.
    assert links.waits and all(wait.from_at < 0 for wait in links.waits)
    stop = links.records[-1]
    assert stop.at == pytest.approx(last_end_ms(trace, stop.row))


def test_lab07s_stage_streams_draw_every_wait(tmp_path):
    trace = drawn_trace(LAB07_SOLUTION, "pipeline", tmp_path)
    links = timelines.event_links(trace)
    waits = [call for call in trace.stream_calls if call.call == "stream_wait_event"]
    assert len(links.waits) == len(waits) == 16
    # A stream is never drawn waiting before the record it waits for.
    assert all(wait.to_at >= wait.from_at for wait in links.waits)
    assert {(wait.from_row, wait.to_row) for wait in links.waits} == {
        ("stream 18", "stream 19"),
        ("stream 19", "stream 20"),
    }


def test_a_record_made_after_its_streams_work_ended_is_drawn_where_the_host_made_it():
    op = DeviceOp("kernel", "K", "", 7, "created", start_ns=1_000, end_ns=2_000, correlation_id=5)
    calls = [
        StreamCall("work", "cudaLaunchKernel", stream=99, event=0, time_ns=500),
        StreamCall("event_record", "cudaEventRecord", stream=99, event=1, time_ns=3_000),
        StreamCall("stream_wait_event", "cudaStreamWaitEvent", stream=98, event=2, time_ns=3_100),  # never recorded
    ]
    links = timelines.event_links(Trace(ops=[op], marks=[], metadata={}, stream_calls=calls))
    assert links.records == [timelines.EventRecord(row="stream 7", at=0.002, event=1)]
    assert links.waits == []


def test_a_trace_without_stream_calls_draws_no_events():
    assert timelines.event_links(load_trace(PIPELINE_FIXTURE)) == timelines.EventLinks(records=[], waits=[])


def test_the_records_picture_is_drawn_with_its_events(tmp_path, capsys):
    trace_file = tmp_path / "lab05.json"
    assert records.write_scenario_trace(LAB05_SOLUTION, trace_file, "pipeline")
    assert json.loads(trace_file.read_text())["otherData"]["stream_calls"]
    image = tmp_path / "lab05.png"
    assert plot.main([str(trace_file), "-o", str(image)]) == 0
    assert image.read_bytes().startswith(b"\x89PNG")
