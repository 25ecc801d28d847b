"""The judges of the labs recorded once (recorder in lab.json) on records made on a GPU and committed,
each named for the GPU it was made on (common/tests/records/NN-topic/h200-*.record.jsonl, h100-*): the solution's record passes every test, the starter's
fewer than all, each catalogue sample's fails exactly the tests the catalogue names; and a record
corrupted by hand (cut, forged byte counts, ops out of order, times outside the recording) fails every
test with the reason, never passes, never crashes. A lab that needs more GPUs than the H200 machine has
(gpus N) has no committed records (NEEDS_MORE_GPUS); its judges are checked on the record a machine with
too few GPUs leaves: every test not graded, with the reason. No GPU: the judges read records only.

The judges are those of the build `course test` made (conftest.py: STREAMLAB_BUILD).
"""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from coursecli import records
from coursecli.build import NO_COURSE_BUILD, build_under_test
from coursecli.lab_declaration import declared_labs, read_lab
from coursecli.scoring import NEEDS_GPUS
from coursecli.shell import ROOT
from selfgrading.catalogue import CATALOGUE, make_catalogue
from selfgrading.python_selfgrade import PYTHON_CATALOGUE

STARTER, SOLUTION = "starter", "solution"
# The Python track's records, judged by the same judges (a Python track recorded once, python/record_labNN.py).
PYTHON_STARTER, PYTHON_SOLUTION = "python-starter", "python-solution"
# Python tracks recorded once whose H200 records are still to be made on the GPU (a record cannot be made
# without one); their judges are those of the C++ track, whose records are committed.
PYTHON_RECORDS_TO_MAKE: set[str] = set()
# Recorded labs whose recording needs more GPUs at once (gpus in lab.json) than the one machine that
# makes the committed records, a single H200: there their recording records only "not graded: needs two
# GPUs (this machine has 1)", so there is no run of the solution or the starter to commit and judge. Their
# judges are checked on such a record instead (test_too_few_gpus_leave_every_judge_not_graded_with_the_reason).
# A lab leaves this set once records made on a machine with enough GPUs are committed.
NEEDS_MORE_GPUS = {"08"}
# A pipeline that never returns (a host spin in run_pipeline), recorded with a 20 s deadline: the run stops
# once, in its first scenario, and every judge fails saying so.
NEVER_RETURNS = "never-returns"
# The Python catalogue's samples (python_selfgrade.PYTHON_CATALOGUE) whose records are still to be made
# (`python_selfgrade --keep-records DIR` on a GPU) and committed; each leaves this set with its record.
# All of them are committed: recorded on an H100 (2026-12-07, h100-*).
PYTHON_CATALOGUE_RECORDS_TO_MAKE: set[str] = set()
# Labs recorded once whose H200 records are still to be recorded on a GPU and committed: the checks that
# need a lab's committed records leave them out until then (their judges are built and listed all the same).
AWAITING_RECORDS: set[str] = set()


def committed_records() -> list[tuple[str, Path]]:
    """(lab number, record) for every committed record of a recorded lab."""
    return [
        (declared.cpp.number, record)
        for folder, declared in declared_labs(ROOT)
        if declared.recorder
        for record in records.committed_records(ROOT, folder.name)
    ]


def whose(record: Path) -> str:
    """`solution`, `starter` or the catalogue sample a committed record is of, from its name."""
    return records.committed_whose(record, ROOT) or ""


def judge_path(number: str) -> Path:
    build = build_under_test()
    if build is None:
        pytest.skip(NO_COURSE_BUILD)
    judge = build / "judges" / f"lab{number}_judge"
    if not judge.is_file():
        subprocess.run(["cmake", "--build", build, "-j2", "--target", judge.name], check=True, capture_output=True)
    return judge


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory) -> Path:
    """The catalogue's samples, written out: their answer files are what the judges read beside a record."""
    folder = tmp_path_factory.mktemp("catalogue")
    make_catalogue(folder)
    return folder


