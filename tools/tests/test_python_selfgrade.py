"""The Python labs' self-grading without a GPU: its catalogue still fits the solutions, its rules judge
outcomes as they should, and without a GPU it says so and exits 77."""

import sys

import pytest
from coursecli.course_build import CourseBuild
from coursecli.grade_settings import GradeSettings
from coursecli.lab_declaration import read_lab
from coursecli.pycheck import check_python_source, lab_rules
from coursecli.results import read_labels
from coursecli.scoring import NOT_GRADED, PASSED, graded_tests
from coursecli.submissions import selected_labs
from selfgrading import python_selfgrade as selfgrade
from selfgrading.python_selfgrade import PYTHON_CATALOGUE, ROOT, judge


@pytest.mark.parametrize("sample", sorted(PYTHON_CATALOGUE))
def test_every_mistake_replaces_a_line_the_solution_has(sample):
    mistake = PYTHON_CATALOGUE[sample]
    solution = (ROOT / "solutions" / mistake.lab / "python" / mistake.file).read_text()
    assert mistake.old in solution
    changed = solution.replace(mistake.old, mistake.new, 1)
    compile(changed, mistake.file, "exec")
    # A sample is graded by its tests, never stopped by the source check (which would score it 0).
    assert check_python_source(mistake.file, changed, lab_rules(mistake.lab[:2])) == []
    # Graded by the C++ track's judges: the names are theirs.
    declared = read_lab(ROOT / "labs" / mistake.lab)
    assert mistake.must_fail <= {test.name for test in declared.python.tests}


def test_the_rules():
    outcomes = {"test_a": "passed", "test_b": "failed"}
    assert judge("x", outcomes, frozenset({"test_b"})) == ""
    assert "must fail" in judge("x", outcomes, frozenset({"test_a"}))
    assert judge("x", {"test_a": "passed"}, frozenset()) == ""
    assert judge("x", outcomes, None) == ""  # a starter fails something
    assert "failed no test" in judge("x", {"test_a": "passed"}, None)
    assert "not graded" in judge("x", {"test_a": NOT_GRADED}, frozenset())


def test_a_variant_is_recorded_and_judged_as_the_batch_grades_it(course_build, tmp_path):
    """Without a GPU (and, in this build, without the module) the recording runs all the same, and every
    graded test of the lab's Python track is judged from its record: none passes, none is left out."""
    lab = selected_labs(["01"], python=True)[0]
    settings = GradeSettings(
        tmp_path, [], [], 120, course_labels=read_labels(course_build), module_python=sys.executable
    )
    settings.course_build = CourseBuild(course_build)
    outcomes, ended = selfgrade.grade_variant(lab, ROOT / "solutions" / lab.folder / "python", settings, tmp_path / "r")
    assert ended == ""
    assert list(outcomes) == [test.name for test in graded_tests(settings.course_labels, "01", "python-yours")]
    assert outcomes and PASSED not in outcomes.values()


def test_without_the_module_it_says_to_build_it(capsys, tmp_path):
    assert selfgrade.main(["--build", str(tmp_path)]) == selfgrade.COURSE_ERROR
    assert capsys.readouterr().out.startswith("python_selfgrade: the course's Python module is not built in")


def test_without_a_gpu_it_skips_asking_the_driver_not_the_module(capsys, tmp_path, monkeypatch):
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "streamlab.cpython-312-x86_64-linux-gnu.so").write_bytes(b"")  # loading it would fail
    (tmp_path / "CMakeCache.txt").write_text("STREAMLAB_MODULE_PYTHON:INTERNAL=/x/python3\n")
    monkeypatch.setattr(selfgrade, "gpu_presence", lambda: (False, "no GPU: the driver sees no CUDA device"))
    path = list(sys.path)
    assert selfgrade.main(["--build", str(tmp_path)]) == selfgrade.SKIP
    assert capsys.readouterr().out.endswith("SKIPPED: no GPU: the driver sees no CUDA device\n")
    assert sys.path == path  # the built module is each test process's, never this one's
