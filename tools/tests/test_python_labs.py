"""The Python labs' declarations and their ctest registration, without a GPU: every Python track is
recorded once and graded by the C++ track's judges."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from coursecli import environment
from coursecli.build import NO_COURSE_BUILD, build_under_test
from coursecli.lab_declaration import read_lab

ROOT = Path(__file__).resolve().parents[2]


PYTHON_LABS = sorted(path.parent.name for path in (ROOT / "labs").glob("*/python"))


@pytest.mark.parametrize("lab", PYTHON_LABS)
def test_the_cpp_labs_declaration_is_read_without_the_python_one(lab):
    sources = read_lab(ROOT / "labs" / lab).cpp.student_sources
    assert sources and all(name.endswith((".cu", ".cpp")) for name in sources)


def test_every_python_track_is_recorded_once_and_judged_by_the_cpp_judges():
    # A Python track has no tests of its own: a recording program, and the C++ track's judges.
    assert PYTHON_LABS
    assert all(read_lab(ROOT / "labs" / lab).python_recorder for lab in PYTHON_LABS)


@pytest.mark.parametrize("lab", PYTHON_LABS)
def test_a_recorded_python_track_is_graded_by_the_cpp_tracks_tests_and_keeps_its_answer_files(lab):
    declared = read_lab(ROOT / "labs" / lab)
    assert declared.python.tests == declared.cpp.tests
    assert (ROOT / "labs" / lab / "python" / declared.python_recorder).is_file()
    assert not list((ROOT / "labs" / lab / "python").glob("test_lab*.py")), "its judges are the C++ track's"
    for name in declared.answer_files:
        assert (ROOT / "labs" / lab / "python" / name).is_file() and (
            ROOT / "solutions" / lab / "python" / name
        ).is_file()


@pytest.mark.parametrize("lab", PYTHON_LABS)
def test_each_python_starter_has_a_solution_with_the_same_functions(lab):
    for starter in (ROOT / "labs" / lab / "python").glob("*.py"):
        if not (ROOT / "solutions" / lab / "python" / starter.name).exists():
            continue
        solution = (ROOT / "solutions" / lab / "python" / starter.name).read_text()
        compile(solution, starter.name, "exec")
        for line in starter.read_text().splitlines():
            if line.startswith("def "):
                assert line in solution, f"{lab}: the solution's {starter.name} lacks `{line}`"
        assert "TODO(lab" in starter.read_text() and "TODO(lab" not in solution


def test_the_lab_program_says_no_gpu_in_one_line(tmp_path, course_build):
    build_python = course_build / "python"
    if not next(build_python.glob("streamlab*.so"), None):
        pytest.skip(f"the course's Python module is not built in {course_build}")
    lab = ROOT / "labs" / "05-three-chunks" / "python"
    solution = ROOT / "solutions" / "05-three-chunks" / "python"
    # As the course runs it: the program's own folder (the starter's) must not come before the solution's.
    env = {**os.environ, **environment.python_lab_environment(solution, lab, ROOT, course_build)}
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


def registered_python_test(name: str) -> dict:
    """ctest's own description of a registered test (command, working directory, environment), in the build
    `course test` made."""
    build = build_under_test()
    if build is None:
        pytest.skip(NO_COURSE_BUILD)
    listing = subprocess.run(
        ["ctest", "--test-dir", str(build), "--show-only=json-v1", "-R", f"^{name}$"], capture_output=True, text=True
    )
    tests = json.loads(listing.stdout)["tests"] if listing.returncode == 0 and listing.stdout else []
    tests = [test for test in tests if test["name"] == name]  # not the recording ctest adds as its fixture
    if not tests:
        pytest.skip(f"{name} is not registered in {build} (built without the Python module)")
    return tests[0]


def test_the_python_the_module_was_built_for_is_read_from_the_cache(tmp_path):
    from coursecli.labs import module_python

    (tmp_path / "python").mkdir()
    (tmp_path / "CMakeCache.txt").write_text(
        "_Python_EXECUTABLE:INTERNAL=/wrong\nSTREAMLAB_MODULE_PYTHON:INTERNAL=/x/python3\n"
    )
    assert module_python(tmp_path) is None  # the module not built
    (tmp_path / "python" / "streamlab.cpython-312-x86_64-linux-gnu.so").write_bytes(b"")
    assert module_python(tmp_path) == "/x/python3"
    built = build_under_test()
    if built and next((built / "python").glob("streamlab*.so"), None):
        assert module_python(built) and Path(module_python(built)).exists()


def registered_environment(name: str) -> dict[str, str]:
    registered = registered_python_test(name)
    return dict(
        entry.split("=", 1) for p in registered["properties"] if p["name"] == "ENVIRONMENT" for entry in p["value"]
    )


@pytest.mark.parametrize("name", [f"lab{lab[:2]}.python-yours.record" for lab in PYTHON_LABS])
def test_ctests_python_tests_find_the_module_then_the_courses_helpers(name, course_build):
    registered = registered_environment(name)
    path = environment.import_path_folders(registered)
    assert path[-2:] == [str(course_build / "python"), str(ROOT / "python")]
    assert not any("without_headers" in entry for entry in path)
    assert "STREAMLAB_C_LIBRARY" not in registered


@pytest.mark.parametrize("lab", PYTHON_LABS)
def test_a_recorded_python_tracks_judges_read_its_record_and_its_answer_files(lab):
    declared = read_lab(ROOT / "labs" / lab)
    number = lab[:2]
    recording = registered_python_test(f"lab{number}.python-solution.record")
    assert recording["command"][-1] == str(ROOT / "labs" / lab / "python" / declared.python_recorder)
    for judge in declared.cpp.tests:
        registered = registered_environment(f"lab{number}.python-solution.{judge.name}")
        assert registered["STREAMLAB_RECORD"].endswith(f"lab{number}.python-solution.record.jsonl")
        assert registered["STREAMLAB_ANSWER_DIR"] == str(ROOT / "solutions" / lab / "python")
