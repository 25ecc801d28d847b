"""The real judges (of the build `course test` made) on forged records made from the committed H200 records (forged_records.py):
the forgeries issue 50 found passing, and one for each cross-check the judges make of what a real run
makes consistent (record_consistency.hpp). Each is refused: every judge of its lab fails with the one
reason, never passes. The same edits that keep a record honest (what the harness observed, added) keep
every verdict. No GPU: the judges read records only.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from coursecli import environment, results, scoring
from coursecli.build import NO_COURSE_BUILD, build_under_test
from coursecli.scoring import FAILED, PASSED, grade_record
from coursecli.shell import ROOT
from forged_records import (
    a_kernel_no_call_made,
    another_gpu_than_the_harness_read,
    another_runs_job_salt,
    copies_ten_times_faster,
    correct_output,
    ended_by_a_signal,
    found_no_gpu_where_the_harness_read_one,
    header,
    kernels_ten_times_faster,
    lab05_forgeries,
    lab05_record,
    ran_longer_than_the_harness_saw,
    read,
    sample_of_other_chunks,
    with_observations,
)
from test_lab_records import committed_records, graded_tests, judge, solution_record, text_of, whose

REFUSED = "the record cannot be judged"
NOT_REAL = "this record was not made by a real run"

# Each forgery of lab 05's committed records (forged_records.lab05_forgeries) and what its refusal names.
LAB05_FORGERIES = {
    # The solution's run had 502 iterations, the starter's set-up 499.
    "pasted-solution-pipelines": "output sample names 502 kernel iterations; its run's kernel had 499",
    # Its stream calls are a pipeline's; the starter's trace counted the starter's calls (none).
    "synthesized-pipelines": "stream calls hold 3 calls of cudaEventRecord, but its trace counted 0",
    "synthesized-pipelines-without-outputs": "carries no output sample, which every real run of it sends",
    "zero-outputs-at-most-iterations": "names 1048576 kernel iterations; its run's kernel had 499",
    "joined-by-four-more-calls": "stream calls hold 4 calls of cudaEventRecord, but its trace counted 2",
}

# One forgery for each cross-check, on every recorded lab's solution record it applies to, and what its
# refusal names.
CHECK_FORGERIES = [
    (sample_of_other_chunks, "output sample is of 1 chunks"),
    (a_kernel_no_call_made, "runtime calls that make them"),
    (copies_ten_times_faster, "faster than the fastest host link an NVIDIA H200 has (64 GB/s)"),
    (kernels_ten_times_faster, "kernels ran"),
    (ended_by_a_signal, "last start ended with killed by signal 9 (Killed) before its finished line"),
    (ran_longer_than_the_harness_saw, "but the harness saw it run for 1 ms"),
    (another_gpu_than_the_harness_read, "but the harness read this machine's GPUs as NVIDIA H100"),
    (another_runs_job_salt, ("job salt", "elements; its run had")),
    (found_no_gpu_where_the_harness_read_one, "says it found no GPU (no GPU: no CUDA-capable device is detected)"),
]


def lab_folder(number: str) -> str:
    """Lab `number`'s folder name ("05-three-chunks"), as its committed records are filed."""
    return next(record.parent.name for n, record in committed_records() if n == number)


def solution_labs() -> list[str]:
    return sorted({number for number, record in committed_records() if whose(record) == "solution"})


def judged(number: str, text: str, tmp_path) -> dict[str, tuple[str, str]]:
    """Every graded judge's verdict of lab `number` on the record `text`, with the solution's answers."""
    record = tmp_path / "forged.record.jsonl"
    record.write_text(text)
    answers = ROOT / "solutions" / lab_folder(number)
    verdicts = judge(number, record, answers, tmp_path / "judges.xml")
    assert graded_tests(number) <= set(verdicts)
    return {name: verdict for name, verdict in verdicts.items() if name in graded_tests(number)}


def assert_refused(verdicts: dict[str, tuple[str, str]], reasons: str | tuple[str, ...]) -> None:
    reasons = (reasons,) if isinstance(reasons, str) else reasons
    for name, (status, text) in verdicts.items():
        assert status == "failed", (name, status)
        assert REFUSED in text and NOT_REAL in text, (name, text)
        assert any(reason in text for reason in reasons), (name, text)


@pytest.mark.parametrize("forgery", sorted(LAB05_FORGERIES))
def test_each_forgery_of_the_issue_is_refused_by_every_judge(forgery, tmp_path):
    assert_refused(judged("05", lab05_forgeries()[forgery], tmp_path), LAB05_FORGERIES[forgery])


