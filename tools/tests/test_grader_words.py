"""The words the grader trusts are stated once, in common/grader_words.json: the Python reader
finds every one and refuses a file that breaks its format, CMake writes the C++ header from it and
the module offers the same words, scoring and `course check` use what it read, and no other source
spells them."""

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from coursecli import environment, grader_words, labs, results, scoring
from coursecli.grader_words import NEEDED, WORDS_FILE, GraderWordsError, grader_skips, read_words
from coursecli.judging import Judged
from coursecli.results import GtestReport

ROOT = Path(__file__).resolve().parents[2]


def _stated_words() -> list[dict]:
    return json.loads(WORDS_FILE.read_text())["words"]


def test_the_reader_finds_every_word_of_the_file():
    words = read_words()
    assert list(words) == [grader_words.python_name(word["name"]) for word in _stated_words()]
    assert set(NEEDED) <= set(words)
    assert words["SKIP_NO_GPU"] == "no GPU: " and words["LINE_MEASURE"] == "STREAMLAB-MEASURE "
    assert grader_words.python_name("kSkipTimelineUnavailable") == "SKIP_TIMELINE_UNAVAILABLE"


def _write_words(path: Path, words: list[dict]) -> Path:
    path.write_text(json.dumps({"words": words}))
    return path


def test_a_missing_word_stops_the_reader(tmp_path):
    kept = [word for word in _stated_words() if word["name"] != "kKeyNote"]
    with pytest.raises(GraderWordsError, match="states no KEY_NOTE"):
        read_words(_write_words(tmp_path / "grader_words.json", kept))


@pytest.mark.parametrize(
    "broken",
    [
        {"name": "LineNote", "text": "STREAMLAB-NOTE "},
        {"name": "kLineNote", "text": 'STREAMLAB-"NOTE '},
        {"name": "kLineNote", "text": "STREAMLAB-\\NOTE "},
        {"name": "kLineNote"},
    ],
)
def test_a_word_out_of_format_stops_the_reader(tmp_path, broken):
    words = [broken if word["name"] == "kLineNote" else word for word in _stated_words()]
    with pytest.raises(GraderWordsError, match=r"grader_words.json: word \d+ is not "):
        read_words(_write_words(tmp_path / "grader_words.json", words))


def test_cmake_writes_the_header_from_the_file(course_build):
    """The C++ constants are the file's words, under its names (the header CMake wrote when it configured)."""
    header = course_build / "generated" / "include" / "streamlab" / "grader_words.hpp"
    if not header.is_file():
        pytest.skip(f"{course_build} was configured before the header was generated")
    constants = dict(re.findall(r'^inline constexpr char (k\w+)\[\] = "([^"]*)";$', header.read_text(), flags=re.M))
    assert constants == {word["name"]: word["text"] for word in _stated_words()}
    assert not (ROOT / "common" / "include" / "streamlab" / "grader_words.hpp").exists(), "a second header"


