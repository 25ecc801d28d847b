"""The Python labs' self-grading without a GPU: its catalogue still fits the solutions, its rules judge
outcomes as they should, and without a GPU it says so and exits 77."""

import sys

import pytest
from coursecli.lab_cmake import read_lab_cmake
from coursecli.pycheck import check_python_source, lab_rules
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
    declared = read_lab_cmake(ROOT / "labs" / mistake.lab / "lab.cmake")
    if declared.python_recorder:  # graded by the C++ track's judges
        assert mistake.must_fail <= {test.name for test in declared.python.tests}
    else:
        tests = (ROOT / "labs" / mistake.lab / "python" / f"test_lab{mistake.lab[:2]}.py").read_text()
        assert all(f"def {name}(" in tests for name in mistake.must_fail)


def test_the_rules():
    outcomes = {"test_a": "passed", "test_b": "failed"}
    assert judge("x", outcomes, frozenset({"test_b"})) == ""
    assert "must fail" in judge("x", outcomes, frozenset({"test_a"}))
    assert judge("x", {"test_a": "passed"}, frozenset()) == ""
    assert judge("x", outcomes, None) == ""  # a starter fails something
    assert "failed no test" in judge("x", {"test_a": "passed"}, None)
    assert "not graded" in judge("x", {"test_a": "skipped"}, frozenset())


def test_without_the_module_it_says_to_build_it(capsys, tmp_path):
    assert selfgrade.main(["--build", str(tmp_path)]) == selfgrade.COURSE_ERROR
    assert capsys.readouterr().out.startswith("python_selfgrade: the course's Python module is not built in")


def test_a_pytest_that_died_says_how_and_where():
    # What Python's fault handler prints when a test process crashes, as one did on the H200.
    output = (
        "..Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f06df88c140 (most recent call first):\n"
        '  File "/course/labs/09-why-streams-serialize/python/test_lab09.py", line 189 in test_copies_overlap\n'
        '  File "/venv/lib/python3.12/site-packages/_pytest/python.py", line 167 in pytest_pyfunc_call\n'
        "\nExtension modules: numpy (total: 1)\n"
    )
    said = selfgrade.how_pytest_ended(-11, output)
    assert said.startswith("pytest killed by signal 11 in test_copies_overlap (test_lab09.py:189)")
    assert said.endswith("; Fatal Python error: Segmentation fault")
    assert selfgrade.how_pytest_ended(4, "ERROR: file not found: x.py\n") == (
        "pytest exit status 4; its last line: ERROR: file not found: x.py"
    )


def test_without_a_gpu_it_skips_asking_the_driver_not_the_module(capsys, tmp_path, monkeypatch):
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "streamlab.cpython-312-x86_64-linux-gnu.so").write_bytes(b"")  # loading it would fail
    (tmp_path / "CMakeCache.txt").write_text("STREAMLAB_MODULE_PYTHON:INTERNAL=/x/python3\n")
    monkeypatch.setattr(selfgrade, "gpu_presence", lambda: (False, "no GPU: the driver sees no CUDA device"))
    path = list(sys.path)
    assert selfgrade.main(["--build", str(tmp_path)]) == selfgrade.SKIP
    assert capsys.readouterr().out.endswith("SKIPPED: no GPU: the driver sees no CUDA device\n")
    assert sys.path == path  # the built module is each test process's, never this one's


def test_a_test_skipped_beside_others_runs_again_alone(tmp_path, monkeypatch):
    # Lab 09's tripwire tests skip where other tests share their process, as the C++ ones do.
    lab = tmp_path / "labs" / "99-sample" / "python"
    lab.mkdir(parents=True)
    (lab / "test_lab99.py").write_text(
        "import pytest\n\n\ndef test_a():\n    pass\n\n\n"
        "def test_alone(request):\n"
        "    if len(request.session.items) > 1:\n"
        "        pytest.skip('run it alone')\n"
        "    assert False, 'ran alone'\n"
    )
    monkeypatch.setattr(selfgrade, "ROOT", tmp_path)
    monkeypatch.setattr(selfgrade, "python_path", lambda root, build: [ROOT / "python"])
    outcomes, ended = selfgrade.run_tests("99-sample", tmp_path, tmp_path, tmp_path / "report.xml")
    assert (outcomes, ended) == ({"test_a": "passed", "test_alone": "failed"}, "")
