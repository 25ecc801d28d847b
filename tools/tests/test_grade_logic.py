"""Points and reasons from how each judge ended and GoogleTest's own report of it (fixtures/grading)."""

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from coursecli.judging import JUDGE_TIMEOUT_S
from coursecli.results import GtestReport, read_gtest_report
from coursecli.scoring import (
    FAILED,
    NO_GPU,
    NOT_GRADED,
    PASSED,
    LabGrade,
    SubmissionGrade,
    TestGrade,
    failed_lab,
    graded_tests,
    score,
)
from judged_fixture import FIXTURES, fixture_judged, fixture_labels

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def recorded():
    return {test.name: test for test in graded_tests(fixture_labels(), "01", "yours")}, fixture_judged()


def graded(recorded, gpu_present=True) -> dict[str, TestGrade]:
    tests, judged = recorded
    return {name: score(test, judged[name], gpu_present) for name, test in tests.items()}


def scored(recorded, name: str, **ended) -> TestGrade:
    """Test `name` scored as if its judge had ended otherwise (`ended`: Judged's fields)."""
    tests, judged = recorded
    return score(tests[name], replace(judged[name], **ended), True)


def test_a_passing_test_earns_its_points_and_shows_its_measure(recorded):
    test = graded(recorded)["Demo.Pass"]
    assert (test.status, test.earned, test.points) == (PASSED, 2, 2)
    assert len(test.measures) == 1 and test.measures[0].startswith("overlap: 0.8")


def test_a_wrong_result_costs_the_points_with_the_message_and_hint(recorded):
    test = graded(recorded)["Demo.Fail"]
    assert (test.status, test.earned) == (FAILED, 0)
    assert test.reason == "wrong result: kernels ran in 1 stream"  # the test's words, not GoogleTest's report
    assert test.shown == "kernels ran in 1 stream"  # what `course check` shows under it
    assert test.hints == ["launch in streams"]
    assert "0.1" in test.measures[0]


def test_a_crash_is_named(recorded):
    test = graded(recorded)["Demo.Segv"]
    assert test.earned == 0 and test.reason.startswith("crashed: segmentation fault")


def test_a_hang_is_a_timeout(recorded):
    test = graded(recorded)["Demo.Hang"]
    assert test.earned == 0 and test.reason.startswith(f"timed out after {JUDGE_TIMEOUT_S} s")


def test_a_cuda_error_is_named(recorded):
    test = graded(recorded)["Demo.CudaError"]
    assert test.earned == 0 and test.reason.startswith("CUDA error:") and "cudaErrorInvalidValue" in test.reason


def test_exit_zero_halfway_through_a_test_does_not_pass(recorded):
    # The process ended with status 0, but GoogleTest never finished the test.
    assert fixture_judged()["Demo.EarlyExit"].status == 0
    test = graded(recorded)["Demo.EarlyExit"]
    assert test.status == FAILED and "no report from the test framework" in test.reason


def test_a_skip_without_a_gpu_is_not_graded_never_zero(recorded):
    test = graded(recorded, gpu_present=False)["Demo.Skip"]
    assert (test.status, test.reason) == (NOT_GRADED, NO_GPU)
    lab = LabGrade("01", "01-null-stream", [test, TestGrade("X.Y", 3, PASSED)])
    assert (lab.earned, lab.possible, lab.not_graded) == (3, 3, 2)


def test_a_skip_on_a_gpu_keeps_its_reason(recorded):
    test = graded(recorded, gpu_present=True)["Demo.Skip"]
    assert test.status == NOT_GRADED and "no GPU: no CUDA-capable device" in test.reason


def test_a_forged_skip_line_is_not_a_skip(recorded):
    test = scored(
        recorded, "Demo.Skip", report=None, output="[ RUN      ] Demo.Skip\n[  SKIPPED ] printed by the student\n"
    )
    assert test.status == FAILED


