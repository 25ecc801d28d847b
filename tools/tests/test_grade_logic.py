"""Points and reasons from recorded ctest output (fixtures/grading: JUnit, console, labels)."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from coursecli.results import GtestReport, read_gtest_report, read_gtest_reports, read_junit
from coursecli.scoring import (
    FAILED,
    NO_GPU,
    NOT_GRADED,
    PASSED,
    LabGrade,
    SubmissionGrade,
    TestGrade,
    ctest_verdicts,
    failed_lab,
    grade_lab,
    outcome_points,
)

FIXTURES = Path(__file__).parent / "fixtures" / "grading"
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 3


@pytest.fixture(scope="module")
def recorded():
    labels = json.loads((FIXTURES / "ctest-labels.json").read_text())
    outcomes = read_junit(FIXTURES / "ctest-junit.xml", labels)
    verdicts = ctest_verdicts((FIXTURES / "ctest-console.txt").read_text())
    return labels, outcomes, verdicts


def reports_of(outcomes) -> dict:
    """GoogleTest's own reports (fixtures/grading/gtest), by ctest name: none for tests that crashed or exited."""
    return read_gtest_reports(FIXTURES / "gtest", [o.name for o in outcomes])


def graded(recorded, gpu_present=True) -> dict[str, TestGrade]:
    labels, outcomes, verdicts = recorded
    lab = grade_lab("01", "01-null-stream", outcomes, verdicts, TIMEOUT_S, gpu_present, reports_of(outcomes))
    return {test.name: test for test in lab.tests}


def test_console_verdicts_name_crashes_and_timeouts(recorded):
    _, _, verdicts = recorded
    assert verdicts["lab01.yours.Demo.Segv"] == "Exception: SegFault"
    assert verdicts["lab01.yours.Demo.Hang"] == "Timeout"
    assert verdicts["lab01.yours.Demo.Pass"] == "Passed"
    assert verdicts["lab01.yours.Demo.Skip"] == "Skipped"


def test_a_passing_test_earns_its_points_and_shows_its_measure(recorded):
    test = graded(recorded)["Demo.Pass"]
    assert (test.status, test.earned, test.points) == (PASSED, 2, 2)
    assert len(test.measures) == 1 and test.measures[0].startswith("overlap: 0.8")


def test_a_wrong_result_costs_the_points_with_the_message_and_hint(recorded):
    test = graded(recorded)["Demo.Fail"]
    assert (test.status, test.earned) == (FAILED, 0)
    assert test.reason == "wrong result: kernels ran in 1 stream"  # the test's words, not GoogleTest's report
    assert test.hints == ["launch in streams"]
    assert "0.1" in test.measures[0]


def test_a_crash_is_named(recorded):
    test = graded(recorded)["Demo.Segv"]
    assert test.earned == 0 and test.reason.startswith("crashed: segmentation fault")


def test_a_hang_is_a_timeout(recorded):
    test = graded(recorded)["Demo.Hang"]
    assert test.earned == 0 and test.reason.startswith(f"timed out after {TIMEOUT_S} s")


def test_a_cuda_error_is_named(recorded):
    test = graded(recorded)["Demo.CudaError"]
    assert test.earned == 0 and test.reason.startswith("CUDA error:") and "cudaErrorInvalidValue" in test.reason


def test_exit_zero_halfway_through_a_test_does_not_pass(recorded):
    # ctest saw exit status 0, but GoogleTest never finished the test.
    labels, outcomes, _ = recorded
    assert next(o for o in outcomes if o.name.endswith("EarlyExit")).status == "passed"
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
    labels, outcomes, verdicts = recorded
    skip = next(o for o in outcomes if o.name.endswith("Demo.Skip"))
    skip.output = "[ RUN      ] Demo.Skip\n[  SKIPPED ] printed by the student\n"
    lab = grade_lab("01", "01-null-stream", [skip], verdicts, TIMEOUT_S, True, {})
    assert lab.tests[0].status == FAILED


