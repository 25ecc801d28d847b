"""Taking in submissions: folders, zips, tar.gz, repository or labs/ copies; what is ignored or refused."""

import io
import json
import os
import tarfile
import zipfile
from pathlib import Path

import pytest
from coursecli.submissions import (
    SubmissionRefused,
    course_labs,
    find_submissions,
    stage,
    student_name,
    take_student_sources,
)

LAB = {
    "student_sources": ["work.cu", "more.cu"],
    "program": "run.cu",
    "recorder": "rec.cpp",
    "test_source": "test_lab09.cpp",
    "tests": [{"name": "A.B", "device": "gpu", "points": 1}],
}


@pytest.fixture
def course(tmp_path) -> Path:
    """A course with one lab, 09-demo, whose student writes work.cu and more.cu."""
    root = tmp_path / "course"
    lab = root / "labs" / "09-demo"
    lab.mkdir(parents=True)
    (lab / "lab.json").write_text(json.dumps(LAB))
    (lab / "work.cu").write_text("starter work\n")
    (lab / "more.cu").write_text("starter more\n")
    (lab / "test_lab09.cpp").write_text("the course's test\n")
    (root / "README.md").write_text("course readme\n")
    return root


def intake(submission: Path, course: Path):
    return take_student_sources(submission, course_labs(course), course)


