"""The grader's judge step (coursecli/judging.py): what runs in the sandbox and what outside it, and the
report folder the judges get, which nothing left by the student's code can reach."""

import json
import os
import re
from pathlib import Path

import pytest
from coursecli import judging, recording, records
from coursecli.shell import ROOT
from coursecli.submissions import LabSources

BUILD = Path(os.environ.get("STREAMLAB_BUILD", ROOT / "build-ci"))
needs_course_build = pytest.mark.skipif(
    not (BUILD / "judges" / "lab05_judge").is_file(), reason="needs the course's build (lab05_judge)"
)

LAB01 = LabSources("01-null-stream", ["null_stream.cu"])
LAB05 = LabSources("05-three-chunks", ["three_chunks.cu"])
TESTS = [
    "lab01.yours.record",
    "lab01.yours.NullStream.Serializes",
    "lab01.yours.all_tests_declared",
    "lab05.yours.record",
    "lab05.yours.ThreeChunks.CopiesOverlapKernels",
    "lab05.yours.all_tests_declared",
    "lab05.solution.record",
]


def matching(pattern: str) -> list[str]:
    return [name for name in TESTS if re.match(pattern, name)]


def test_the_sandbox_runs_each_labs_recording_only():
    assert matching(recording.sandboxed_pattern([LAB01, LAB05])) == ["lab01.yours.record", "lab05.yours.record"]
    assert matching(recording.sandboxed_pattern([LAB05])) == ["lab05.yours.record"]


@needs_course_build
def test_each_judge_is_a_process_of_its_own_that_writes_its_report_and_output(tmp_path):
    record = ROOT / "common/tests/records/05-three-chunks/h200-wrong-lab05-stop-without-join.record.jsonl"
    tests = ["ThreeChunks.CopiesOverlapKernels", "ThreeChunks.ReportedSpeedupMatchesTimeline"]
    judged = judging.run_judges(BUILD, "05", record, ROOT / "labs/05-three-chunks", tmp_path, tests)
    assert [(j.test, j.status, j.report.result) for j in judged] == [(tests[0], 0, "passed"), (tests[1], 1, "failed")]
    assert (tmp_path / f"lab05.{tests[1]}.xml").is_file() and "Failure" in (
        tmp_path / f"lab05.{tests[1]}.log"
    ).read_text()


def test_a_judge_that_cannot_start_has_no_report(tmp_path):
    judged = judging.run_judges(tmp_path / "no-build", "05", tmp_path / "none.jsonl", tmp_path, tmp_path, ["A.B"])
    assert [(j.status, j.report) for j in judged] == [(judging.COMMAND_NOT_RUN, None)]


def test_the_judges_get_a_report_folder_with_the_plain_records_only(tmp_path):
    reports = tmp_path / "gtest-xml"
    reports.mkdir()
    (reports / "lab05.yours.record.jsonl").write_text('{"format": "streamlab-record"}\n')
    outside = tmp_path / "grader-file"
    outside.write_text("the grader's")
    # Where a judge will write its report: a link to a file of the grader's, planted in advance.
    (reports / "lab05.yours.ThreeChunks.CopiesOverlapKernels.xml").symlink_to(outside)
    (reports / "lab01.yours.record.jsonl").symlink_to(outside)  # a "record" that is a link
    (reports / "lab05.yours.all_tests_declared.xml").write_text("<testsuites/>")  # a report written in advance
    os.mkfifo(reports / "pipe")
    (reports / "folder").mkdir()

    left = judging.fresh_report_folder(reports)

    assert sorted(path.name for path in reports.iterdir()) == ["lab05.yours.record.jsonl"]
    record = reports / "lab05.yours.record.jsonl"
    assert record.is_file() and not record.is_symlink()
    assert record.read_text() == '{"format": "streamlab-record"}\n'
    assert sorted(left) == sorted(
        [
            "lab05.yours.ThreeChunks.CopiesOverlapKernels.xml",
            "lab01.yours.record.jsonl",
            "lab05.yours.all_tests_declared.xml",
            "pipe",
            "folder",
        ]
    )
    assert outside.read_text() == "the grader's"
    # What the sandbox could write is set aside, whole: a process that outlived its step writes there.
    assert (tmp_path / "gtest-xml-sandboxed" / "pipe").exists()


def test_a_missing_report_folder_becomes_an_empty_one(tmp_path):
    assert judging.fresh_report_folder(tmp_path / "gtest-xml") == []
    assert list((tmp_path / "gtest-xml").iterdir()) == []


def test_the_drawn_scenario_is_the_pipeline_or_else_the_last_that_ran_on_the_gpu(tmp_path):
    def line(name, ops):
        events = [{"ph": "X", "name": f"K_{i}"} for i in range(ops)]
        return json.dumps({"scenario": name, "outcome": "recorded", "trace": {"traceEvents": events}})

    record = tmp_path / "lab.record.jsonl"
    record.write_text("\n".join([line("null_stream", 4), line("streams", 4), line("census", 0), "cut {"]) + "\n")
    assert list(records.recorded_traces(record)) == ["null_stream", "streams", "census"]
    assert records.scenario_trace(record, "pipeline") == records.recorded_traces(record)["streams"]  # the last with ops
    record.write_text(line("pipeline", 1) + "\n" + line("streams", 4) + "\n")
    assert len(records.scenario_trace(record, "pipeline")["traceEvents"]) == 1
    assert records.scenario_trace(tmp_path / "missing.jsonl", "pipeline") is None