def test_forged_outputs_are_what_a_judge_recomputes():
    """Recomputed for the solution's own run, a forged output is the one its GPU wrote: the same elements,
    the same values within the judges' tolerance (workload.hpp's matches_reference)."""
    for line in read(lab05_record("solution")):
        if "output" in line:
            real = line["output"]
            forged = correct_output(real["n"], real["iterations"], real["chunks"], real["seed"])
            assert forged["index"] == real["index"], line["scenario"]
            tolerance = 1e-5 * (real["iterations"] + 10)
            assert all(abs(a - b) <= tolerance for a, b in zip(forged["value"], real["value"])), line["scenario"]


def test_the_forgeries_start_from_records_the_judges_believe(tmp_path):
    """The starter and the failing catalogue sample the forgeries edit are judged, not refused: the
    refusals above come from the edits."""
    for name in ("starter", "wrong-lab05-stop-without-join"):
        verdicts = judged("05", lab05_record(name).read_text(), tmp_path)
        assert any(status == "failed" for status, _ in verdicts.values()), name
        assert not any(REFUSED in text for _, text in verdicts.values()), name


def forged_solutions() -> list:
    """(lab, forgery, its reason) for every recorded lab's committed solution record the forgery applies to."""
    return [
        pytest.param(number, forge, reason, id=f"{number}-{forge.__name__}")
        for number in solution_labs()
        for forge, reason in CHECK_FORGERIES
        if forge(solution_record(number)) is not None
    ]


@pytest.mark.parametrize(("number", "forge", "reason"), forged_solutions())
def test_each_cross_check_refuses_its_forgery_of_a_solutions_record(number, forge, reason, tmp_path):
    assert_refused(judged(number, text_of(forge(solution_record(number))), tmp_path), reason)


def test_each_cross_check_has_a_forgery_in_lab05():
    applied = {param.values[1] for param in forged_solutions() if param.values[0] == "05"}
    assert applied == {forge for forge, _ in CHECK_FORGERIES}


@pytest.mark.parametrize("number", solution_labs())
def test_a_solutions_record_with_what_the_harness_observed_keeps_every_verdict(number, tmp_path):
    """The control of the forgeries of the harness's observations: honest ones change nothing."""
    verdicts = judged(number, text_of(with_observations(solution_record(number))), tmp_path)
    assert all(status == "passed" for status, _ in verdicts.values()), verdicts


def test_the_script_writes_every_forgery_of_lab05(tmp_path):
    env = {**os.environ, **environment.TOOLS_ENV}
    subprocess.run([sys.executable, ROOT / "tools/tests/forged_records.py", tmp_path], check=True, env=env)
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == sorted(f"forged-{name}.record.jsonl" for name in LAB05_FORGERIES)
    assert read(tmp_path / "forged-synthesized-pipelines.record.jsonl")[0]["format"] == "streamlab-record"


def test_forged_records_score_nothing_where_every_front_end_grades(tmp_path):
    """Through the one grading path of `course check`, `course grade` and the Python track
    (scoring.grade_record: a process per judge, then points): a forgery the issue found passing, and a
    recording that says it found no GPU on a machine where the harness read one, each score 0 on every
    graded test, never "not graded"; the solution's own record, with its observations, scores full."""
    build = build_under_test()
    if build is None:
        pytest.skip(NO_COURSE_BUILD)
    tests = scoring.graded_tests(results.read_labels(build), "05", "yours")
    answers = ROOT / "solutions" / lab_folder("05")
    solution = read(lab05_record("solution"))
    records = {
        "synthesized-pipelines": lab05_forgeries()["synthesized-pipelines"],
        "no-gpu": text_of(found_no_gpu_where_the_harness_read_one(solution)),
        "solution": text_of(with_observations(solution)),
    }
    for name, text in records.items():
        record = tmp_path / f"{name}.record.jsonl"
        record.write_text(text)
        grade = grade_record(build, "05", lab_folder("05"), record, answers, tmp_path / name, tests)
        expected = PASSED if name == "solution" else FAILED
        assert [test.status for test in grade.tests] == [expected] * len(tests), (name, grade.tests)
        assert grade.earned == (grade.possible if name == "solution" else 0) and grade.possible > 0, name


@pytest.mark.parametrize("number", solution_labs())
def test_a_record_of_the_simulated_gpu_is_refused_by_the_judges_of_a_real_build(number, tmp_path):
    """The simulated GPU's harness marks its records (the header's "simulated"): a preview, never a grade.
    A solution's record so marked fails every judge of a build for real GPUs, with that reason."""
    lines = with_observations(solution_record(number))
    header(lines)["simulated"] = True
    for name, (status, text) in judged(number, text_of(lines), tmp_path).items():
        assert status == "failed" and REFUSED in text and "recorded on the simulated GPU" in text, (name, text)
