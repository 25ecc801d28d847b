"""What the grader writes: gradebook.csv, report.md, Gradescope's results.json, atomically; skip on rerun."""

import csv
import io
import json
import zipfile

import pytest
from coursecli import batch as grade_module
from coursecli.gradebook import (
    gradebook_csv,
    gradescope_results,
    load_grade,
    report_markdown,
    save_grade,
    student_folder,
    summary_table,
    write_atomically,
    write_gradebook,
)
from coursecli.gradescope import build_autograder
from coursecli.scoring import (
    FAILED,
    NO_GPU,
    NOT_GRADED,
    PASSED,
    GradedTest,
    LabGrade,
    SubmissionGrade,
    TestGrade,
    failed_lab,
)
from coursecli.shell import ROOT
from coursecli.submissions import course_labs


def sample_grades() -> list[SubmissionGrade]:
    lab01 = LabGrade(
        "01",
        "01-null-stream",
        [
            TestGrade("Serial.Result", 2, PASSED, measures=["overlap: 0.8 (needs >= 0.5)"]),
            TestGrade("Serial.Overlap", 3, FAILED, reason="timed out after 30 s", hints=["use streams"]),
            TestGrade("Serial.Cpu", 1, PASSED),
        ],
        timelines=["lab01.png"],
    )
    lab02 = failed_lab(
        "02",
        "02-streams",
        [GradedTest("Streams.A", 2, gpu=True), GradedTest("Streams.B", 2, gpu=True)],
        "does not compile",
        "labs/02-streams/streams.cu(3): error: expected a ';'",
    )
    ada = SubmissionGrade(
        "ada",
        [lab01, lab02],
        ignored=["labs/01-null-stream/test_lab01.cpp: edited course file, ignored (the course's own copy is used)"],
    )
    nogpu = SubmissionGrade(
        "bob",
        [
            LabGrade(
                "01",
                "01-null-stream",
                [TestGrade("Serial.Result", 2, NOT_GRADED, reason=NO_GPU), TestGrade("Serial.Cpu", 1, PASSED)],
            ),
            LabGrade("02", "02-streams", [TestGrade("Streams.A", 2, NOT_GRADED, reason=NO_GPU)]),
        ],
    )
    return [ada, nogpu]


def test_gradebook_has_a_row_per_student_and_a_column_per_lab():
    rows = list(csv.DictReader(io.StringIO(gradebook_csv(sample_grades(), ["01", "02"]))))
    assert list(rows[0]) == ["student", "lab01", "lab02", "total", "out_of", "not_graded", "notes"]
    ada, bob = rows
    assert (ada["lab01"], ada["lab02"], ada["total"], ada["out_of"]) == ("3", "0", "3", "10")
    assert "lab02: does not compile" in ada["notes"] and "1 edited course file(s) ignored" in ada["notes"]
    # Without a GPU: not zero, blank, and the points are in not_graded.
    assert (bob["lab01"], bob["lab02"], bob["total"], bob["out_of"], bob["not_graded"]) == ("1", "", "1", "1", "4")


def test_report_shows_points_measures_reasons_pictures_and_ignored_files():
    report = report_markdown(sample_grades()[0])
    assert "**Total: 3/10**" in report
    assert "| Serial.Result | 2/2 | passed | overlap: 0.8 (needs >= 0.5) |" in report
    assert "timed out after 30 s<br>hint: use streams" in report
    assert "![timeline of lab 01: lab01.png](lab01.png)" in report
    assert "**does not compile**" in report and "expected a ';'" in report
    assert "test_lab01.cpp: edited course file" in report
    assert "not graded (no GPU)" in report_markdown(sample_grades()[1])


def test_gradescope_results_follow_the_specification():
    results = gradescope_results(sample_grades()[0])
    assert results["score"] == 3
    assert {"name", "score", "max_score", "status", "output"} <= set(results["tests"][0])
    statuses = [(t["score"], t["max_score"], t["status"]) for t in results["tests"]]
    assert statuses == [(2, 2, "passed"), (0, 3, "failed"), (1, 1, "passed"), (0, 2, "failed"), (0, 2, "failed")]
    assert "expected a ';'" in results["tests"][3]["output"]
    not_graded = gradescope_results(sample_grades()[1])["tests"][0]
    assert not_graded["max_score"] == 0 and not_graded["score"] == 0 and "no GPU" in not_graded["name"]


def test_writes_are_atomic(tmp_path, monkeypatch):
    target = tmp_path / "results.json"
    write_atomically(target, "old\n")

    def broken_replace(source, destination):
        raise OSError("killed")

    monkeypatch.setattr("coursecli.gradebook.os.replace", broken_replace)
    with pytest.raises(OSError):
        write_atomically(target, "new\n")
    assert target.read_text() == "old\n"
    assert list(tmp_path.iterdir()) == [target]  # no temporary file left behind


