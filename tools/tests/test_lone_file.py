"""A student source uploaded on its own (Gradescope's usual upload) belongs to its lab;
one in the wrong place is named with the path it must have."""

from pathlib import Path

from coursecli.submissions import LabSources, take_student_sources

LABS = [LabSources("01-null-stream", ["null_stream.cu"]), LabSources("02-streams", ["streams.cu"])]


def submit(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_a_lone_file_named_after_a_labs_source_belongs_to_that_lab(tmp_path):
    intake = take_student_sources(submit(tmp_path / "ada", {"null_stream.cu": "mine\n"}), LABS, tmp_path)
    assert intake.taken == {"01": {"null_stream.cu": b"mine\n"}}
    assert intake.missing == {"02": ["streams.cu"]}  # not uploaded: that lab only
    assert intake.ignored_summary() == []  # and never "not a file the grader takes" as well


def test_a_file_in_the_wrong_folder_is_named_with_the_path_it_must_have(tmp_path):
    intake = take_student_sources(submit(tmp_path / "bo", {"src/null_stream.cu": "mine\n"}), LABS, tmp_path)
    assert intake.missing == {"01": ["null_stream.cu"], "02": ["streams.cu"]}
    assert intake.ignored_summary() == [
        "src/null_stream.cu (a lab's file must be at labs/01-null-stream/null_stream.cu): "
        "not a file the grader takes, ignored"
    ]


def test_a_lone_file_that_two_labs_share_is_not_guessed(tmp_path):
    labs = [LabSources("01-a", ["work.cu"]), LabSources("02-b", ["work.cu"])]
    intake = take_student_sources(submit(tmp_path / "cy", {"work.cu": "mine\n"}), labs, tmp_path)
    assert intake.taken == {}
    assert intake.ignored_summary() == [
        "work.cu (a lab's file must be at labs/01-a/work.cu or labs/02-b/work.cu): not a file the grader takes, ignored"
    ]
