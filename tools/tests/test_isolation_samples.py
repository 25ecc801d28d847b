"""The samples that attack the grader are made as described, and the selfgrade check of them can fail."""

import tarfile

from coursecli.gradebook import save_grade, student_folder
from coursecli.scoring import PASSED, LabGrade, SubmissionGrade, TestGrade
from selfgrading.isolation_samples import ATTACKS, MANY_MEMBERS, VICTIM, isolation_problems, make_isolation_samples


def test_every_sample_is_made(tmp_path):
    make_isolation_samples(tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == {*ATTACKS, "many-members.tar.gz", "non-utf8-name.tar.gz"}
    for name, attack in ATTACKS.items():
        assert attack in (tmp_path / name / "labs" / "01-null-stream" / "null_stream.cu").read_text()
    with tarfile.open(tmp_path / "many-members.tar.gz") as archive:
        assert len(archive.getmembers()) == MANY_MEMBERS
    with tarfile.open(tmp_path / "non-utf8-name.tar.gz", encoding="utf-8", errors="surrogateescape") as archive:
        assert any("\udce9" in name for name in archive.getnames())


def full(student):
    return SubmissionGrade(student, [LabGrade("01", "01-null-stream", [TestGrade("A.B", 2, PASSED)])])


def test_the_check_finds_a_missing_row_a_planted_student_and_a_harmed_victim(tmp_path):
    save_grade(student_folder(tmp_path, VICTIM), full(VICTIM))
    save_grade(student_folder(tmp_path, "kills-the-grader"), full("kills-the-grader"))
    assert isolation_problems(tmp_path, [VICTIM, "kills-the-grader"], 1 << 20) == []
    (tmp_path / "students" / "zz-planted").mkdir()
    harmed = full(VICTIM)
    harmed.labs[0].tests[0].status = "failed"
    save_grade(student_folder(tmp_path, VICTIM), harmed)
    problems = "\n".join(isolation_problems(tmp_path, [VICTIM, "kills-the-grader", "prints-200mb"], 1 << 20))
    assert "prints-200mb: no verified grade" in problems
    assert "planted" in problems and f"{VICTIM}: not full points" in problems