def test_saved_grades_are_read_back_and_fill_the_gradebook(tmp_path):
    for grade in sample_grades():
        save_grade(student_folder(tmp_path, grade.student), grade)
    folder = student_folder(tmp_path, "ada")
    assert {p.name for p in folder.iterdir()} == {"report.md", "results.json", "grade.json", "grade.sig"}
    assert json.loads((folder / "results.json").read_text())["score"] == 3
    assert load_grade(folder) == sample_grades()[0]
    grades = write_gradebook(tmp_path, ["01", "02"])
    assert [g.student for g in grades] == ["ada", "bob"]
    assert (tmp_path / "gradebook.csv").read_text().startswith("student,lab01,lab02,total")
    table = summary_table(grades, ["01", "02"])
    assert "ada" in table and "3/10" in table
    # The console's table and the gradebook word the points not graded the same way.
    gradebook = {row["student"]: row for row in csv.DictReader(io.StringIO((tmp_path / "gradebook.csv").read_text()))}
    for grade in grades:
        note = f"{grade.not_graded} points not graded"
        assert (note in table.splitlines()[2 + grades.index(grade)]) == (grade.not_graded > 0), grade.student
        assert (note in gradebook[grade.student]["notes"]) == (grade.not_graded > 0), grade.student


def test_a_grade_counts_only_when_it_verifies(tmp_path):
    ada, bob = sample_grades()
    save_grade(student_folder(tmp_path, "ada"), ada)
    save_grade(student_folder(tmp_path, "bob"), bob)
    assert (tmp_path / ".grader-key").stat().st_mode & 0o077 == 0
    # Edited by someone else: not trusted, and the gradebook says so instead of showing it.
    edited = student_folder(tmp_path, "ada") / "grade.json"
    edited.write_text(edited.read_text().replace('"points": 3', '"points": 0'))
    assert load_grade(student_folder(tmp_path, "ada")) is None
    # Planted: a copy of bob's files under a student that never submitted does not verify either.
    planted = student_folder(tmp_path, "eve")
    planted.mkdir()
    for name in ("grade.json", "grade.sig"):
        (planted / name).write_bytes((student_folder(tmp_path, "bob") / name).read_bytes())
    assert load_grade(planted) is None
    rows = {
        row["student"]: row
        for row in csv.DictReader(
            io.StringIO(write_gradebook(tmp_path, ["01", "02"]) and (tmp_path / "gradebook.csv").read_text())
        )
    }
    assert rows["bob"]["total"] == "1"
    assert rows["ada"]["total"] == "0" and "does not verify" in rows["ada"]["notes"]
    assert rows["eve"]["total"] == "0" and "does not verify" in rows["eve"]["notes"]


def test_reports_say_which_isolation_was_in_force(tmp_path):
    grade = sample_grades()[0]
    grade.isolation = "bubblewrap (bwrap 0.8.0): own PID and network namespaces"
    assert "Isolation: bubblewrap" in report_markdown(grade)
    assert "Isolation: bubblewrap" in gradescope_results(grade)["output"]


def test_student_names_become_safe_folder_names(tmp_path):
    assert student_folder(tmp_path, "../../etc").name == "etc"
    assert student_folder(tmp_path, "Ana María López").name == "Ana_Mar_a_L_pez"


def test_a_rerun_skips_graded_students_unless_regrade(tmp_path, monkeypatch, capsys):
    (tmp_path / "subs" / "ada").mkdir(parents=True)
    out = tmp_path / "out"
    graded = []

    class FakeGrader:
        def __init__(self, submission, settings, gpu, lock):
            self.submission, self.settings = submission, settings

        def grade(self):
            graded.append(self.submission.name)
            grade = sample_grades()[0]
            save_grade(student_folder(self.settings.out, "ada"), grade)
            return grade

    monkeypatch.setattr(grade_module, "SubmissionGrader", FakeGrader)
    monkeypatch.setattr(grade_module, "gpu_presence", lambda: (False, "no GPU: test"))
    monkeypatch.setattr(grade_module, "prepare_course", lambda settings: "")
    labs = [lab for lab in course_labs(ROOT) if lab.number in ("01", "02")]
    settings = grade_module.GradeSettings(out=out, labs=labs, all_labs=labs)
    assert grade_module.grade_batch(tmp_path / "subs", settings) == 0
    assert grade_module.grade_batch(tmp_path / "subs", settings) == 0
    assert graded == ["ada"]
    assert "already graded" in capsys.readouterr().out
    settings.regrade = True
    grade_module.grade_batch(tmp_path / "subs", settings)
    assert graded == ["ada", "ada"]
    assert (out / "gradebook.csv").read_text().count("\nada,") == 1