def test_cmake_reads_a_word_from_the_file(course_build):
    """streamlab_grader_word: the Python lab programs' tests skip on the file's kSkipNoGpu (python/CMakeLists.txt)."""
    listing = subprocess.run(
        ["ctest", "--test-dir", str(course_build), "--show-only=json-v1", "-R", r"\.python-program\.solution$"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    skips = [
        prop["value"]
        for test in json.loads(listing)["tests"]
        for prop in test.get("properties", [])
        if prop["name"] == "SKIP_REGULAR_EXPRESSION"
    ]
    if not skips:
        pytest.skip(f"{course_build} has no Python lab program tests")
    assert all(skip == [": " + read_words()["SKIP_NO_GPU"]] for skip in skips), skips


def test_scoring_counts_each_skip_word_and_no_other_as_not_graded():
    words = read_words()
    assert scoring.GRADER_SKIPS == grader_skips(words) and len(scoring.GRADER_SKIPS) == 4
    assert scoring.NEEDS_GPUS == words["SKIP_NEEDS_GPUS"]
    test = scoring.GradedTest("Demo.Skip", 2, gpu=True)
    for name, text in words.items():
        skipped = Judged("Demo.Skip", 0, GtestReport("skipped", text + "why"), "")
        grade = scoring.score(test, skipped, gpu_present=True)
        assert (grade.status == scoring.NOT_GRADED) == name.startswith("SKIP_"), (name, grade)


def test_course_check_reads_what_a_test_reported_under_the_keys_the_file_names(tmp_path):
    words = read_words()
    properties = {
        words["KEY_MEASURE"] + ".1": '{"name": "overlap", "value": 0.5, "op": ">=", "threshold": 0.3, "unit": ""}',
        words["KEY_HINT"] + ".1": "wait first",
        words["KEY_NOTE"] + ".1": '{"name": "prediction", "text": "right"}',
    }
    case = ET.Element("testcase", name="B", classname="A", status="run", result="completed")
    holder = ET.SubElement(case, "properties")
    for name, value in properties.items():
        ET.SubElement(holder, "property", name=name, value=value)
    report = tmp_path / "report.xml"
    ET.ElementTree(case).write(report)
    read = results.read_gtest_report(report, "A.B")
    assert [m.name for m in read.measures] == ["overlap"] and read.hints == ["wait first"]
    assert read.notes == ["prediction: right"]


def test_course_check_reads_a_skip_in_the_files_words():
    words = read_words()
    output = "run_pipeline.py: " + words["SKIP_NO_GPU"] + "no driver\n"
    outcome = results.TestOutcome("lab05.yours.A.B", "skipped", ["pts:1"], output)
    assert outcome.skip_reason() == words["SKIP_NO_GPU"] + "no driver"


def test_course_check_scores_a_skip_as_the_grader_does():
    """Only the course's own skips are "not graded" in `course check`; any other skip is 0, as in the grade."""
    words = read_words()
    test = scoring.GradedTest("A.B", 3, gpu=True)
    ours = scoring.score(test, Judged("A.B", 0, GtestReport("skipped", words["SKIP_NO_GPU"] + "none"), ""), True)
    theirs = scoring.score(test, Judged("A.B", 0, GtestReport("skipped", "I felt like it"), ""), True)
    assert labs._format_test(ours) == ("-/3", "not graded", words["SKIP_NO_GPU"] + "none")
    points, status, details = labs._format_test(theirs)
    assert (points, status) == ("0/3", "FAIL") and "I felt like it" in details and "as 0" in details


# The course's code that prints or reads the words, tests aside. A string that begins with a word's text (after at most
# two characters or one `{name}: `) is a second definition of it.
SOURCES = ["common", "python", "programs", "labs", "solutions", "cmake", "tools/coursecli"]


def _course_sources():
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*")):
            relative = path.relative_to(ROOT).as_posix()
            if path.suffix not in {".cpp", ".hpp", ".cu", ".py", ".txt", ".cmake"}:
                continue
            if "/tests/" in f"/{relative}" or "/test_" in relative:
                continue
            yield relative, path.read_text()


def test_no_source_but_the_words_file_spells_a_grader_word():
    found = []
    for name, text in read_words().items():
        spelled = re.compile(r"[\"'](?:[^\"'\n]{0,2}|\{\w+\}: )" + re.escape(text.strip()))
        found += [f"{relative}: {name}" for relative, source in _course_sources() if spelled.search(source)]
    assert not found, "spelled outside common/grader_words.json:\n" + "\n".join(found)


def test_the_module_offers_the_files_words(course_build):
    build_python = course_build / "python"
    if not next(build_python.glob("streamlab*.so"), None):
        pytest.skip(f"the course's Python module is not built in {course_build}")
    code = "import json, streamlab; print(json.dumps({k: v for k, v in vars(streamlab.words).items() if k.isupper()}))"
    env = {**os.environ, **environment.import_path([build_python])}
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert json.loads(printed) == read_words()