def answer_folder(number: str, sample: str, catalogue: Path) -> Path:
    """Where the judges find the answer files of the run a committed record is of."""
    lab = next(folder for folder, declared in declared_labs(ROOT) if declared.cpp.number == number)
    if sample in (SOLUTION, NEVER_RETURNS):
        return ROOT / "solutions" / lab.name
    if sample == STARTER:
        return lab
    if sample == PYTHON_SOLUTION:  # the Python track keeps its answer files in its own folder
        return ROOT / "solutions" / lab.name / "python"
    if sample == PYTHON_STARTER:
        return lab / "python"
    if sample in PYTHON_CATALOGUE:  # the Python solution with one line changed, answer files and all
        return ROOT / "solutions" / lab.name / "python"
    return catalogue / sample / "labs" / lab.name


def judge(number: str, record: Path, answers: Path, xml: Path) -> dict[str, tuple[str, str]]:
    """Suite.Name -> (passed|failed|skipped, the failure's text or the skip's reason) for every judge of lab
    `number` on `record`."""
    env = {**os.environ, "STREAMLAB_RECORD": str(record), "STREAMLAB_ANSWER_DIR": str(answers)}
    subprocess.run([judge_path(number), f"--gtest_output=xml:{xml}"], env=env, capture_output=True, timeout=120)
    verdicts = {}
    for case in ET.parse(xml).iter("testcase"):
        failures = [f.get("message", "") for f in case.iter("failure")]
        skipped = case.find("skipped")
        status = "failed" if failures else "skipped" if skipped is not None else "passed"
        text = "\n".join(failures) if failures else skipped.get("message", "") if skipped is not None else ""
        verdicts[f"{case.get('classname')}.{case.get('name')}"] = (status, text)
    return verdicts


def graded_tests(number: str) -> set[str]:
    lab = next(folder for folder, declared in declared_labs(ROOT) if declared.cpp.number == number)
    return {test.name for test in read_lab(lab).cpp.tests if test.points > 0}


def test_the_committed_records_live_with_the_judges_fixtures_not_in_the_students_folders():
    """A student's folder holds what the student uses; the records are the judges' fixtures, one folder per
    lab named as the lab's folder is (records.COMMITTED_RECORDS)."""
    assert not [path for top in ("labs", "solutions") for path in (ROOT / top).rglob(f"*{records.RECORD_SUFFIX}")]
    lab_folders = {folder.name for folder, declared in declared_labs(ROOT) if declared.recorder}
    assert {folder.name for folder in (ROOT / records.COMMITTED_RECORDS).iterdir()} <= lab_folders


def test_a_recorded_lab_has_committed_records_of_its_solution_and_starter():
    recorded = {number for number, _ in committed_records()}
    for folder, declared in declared_labs(ROOT):
        if declared.recorder and declared.cpp.number in NEEDS_MORE_GPUS:
            assert declared.gpus > 1, f"{folder.name} needs one GPU: drop it from NEEDS_MORE_GPUS"
            assert declared.cpp.number not in recorded, f"{folder.name}: committed; drop it from NEEDS_MORE_GPUS"
        elif declared.recorder and declared.cpp.number not in AWAITING_RECORDS:
            assert declared.cpp.number in recorded, f"{folder.name} is recorded once but has no committed records"
            names = {whose(record) for _, record in committed_records() if _ == declared.cpp.number}
            assert {SOLUTION, STARTER} <= names
            if declared.python_recorder and declared.cpp.number not in PYTHON_RECORDS_TO_MAKE:
                assert {PYTHON_SOLUTION, PYTHON_STARTER} <= names, f"{folder.name}: no records of its Python track"
            elif declared.python_recorder:  # once they are committed, the lab leaves PYTHON_RECORDS_TO_MAKE
                assert not {PYTHON_SOLUTION, PYTHON_STARTER} & names, f"{folder.name}: take it out of the list"


