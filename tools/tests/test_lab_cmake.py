"""The one reader of lab.cmake: what the course's labs declare, and a clear error for a malformed file."""

from __future__ import annotations

from pathlib import Path

import pytest
from coursecli.lab_cmake import (
    CPP_LAB,
    PYTHON_LAB,
    GradedTest,
    LabCmakeError,
    declared_keywords,
    declared_labs,
    read_lab_cmake,
)
from coursecli.shell import COURSE_ERROR

ROOT = Path(__file__).resolve().parents[2]
LAB = """# a comment: SANITIZE_POINTS 9 here is not read
streamlab_add_lab(
  NUMBER 09
  TOPIC demo
  STUDENT_SOURCES work.cu more.cu  # two files
  ANSWER_FILES prediction.txt
  PROGRAM run.cu
  TEST_SOURCE t.cu
  RECORDER record.cpp
  TESTS
    A.B gpu 2
    A.C cpu 0
)

streamlab_add_python_lab(
  NUMBER 09
  TOPIC demo
  STUDENT_SOURCES work.py
  RECORDER record_lab09.py
)

# Other CMake a lab adds is not the reader's business.
add_executable(lab09_extra "${CMAKE_CURRENT_LIST_DIR}/extra.cpp")
"""


def lab_cmake(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "lab.cmake"
    path.write_text(text)
    return path


def test_a_lab_and_its_python_version(tmp_path):
    declared = read_lab_cmake(lab_cmake(tmp_path, LAB))
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
    text = LAB.replace(
        "PROGRAM run.cu", "PROGRAM run.cu GPUS 2 SANITIZE_POINTS 4 ALLOW_SYMBOLS memcpy memset ALLOW_ASM"
    )
    declared = read_lab_cmake(lab_cmake(tmp_path, text.split("streamlab_add_python_lab")[0]))
    assert (declared.gpus, declared.sanitize_points) == (2, 4)
    assert declared.allow_symbols == ("memcpy", "memset") and declared.allow_asm
    assert declared.python is None


def test_the_keywords_are_those_cmake_parses():
    options, single, multi = declared_keywords(CPP_LAB)
    assert "ALLOW_ASM" in options and {"NUMBER", "GPUS", "SANITIZE_POINTS"} <= single
    assert {"STUDENT_SOURCES", "TESTS", "ALLOW_SYMBOLS", "CPU_TEST"} <= multi
    assert "STUDENT_SOURCES" in declared_keywords(PYTHON_LAB)[2] and "RECORDER" in declared_keywords(PYTHON_LAB)[1]


def test_every_lab_of_the_course():
    labs = {folder.name: declared for folder, declared in declared_labs(ROOT)}
    assert all(declared.cpp.number == name[:2] for name, declared in labs.items())
    first = labs["01-null-stream"]
    assert first.cpp.student_sources == ("null_stream.cu",) and first.answer_files == ("prediction.txt",)
    assert first.python is not None and first.python.student_sources == ("null_stream.py",)
    assert labs["08-two-gpus"].gpus == 2 and labs["08-two-gpus"].python is None
    assert labs["07-dependencies-and-graphs"].gpus == 1


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("A.C cpu 0", "A.C cpu"), "TESTS must be triples"),
        (("A.C cpu 0", "A.C maybe 0"), "TESTS: A.C maybe 0 is not 'Name gpu|cpu points'"),
        (("A.C cpu 0", "A.C cpu many"), "TESTS: A.C cpu many"),
        (
            ("STUDENT_SOURCES work.cu more.cu", "STUDENT_SOURCE work.cu"),
            "TOPIC takes one value, not 3 (demo STUDENT_SOURCE work.cu)",
        ),
        (("  STUDENT_SOURCES work.cu more.cu  # two files\n", ""), "streamlab_add_lab: no STUDENT_SOURCES"),
        (("PROGRAM run.cu", "PROGRAM run.cu other.cu"), "PROGRAM takes one value, not 2 (run.cu other.cu)"),
        (("PROGRAM run.cu", "PROGRAM run.cu GPUS 9"), "GPUS must be a whole number from 1 to 8, not '9'"),
        (("PROGRAM run.cu", "PROGRAM run.cu GPUS many"), "GPUS must be a whole number"),
        (("PROGRAM run.cu", "PROGRAM run.cu ALLOW_ASM yes"), "'yes' follows no keyword that takes values"),
        (("NUMBER 09\n  TOPIC", "NUMBER 9\n  TOPIC"), "NUMBER must be two digits"),
        (("TOPIC demo\n  STUDENT_SOURCES work.cu", "TOPIC demo\n  TOPIC again\n  STUDENT_SOURCES work.cu"), "twice"),
        (("    A.C cpu 0\n)", "    A.C cpu 0\n"), "streamlab_add_lab( is never closed"),
        (("streamlab_add_python_lab(", "streamlab_add_lab("), "must call streamlab_add_lab(...) once, not 2 times"),
        (("streamlab_add_lab(", "streamlab_add_labs("), "must call streamlab_add_lab(...) once, not 0 times"),
        (("  RECORDER record_lab09.py\n", ""), "streamlab_add_python_lab: no RECORDER"),
        (
            ("RECORDER record_lab09.py", "RECORDER record_lab09.py TEST_SOURCE test_lab09.py TESTS test_b gpu 3"),
            "streamlab_add_python_lab: no TEST_SOURCE, TESTS: a Python track has no tests of its own",
        ),
        (("  RECORDER record.cpp\n", ""), "streamlab_add_lab: no RECORDER"),
        (
            (
                "NUMBER 09\n  TOPIC demo\n  STUDENT_SOURCES work.py",
                "NUMBER 08\n  TOPIC demo\n  STUDENT_SOURCES work.py",
            ),
            "NUMBER 08 is not the C++ lab's 09",
        ),
    ],
)
def test_a_malformed_lab_cmake_is_named_with_what_is_wrong(tmp_path, change, said):
    old, new = change
    assert old in LAB
    path = lab_cmake(tmp_path, LAB.replace(old, new, 1))
    with pytest.raises(LabCmakeError) as error:
        read_lab_cmake(path)
    assert str(error.value).startswith(f"{path}: ") and said in str(error.value)
    assert "\n" not in str(error.value)


def test_a_missing_lab_cmake_is_said_in_one_line(tmp_path):
    with pytest.raises(LabCmakeError, match=r"lab.cmake: cannot be read \(No such file or directory\)$"):
        read_lab_cmake(tmp_path / "lab.cmake")


def test_the_course_command_says_a_malformed_lab_cmake_in_one_line(tmp_path, monkeypatch, capsys):
    from coursecli import labs, main

    broken = tmp_path / "labs" / "09-demo"
    broken.mkdir(parents=True)
    lab_cmake(broken, LAB.replace("A.C cpu 0", "A.C cpu"))
    monkeypatch.setattr(labs, "ROOT", tmp_path)
    assert main.main(["list"]) == COURSE_ERROR
    said = f"course: {broken / 'lab.cmake'}: streamlab_add_lab: TESTS must be triples 'Name gpu|cpu points'"
    assert said in capsys.readouterr().out
