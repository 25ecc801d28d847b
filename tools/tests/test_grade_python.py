"""`course grade --python` without a GPU: a real batch of Python submissions (built module, sandbox, one
recording per lab, judged outside it) graded as the C++ labs are.

The batch builds the course's module once (a minute or two); it is skipped where cmake, nvcc or a Python
with nanobind is missing.
"""

from __future__ import annotations

import csv
import shutil
import subprocess

import pytest
from coursecli import environment
from coursecli.gradebook import load_grade, student_folder
from coursecli.lab_declaration import read_lab
from coursecli.scoring import FAILED, NO_GPU, NOT_GRADED
from coursecli.shell import ROOT
from coursecli.submissions import selected_labs

LAB = "01-null-stream"
STUDENT_FILE = "null_stream.py"


def module_can_be_built() -> bool:
    python = ROOT / ".venv" / "bin" / "python"
    probe = [str(python), "-m", "nanobind", "--cmake_dir"]
    return python.exists() and subprocess.run(probe, capture_output=True).returncode == 0


@pytest.mark.skipif(
    shutil.which("cmake") is None or environment.find_nvcc() is None or not module_can_be_built(),
    reason="needs cmake, nvcc and the course's .venv with nanobind to build the module",
)
@pytest.mark.builds
def test_a_batch_of_python_submissions(tmp_path, graded_course, grade_without_gpu):
    course, _ = graded_course
    solution = (ROOT / "solutions" / LAB / "python" / STUDENT_FILE).read_text()
    starter = (ROOT / "labs" / LAB / "python" / STUDENT_FILE).read_text()
    subs = tmp_path / "subs"
    for student, text in (("honest", solution), ("imports-os", "import os\n" + solution), ("starter", starter)):
        folder = subs / student / "labs" / LAB / "python"
        folder.mkdir(parents=True)
        (folder / STUDENT_FILE).write_text(text)
    (subs / "cpp-only" / LAB).mkdir(parents=True)
    (subs / "cpp-only" / LAB / "null_stream.cu").write_text("// the C++ lab, not the Python one\n")

    labs = selected_labs(["01"], course, python=True)
    assert [lab.source_path(name) for lab in labs for name in lab.files] == [(LAB, "python", STUDENT_FILE)]
    out = tmp_path / "out"
    assert grade_without_gpu(subs, out, python=True) == 0

    honest = load_grade(student_folder(out, "honest")).labs[0]
    assert honest.tests and not honest.problem
    assert all(t.status == NOT_GRADED and t.reason == NO_GPU for t in honest.tests)
    refused = load_grade(student_folder(out, "imports-os")).labs[0]
    assert "imports os" in refused.problem and all(t.status == FAILED for t in refused.tests)
    missing = load_grade(student_folder(out, "cpp-only")).labs[0]
    assert missing.problem == f"missing file(s): python/{STUDENT_FILE}"
    rows = {row["student"]: row for row in csv.DictReader((out / "gradebook.csv").open())}
    assert rows["honest"]["lab01"] == "" and rows["honest"]["not_graded"] == str(sum(t.points for t in honest.tests))
    assert rows["imports-os"]["lab01"] == "0" and "imports os" in rows["imports-os"]["notes"]
    # Without a GPU, what was checked tells the untouched starter from the solution.
    assert [(check["what"], check["problems"]) for check in honest.checks] == [
        (f"{STUDENT_FILE} differs from the starter", []),
        (f"{STUDENT_FILE} vetted: nothing graded code may not do", []),
    ]
    assert "imports os" in refused.checks[1]["problems"][0]
    assert "lab01: 2/2 checks without a GPU passed" in rows["honest"]["notes"]
    assert "lab01: 1/2 checks without a GPU passed" in rows["starter"]["notes"] and rows["starter"]["lab01"] == ""


@pytest.mark.skipif(
    shutil.which("cmake") is None or environment.find_nvcc() is None or not module_can_be_built(),
    reason="needs cmake, nvcc and the course's .venv with nanobind to build the module",
)
@pytest.mark.builds
def test_a_python_track_recorded_once_is_recorded_in_the_sandbox_and_judged_by_the_cpp_judges(
    tmp_path, graded_course, grade_without_gpu
):
    course, _ = graded_course
    lab = "05-three-chunks"
    folder = tmp_path / "subs" / "honest" / "labs" / lab / "python"
    folder.mkdir(parents=True)
    for name in ("three_chunks.py", "prediction.txt"):  # the track keeps its answer file in its own folder
        shutil.copy(ROOT / "solutions" / lab / "python" / name, folder / name)
    labs = selected_labs(["05"], course, python=True)
    assert [python_lab.answers for python_lab in labs] == [["prediction.txt"]]
    out = tmp_path / "out"
    assert grade_without_gpu(tmp_path / "subs", out, python=True, lab="05") == 0

    graded = load_grade(student_folder(out, "honest")).labs[0]
    judges = [test.name for test in read_lab(ROOT / "labs" / lab).cpp.tests if test.points]
    assert [test.name for test in graded.tests] == judges  # the C++ track's tests, with their points
    # The recording ran (in the sandbox) and found no GPU; its judges (outside) say so: not graded, never passed.
    assert all(test.status == NOT_GRADED and test.reason == NO_GPU for test in graded.tests), graded.tests


def test_a_grading_python_without_cuda_bindings_stops_the_batch_with_the_reason(tmp_path, monkeypatch):
    from coursecli import python_module

    python = tmp_path / "python3"
    python.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'cuda'\" >&2\nexit 1\n")
    python.chmod(0o755)
    monkeypatch.setattr(python_module, "module_python", lambda folder: str(python))
    found, problem = python_module.the_module_python(tmp_path)
    assert found is None and "No module named 'cuda'" in problem and "./course setup" in problem
