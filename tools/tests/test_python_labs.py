"""The Python labs' grading without a GPU: the pytest plugin's exit statuses, what
`course check` reads from pytest's output, and the lab declarations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from coursecli import results
from coursecli.lab_cmake import read_lab_cmake
from coursecli.python_grading import PYTEST_OPTIONS

ROOT = Path(__file__).resolve().parents[2]


def run_pytest(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    test_file = tmp_path / "test_sample.py"
    test_file.write_text("import pytest\n\n" + body)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", *PYTEST_OPTIONS, str(test_file)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )


def test_a_run_that_could_only_skip_is_ctests_not_run_with_the_reason(tmp_path):
    result = run_pytest(tmp_path, "@pytest.mark.points(2)\ndef test_x():\n    pytest.skip('no GPU: none here')\n")
    assert result.returncode == 77, result.stdout
    assert "SKIPPED: no GPU: none here" in result.stdout


def test_a_pass_and_a_failure_keep_pytests_statuses(tmp_path):
    assert run_pytest(tmp_path, "def test_x():\n    assert True\n").returncode == 0
    failed = run_pytest(tmp_path, "def test_x():\n    assert 1 == 2, 'the chunks are wrong'\n")
    assert failed.returncode == 1
    outcome = results.TestOutcome("lab05.python-yours.test_x", "failed", ["pts:2"], failed.stdout)
    assert "the chunks are wrong" in outcome.failure_reason()


def test_a_skip_next_to_a_failure_is_a_failure(tmp_path):
    body = "def test_a():\n    pytest.skip('why')\n\ndef test_b():\n    assert False\n"
    assert run_pytest(tmp_path, body).returncode == 1


def asking_module(tmp_path: Path) -> dict[str, str]:
    """An environment whose module `streamlab` says there is no GPU, and names whoever asked: the
    plugin's own check at the start of the run, or the test's require_gpu."""
    (tmp_path / "streamlab.py").write_text(
        "import types\n\n"
        "words = types.SimpleNamespace(SKIP_NO_GPU='no GPU: ')\n\n\n"
        "def gpu_presence():\n"
        "    import os\n\n"
        "    return False, 'asked with CUDA_LAUNCH_BLOCKING=' + os.environ.get('CUDA_LAUNCH_BLOCKING', '(not set)')\n"
    )
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "python")])}


def run_sample(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """pytest with the course's plugin on tmp_path/test_sample.py, as ctest runs a graded test."""
    command = [sys.executable, "-m", "pytest", *PYTEST_OPTIONS, "test_sample.py"]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)


def test_the_plugin_asks_for_the_gpu_before_a_test_runs(tmp_path):
    env = asking_module(tmp_path)
    (tmp_path / "test_sample.py").write_text("def test_x():\n    raise AssertionError('ran without a GPU')\n")
    result = run_sample(tmp_path, env)
    assert result.returncode == 77 and "SKIPPED: no GPU: asked with CUDA_LAUNCH_BLOCKING=(not set)" in result.stdout


def test_a_test_that_sets_cudas_environment_sets_it_before_anything_asks_for_the_gpu(tmp_path):
    # Asking starts CUDA, which reads CUDA_LAUNCH_BLOCKING then: the plugin leaves the question to the test.
    env = asking_module(tmp_path)
    (tmp_path / "test_sample.py").write_text(
        "import os\n\nimport pytest\nfrom streamlab_pytest import require_gpu\n\n\n"
        "@pytest.mark.sets_cuda_environment\n"
        "def test_x():\n"
        "    os.environ['CUDA_LAUNCH_BLOCKING'] = '1'\n"
        "    require_gpu()\n"
    )
    (tmp_path / "cuda" / "bindings").mkdir(parents=True)  # require_gpu's check that cuda-bindings is there
    for package in ("cuda", "cuda/bindings"):
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "cuda" / "bindings" / "runtime.py").write_text("")
    result = run_sample(tmp_path, env)
    assert result.returncode == 77, result.stdout
    assert "SKIPPED: no GPU: asked with CUDA_LAUNCH_BLOCKING=1" in result.stdout