@pytest.mark.parametrize(("number", "record"), committed_records(), ids=lambda value: getattr(value, "name", value))
def test_judges_give_each_committed_record_its_expected_verdicts(number, record, catalogue, tmp_path):
    sample = whose(record)
    verdicts = judge(number, record, answer_folder(number, sample, catalogue), tmp_path / "judges.xml")
    assert graded_tests(number) <= set(verdicts)
    verdicts = {name: verdict for name, verdict in verdicts.items() if name in graded_tests(number)}  # points only
    failed = {name for name, (status, _) in verdicts.items() if status != "passed"}
    if sample in (SOLUTION, PYTHON_SOLUTION):
        assert not failed, {name: verdicts[name] for name in failed}
    elif sample in (STARTER, PYTHON_STARTER):
        assert failed, "the starter's record passed every judge"
    elif sample == NEVER_RETURNS:
        assert failed == graded_tests(number)
        assert all("did not finish within" in text for _, text in verdicts.values()), verdicts
    elif sample in PYTHON_CATALOGUE:
        mistake = PYTHON_CATALOGUE[sample]
        assert mistake.lab[:2] == number
        assert failed == mistake.must_fail, {name: verdicts[name] for name in failed ^ mistake.must_fail}
    else:
        _, lab, must_fail = CATALOGUE[sample]
        assert lab == number
        assert failed == set(must_fail), {name: verdicts[name] for name in failed ^ set(must_fail)}


def test_each_python_catalogue_sample_has_a_committed_record_or_is_still_to_be_made():
    committed = {whose(record) for _, record in committed_records()}
    for sample in PYTHON_CATALOGUE:
        if sample in PYTHON_CATALOGUE_RECORDS_TO_MAKE:
            assert sample not in committed, f"{sample}'s record is committed: take it out of the set"
        else:
            assert sample in committed, f"{sample} has no committed record"


def solution_record(number: str) -> list[dict]:
    record = next(path for n, path in committed_records() if n == number and whose(path) == SOLUTION)
    return [json.loads(line) for line in record.read_text().splitlines()]


def device_ops(line: dict) -> list[dict]:
    return [event for event in line["trace"]["traceEvents"] if event.get("ph") == "X"]


def recorded_lines(lines: list[dict]) -> list[dict]:
    return [line for line in lines if line.get("outcome") == "recorded"]


