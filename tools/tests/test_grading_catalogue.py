"""The catalogue of known-wrong and correct alternative samples, without a GPU:
what make_grading_samples.py --catalogue writes, and how selfgrade judges a graded sample."""

from __future__ import annotations

import json

from coursecli.lab_declaration import read_lab
from coursecli.scoring import FAILED, NOT_GRADED, PASSED, LabGrade, SubmissionGrade, TestGrade
from coursecli.shell import ROOT
from selfgrading.catalogue import CATALOGUE
from selfgrading.make_grading_samples import main, student_files
from selfgrading.selfgrade import catalogue_problems, catalogue_verdict, lab_problems


def declared_tests(lab: str) -> set[str]:
    """The Suite.Name tests lab NN's lab.json declares."""
    folder = next(ROOT.glob(f"labs/{lab}-*/lab.json")).parent
    return {test.name for test in read_lab(folder).cpp.tests}


def test_each_sample_rewrites_its_own_lab_only(tmp_path):
    assert main([str(tmp_path), "--catalogue"]) == 0
    expected = json.loads((tmp_path / "catalogue-expected.json").read_text())
    assert set(expected) == set(CATALOGUE)
    solutions = student_files("solution")
    for name, entry in expected.items():
        changed = [
            path
            for path, text in solutions.items()
            if not (tmp_path / name / path).is_file() or (tmp_path / name / path).read_text() != text
        ]
        assert len(changed) == 1 and changed[0].startswith(f"labs/{entry['lab']}-"), (name, changed)
        assert set(entry["fails"]) <= declared_tests(entry["lab"]), name


def test_the_catalogue_has_both_kinds():
    fails = [must_fail for _, _, must_fail in CATALOGUE.values()]
    assert any(fails) and not all(fails), "known-wrong samples and correct alternatives"


def graded(lab: str, statuses: dict[str, str]) -> SubmissionGrade:
    tests = [TestGrade(name=name, points=2, status=status, reason="why") for name, status in statuses.items()]
    return SubmissionGrade(student="s", labs=[LabGrade(number=lab, folder=f"{lab}-x", tests=tests)])


def test_a_known_wrong_sample_must_fail_exactly_its_tests():
    exact = graded("05", {"A.Named": FAILED, "A.Other": PASSED, "A.Skipped": NOT_GRADED})
    assert catalogue_problems("s", ["A.Named"], exact, "05") == []
    assert catalogue_problems("s", ["A.Other"], exact, "05") == [
        "s: A.Other should fail and did not",
        "s: A.Named failed (why) but should pass",
    ]
    assert catalogue_problems("s", [], exact, "05") == ["s: A.Named failed (why) but should pass"]


def test_an_ungraded_lab_is_a_problem():
    assert catalogue_problems("s", [], None, "05") == ["s: no grade was written"]
    broken = graded("05", {})
    broken.labs[0].problem = "does not compile"
    assert catalogue_problems("s", [], broken, "05") == ["s: lab 05 was not graded: does not compile"]
    assert "missing" in catalogue_problems("s", [], graded("04", {}), "05")[0]


def needs_two(lab: str, names: list[str]) -> SubmissionGrade:
    """Lab `lab` graded on a machine with one GPU: every test not graded, for want of a second."""
    reason = "not graded: needs two GPUs (this machine has 1)"
    tests = [TestGrade(name=name, points=2, status=NOT_GRADED, reason=reason) for name in names]
    return SubmissionGrade(student="s", labs=[LabGrade(number=lab, folder=f"{lab}-x", tests=tests)])


def test_a_lab_that_needs_more_gpus_is_not_graded_here_and_no_problem(capsys):
    grade = needs_two("08", ["TwoGpus.BothGpusRunTheirShare", "TwoGpus.WorkSplitEvenly"])
    found = catalogue_problems("s", ["TwoGpus.BothGpusRunTheirShare"], grade, "08")
    assert found == []
    assert catalogue_verdict(found, grade, "08") == "not checked here (not graded: needs two GPUs (this machine has 1))"
    assert catalogue_verdict(found, graded("05", {}), "05") == "ok"
    assert catalogue_verdict(["s: A.Named should fail and did not"], grade, "08") == "NOT AS EXPECTED"
    assert lab_problems("solutions", grade, want_full_points=True) == []
    assert "not graded: needs two GPUs" in capsys.readouterr().out
    # Other reasons for not grading a solution's lab stay problems.
    no_tracer = graded("08", {"TwoGpus.WorkSplitEvenly": NOT_GRADED})
    assert lab_problems("solutions", no_tracer, want_full_points=True) != []


def test_the_lab_08_sample_changes_run_split_only():
    files = student_files("solution")
    CATALOGUE["wrong-lab08-everything-on-one-gpu"][0](files)
    assert "const int gpus = job.gpus.empty() ? 0 : 1;" in files["labs/08-two-gpus/two_gpus.cu"]
