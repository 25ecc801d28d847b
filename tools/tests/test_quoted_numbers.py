"""Every number the READMEs and slides quote from a measurement matches the one
reference file it comes from (common/reference/h200_quoted_numbers.json); and
tools/quoted_numbers.py fill writes a measurement program's result in."""

from __future__ import annotations

import json
import re
import shutil

import pytest
import quoted_numbers
from coursecli.reference_pictures import PICTURES
from quoted_numbers import REFERENCE, ROOT, fill, measured_text, pending_text

DATA = json.loads(REFERENCE.read_text())


def test_every_measurement_names_its_device_and_date():
    for name, measurement in DATA["measurements"].items():
        if measurement is not None:
            assert measurement["device"] == "NVIDIA H200", name
            assert measurement["date"].startswith("20"), name


@pytest.mark.parametrize("quote", DATA["quotes"], ids=lambda q: q["file"] + ": " + q["text"][:40])
def test_each_quote_reads_the_reference_number(quote):
    content = (ROOT / quote["file"]).read_text()
    text = measured_text(quote["text"], DATA["measurements"])
    if text is None:
        assert pending_text(quote["text"]) in content, "a pending quote must read [[H200: key]] in its file"
        pytest.skip(f"pending H200 measurement in {quote['file']}: run the program and tools/quoted_numbers.py fill")
    assert text in content, f"{quote['file']} does not quote the reference's numbers: {text!r}"


def test_no_placeholder_is_left_without_a_pending_quote():
    pending = {quote["file"] for quote in DATA["quotes"] if measured_text(quote["text"], DATA["measurements"]) is None}
    for path in [ROOT / "README.md", *ROOT.glob("labs/*/README.md"), *ROOT.glob("slides/*.md")]:
        name = str(path.relative_to(ROOT))
        if "[[H200:" in path.read_text():
            assert name in pending, f"{name} has a [[H200: ...]] placeholder that no pending quote explains"


def test_fill_writes_a_result_into_the_reference_and_the_quotes(tmp_path):
    (tmp_path / "common" / "reference").mkdir(parents=True)
    reference = tmp_path / "common" / "reference" / "numbers.json"
    template = "took {probe.copy_ms:.2f} ms on the {probe.device}"
    reference.write_text(json.dumps({"measurements": {"probe": None}, "quotes": [{"file": "A.md", "text": template}]}))
    (tmp_path / "A.md").write_text("It " + pending_text(template) + ".\n")
    result = tmp_path / "probe.json"
    result.write_text(
        json.dumps({"program": "probe", "device": "NVIDIA H200", "date": "2026-12-01", "copy_ms": 4.8567})
    )
    assert fill([result], reference, tmp_path) == ["A.md"]
    assert (tmp_path / "A.md").read_text() == "It took 4.86 ms on the NVIDIA H200.\n"
    assert json.loads(reference.read_text())["measurements"]["probe"]["copy_ms"] == 4.8567


def test_fill_writes_the_numbers_into_the_korean_twin_too(tmp_path):
    (tmp_path / "common" / "reference").mkdir(parents=True)
    reference = tmp_path / "common" / "reference" / "numbers.json"
    template = "took {probe.copy_ms:.2f} ms on the {probe.device}"
    reference.write_text(
        json.dumps({"measurements": {"probe": None}, "quotes": [{"file": "slides/01-x.md", "text": template}]})
    )
    (tmp_path / "slides" / "ko").mkdir(parents=True)
    (tmp_path / "slides" / "01-x.md").write_text("It " + pending_text(template) + ".\n")
    (tmp_path / "slides" / "ko" / "01-x.md").write_text("[[H200: probe.device]]에서 [[H200: probe.copy_ms]] ms.\n")
    result = tmp_path / "probe.json"
    result.write_text(
        json.dumps({"program": "probe", "device": "NVIDIA H200", "date": "2026-12-01", "copy_ms": 4.8567})
    )
    assert fill([result], reference, tmp_path) == ["slides/01-x.md", "slides/ko/01-x.md"]
    assert (tmp_path / "slides" / "ko" / "01-x.md").read_text() == "NVIDIA H200에서 4.86 ms.\n"