def test_student_output_cannot_raise_points(recorded):
    # Printing a measure that "passes" changes nothing: the verdict is ctest's, the measures GoogleTest's report's.
    labels, outcomes, verdicts = recorded
    failing = next(o for o in outcomes if o.name.endswith("Demo.Fail"))
    failing.output += (
        '\n[       OK ] Demo.Fail (0 ms)\nSTREAMLAB-MEASURE {"name":"x","value":1,"op":">=","threshold":0}\n'
    )
    lab = grade_lab("01", "01-null-stream", [failing], verdicts, TIMEOUT_S, True, reports_of([failing]))
    assert lab.tests[0].earned == 0 and not any(m.startswith("x:") for m in lab.tests[0].measures)


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
    labels, outcomes, verdicts = recorded
    failing = next(o for o in outcomes if o.name.endswith("Demo.Fail"))
    notes = {
        "streamlab.note.1": '{"name":"your prediction","text":"A < B < C; the timeline: A+B+C"}',
        "streamlab.note.2": "not json",
        "streamlab.note.3": '{"name":"no text"}',
    }
    report = with_properties(FIXTURES / "gtest" / f"{failing.name}.xml", notes, tmp_path / f"{failing.name}.xml")
    lab = grade_lab(
        "01", "01-null-stream", [failing], verdicts, TIMEOUT_S, True, read_gtest_reports(tmp_path, [failing.name])
    )
    assert lab.tests[0].measures[-1] == "your prediction: A < B < C; the timeline: A+B+C", report
    assert lab.tests[0].earned == 0 and not any("no text" in m for m in lab.tests[0].measures)


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


def test_points_come_from_the_labels(recorded):
    labels, _, _ = recorded
    declared = dict(outcome_points(labels, "01"))
    assert declared["Demo.Pass"] == 2 and len(declared) == 7
    lab = failed_lab("01", "01-null-stream", list(declared.items()), "does not compile", "x.cu:3: error: y")
    assert lab.earned == 0 and lab.possible == 14 and all(t.reason == "does not compile" for t in lab.tests)


def test_a_grade_survives_its_json_round_trip(recorded):
    lab = grade_lab("01", "01-null-stream", recorded[1], recorded[2], TIMEOUT_S, False, reports_of(recorded[1]))
    grade = SubmissionGrade("ada", [lab], ignored=["a.txt: ignored"], gpu="none")
    again = SubmissionGrade.from_json(json.loads(json.dumps(grade.to_json())))
    assert again == grade and again.earned == grade.earned


def test_printed_gtest_lines_without_its_report_do_not_pass(recorded):
    # A static initialiser that prints GoogleTest's lines and calls _Exit(0): ctest sees a pass.
    labels, outcomes, verdicts = recorded
    forged = next(o for o in outcomes if o.name.endswith("Demo.Fail"))
    forged.status = "passed"
    forged.output = (
        "[ RUN      ] Demo.Fail\n[       OK ] Demo.Fail (1 ms)\n"
        "[==========] 1 test from 1 test suite ran. (1 ms total)\n[  PASSED  ] 1 test.\n"
    )
    lab = grade_lab("01", "01-null-stream", [forged], verdicts, TIMEOUT_S, True, {forged.name: None})
    assert lab.tests[0].status == FAILED and "no report from the test framework" in lab.tests[0].reason


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
    labels, outcomes, verdicts = recorded
    skip = next(o for o in outcomes if o.name.endswith("Demo.Skip"))
    lab = grade_lab(
        "01", "01-null-stream", [skip], verdicts, TIMEOUT_S, True, {skip.name: GtestReport("skipped", message)}
    )
    assert lab.tests[0].status == status and message in lab.tests[0].reason
    assert not lab.tests[0].reason.startswith("not graded: not graded")  # said once


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
    as GRADER_SKIPS and `course check` expect it to, and the lab that needs two GPUs asks for them (its recording program passes GPUS to record_scenarios)."""
    from coursecli.labs import NEEDS_GPUS
    from coursecli.scoring import GRADER_SKIPS

    assert NEEDS_GPUS in GRADER_SKIPS
    assert "return words::kSkipNeedsGpus + count" in (ROOT / "common/src/device.cpp").read_text()
    assert (
        "record_scenarios(argc, argv, record_lab08, /*gpus=*/2)"
        in (ROOT / "labs/08-two-gpus/record_lab08.cpp").read_text()
    )