def text_of(lines: list[dict]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def truncated(lines: list[dict]) -> str | None:
    text = text_of(lines)
    return text[: len(text) * 2 // 3]


def forged_bytes(lines: list[dict]) -> str | None:
    """An H2D copy of a scenario with an output sample claims far more bytes than the run's buffers."""
    for line in recorded_lines(lines):
        copies = [op for op in device_ops(line) if op["args"]["op"] == "memcpy_h2d"]
        if "output" in line and copies:
            copies[0]["args"]["bytes"] = 1 << 40
            return text_of(lines)
    return None


def ops_out_of_order(lines: list[dict]) -> str | None:
    for line in recorded_lines(lines):
        calls = line.get("stream_calls", [])
        if len(calls) >= 2 and calls[0]["time_ns"] != calls[-1]["time_ns"]:
            calls[0], calls[-1] = calls[-1], calls[0]
            return text_of(lines)
    return None


def outside_the_window(lines: list[dict]) -> str | None:
    for line in recorded_lines(lines):
        if device_ops(line):
            op = device_ops(line)[-1]
            op["args"]["end_ns"] += 10**9
            op["dur"] += 10**6
            return text_of(lines)
    return None


def no_copy_engine(lines: list[dict]) -> str | None:
    """The set-up's GPU has no copy engine, which the course's model of a pipeline needs (it threw in the
    judges that use it)."""
    for line in lines:
        if "setup" in line and "trace" in line["setup"]:
            line["setup"]["trace"]["otherData"]["device"]["copy_engines"] = 0
    return text_of(lines)


CORRUPTIONS = [
    (truncated, "not one JSON object"),
    (forged_bytes, "more than the run's buffers hold"),
    (ops_out_of_order, "not in the order they were made"),
    (outside_the_window, "ends after the recording ended"),
    (no_copy_engine, "has 0 copy engines"),
]


def corrupted_records() -> list[tuple[str, object, str]]:
    """(lab, corruption, its reason) for every recorded lab's committed solution record the corruption
    applies to (a lab whose scenarios copy nothing cannot have a forged copy)."""
    cases = []
    for number in sorted({number for number, record in committed_records() if whose(record) == SOLUTION}):
        for corrupt, reason in CORRUPTIONS:
            if corrupt(solution_record(number)) is not None:
                cases.append((number, corrupt, reason))
    return cases


@pytest.mark.parametrize(
    ("number", "corrupt", "reason"), corrupted_records(), ids=lambda value: getattr(value, "__name__", value)
)
def test_a_corrupted_record_fails_every_judge_with_the_reason(number, corrupt, reason, tmp_path):
    record = tmp_path / "corrupted.record.jsonl"
    record.write_text(corrupt(solution_record(number)))
    lab = next(folder for folder, declared in declared_labs(ROOT) if declared.cpp.number == number)
    verdicts = judge(number, record, ROOT / "solutions" / lab.name, tmp_path / "judges.xml")
    assert graded_tests(number) <= set(verdicts)
    for name, (status, text) in verdicts.items():
        assert status == "failed", name
        assert "the record cannot be judged" in text and reason in text, text


def test_the_scenario_a_recorded_lab_draws_is_in_its_solutions_record_and_ran_on_the_gpu():
    for folder, declared in declared_labs(ROOT):
        if declared.recorder and declared.cpp.number not in AWAITING_RECORDS | NEEDS_MORE_GPUS:
            solution = records.committed_record(ROOT, folder.name, "h200", SOLUTION)
            traces = records.recorded_traces(solution)
            assert declared.drawn_scenario in traces, f"{folder.name}: drawn_scenario {declared.drawn_scenario}"
            assert records.ran_on_the_gpu(traces[declared.drawn_scenario]), folder.name


def labs_needing_several_gpus() -> list[tuple[str, int]]:
    """(lab number, GPUs it needs at once) for every recorded lab that needs more than one."""
    return [
        (declared.cpp.number, declared.gpus)
        for _, declared in declared_labs(ROOT)
        if declared.recorder and declared.gpus > 1
    ]


def test_every_lab_without_committed_records_needs_several_gpus():
    assert NEEDS_MORE_GPUS <= {number for number, _ in labs_needing_several_gpus()}


@pytest.mark.parametrize(("number", "gpus"), labs_needing_several_gpus())
def test_too_few_gpus_leave_every_judge_not_graded_with_the_reason(number, gpus, tmp_path):
    """The record the harness writes where the recording program found fewer GPUs than the lab needs
    (record_scenarios, RECORD_FORMAT.md): its header, a set-up that says why, its end. Every judge skips
    with that reason, which the grader counts as not graded: none fails, none passes."""
    reason = f"not graded: needs {'two' if gpus == 2 else gpus} GPUs (this machine has 1)"
    lines = [
        {
            "format": "streamlab-record",
            "version": 1,
            "lab": number,
            "program": f"lab{number}_solution_record",
            "date": "2026-12-04T00:00:00Z",
            "seed": 1,
        },
        {"setup": {"no_gpu": reason}},
        {"end": "complete"},
    ]
    record = tmp_path / "one-gpu.record.jsonl"
    record.write_text(text_of(lines))
    lab = next(folder for folder, declared in declared_labs(ROOT) if declared.cpp.number == number)
    verdicts = judge(number, record, ROOT / "solutions" / lab.name, tmp_path / "judges.xml")
    assert graded_tests(number) <= set(verdicts)
    assert reason.startswith(NEEDS_GPUS)
    for name, (status, text) in verdicts.items():
        assert status == "skipped", (name, status, text)
        assert reason in text, (name, text)