def test_fill_refuses_a_result_of_an_unknown_program(tmp_path):
    reference = tmp_path / "numbers.json"
    shutil.copy(REFERENCE, reference)
    result = tmp_path / "other.json"
    result.write_text(json.dumps({"program": "something_else"}))
    with pytest.raises(SystemExit, match="not a measurement"):
        fill([result], reference, tmp_path)
    assert reference.read_text() == REFERENCE.read_text(), "nothing changed"


def test_main_says_when_a_result_file_is_missing(tmp_path, capsys):
    assert quoted_numbers.main(["fill", str(tmp_path / "missing.json")]) == 1
    assert "does not exist" in capsys.readouterr().out


def test_every_measured_number_in_the_prose_is_a_quote_or_from_a_transcript():
    found = quoted_numbers.all_unquoted_numbers()
    assert found == [], (
        "measured numbers that no quote in the reference file and no transcript covers "
        "(add the measurement and a quote): " + "; ".join(found)
    )


def test_unquoted_numbers_finds_a_number_that_nothing_covers():
    text = (
        "# Lab\n\nOn the H200 it took 5.97 ms, then 2.01 ms, a 2.97x speedup; 97.4% of the model.\n"
        "The events said 3.69 ms; a threshold of 0.75 × is not a measurement.\n\n"
        "```text\nmakespan 3.686 ms\n```\n\n```sh\nrun 5.97 ms\n```\n"
    )
    found = quoted_numbers.unquoted_numbers("x.md", text, ["took 5.97 ms"])
    assert found == ["x.md:3: 2.01 ms", "x.md:3: 2.97x", "x.md:3: 97.4%"]
    assert quoted_numbers.unquoted_numbers("x.md", text, ["took 5.97 ms, then 2.01 ms, a 2.97x speedup; 97.4%"]) == []


def test_a_transcript_number_must_round_to_the_quoted_one():
    text = "It took 1.23 ms.\n\n```text\nbusy: H2D 1.219 ms\n```\n"
    assert quoted_numbers.unquoted_numbers("x.md", text, []) == ["x.md:1: 1.23 ms"]
    assert quoted_numbers.unquoted_numbers("x.md", text.replace("1.23", "1.22"), []) == []
    assert quoted_numbers.unquoted_numbers("x.md", "24.37 ms\n```text\n24.365\n```\n", []) == []


def test_the_chunk_bench_quotes_agree_with_the_recorded_sweep():
    sweep = json.loads((ROOT / "common" / "reference" / "h200_chunks.json").read_text())
    rows = {
        row["chunks"]: row
        for value in sweep.values()
        if isinstance(value, list)
        for row in value
        if row.get("intensity") == "balanced"
    }
    quoted = DATA["measurements"]["chunk_bench"]
    assert quoted["bound_ms"] == round(rows[3]["bound_ms"], 2)
    for chunks, numbers in quoted["chunks"].items():
        for key, value in numbers.items():
            assert value == round(rows[int(chunks)][key], 2), (chunks, key)


def test_a_whole_time_must_round_from_a_quote_or_a_transcript():
    text = "About 14 ms serially, 6–10 GB/s pageable; within 10% and 2x are thresholds.\n"
    assert quoted_numbers.unquoted_numbers("x.md", text, []) == ["x.md:1: 14 ms", "x.md:1: 10 GB/s"]
    assert quoted_numbers.unquoted_numbers("x.md", text, ["serial 14.04 ms, pageable 10.2 GB/s"]) == []
    assert quoted_numbers.unquoted_numbers("x.md", text, ["serial 14.7 ms, 10.2 GB/s"]) == ["x.md:1: 14 ms"]


def test_a_korean_page_is_held_to_its_english_twins_quotes():
    text = "H200에서 8.38 ms에 끝났고 1.75×, 모델의 97.4%였습니다.\n"
    english = ["took 8.38 ms: 1.75x, 97.4% of the model"]
    assert quoted_numbers.unquoted_numbers("x.ko.md", text, [], twin_quotes=english) == []
    assert quoted_numbers.unquoted_numbers("x.ko.md", text.replace("8.38", "8.15"), [], twin_quotes=english) == [
        "x.ko.md:1: 8.15 ms"
    ]
    assert quoted_numbers.unquoted_numbers("x.ko.md", text, []) == [
        "x.ko.md:1: 8.38 ms",
        "x.ko.md:1: 1.75×",
        "x.ko.md:1: 97.4%",
    ]


