"""The student's loop without a GPU: a build folder of another course folder is configured again, not
built from the other folder's sources; `course list` counts the TODO blocks left, not the markers the README
asks to keep, and shows a check made without a GPU; `course pack` names the untouched labs and compiles
nothing `course check` already vetted; `course check NN --record` refuses another lab's record in one line,
says whose record it judges, draws it under its own name and does not score a prediction the run was not
made with; the no-GPU message points at the committed records."""

import os
import re
import threading
from pathlib import Path

import pytest
import test_student_verbs
from coursecli import build, labs, listing, pack, records, results, student_files
from coursecli import main as course_main
from coursecli.main import main
from coursecli.scoring import FAILED, TestGrade, grade_record, graded_tests
from coursecli.shell import COURSE_ERROR, ROOT
from test_student_verbs import LAB, edit

# Labs 01's and 05's runs made on a GPU, committed with the course.
RECORDS_01 = records.committed_records(ROOT, "01-null-stream")
RECORDS_05 = records.committed_records(ROOT, "05-three-chunks")
SOLUTION_01 = records.committed_record(ROOT, "01-null-stream", "h200", "solution")
SOLUTION_05 = records.committed_record(ROOT, "05-three-chunks", "h200", "solution")
STOP_WITHOUT_JOIN_05 = records.committed_record(ROOT, "05-three-chunks", "h200", "wrong-lab05-stop-without-join")

# The course build the tests run on, as `course test` names it (STREAMLAB_BUILD), and its preset.
BUILD = Path(os.environ["STREAMLAB_BUILD"]) if os.environ.get("STREAMLAB_BUILD") else None
PRESET = next((name for name in ("ci", "default", "debug") if BUILD and build.build_dir(name) == BUILD), None)
needs_course_build = pytest.mark.skipif(
    PRESET is None or not (BUILD / "judges" / "lab05_judge").is_file(),
    reason="needs a course build of a preset with lab 05's judges, named in STREAMLAB_BUILD (./course test)",
)


@pytest.fixture
def student_course(tmp_path, monkeypatch):
    """Lab 01 as the course ships it, in a git repository of its own (test_student_verbs.course_copy)."""
    return test_student_verbs.course_copy.__wrapped__(tmp_path, monkeypatch)


