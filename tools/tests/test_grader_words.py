"""The words the grader trusts are defined once, in common/include/streamlab/grader_words.hpp:
the reader finds every one, refuses a header that breaks its format, scoring and `course check`
use what it read, and no other source spells them."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from coursecli import environment, grader_words, labs, results, scoring
from coursecli.grader_words import HEADER, NEEDED, GraderWordsError, grader_skips, read_words
from coursecli.results import GtestReport

ROOT = Path(__file__).resolve().parents[2]


def test_the_reader_finds_every_constant_of_the_header():
    declared = [line for line in HEADER.read_text().splitlines() if line.startswith("inline constexpr")]
    words = read_words()
    assert len(words) == len(declared) and set(NEEDED) <= set(words)
    assert words["SKIP_NO_GPU"] == "no GPU: " and words["LINE_MEASURE"] == "STREAMLAB-MEASURE "
    assert grader_words.python_name("SkipTimelineUnavailable") == "SKIP_TIMELINE_UNAVAILABLE"


def test_a_missing_word_stops_the_reader(tmp_path):
    header = tmp_path / "grader_words.hpp"
    header.write_text("\n".join(line for line in HEADER.read_text().splitlines() if "kLineNote" not in line))
    with pytest.raises(GraderWordsError, match="defines no LINE_NOTE"):
        read_words(header)


@pytest.mark.parametrize(
    "line",
    [
        'inline constexpr const char* kLineNote = "STREAMLAB-NOTE ";',
        'inline constexpr char kLineNote[] = "STREAMLAB-\\"NOTE ";',
        'inline constexpr char kLineNote[] = "STREAMLAB-NOTE ";  // a comment after it',
    ],
)
def test_a_constant_out_of_format_stops_the_reader(tmp_path, line):
    header = tmp_path / "grader_words.hpp"
    header.write_text(re.sub(r"^inline constexpr char kLineNote.*$", line, HEADER.read_text(), flags=re.M))
    with pytest.raises(GraderWordsError, match=r"grader_words.hpp:\d+: not "):
        read_words(header)


def test_scoring_counts_each_skip_word_and_no_other_as_not_graded():
    words = read_words()
    assert scoring.GRADER_SKIPS == grader_skips(words) and len(scoring.GRADER_SKIPS) == 4
    assert scoring.NEEDS_GPUS == words["SKIP_NEEDS_GPUS"]
    skipped = results.TestOutcome("lab01.yours.Demo.Skip", "skipped", ["gpu", "pts:2"], "")
    for name, text in words.items():
        grade = scoring.grade_test(skipped, "Passed", 60, True, GtestReport("skipped", text + "why"))
        assert (grade.status == scoring.NOT_GRADED) == name.startswith("SKIP_"), (name, grade)


def test_course_check_reads_the_lines_the_header_names():
    words = read_words()
    output = (
        words["LINE_MEASURE"]
        + '{"name": "overlap", "value": 0.5, "op": ">=", "threshold": 0.3, "unit": ""}\n'
        + words["LINE_HINT"]
        + '"wait first"\n'
        + words["LINE_NOTE"]
        + '{"name": "prediction", "text": "right"}\n'
        + "run_pipeline.py: "
        + words["SKIP_NO_GPU"]
        + "no driver\n"
    )
    outcome = results.TestOutcome("lab05.yours.A.B", "skipped", ["pts:1"], output)
    assert [m.name for m in outcome.measures()] == ["overlap"] and outcome.hints() == ["wait first"]
    assert outcome.notes() and outcome.skip_reason() == words["SKIP_NO_GPU"] + "no driver"


def test_course_check_scores_a_skip_as_the_grader_does():
    """Only the course's own skips are "not graded" in `course check`; any other skip is 0, as in the grade."""
    words = read_words()
    ours = results.TestOutcome("lab05.yours.A.B", "skipped", ["pts:3"], "x.py: " + words["SKIP_NO_GPU"] + "none\n")
    theirs = results.TestOutcome("lab05.yours.A.C", "skipped", ["pts:2"], "t.cu:9: Skipped\nI felt like it\n")
    assert ours.not_graded() and not theirs.not_graded()
    assert labs._format_outcome(ours)[:2] == ("-/3", "not graded")
    points, status, details = labs._format_outcome(theirs)
    assert (points, status) == ("0/2", "FAIL") and "I felt like it" in details and "as 0" in details


# The course's code that prints or reads the words, tests aside. A string that begins with a word's text (after at most
# two characters or one `{name}: `) is a second definition of it.
SOURCES = ["common", "python", "programs", "labs", "solutions", "cmake", "tools/coursecli"]


def _course_sources():
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*")):
            relative = path.relative_to(ROOT).as_posix()
            if path.suffix not in {".cpp", ".hpp", ".cu", ".py", ".txt", ".cmake"} or path == HEADER:
                continue
            if "/tests/" in f"/{relative}" or "/test_" in relative:
                continue
            yield relative, path.read_text()


def test_no_source_but_the_header_spells_a_grader_word():
    found = []
    for name, text in read_words().items():
        spelled = re.compile(r"[\"'](?:[^\"'\n]{0,2}|\{\w+\}: )" + re.escape(text.strip()))
        found += [f"{relative}: {name}" for relative, source in _course_sources() if spelled.search(source)]
    assert not found, "spelled outside grader_words.hpp:\n" + "\n".join(found)


def test_the_module_offers_the_headers_words(course_build):
    build_python = course_build / "python"
    if not next(build_python.glob("streamlab*.so"), None):
        pytest.skip(f"the course's Python module is not built in {course_build}")
    code = "import json, streamlab; print(json.dumps({k: v for k, v in vars(streamlab.words).items() if k.isupper()}))"
    env = {**os.environ, **environment.import_path([build_python])}
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert json.loads(printed) == read_words()