def _lab(root, number, tests):
    folder = root / "labs" / f"{number}-topic"
    folder.mkdir(parents=True)
    declared = {
        "student_sources": ["a.cu"],
        "program": "run.cu",
        "test_source": "t.cu",
        "recorder": "r.cpp",
        "tests": [{"name": f"Suite.Test{i}", "device": "gpu", "points": points} for i, points in enumerate(tests)],
        "python": {"student_sources": ["a.py"], "recorder": "r.py"},
    }
    (folder / "lab.json").write_text(json.dumps(declared))
    return folder


def test_the_points_a_transcript_prints_come_from_lab_json(tmp_path):
    _lab(tmp_path, "01", [2, 3])
    readme = _lab(tmp_path, "02", [4]) / "README.md"
    assert quoted_numbers.course_points(tmp_path) == {"01": 5, "02": 4}
    readme.write_text("```text\n  total 4/4\n  (lab 02 is worth 4 of the course's 9 points, over 2 labs)\n```\n")
    assert quoted_numbers.points_problems(tmp_path) == []
    readme.write_text(readme.read_text().replace("9 points, over 2 labs", "7 points, over 1 lab"))
    (readme.parent / "README.ko.md").write_text(readme.read_text())
    assert quoted_numbers.points_problems(tmp_path) == [
        f"labs/02-topic/{name}:3: (lab 02 is worth 4 of the course's 7 points, over 1 lab); "
        "lab.json: (lab 02 is worth 4 of the course's 9 points, over 2 labs)"
        for name in ("README.ko.md", "README.md")
    ]


def test_every_transcripts_course_points_agree_with_lab_json():
    assert quoted_numbers.points_problems() == []


@pytest.mark.parametrize("name", [name for name, m in DATA["measurements"].items() if m and "transcript" in m])
def test_a_measurement_taken_from_a_transcript_reads_its_numbers(name):
    """A measurement whose "transcript" names a README is the run that README prints: each of its
    numbers rounds from a number of that README's transcripts (one run, quoted one way)."""
    measurement = DATA["measurements"][name]
    _, transcripts = quoted_numbers._prose_and_transcripts((ROOT / measurement["transcript"]).read_text())
    printed = {number for transcript in transcripts for number in re.findall(r"\d+\.\d+", transcript)}
    for key, value in measurement.items():
        if isinstance(value, float):
            assert any(quoted_numbers._rounds_to(number, f"{value:.2f}") for number in printed) or any(
                quoted_numbers._rounds_to(number, str(value)) for number in printed
            ), f"{name}.{key} = {value}: no number of {measurement['transcript']}'s transcripts rounds to it"


def test_the_three_chunk_speedups_are_computed_as_the_program_computes_them():
    """The measured speedup is the serial run over the pipeline; the model's is the stage times' sum over
    the model (PipelineComparison::model_speedup), and that sum is the one the quoted run printed."""
    run, stage_sum = DATA["measurements"]["three_chunks"], DATA["measurements"]["three_chunks_stage_sum"]
    _, transcripts = quoted_numbers._prose_and_transcripts((ROOT / run["transcript"]).read_text())
    stage_lines = [
        line for transcript in transcripts for line in transcript.splitlines() if "each stage alone:" in line
    ]
    assert stage_lines, f"{run['transcript']} prints no 'each stage alone' line"
    printed = [float(number) for number in re.findall(r"\d+\.\d+", stage_lines[0])]
    assert stage_sum["stages_ms"] == round(sum(printed), 2)
    assert run["speedup"] == round(run["serial_ms"] / run["pipelined_ms"], 2)
    assert run["model_speedup"] == round(stage_sum["stages_ms"] / run["model_ms"], 2)


def test_every_picture_a_lab_readme_names_shows_its_own_figures_and_rows():
    """lab 05's timeline-h200.png printed 14.00 / 8.10 ms beside a text that said 14.70 / 8.38; lab 01's
    barrier picture 6.08 ms and rows 'stream 15/16' where the text said 5.97 and A/B/C."""
    assert quoted_numbers.picture_problems() == []