def test_printed_output_cannot_raise_points(recorded):
    # Printing a measure that "passes" changes nothing: the verdict is the exit status and GoogleTest's report's.
    output = '\n[       OK ] Demo.Fail (0 ms)\nSTREAMLAB-MEASURE {"name":"x","value":1,"op":">=","threshold":0}\n'
    test = scored(recorded, "Demo.Fail", output=output)
    assert test.earned == 0 and not any(m.startswith("x:") for m in test.measures)


def with_properties(report: Path, properties: dict[str, str], into: Path) -> Path:
    """A copy of the GoogleTest report `report` whose test recorded `properties` too (RecordProperty)."""
    tree = ET.parse(report)
    case = next(tree.getroot().iter("testcase"))
    found = case.find("properties")
    holder = found if found is not None else ET.SubElement(case, "properties")
    for name, value in properties.items():
        ET.SubElement(holder, "property", {"name": name, "value": value})
    tree.write(into)
    return into


def test_notes_show_next_to_the_measures_whatever_the_verdict(recorded, tmp_path):
    # A prediction next to what the timeline showed: shown in words, worth nothing by itself.
    notes = {
        "streamlab.note.1": '{"name":"your prediction","text":"A < B < C; the timeline: A+B+C"}',
        "streamlab.note.2": "not json",
        "streamlab.note.3": '{"name":"no text"}',
    }
    report = with_properties(FIXTURES / "gtest" / "lab01.yours.Demo.Fail.xml", notes, tmp_path / "fail.xml")
    test = scored(recorded, "Demo.Fail", report=read_gtest_report(report, "Demo.Fail"))
    assert test.measures[-1] == "your prediction: A < B < C; the timeline: A+B+C", report
    assert test.earned == 0 and not any("no text" in m for m in test.measures)


def test_what_a_test_reported_is_read_from_its_numbered_properties_in_order(tmp_path):
    properties = {  # after the fixture's own measure.1
        "streamlab.hint.2": "then record the event",
        "streamlab.hint.1": "wait first",  # recorded second: the order reported is the order shown
        "streamlab.hint": "not numbered",
        "streamlab.measure.2": '{"name": "late", "value": null, "op": ">=", "threshold": 0, "unit": ""}',  # NaN: left out
        "streamlab.measure.3": '{"name": "copies", "value": 0.25, "op": ">=", "threshold": 0.5, "unit": "ms"}',
    }
    path = with_properties(FIXTURES / "gtest" / "lab01.yours.Demo.Pass.xml", properties, tmp_path / "pass.xml")
    report = read_gtest_report(path, "Demo.Pass")
    assert report.hints == ["then record the event", "wait first"]
    assert report.details() == ["overlap: 0.8  (needs >= 0.5)", "copies: 0.25 ms (needs >= 0.5)"]


def test_points_come_from_the_labels():
    declared = graded_tests(fixture_labels(), "01", "yours")
    assert [(t.points, t.gpu) for t in declared if t.name == "Demo.Pass"] == [(2, True)] and len(declared) == 7
    lab = failed_lab("01", "01-null-stream", declared, "does not compile", "x.cu:3: error: y")
    assert lab.earned == 0 and lab.possible == 14 and all(t.reason == "does not compile" for t in lab.tests)


def test_a_grade_survives_its_json_round_trip(recorded):
    lab = LabGrade("01", "01-null-stream", list(graded(recorded, gpu_present=False).values()))
    grade = SubmissionGrade("ada", [lab], ignored=["a.txt: ignored"], gpu="none")
    stored = json.loads(json.dumps(grade.to_json()))
    again = SubmissionGrade.from_json(stored)
    assert again == grade and again.earned == grade.earned
    assert "shown" not in stored["labs"][0]["tests"][0]  # `course check`'s words: not part of the grade


def test_printed_gtest_lines_without_its_report_do_not_pass(recorded):
    # A process that prints GoogleTest's lines and exits with status 0: no report, no pass.
    output = (
        "[ RUN      ] Demo.Fail\n[       OK ] Demo.Fail (1 ms)\n"
        "[==========] 1 test from 1 test suite ran. (1 ms total)\n[  PASSED  ] 1 test.\n"
    )
    test = scored(recorded, "Demo.Fail", status=0, report=None, output=output)
    assert test.status == FAILED and "no report from the test framework" in test.reason


