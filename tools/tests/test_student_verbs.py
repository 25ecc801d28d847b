"""The verbs a student works with besides run and check: `course list`, `course reset NN`, `course pack`;
the labs in `run`/`check --help`; `course plot --help`; and the score `course check` keeps for `list`."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from coursecli import judging, labs, listing, pack, reset, student_files
from coursecli.main import main
from coursecli.scoring import graded_tests, score
from coursecli.submissions import course_labs, take_student_sources
from judged_fixture import fixture_judged, fixture_labels
from test_course_cli import course

ROOT = Path(__file__).resolve().parents[2]
LAB = "01-null-stream"


@pytest.fixture
def course_copy(tmp_path, monkeypatch):
    """A git repository holding lab 01 as the course ships it (committed), which the verbs treat as the course."""
    root = tmp_path / "course"
    shutil.copytree(ROOT / "labs" / LAB, root / "labs" / LAB, ignore=shutil.ignore_patterns("*.png"))
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the course"], check=True)
    for module in (student_files, reset, pack):
        monkeypatch.setattr(module, "ROOT", root)
    monkeypatch.setattr(reset, "COPIES", root / "reset-copies")
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def fixture_grades():
    """The judged fixture of fixtures/grading scored on a GPU: 7 tests of lab 01 at 2 points, 1 passed, 1
    not graded (the course's own skip)."""
    judged = fixture_judged()
    return [score(test, judged[test.name], True) for test in graded_tests(fixture_labels(), "01", "yours")]


# --- help ----------------------------------------------------------------------------------


@pytest.mark.parametrize("verb", ["run", "check", "reset"])
def test_the_verbs_that_take_a_lab_list_the_labs_in_their_help(capsys, verb):
    status, out, _ = course(capsys, verb, "--help")
    assert status == 0
    for number, folder in labs.lab_folders().items():
        # argparse wraps long lines, at a topic's hyphen too: compare without the breaks
        assert f"{number} {folder.name[3:]}" in " ".join(out.split()).replace("- ", "-"), folder.name


def test_plot_help_says_course_plot_and_not_the_interpreters_command_line(capfd):
    assert main(["plot", "--help"]) == 0
    out = capfd.readouterr().out
    assert out.startswith("usage: course plot [-h]"), out[:80]
    assert "streamlab_tools.plot" not in out and not any(line.startswith("$ ") for line in out.splitlines())


def test_the_top_help_names_list_reset_and_pack(capsys):
    _, out, _ = course(capsys, "--help")
    for verb in ("list", "reset", "pack"):
        assert f"\n    {verb} " in out, verb


# --- course list ---------------------------------------------------------------------------


def row_of(out: str, number: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(f"{number} "))


def test_list_shows_points_progress_and_the_last_checked_score(course_copy, capsys):
    lab, build = course_copy / "labs" / LAB, course_copy / "build"
    listing.print_labs({"01": lab}, build)
    row = row_of(capsys.readouterr().out, "01")
    assert row.split()[:2] == ["01", "null-stream"]
    assert "16 / 16" in row  # lab.json's points: the C++ tests', the Python track's (the same judges)
    assert row.count("untouched") == 2 and "0/2 answered" in row and "C++ not checked" in row

    edit(lab / "null_stream.cu", "(void)input", "(void)bytes, (void)input")
    edit(lab / "prediction.txt", "blocking: ?", "blocking: A < B < C")
    student_files.save_last_check(build, "01", False, fixture_grades())
    listing.print_labs({"01": lab}, build)
    row = row_of(capsys.readouterr().out, "01")
    assert "edited" in row and "untouched" in row  # the C++ source edited, the Python one not
    assert "1/2 answered" in row
    assert "C++ 2/14, 2 not graded (" in row


def test_course_check_keeps_the_score_of_your_code_for_list(tmp_path, monkeypatch, capsys):
    judged = fixture_judged()
    monkeypatch.setattr(labs, "gpu_presence", lambda: (True, "a GPU"))
    monkeypatch.setattr(labs, "build", lambda preset, targets: tmp_path)
    monkeypatch.setattr(labs, "_record", lambda preset, folder, number, track: tmp_path / "lab01.record.jsonl")
    monkeypatch.setattr(labs, "read_labels", lambda folder: fixture_labels())
    monkeypatch.setattr(
        judging, "run_judges", lambda build, number, record, answers, folder, tests: [judged[t] for t in tests]
    )
    assert labs.check_lab("01", "ci", solution=False) == 1
    out = capsys.readouterr().out
    assert (
        "Lab 01 (yours): graded tests" in out and "kernels ran in 1 stream" in out and "hint: launch in streams" in out
    )
    kept = student_files.read_last_checks(tmp_path)["01"]["cpp"]
    assert (kept["earned"], kept["possible"], kept["not_graded"]) == (2, 14, 2)
    labs.check_lab("01", "ci", solution=True)  # the solution's score is not yours: nothing kept
    assert student_files.read_last_checks(tmp_path)["01"]["cpp"] == kept


def test_predictions_counts_answers_and_ignores_comments():
    text = "# TODO(lab01): replace each `?` # blocking: A\nblocking: ?\nnonblocking: A+B+C  # mine\n\n"
    assert student_files.predictions(text) == (1, 2)
    assert student_files.predictions((ROOT / "solutions" / LAB / "prediction.txt").read_text()) == (2, 2)


@pytest.mark.parametrize("lab", sorted(p.parent.name for p in (ROOT / "labs").glob("*/prediction.txt")))
def test_every_prediction_file_is_marked_as_the_students_and_asks_what_the_solution_answers(lab):
    starter = (ROOT / "labs" / lab / "prediction.txt").read_text()
    first = starter.splitlines()[0]
    assert first.startswith(f"# TODO(lab{lab[:2]}): replace each `?`"), first  # a comment: the grader skips it
    answered, asked = student_files.predictions(starter)
    assert (
        answered == 0
        and asked == student_files.predictions((ROOT / "solutions" / lab / "prediction.txt").read_text())[0]
    )


# --- course reset --------------------------------------------------------------------------


def test_reset_puts_the_starter_back_and_keeps_a_copy_of_yours(course_copy, capsys):
    lab = course_copy / "labs" / LAB
    starter, python_starter = (lab / "null_stream.cu").read_text(), (lab / "python" / "null_stream.py").read_text()
    edit(lab / "null_stream.cu", "(void)input", "(void)bytes, (void)input")
    mine = (lab / "null_stream.cu").read_text()
    (lab / "python" / "null_stream.py").write_text("# mine\n")

    assert reset.reset_lab(lab, python=False, ref="HEAD") == 0
    out = capsys.readouterr().out
    assert (lab / "null_stream.cu").read_text() == starter
    assert (lab / "python" / "null_stream.py").read_text() == "# mine\n"  # the other track is left alone
    kept = [line.split(" is kept in ")[1] for line in out.splitlines() if " is kept in " in line]
    assert len(kept) == 1 and (course_copy / kept[0]).read_text() == mine  # only the file that differed
    assert f"labs/{LAB}/null_stream.cu is the starter again" in out

    assert reset.reset_lab(lab, python=True, ref="HEAD") == 0
    assert (lab / "python" / "null_stream.py").read_text() == python_starter
    assert reset.reset_lab(lab, python=True, ref="HEAD") == 0
    assert "already as committed" in capsys.readouterr().out


def test_reset_from_an_unknown_commit_changes_nothing(course_copy, capsys):
    lab = course_copy / "labs" / LAB
    (lab / "null_stream.cu").write_text("// mine\n")
    assert reset.reset_lab(lab, python=False, ref="no-such-commit") == 2
    assert "git knows no commit 'no-such-commit'" in capsys.readouterr().out
    assert (lab / "null_stream.cu").read_text() == "// mine\n" and not (course_copy / "reset-copies").exists()


def test_reset_of_a_lab_that_does_not_exist_says_which_exist(capsys):
    status, out, _ = course(capsys, "reset", "42")
    assert (status, out) == (2, f"course: no lab 42 (labs: {', '.join(labs.lab_folders())})\n")


# --- course pack ---------------------------------------------------------------------------


class NoCompiler:
    """A grader's compiler that must not be needed: a source whose text is refused is never compiled."""

    def compile(self, *args, **kwargs):
        raise AssertionError("compiled a source that the text check refuses")


def test_pack_writes_what_course_grade_takes_and_vets_it_with_the_graders_check(
    course_copy, tmp_path, capsys, monkeypatch
):
    edit(course_copy / "labs" / LAB / "null_stream.cu", "(void)input", "(void)bytes, (void)input")
    checked = []

    def graders_check(folder, files, staged, work, rules, compiler):
        checked.append((folder, files, (staged / folder / files[0]).read_bytes(), compiler))
        return None, ""

    monkeypatch.setattr(pack, "course_compiler", lambda out: "the grader's compiler")
    monkeypatch.setattr(pack, "check_lab", graders_check)
    archive = tmp_path / "ada.zip"
    assert pack.pack(["01"], False, archive, tmp_path / "work") == 0
    out = capsys.readouterr().out
    members = [f"labs/{LAB}/null_stream.cu", f"labs/{LAB}/prediction.txt"]
    assert zipfile.ZipFile(archive).namelist() == members
    # What the grader reads from it, with its own code: exactly the student's files of lab 01.
    intake = take_student_sources(archive, course_labs(ROOT), ROOT)
    assert list(intake.taken) == ["01"] and list(intake.taken["01"]) == ["null_stream.cu"]
    assert list(intake.answers["01"]) == ["prediction.txt"] and intake.ignored_summary() == []
    edited = (course_copy / "labs" / LAB / "null_stream.cu").read_bytes()
    assert checked == [(LAB, ["null_stream.cu"], edited, checked[0][3])]
    assert checked[0][3] == "the grader's compiler"
    assert "prediction.txt has 2 of 2 answers still `?`" in out and f"{archive} is ready" in out


def test_pack_names_a_refused_call_and_a_missing_file_and_exits_1(course_copy, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(pack, "course_compiler", lambda out: NoCompiler())
    lab = course_copy / "labs" / LAB
    (lab / "null_stream.cu").write_text('#include "/etc/passwd"\n' + (lab / "null_stream.cu").read_text())
    assert pack.pack(["01"], False, tmp_path / "a.zip", tmp_path / "work") == 1
    out = capsys.readouterr().out
    assert "lab 01: refused: null_stream.cu:1 includes a file by its path" in out
    assert "would give the labs named above 0 points" in out

    (lab / "null_stream.cu").unlink()
    assert pack.pack(["01"], False, tmp_path / "b.zip", tmp_path / "work") == 1
    assert "lab 01: missing null_stream.cu" in capsys.readouterr().out


def test_pack_of_the_python_track_takes_the_python_files_and_checks_them_as_the_grader(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(pack, "course_compiler", lambda out: pytest.fail("the Python track compiles nothing"))
    archive = tmp_path / "ada-python.zip"
    assert pack.pack(["01", "05"], True, archive, tmp_path / "work") == 1  # both are the starters, untouched
    assert zipfile.ZipFile(archive).namelist() == [
        f"labs/{LAB}/python/null_stream.py",
        f"labs/{LAB}/python/prediction.txt",  # judged by the C++ track's judges, answers included
        "labs/05-three-chunks/python/three_chunks.py",
        "labs/05-three-chunks/python/prediction.txt",
    ]
    out = capsys.readouterr().out
    assert "lab 05: its Python passes the source check" in out
    assert "untouched, the starter's code as handed out (their graded tests score 0): labs 01 05" in out, out


def test_pack_refuses_an_output_that_is_not_a_zip_and_writes_nothing(tmp_path, capsys):
    status, out, _ = course(capsys, "pack", "-o", tmp_path / "work.txt")
    assert status == 2 and "give the name of a .zip file" in out
    assert list(tmp_path.iterdir()) == []


def test_a_reader_that_goes_away_ends_the_listing_quietly():
    """`course list | head -1`: the reader closes the pipe before the listing is written."""
    listing = subprocess.Popen(
        [sys.executable, str(ROOT / "course"), "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    listing.stdout.close()  # before the course has started writing
    _, errors = listing.communicate(timeout=120)
    assert listing.returncode == 0 and b"Traceback" not in errors, errors.decode()