def make_folder(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


STUDENT = {"work.cu": "my work\n", "more.cu": "my more\n"}


def test_course_labs_come_from_lab_json(course):
    assert [(lab.number, lab.folder, lab.files) for lab in course_labs(course)] == [
        ("09", "09-demo", ["work.cu", "more.cu"])
    ]


def test_a_repository_copy_in_a_folder(course, tmp_path):
    files = {f"repo/labs/09-demo/{n}": t for n, t in STUDENT.items()}
    files["repo/README.md"] = "course readme\n"  # unchanged course file: not reported
    files["repo/labs/09-demo/test_lab09.cpp"] = "all pass\n"  # edited test: reported
    files["repo/notes.txt"] = "mine\n"  # extra file: reported
    files["repo/solutions/09-demo/work.cu"] = "copied\n"  # never taken from solutions/
    result = intake(make_folder(tmp_path / "ada", files), course)
    assert result.taken == {"09": {"work.cu": b"my work\n", "more.cu": b"my more\n"}}
    assert result.missing == {}
    assert "repo/labs/09-demo/test_lab09.cpp" in result.edited_course_files
    assert result.unchanged_course_files == 1
    summary = "\n".join(result.ignored_summary())
    assert "test_lab09.cpp: edited course file, ignored" in summary
    assert "repo/notes.txt" in summary and "repo/solutions/09-demo/work.cu" in summary


def test_a_labs_copy_in_a_zip(course, tmp_path):
    archive = tmp_path / "bob.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for name, text in STUDENT.items():
            zipped.writestr(f"09-demo/{name}", text)
    result = intake(archive, course)
    assert result.taken["09"]["work.cu"] == b"my work\n" and not result.missing


def test_a_tar_gz_with_a_missing_file(course, tmp_path):
    archive = tmp_path / "cy.tar.gz"
    with tarfile.open(archive, "w:gz") as tarred:
        data = b"my work\n"
        info = tarfile.TarInfo("labs/09-demo/work.cu")
        info.size = len(data)
        tarred.addfile(info, io.BytesIO(data))
    result = intake(archive, course)
    assert result.taken == {"09": {"work.cu": b"my work\n"}}
    assert result.missing == {"09": ["more.cu"]}


def test_labs_copy_beats_a_deeper_copy(course, tmp_path):
    files = {"old/backup/09-demo/work.cu": "old\n", "labs/09-demo/work.cu": "new\n", "labs/09-demo/more.cu": "m\n"}
    result = intake(make_folder(tmp_path / "dee", files), course)
    assert result.taken["09"]["work.cu"] == b"new\n"
    assert any("another copy" in line for line in result.ignored_summary())


def test_path_traversal_in_a_zip_is_refused(course, tmp_path):
    archive = tmp_path / "eve.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("../../labs/09-demo/work.cu", "escape\n")
        zipped.writestr("/etc/09-demo/more.cu", "absolute\n")
    result = intake(archive, course)
    assert result.taken == {}
    assert len(result.refused) == 2 and all("outside the submission" in r for r in result.refused)
    assert not (tmp_path.parent / "labs").exists()


def test_links_are_refused(course, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read\n")
    folder = make_folder(tmp_path / "fay", {"labs/09-demo/more.cu": "m\n"})
    os.symlink(secret, folder / "labs" / "09-demo" / "work.cu")
    result = intake(folder, course)
    assert "work.cu" not in result.taken.get("09", {}) and result.missing == {"09": ["work.cu"]}
    assert any("link" in r for r in result.refused)

    archive = tmp_path / "gus.tar.gz"
    with tarfile.open(archive, "w:gz") as tarred:
        info = tarfile.TarInfo("labs/09-demo/work.cu")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tarred.addfile(info)
    result = intake(archive, course)
    assert result.missing == {"09": ["work.cu", "more.cu"]} and any("link" in r for r in result.refused)


def test_an_oversized_source_is_refused(course, tmp_path):
    files = {"labs/09-demo/work.cu": "x" * (2 << 20), "labs/09-demo/more.cu": "m\n"}
    result = intake(make_folder(tmp_path / "hal", files), course)
    assert result.missing == {"09": ["work.cu"]} and any("larger than" in r for r in result.refused)


def test_a_broken_archive_is_refused(course, tmp_path):
    archive = tmp_path / "ivy.zip"
    archive.write_bytes(b"not a zip")
    with pytest.raises(SubmissionRefused):
        intake(archive, course)


def test_staging_fills_missing_files_with_the_starter(course, tmp_path):
    result = intake(make_folder(tmp_path / "jo", {"labs/09-demo/work.cu": "my work\n"}), course)
    stage(result, course_labs(course), course, tmp_path / "staging")
    assert (tmp_path / "staging" / "09-demo" / "work.cu").read_text() == "my work\n"
    assert (tmp_path / "staging" / "09-demo" / "more.cu").read_text() == "starter more\n"


def test_submissions_are_found_and_named(tmp_path):
    (tmp_path / "ann").mkdir()
    (tmp_path / "bob.zip").write_bytes(b"")
    (tmp_path / "cy.tar.gz").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / ".hidden").mkdir()
    found = find_submissions(tmp_path)
    assert [student_name(p) for p in found] == ["ann", "bob", "cy"]


def test_an_archive_over_the_limits_is_refused(course, tmp_path, monkeypatch):
    archive = tmp_path / "kim.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for i in range(3):
            zipped.writestr(f"file{i}.txt", "x")
    monkeypatch.setattr("coursecli.submissions.MAX_ARCHIVE_MEMBERS", 2)
    with pytest.raises(SubmissionRefused, match="more than 2 entries"):
        intake(archive, course)


def test_a_tar_gz_of_many_members_is_read_in_one_pass(course, tmp_path, monkeypatch):
    archive = tmp_path / "many.tar.gz"
    with tarfile.open(archive, "w:gz") as tarred:
        for i in range(2000):
            name = "labs/09-demo/work.cu" if i == 1999 else f"copy{i}/labs/09-demo/test_lab09.cpp"
            data = b"my work\n" if i == 1999 else b"the course's test\n"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tarred.addfile(info, io.BytesIO(data))
    opened = []
    real_open = tarfile.open
    monkeypatch.setattr(tarfile, "open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    result = intake(archive, course)
    assert len(opened) == 1  # one pass, never re-opened per member
    assert result.taken == {"09": {"work.cu": b"my work\n"}} and result.unchanged_course_files == 1999


def test_names_that_are_not_utf8_are_shown_escaped(course, tmp_path):
    archive = tmp_path / "lee.tar.gz"
    with tarfile.open(archive, "w:gz", format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape") as tarred:
        for name, data in (("labs/09-demo/work.cu", b"my work\n"), ("labs/09-demo/caf\udce9.cu", b"x\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tarred.addfile(info, io.BytesIO(data))
    result = intake(archive, course)
    assert result.taken["09"]["work.cu"] == b"my work\n"
    summary = "\n".join(result.ignored_summary())
    assert "labs/09-demo/caf\\xe9.cu: not a file the grader takes" in summary
    summary.encode("utf-8")  # printable everywhere a report goes
    folder = tmp_path / os.fsdecode(b"ren\xe9")
    folder.mkdir()
    assert student_name(folder) == "ren\\xe9"


def test_reading_a_submission_has_a_time_limit(course, tmp_path, monkeypatch):
    archive = tmp_path / "slow.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("labs/09-demo/work.cu", "w\n")
    monkeypatch.setattr("coursecli.submissions.MAX_INTAKE_S", -1)
    with pytest.raises(SubmissionRefused, match="took more than"):
        intake(archive, course)


@pytest.fixture
def course_with_answers(course) -> Path:
    """The same lab with an answer file, prediction.txt (never compiled; optional in a submission)."""
    lab = course / "labs" / "09-demo"
    (lab / "lab.json").write_text(json.dumps({**LAB, "answer_files": ["prediction.txt"]}))
    (lab / "prediction.txt").write_text("speedup: ?\n")
    return course


def test_an_answer_file_is_taken_apart_from_the_sources(course_with_answers, tmp_path):
    labs = course_labs(course_with_answers)
    assert (labs[0].files, labs[0].answers) == (["work.cu", "more.cu"], ["prediction.txt"])
    files = {f"labs/09-demo/{n}": t for n, t in STUDENT.items()}
    files["labs/09-demo/prediction.txt"] = "speedup: 1.8\n"
    result = intake(make_folder(tmp_path / "ada", files), course_with_answers)
    assert result.taken == {"09": {"work.cu": b"my work\n", "more.cu": b"my more\n"}}
    assert result.answers == {"09": {"prediction.txt": b"speedup: 1.8\n"}}
    stage(result, labs, course_with_answers, tmp_path / "staged")
    assert (tmp_path / "staged" / "09-demo" / "prediction.txt").read_text() == "speedup: 1.8\n"


def test_a_missing_answer_file_changes_nothing_but_its_test(course_with_answers, tmp_path):
    # Graded as usual; the staged file is the starter's unanswered template, which its test scores 0.
    result = intake(
        make_folder(tmp_path / "bo", {f"labs/09-demo/{n}": t for n, t in STUDENT.items()}), course_with_answers
    )
    assert result.missing == {} and result.answers == {}
    assert result.taken == {"09": {"work.cu": b"my work\n", "more.cu": b"my more\n"}}
    stage(result, course_labs(course_with_answers), course_with_answers, tmp_path / "staged")
    assert (tmp_path / "staged" / "09-demo" / "prediction.txt").read_text() == "speedup: ?\n"
    assert (tmp_path / "staged" / "09-demo" / "work.cu").read_text() == "my work\n"