def test_a_report_must_be_of_exactly_that_test(recorded, tmp_path):
    other = FIXTURES / "gtest" / "lab01.yours.Demo.Pass.xml"
    passed = read_gtest_report(other, "Demo.Pass")
    assert passed.result == "passed" and [m.name for m in passed.measures] == ["overlap"] and not passed.hints
    assert read_gtest_report(other, "Demo.Fail") is None  # a report of another test
    assert read_gtest_report(tmp_path / "missing.xml", "Demo.Pass") is None
    (tmp_path / "broken.xml").write_text("<testsuites><testcase")
    assert read_gtest_report(tmp_path / "broken.xml", "Demo.Pass") is None
    failed = read_gtest_report(FIXTURES / "gtest" / "lab01.yours.Demo.Fail.xml", "Demo.Fail")
    assert failed.result == "failed" and failed.message.startswith("Expected equality")
    assert failed.hints == ["launch in streams"] and failed.details() == ["overlap: 0.1  (needs >= 0.5)"]


@pytest.mark.parametrize(
    "message, status",
    [
        ("no GPU: no CUDA-capable device is detected", NOT_GRADED),
        ("timeline unavailable: another CUPTI tool is already recording this process", NOT_GRADED),
        ("this device cannot show it: the GPU has 1 copy engine", NOT_GRADED),
        ("not graded: needs two GPUs (this machine has 1)", NOT_GRADED),
        ("not graded: because I say so", FAILED),
        ("the pipeline was not run", FAILED),
    ],
)
def test_on_a_gpu_only_the_courses_own_skips_are_not_graded(recorded, message, status):
    test = scored(recorded, "Demo.Skip", report=GtestReport("skipped", message))
    assert test.status == status and message in test.reason and message in test.shown
    assert not test.reason.startswith("not graded: not graded")  # said once


def test_a_judge_that_could_not_start_scores_nothing(recorded):
    test = scored(recorded, "Demo.Pass", status=127, report=None, output="the judge could not start")
    assert test.status == FAILED and "ended with status 127" in test.reason


def test_a_skipped_tests_reason_is_read_from_what_it_printed():
    from coursecli.results import TestOutcome

    def reason(output: str) -> str:
        return TestOutcome("t", "skipped", [], output).skip_reason()

    assert reason("x.cu:12: Skipped\ntimeline unavailable: no GPU\n") == "timeline unavailable: no GPU"
    assert reason("SKIPPED: no GPU: nvidia-smi lists none\n") == "no GPU: nvidia-smi lists none"
    assert reason("run_lab05.py: no GPU: no NVIDIA driver\n") == "no GPU: no NVIDIA driver"
    # The recording harness's own line where the recording found no GPU (a gtest test's name follows
    # "[  SKIPPED ]" in GoogleTest's summary: that is no reason).
    assert reason("streamlab_record: lab 01: complete\n[  SKIPPED ] no GPU: no driver\n") == "no GPU: no driver"
    assert reason("[  SKIPPED ] Suite.Name\n") == "skipped"
    assert reason("") == "skipped"


def test_the_skip_for_too_few_gpus_is_worded_as_the_grader_reads_it():
    """The reason for too few GPUs (needs_gpus_reason, streamlab/device.hpp, device.cpp: a recording's) begins
    as GRADER_SKIPS and `course check` expect it to, and the lab that needs two GPUs asks for them (its
    recording program passes lab.json's `gpus` to record_scenarios)."""
    from coursecli.labs import NEEDS_GPUS
    from coursecli.scoring import GRADER_SKIPS

    assert NEEDS_GPUS in GRADER_SKIPS
    assert "return words::kSkipNeedsGpus + count" in (ROOT / "common/src/device.cpp").read_text()
    assert (
        "record_scenarios(argc, argv, record_lab08, /*gpus=*/2)"
        in (ROOT / "labs/08-two-gpus/record_lab08.cpp").read_text()
    )