def test_picture_problems_finds_a_caption_that_does_not_show_its_picture(tmp_path):
    lab = tmp_path / "labs" / "01-topic"
    lab.mkdir(parents=True)
    shutil.copy(ROOT / "labs" / "01-null-stream" / "barrier-h200.png", lab / "barrier-h200.png")
    readme = lab / "README.md"
    readme.write_text("The barrier demo, `barrier-h200.png`: blocking 6.08 ms in stream 15.\n")
    reference = tmp_path / "numbers.json"
    quote = {"file": "labs/01-topic/README.md", "text": "blocking {pic.blocking_ms:.2f} ms in stream 15"}
    entry = {"device": "NVIDIA H200", "date": "2026-12-03T10:24:29Z", "picture": "labs/01-topic/barrier-h200.png"}

    def problems(measurements, quotes):
        reference.write_text(json.dumps({"measurements": measurements, "quotes": quotes}))
        return quoted_numbers.picture_problems(reference, tmp_path)

    assert problems({}, []) == [
        "labs/01-topic/README.md: labs/01-topic/barrier-h200.png has no measurement of its figures in numbers.json "
        '("picture": its path)'
    ]
    good = {**entry, "blocking_ms": 6.08, "rows": ["stream 15"]}
    assert problems({"pic": good}, [quote]) == []
    assert "no quote shows" in problems({"pic": good}, [])[0]
    assert "is not" in problems({"pic": {**good, "date": "2026-11-30"}}, [quote])[0]
    assert problems({"pic": {**good, "rows": ["stream 15", "stream 16"]}}, [quote]) == [
        "labs/01-topic/README.md: no caption of labs/01-topic/barrier-h200.png names its row 'stream 16' "
        "as the picture does"
    ]


def test_a_pngs_metadata_is_read_with_the_standard_library():
    texts = quoted_numbers.png_text(ROOT / "labs" / "05-three-chunks" / "timeline-h200.png")
    assert texts["Title"] == "timeline-h200"
    assert "recorded 2026-11-30T12:10:14Z" in texts["Description"]
    assert quoted_numbers.png_text(REFERENCE) == {}


def test_a_committed_picture_that_no_readme_names_is_a_problem(tmp_path):
    """labs 03, 07 and 09 held pictures (timeline-h200.png, graph-h200.png, ...) that no README named,
    so no caption said their figures and the check above did not see them."""
    lab = tmp_path / "labs" / "01-topic"
    lab.mkdir(parents=True)
    shutil.copy(ROOT / "labs" / "01-null-stream" / "barrier-h200.png", lab / "barrier-h200.png")
    (lab / "README.md").write_text("The barrier demo shows blocking streams.\n")
    reference = tmp_path / "numbers.json"
    unnamed = "labs/01-topic/barrier-h200.png: no lab README names it: show it in labs/01-topic/README.md"

    def problems(measurements):
        reference.write_text(json.dumps({"measurements": measurements, "quotes": []}))
        return quoted_numbers.picture_problems(reference, tmp_path)

    assert problems({}) == [
        f"{unnamed} with a caption that quotes its figures and rows",
        'labs/01-topic/barrier-h200.png: no measurement of its figures in numbers.json ("picture": its path)',
    ]
    entry = {"date": "2026-12-03T10:24:29Z", "picture": "labs/01-topic/barrier-h200.png", "blocking_ms": 6.08}
    assert problems({"pic": entry}) == [f"{unnamed} with a caption that quotes its figures and rows"]


def test_every_reference_picture_course_check_shows_is_committed_and_named():
    committed = quoted_numbers.committed_pictures()
    named = {picture for _, picture in quoted_numbers.named_pictures()}
    for number, pictures in PICTURES.items():
        for folder in ROOT.glob(f"labs/{number}-*"):
            for picture in pictures:
                path = (folder / picture.name).relative_to(ROOT).as_posix()
                if (ROOT / path).is_file():
                    assert path in committed and path in named, path
    assert "labs/07-dependencies-and-graphs/priority-h200.png" in named