def test_the_autograder_zip_has_the_scripts_and_the_course(tmp_path):
    labs = [lab for lab in course_labs(ROOT) if lab.number == "01"]
    names = build_autograder(tmp_path / "autograder.zip", labs, timeout_s=25)
    assert {
        "setup.sh",
        "run_autograder",
        "course",
        "CMakeLists.txt",
        "cmake/StreamLab.cmake",
        "labs/01-null-stream/lab.json",
        "tools/coursecli/batch.py",
    } <= set(names)
    assert not any(n.startswith(("solutions/", "labs/02-", "tools/tests/")) or "__pycache__" in n for n in names)
    assert not any(n.endswith(".record.jsonl") for n in names), "the committed records: no grade reads them"
    with zipfile.ZipFile(tmp_path / "autograder.zip") as archive:
        run = archive.read("run_autograder").decode()
        assert "--labs 01 --timeout 25" in run and "/autograder/results/results.json" in run
        assert archive.getinfo("run_autograder").external_attr >> 16 & 0o111
        setup = archive.read("setup.sh").decode()
        assert "cuda-toolkit-13-0" in setup
        # The timelines are drawn with the module's analysis: its sources, and what builds it, come too.
        assert "python/CMakeLists.txt" in names
        assert "python3-dev" in setup and setup.index("nanobind") < setup.index("--build-course-only")
    # setup.sh builds the course once, into the image; each submission's grading uses that build as it is
    # (the same options: CMake finds it up to date).
    options = "--labs 01 --timeout 25 --cuda-arch '90' --course-build /autograder/source/build-grading"
    assert f"--build-course-only {options}\n" in setup and setup.index("cuda-toolkit") < setup.index(options)
    assert f'-o "$work/out" {options}\n' in run


def test_the_python_autograder_grades_the_python_labs_and_builds_the_module(tmp_path):
    labs = [lab for lab in course_labs(ROOT, python=True) if lab.number == "05"]
    names = build_autograder(tmp_path / "autograder.zip", labs, cuda_version="13-0", python=True)
    assert {
        "python/CMakeLists.txt",
        "python/lab_program.py",
        "labs/05-three-chunks/python/record_lab05.py",
    } <= set(names)
    with zipfile.ZipFile(tmp_path / "autograder.zip") as archive:
        assert "--course-build /autograder/source/build-grading --python" in archive.read("run_autograder").decode()
        setup = archive.read("setup.sh").decode()
        assert "python3-dev" in setup and "cuda-bindings==13.*" in setup and "nanobind" in setup
        assert setup.index("nanobind") < setup.index("--build-course-only")  # the module is built with it


def test_without_a_gpu_the_result_says_the_gpu_tests_were_not_graded_there():
    bob = sample_grades()[1]
    results = gradescope_results(bob)
    assert results["output"].startswith("The GPU tests could not be graded here")
    assert "Gradescope" not in results["output"]  # written by any `course grade`, not only Gradescope's
    not_graded = [t for t in results["tests"] if "not graded" in t["name"]]
    assert not_graded and all(t["max_score"] == 0 and "status" not in t for t in not_graded)
    assert "could not be graded here" not in gradescope_results(sample_grades()[0])["output"]


def test_the_autograder_zip_holds_tracked_files_only(tmp_path):
    import subprocess

    root = tmp_path / "course"
    lab = root / "labs" / "01-null-stream"
    lab.mkdir(parents=True)
    (root / "CMakeLists.txt").write_text("project(x)\n")
    (lab / "lab.json").write_text("tracked\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "."], check=True)
    (lab / "answers.txt").write_text("an untracked file that merely lies on disk\n")
    labs = [lab for lab in course_labs(ROOT) if lab.number == "01"]
    names = build_autograder(tmp_path / "autograder.zip", labs, root=root)
    assert {"CMakeLists.txt", "labs/01-null-stream/lab.json"} <= set(names)
    assert "labs/01-null-stream/answers.txt" not in names
    with pytest.raises(RuntimeError, match="not a git checkout"):
        build_autograder(tmp_path / "other.zip", labs, root=tmp_path / "nowhere")


def test_the_signing_key_is_the_same_for_every_thread_that_asks_first(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from coursecli.gradebook import KEY_FILE, grader_key

    for attempt in range(20):
        out = tmp_path / str(attempt)
        with ThreadPoolExecutor(8) as pool:
            keys = set(pool.map(grader_key, [out] * 8))
        assert len(keys) == 1 and len(keys.pop()) == 32
        assert [p.name for p in out.iterdir()] == [KEY_FILE]
