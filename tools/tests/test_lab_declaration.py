"""The one reader of lab.json: what the course's labs declare, held to common/lab.schema.json, with a clear
error for a malformed file."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from coursecli.lab_declaration import (
    LAB_FILE,
    GradedTest,
    LabDeclaration,
    LabDeclarationError,
    declared_labs,
    lab_schema,
    read_lab,
)
from coursecli.shell import COURSE_ERROR

ROOT = Path(__file__).resolve().parents[2]
LAB = {
    "$schema": "../../common/lab.schema.json",
    "about": ["Not read: only for whoever reads the file."],
    "student_sources": ["work.cu", "more.cu"],
    "answer_files": ["prediction.txt"],
    "program": "run.cu",
    "test_source": "t.cu",
    "recorder": "record.cpp",
    "tests": [
        {"name": "A.B", "device": "gpu", "points": 2},
        {"name": "A.C", "device": "cpu", "points": 0, "about": "an observation"},
    ],
    "python": {"student_sources": ["work.py"], "recorder": "record_lab09.py"},
}


def lab_folder(tmp_path: Path, declared: dict | str, name: str = "09-demo") -> Path:
    folder = tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / LAB_FILE).write_text(declared if isinstance(declared, str) else json.dumps(declared))
    return folder


def test_a_lab_and_its_python_version(tmp_path):
    declared = read_lab(lab_folder(tmp_path, LAB))
    assert (declared.cpp.number, declared.cpp.topic, declared.program) == ("09", "demo", "run.cu")
    assert declared.cpp.student_sources == ("work.cu", "more.cu")
    assert declared.answer_files == ("prediction.txt",)
    assert declared.cpp.tests == (GradedTest("A.B", True, 2), GradedTest("A.C", False, 0))
    assert declared.cpp.points == 2
    assert declared.python is not None and declared.python.student_sources == ("work.py",)
    # Recorded once and graded by the C++ track's judges: their tests and points.
    assert declared.python_recorder == "record_lab09.py" and declared.recorder == "record.cpp"
    assert declared.python.tests == declared.cpp.tests and declared.python.points == 2
    assert (declared.gpus, declared.sanitize_points, declared.allow_symbols, declared.allow_asm) == (1, 0, (), False)


def test_the_optional_settings(tmp_path):
    settings = {"gpus": 2, "sanitize_points": 4, "allow_symbols": ["memcpy", "memset"], "allow_asm": True}
    lab = {key: value for key, value in LAB.items() if key != "python"} | settings
    declared = read_lab(lab_folder(tmp_path, lab))
    assert (declared.gpus, declared.sanitize_points) == (2, 4)
    assert declared.allow_symbols == ("memcpy", "memset") and declared.allow_asm
    assert declared.python is None and declared.python_recorder == "" and declared.python_bindings == ()


def test_what_a_lab_leaves_out_is_the_schemas_default(tmp_path):
    required = {key: LAB[key] for key in lab_schema()["required"]}
    declared = read_lab(lab_folder(tmp_path, required))
    defaults = {key: rules["default"] for key, rules in lab_schema()["properties"].items() if "default" in rules}
    assert defaults["drawn_scenario"] == declared.drawn_scenario == "pipeline"
    assert (declared.gpus, declared.sanitize_points, declared.allow_asm) == (
        defaults["gpus"],
        defaults["sanitize_points"],
        defaults["allow_asm"],
    )
    assert declared.answer_files == tuple(defaults["answer_files"])


def test_every_key_of_the_schema_is_read_by_cmake_or_the_tools():
    read_by_the_tools = set(LabDeclaration.__dataclass_fields__) | {"student_sources", "test_source", "tests", "python"}
    only_cmake = {"judge_sources", "course_sources", "course_libraries", "cpu_test", "timeout", "simulated_kernels"}
    assert set(lab_schema()["properties"]) - read_by_the_tools == only_cmake | {"$schema", "about"}
    cmake = (ROOT / "cmake" / "StreamLab.cmake").read_text()
    assert all(re.search(rf"\b{key}\b", cmake) for key in only_cmake)


def test_every_lab_of_the_course():
    labs = {folder.name: declared for folder, declared in declared_labs(ROOT)}
    assert len(labs) == 9 and all(declared.cpp.number == name[:2] for name, declared in labs.items())
    first = labs["01-null-stream"]
    assert first.cpp.student_sources == ("null_stream.cu",) and first.answer_files == ("prediction.txt",)
    assert first.python is not None and first.python.student_sources == ("null_stream.py",)
    assert first.drawn_scenario == "serial" and labs["05-three-chunks"].drawn_scenario == "pipeline"
    assert labs["08-two-gpus"].gpus == 2 and labs["08-two-gpus"].python is None
    assert labs["07-dependencies-and-graphs"].gpus == 1


def changed(path: str, value: object) -> dict:
    """LAB with the value at `path` ("tests.1.points", "python.recorder") replaced, or removed where
    `value` is None."""
    lab = copy.deepcopy(LAB)
    *parents, last = path.split(".")
    holder = lab
    for key in parents:
        holder = holder[int(key)] if isinstance(holder, list) else holder[key]
    if value is None:
        del holder[last]
    else:
        holder[int(last) if isinstance(holder, list) else last] = value
    return lab


@pytest.mark.parametrize(
    ("lab", "said"),
    [
        (changed("tests.1.points", None), "tests[1]: no points"),
        (changed("tests.1.device", "maybe"), 'tests[1].device must be one of "gpu", "cpu", not "maybe"'),
        (changed("tests.1.points", "many"), 'tests[1].points must be an integer, not "many"'),
        (changed("tests.1.points", True), "tests[1].points must be an integer, not true"),
        (changed("tests.1.name", "AC"), "tests[1].name must match"),
        (changed("tests", []), "tests must list at least 1"),
        (changed("student_sources", None), "no student_sources"),
        (changed("student_sources", "work.cu"), 'student_sources must be an array, not "work.cu"'),
        (changed("student_sources", ["src/work.cu"]), "student_sources[0] must match"),
        (changed("program", ["run.cu", "other.cu"]), "program must be a string"),
        (changed("gpus", 9), "gpus must be from 1 to 8, not 9"),
        (changed("gpus", "many"), 'gpus must be an integer, not "many"'),
        (changed("allow_asm", "yes"), 'allow_asm must be a boolean, not "yes"'),
        (changed("number", "09"), "no key 'number' here"),
        (changed("recorder", None), "no recorder"),
        (changed("python.recorder", None), "python: no recorder"),
        # A Python track has no tests of its own: the C++ track's judges grade the record its recorder writes.
        (changed("python.tests", LAB["tests"]), "python: no key 'tests' here (its keys: about, student_sources"),
        ("[1, 2]", "the file must be an object, not [1, 2]"),
        ('{"program": "run.cu",}', "Expecting property name enclosed in double quotes: line 1 column 22"),
    ],
)
def test_a_malformed_lab_json_is_named_with_what_is_wrong(tmp_path, lab, said):
    folder = lab_folder(tmp_path, lab)
    with pytest.raises(LabDeclarationError) as error:
        read_lab(folder)
    assert str(error.value).startswith(f"{folder / LAB_FILE}: ") and said in str(error.value)
    assert "\n" not in str(error.value)


def test_a_lab_folder_is_named_nn_topic(tmp_path):
    with pytest.raises(
        LabDeclarationError, match=r"its folder's name must be NN-topic \(05-three-chunks\), not '9-demo'"
    ):
        read_lab(lab_folder(tmp_path, LAB, name="9-demo"))


def test_a_missing_lab_json_is_said_in_one_line(tmp_path):
    with pytest.raises(LabDeclarationError, match=r"lab.json: cannot be read \(No such file or directory\)$"):
        read_lab(tmp_path / "09-demo")


def test_the_course_command_says_a_malformed_lab_json_in_one_line(tmp_path, monkeypatch, capsys):
    from coursecli import labs, main

    broken = lab_folder(tmp_path / "labs", changed("tests.1.points", None))
    monkeypatch.setattr(labs, "ROOT", tmp_path)
    assert main.main(["list"]) == COURSE_ERROR
    assert f"course: {broken / LAB_FILE}: tests[1]: no points" in capsys.readouterr().out