def test_a_note_reads_as_the_cpp_tests_notes(tmp_path):
    build_python = ROOT / "build-ci" / "python"
    if not next(build_python.glob("streamlab*.so"), None):
        pytest.skip("the course's Python module is not built here (./course build --preset ci)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(build_python), str(ROOT / "python")])}
    (tmp_path / "test_sample.py").write_text(
        "from streamlab_pytest import report_note\n\n\n"
        "def test_x():\n"
        "    report_note('tripwire', 'planted in chunk 2 (0-based)')\n"
    )
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", *PYTEST_OPTIONS, "--junitxml=report.xml", "test_sample.py"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    outcome = results.TestOutcome("lab09.python-yours.test_x", "passed", ["pts:1"], ran.stdout)
    assert outcome.notes() == ["tripwire: planted in chunk 2 (0-based)"], ran.stdout


def test_the_points_marker_is_registered(tmp_path):
    body = "@pytest.mark.points(3)\ndef test_x():\n    pass\n"
    result = run_pytest(tmp_path, body)
    assert result.returncode == 0 and "PytestUnknownMarkWarning" not in result.stdout


PYTHON_LABS = sorted(path.parent.name for path in (ROOT / "labs").glob("*/python"))
# The Python tracks with pytest tests of their own; the others are recorded once and judged by the C++ judges.
TESTED_PYTHON_LABS = [
    lab for lab in PYTHON_LABS if not read_lab_cmake(ROOT / "labs" / lab / "lab.cmake").python_recorder
]
RECORDED_PYTHON_LABS = sorted(set(PYTHON_LABS) - set(TESTED_PYTHON_LABS))


@pytest.mark.parametrize("lab", PYTHON_LABS)
def test_the_cpp_labs_declaration_is_read_without_the_python_one(lab):
    sources = read_lab_cmake(ROOT / "labs" / lab / "lab.cmake").cpp.student_sources
    assert sources and all(name.endswith((".cu", ".cpp")) for name in sources)


def test_every_python_track_is_recorded_once_and_judged_by_the_cpp_judges():
    # No Python track has pytest tests of its own: each has a recording program and the C++ track's judges.
    assert RECORDED_PYTHON_LABS and not TESTED_PYTHON_LABS, f"graded by pytest files of their own: {TESTED_PYTHON_LABS}"


@pytest.mark.parametrize("lab", RECORDED_PYTHON_LABS)
def test_a_recorded_python_track_is_graded_by_the_cpp_tracks_tests_and_keeps_its_answer_files(lab):
    declared = read_lab_cmake(ROOT / "labs" / lab / "lab.cmake")
    assert declared.python.tests == declared.cpp.tests and declared.python.test_source == ""
    assert (ROOT / "labs" / lab / "python" / declared.python_recorder).is_file()
    assert not list((ROOT / "labs" / lab / "python").glob("test_lab*.py")), "its judges are the C++ track's"
    for name in declared.answer_files:
        assert (ROOT / "labs" / lab / "python" / name).is_file() and (
            ROOT / "solutions" / lab / "python" / name
        ).is_file()


@pytest.mark.parametrize("lab", PYTHON_LABS)
def test_each_python_starter_has_a_solution_with_the_same_functions(lab):
    for starter in (ROOT / "labs" / lab / "python").glob("*.py"):
        if starter.name.startswith("test_") or not (ROOT / "solutions" / lab / "python" / starter.name).exists():
            continue
        solution = (ROOT / "solutions" / lab / "python" / starter.name).read_text()
        compile(solution, starter.name, "exec")
        for line in starter.read_text().splitlines():
            if line.startswith("def "):
                assert line in solution, f"{lab}: the solution's {starter.name} lacks `{line}`"
        assert "TODO(lab" in starter.read_text() and "TODO(lab" not in solution


def test_the_lab_program_says_no_gpu_in_one_line(tmp_path):
    build_python = ROOT / "build-ci" / "python"
    if not next(build_python.glob("streamlab*.so"), None):
        pytest.skip("the course's Python module is not built here (./course build --preset ci)")
    lab = ROOT / "labs" / "05-three-chunks" / "python"
    path = [ROOT / "solutions" / "05-three-chunks" / "python", lab, build_python, ROOT / "python"]
    # PYTHONSAFEPATH: the program's own folder (the starter's) must not come before the solution's.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path)), "PYTHONSAFEPATH": "1"}
    result = subprocess.run(
        [sys.executable, str(lab / "run_lab05.py"), "--trace", str(tmp_path / "t.json")],
        capture_output=True,
        text=True,
        env=env,
    )
    if result.returncode == 0:
        pytest.skip("a GPU is here: the program ran")
    assert result.returncode == 1 and result.stderr.startswith("run_lab05.py: no GPU: "), result.stderr
    assert not (tmp_path / "t.json").exists()


def starter_beside_student(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A lab folder with a starter module and a test that names the module it imported,
    and a student folder with the student's module of the same name."""
    lab, student = tmp_path / "lab", tmp_path / "student"
    lab.mkdir(), student.mkdir()
    (lab / "work.py").write_text("WHOSE = 'starter'\n")
    (student / "work.py").write_text("WHOSE = 'student'\n")
    test_file = lab / "test_whose.py"
    test_file.write_text("import work\n\n\ndef test_whose():\n    assert work.WHOSE == 'student', work.__file__\n")
    return lab, student, test_file


def registered_python_test(name: str) -> dict:
    """ctest's own description of a registered test (command, working directory, environment)."""
    build = ROOT / "build-ci"
    listing = subprocess.run(
        ["ctest", "--test-dir", str(build), "--show-only=json-v1", "-R", f"^{name}$"], capture_output=True, text=True
    )
    tests = json.loads(listing.stdout)["tests"] if listing.returncode == 0 and listing.stdout else []
    tests = [test for test in tests if test["name"] == name]  # not the recording ctest adds as its fixture
    if not tests:
        pytest.skip(f"{name} is not registered here (./course build --preset ci with the Python module)")
    return tests[0]


def test_python_selfgrade_imports_the_students_module_not_the_starter(tmp_path, monkeypatch):
    from selfgrading import python_selfgrade

    lab, student, test_file = starter_beside_student(tmp_path)
    monkeypatch.setattr(python_selfgrade, "ROOT", tmp_path / "root")
    (tmp_path / "root" / "labs" / "01-sample").mkdir(parents=True)
    (tmp_path / "root" / "labs" / "01-sample" / "python").symlink_to(lab)
    (tmp_path / "root" / "python").symlink_to(ROOT / "python")  # the course's pytest plugin
    (lab / "test_lab01.py").write_text(test_file.read_text())
    outcomes, ended = python_selfgrade.run_tests("01-sample", student, ROOT / "build-ci", tmp_path / "report.xml")
    assert outcomes == {"test_whose": "passed"} and ended == ""


def test_the_python_the_module_was_built_for_is_read_from_the_cache(tmp_path):
    from coursecli.labs import module_python

    (tmp_path / "python").mkdir()
    (tmp_path / "CMakeCache.txt").write_text(
        "_Python_EXECUTABLE:INTERNAL=/wrong\nSTREAMLAB_MODULE_PYTHON:INTERNAL=/x/python3\n"
    )
    assert module_python(tmp_path) is None  # the module not built
    (tmp_path / "python" / "streamlab.cpython-312-x86_64-linux-gnu.so").write_bytes(b"")
    assert module_python(tmp_path) == "/x/python3"
    built = ROOT / "build-ci"
    if next((built / "python").glob("streamlab*.so"), None):
        assert module_python(built) and Path(module_python(built)).exists()


def registered_environment(name: str) -> dict[str, str]:
    registered = registered_python_test(name)
    return dict(
        entry.split("=", 1) for p in registered["properties"] if p["name"] == "ENVIRONMENT" for entry in p["value"]
    )


@pytest.mark.parametrize("name", [f"lab{lab[:2]}.python-yours.record" for lab in RECORDED_PYTHON_LABS])
def test_ctests_python_tests_find_the_module_then_the_courses_helpers(name):
    environment = registered_environment(name)
    path = environment["PYTHONPATH"].split(":")
    assert path[-2:] == [str(ROOT / "build-ci" / "python"), str(ROOT / "python")]
    assert not any("without_headers" in entry for entry in path)
    assert "STREAMLAB_C_LIBRARY" not in environment


@pytest.mark.parametrize("lab", RECORDED_PYTHON_LABS)
def test_a_recorded_python_tracks_judges_read_its_record_and_its_answer_files(lab):
    declared = read_lab_cmake(ROOT / "labs" / lab / "lab.cmake")
    number = lab[:2]
    recording = registered_python_test(f"lab{number}.python-solution.record")
    assert recording["command"][-1] == str(ROOT / "labs" / lab / "python" / declared.python_recorder)
    for judge in declared.cpp.tests:
        environment = registered_environment(f"lab{number}.python-solution.{judge.name}")
        assert environment["STREAMLAB_RECORD"].endswith(f"lab{number}.python-solution.record.jsonl")
        assert environment["STREAMLAB_ANSWER_DIR"] == str(ROOT / "solutions" / lab / "python")


def test_without_a_gpu_a_lab_test_ends_before_it_runs(tmp_path):
    """ctest's run of a Python lab test: no GPU (hidden here) ends it once the tests are collected,
    with require_gpu's reason, before any test runs (and imports cuda-bindings, numpy: the lab test
    files import them inside their tests). A run that writes a JUnit report (the grader's) still runs
    and reports each test."""
    build_python = ROOT / "build-ci" / "python"
    if not next(build_python.glob("streamlab*.so"), None):
        pytest.skip("the course's Python module is not built here (./course build --preset ci)")
    test_file = tmp_path / "test_sample.py"
    test_file.write_text("def test_x():\n    raise AssertionError('the test ran')\n")
    env = {**os.environ, "PYTHONPATH": f"{build_python}{os.pathsep}{ROOT / 'python'}", "CUDA_VISIBLE_DEVICES": ""}
    command = [sys.executable, "-m", "pytest", *PYTEST_OPTIONS, str(test_file)]
    ended = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert ended.returncode == 77 and "SKIPPED: no GPU: " in ended.stdout, ended.stdout + ended.stderr
    assert "the test ran" not in ended.stdout + ended.stderr
    report = subprocess.run(
        [*command, f"--junitxml={tmp_path / 'report.xml'}"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert "the test ran" in report.stdout + report.stderr