def test_a_build_folder_configured_for_another_course_folder_is_configured_again(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "build-ci"
    (folder / "labs" / "CMakeFiles" / "lab01_yours.dir").mkdir(parents=True)
    (folder / "labs" / "CMakeFiles" / "lab01_yours.dir" / "null_stream.cu.o").write_text("old object")
    (folder / "results").mkdir()
    (folder / "results" / "last-check.json").write_text("{}")
    (folder / "Makefile").write_text("all:\n")
    (folder / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/somewhere/else/course\n")
    commands = []
    monkeypatch.setattr(build, "build_dir", lambda preset: folder)
    monkeypatch.setattr(build, "run", lambda command, **kw: commands.append(command))

    build.configure("ci")

    assert commands and commands[0][:3] == ["cmake", "--preset", "ci"], "the build folder was not configured again"
    assert not (folder / "labs" / "CMakeFiles").exists(), "objects compiled from the other folder's sources remain"
    assert (folder / "results" / "last-check.json").is_file(), "the student's results were removed"
    said = capsys.readouterr().out
    assert "/somewhere/else/course" in said and "moved or copied" in said


def test_a_build_folder_of_this_course_folder_is_left_as_it_is(tmp_path, monkeypatch):
    folder = tmp_path / "build-ci"
    folder.mkdir()
    (folder / "Makefile").write_text("all:\n")
    (folder / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={build.ROOT}\n")
    commands = []
    monkeypatch.setattr(build, "build_dir", lambda preset: folder)
    monkeypatch.setattr(build, "run", lambda command, **kw: commands.append(command))

    build.configure("ci")

    assert commands == [] and (folder / "CMakeCache.txt").is_file()


# --- course list: what is left to do, and the last check made without a GPU ------------------------


def test_list_counts_the_todo_blocks_left_as_the_starter_has_them_not_the_markers_kept(student_course, capsys):
    lab = student_course / "labs" / LAB
    source = lab / "null_stream.cu"
    starter = source.read_text()
    blocks = len(student_files.todo_blocks(starter))
    assert blocks == 5 and listing.code_state(lab, False, "HEAD") == "untouched"
    # Task 1 done between its markers, which the README says to keep: two blocks fewer to do.
    edit(source, "    (void)input, (void)output, (void)bytes, (void)iterations;\n", "    serial_job_here();\n")
    edit(
        source,
        "    return 0.0F;\n    // TODO(lab01) end",
        "    return elapsed_ms(start, stop);\n    // TODO(lab01) end",
    )
    assert source.read_text().count("TODO(lab01):") == blocks  # every marker kept
    assert listing.code_state(lab, False, "HEAD") == f"edited, {blocks - 2} TODO left"
    # Every block done, the markers still there: nothing left to do.
    done = re.sub(r"(TODO\(lab01\):[^\n]*\n)(.*?)(\s*// TODO\(lab01\) end)", r"\1    done();\3", starter, flags=re.S)
    source.write_text(done)
    assert done.count("TODO(lab01):") == blocks and listing.code_state(lab, False, "HEAD") == "edited"


def test_list_shows_a_check_made_without_a_gpu_not_not_checked(student_course, capsys):
    lab, build = student_course / "labs" / LAB, student_course / "build"
    student_files.save_check_without_gpu(build, "01", False, 0)
    listing.print_labs({"01": lab}, build)
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("01 "))
    assert "C++ without a GPU: checks passed, tests not run (" in row and "not checked" not in row, row
    student_files.save_check_without_gpu(build, "01", False, 2)
    assert "without a GPU: 2 check(s) failed" in listing.score_text(student_files.read_last_checks(build)["01"]["cpp"])


def test_two_checks_at_once_keep_their_results_without_moving_each_others_file(tmp_path):
    """A notebook and a terminal may check at the same moment: each writes its results through a partial file
    of its own, so neither finds the other's moved away."""
    failures = []

    def keep(number: str) -> None:
        try:
            for checks_failed in range(40):
                student_files.save_check_without_gpu(tmp_path, number, True, checks_failed)
        except OSError as error:
            failures.append(error)

    writers = [threading.Thread(target=keep, args=(number,)) for number in ("01", "02")]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    assert not failures
    assert not list((tmp_path / "results").glob("*.tmp"))
    assert student_files.read_last_checks(tmp_path)  # whole JSON, whichever wrote last


# --- course pack: untouched labs named, nothing compiled twice --------------------------------------


def test_pack_names_the_untouched_labs_and_compiles_none_of_them(student_course, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(pack, "course_compiler", lambda out: pytest.fail("a starter needs no compiling"))
    assert pack.pack(["01"], False, tmp_path / "ada.zip", tmp_path / "build" / "pack") == 1
    out = capsys.readouterr().out
    assert "untouched, the starter's code as handed out (their graded tests score 0): labs 01" in out, out
    assert "is ready" not in out


def test_pack_does_not_compile_again_what_check_vetted(student_course, tmp_path, capsys, monkeypatch):
    source = student_course / "labs" / LAB / "null_stream.cu"
    edit(source, "(void)input", "(void)bytes, (void)input")
    build = tmp_path / "build"
    student_files.save_vetted(build, {f"{LAB}/null_stream.cu": source.read_bytes()})  # as `course check 01` does
    monkeypatch.setattr(pack, "course_compiler", lambda out: pytest.fail("vetted by check: not compiled again"))
    assert pack.pack(["01"], False, tmp_path / "ada.zip", build / "pack") == 0
    assert "lab 01: compiled alone and vetted by `course check 01`, unchanged since" in capsys.readouterr().out

    edit(source, "(void)bytes, (void)input", "(void)input")  # changed since: compiled again
    edit(source, "(void)output", "(void)bytes, (void)output")
    compiled = []
    monkeypatch.setattr(pack, "course_compiler", lambda out: compiled.append(out) or "the grader's compiler")
    monkeypatch.setattr(pack, "check_lab", lambda *args: (None, ""))
    assert pack.pack(["01"], False, tmp_path / "ada.zip", build / "pack") == 0 and compiled


# --- course check NN --record: a record of another lab, whose record it is ---------------------------


def test_check_record_refuses_a_record_of_another_lab_in_one_line(capsys, monkeypatch):
    monkeypatch.setattr(labs, "build", lambda *args: pytest.fail("nothing is built for a record of another lab"))
    monkeypatch.setattr(course_main.environment, "setup_or_exit", lambda: None)
    record = SOLUTION_01
    status = main(["check", "05", "--record", str(record)])
    out = capsys.readouterr().out
    assert status == COURSE_ERROR
    assert (
        out
        == f"course: {record} is a record of lab 01, not of lab 05: judge it with ./course check 01 --record {record}\n"
    )


def test_committed_records_are_called_whose_they_are():
    starter = records.committed_record(ROOT, "05-three-chunks", "h200", "starter")
    assert records.whose_words(SOLUTION_05, ROOT).startswith("the solution's record")
    assert records.whose_words(starter, ROOT).startswith("the starter's record")
    mistake = records.whose_words(STOP_WITHOUT_JOIN_05, ROOT)
    assert mistake.startswith("the record of a typical mistake (wrong-lab05-stop-without-join,"), mistake
    assert records.whose_words(Path("/tmp/mine.record.jsonl"), ROOT) == "the record /tmp/mine.record.jsonl"


def test_the_no_gpu_message_points_at_the_committed_records(capsys):
    labs._point_at_committed_records("05")
    out = capsys.readouterr().out
    assert "./course check 05 --record common/tests/records/05-three-chunks/h200-solution.record.jsonl" in out, out
    assert "typical mistakes in common/tests/records/05-three-chunks/*-wrong-*" in out, out


@needs_course_build
def test_check_record_of_a_sample_keeps_your_picture_and_record_and_does_not_score_its_prediction(capsys, monkeypatch):
    monkeypatch.setattr(labs, "gpu_presence", lambda: (False, "no GPU: hidden by the test"))
    monkeypatch.setattr(labs, "build", lambda preset, targets: BUILD)
    monkeypatch.setattr(course_main.environment, "setup_or_exit", lambda: None)
    own = records.record_path(BUILD, "05", "yours")
    kept = own.read_bytes() if own.is_file() else None
    status = main(["check", "05", "--record", str(STOP_WITHOUT_JOIN_05), "--preset", PRESET])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "judging the record of a typical mistake (wrong-lab05-stop-without-join" in out, out
    assert "your graded run" not in out and "lab05-record-h200-wrong-lab05-stop-without-join.png" in out, out
    assert "not scored: this run was made with the sample's answers, which a record does not hold" in out, out
    assert "Value of:" not in out and "Actual: false" not in out, "GoogleTest's report, not the test's words"
    assert (own.read_bytes() if own.is_file() else None) == kept, "judging a sample replaced your own record"

    status = main(["check", "05", "--record", str(SOLUTION_05), "--preset", PRESET])
    out = capsys.readouterr().out
    assert status == 0 and "Lab 05 (solution): judging the solution's record" in out, out  # its own prediction


# --- the judges' reasons, in the student's words --------------------------------------------------


def judged(number: str, record: Path, folder: Path) -> list[TestGrade]:
    """Lab `number`'s graded tests on `record` (committed), judged and scored as `course check` and the
    grader do (scoring.grade_record); the answer files are the lab's starter's."""
    answers = ROOT / "labs" / record.parent.name
    labels = results.read_labels(BUILD)
    tests = graded_tests(labels, number, "yours")
    return grade_record(BUILD, number, record.parent.name, record, answers, folder, tests).tests


@needs_course_build
@pytest.mark.parametrize("record", [*RECORDS_01, *RECORDS_05])
def test_every_failing_judge_of_labs_01_and_05_says_why_in_its_own_words(record, tmp_path):
    for test in judged(record.parent.name[:2], record, tmp_path):
        if test.status == FAILED:
            reason = test.shown
            assert not any(word in reason for word in ("Value of:", "Actual:", "Expected: true")), (test.name, reason)
            assert len(reason) <= 404 and (reason.endswith((".", ")", "...", "`")) or reason[-1].isalnum())


@needs_course_build
def test_a_stop_without_the_join_is_the_reason_and_no_passing_ratio_is_shown(tmp_path):
    test = next(
        t for t in judged("05", STOP_WITHOUT_JOIN_05, tmp_path) if t.name.endswith("ReportedSpeedupMatchesTimeline")
    )
    assert test.status == FAILED
    assert test.shown.startswith("`stop` does not wait for 6 of the 9 copies and kernels"), test
    assert "cudaStreamWaitEvent in the stream of `stop`" in test.shown
    assert test.measures == [], "a ratio within its threshold reads as a pass"
