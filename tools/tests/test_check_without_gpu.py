"""`course check` without a GPU: every check that needs none runs, with the grader's words, before the one
line that says what needs a GPU; both tracks end the same way, with exit status 77 (or 1 when a check failed).

The object check compiles the student's source with the compile commands of the build `course test` made
(conftest.py: STREAMLAB_BUILD): the tests that make it are skipped where no build is named or nvcc is missing.
"""

import json
import re
import shutil

import pytest
from coursecli import answers, environment, lab_checks, labs
from coursecli import main as course_main
from coursecli.build import NO_COURSE_BUILD, build_under_test
from coursecli.gpu import NO_GPU_EXIT
from coursecli.lab_declaration import read_lab
from coursecli.main import main
from coursecli.records import committed_record
from coursecli.shell import COURSE_ERROR, ROOT
from streamlab_tools.library import preset_of

BUILD = build_under_test()
PRESET = preset_of(BUILD) if BUILD else None
LAB = "01-null-stream"
NO_GPU = (False, "no GPU: hidden by the test")


def _why_not_with_the_build() -> str:
    """Why the tests that compile with the course's build cannot run here ("" where they can)."""
    if BUILD is None:
        return NO_COURSE_BUILD
    if PRESET is None or not (BUILD / "compile_commands.json").is_file():
        return f"{BUILD} is not a configured build of one of the course's presets: run ./course test"
    return "" if environment.find_nvcc() else "needs nvcc, which compiles the student's source"


WITHOUT_THE_BUILD = _why_not_with_the_build()
needs_course_build = pytest.mark.skipif(bool(WITHOUT_THE_BUILD), reason=WITHOUT_THE_BUILD)


@pytest.fixture
def no_gpu(monkeypatch):
    """`course check` with no GPU, the tested build as its build (configured, nothing built by the test)."""
    monkeypatch.setattr(labs, "gpu_presence", lambda: NO_GPU)
    monkeypatch.setattr(labs, "build", lambda preset, targets: BUILD)
    monkeypatch.setattr(labs, "build_python_side", lambda preset: BUILD)
    # The preview on the simulated GPU needs a build of its own (test_simulated_preview.py runs it).
    monkeypatch.setattr(labs, "_preview_on_the_simulated_gpu", lambda number, variant, python: None)
    monkeypatch.setattr(course_main.environment, "setup_or_exit", lambda: None)


def check(capsys, *argv):
    status = main(["check", *argv])
    return status, capsys.readouterr().out


def student_copy(tmp_path, monkeypatch, source_edit=None, prediction=None):
    """The lab 01 solution as a student's labs/ folder (the files `course check` reads), edited."""
    lab = tmp_path / "labs" / LAB
    shutil.copytree(ROOT / "solutions" / LAB, lab)
    if source_edit:
        source = lab / "null_stream.cu"
        source.write_text(source_edit(source.read_text()))
    if prediction is not None:
        (lab / "prediction.txt").write_text(prediction)
    monkeypatch.setattr(labs, "student_root", lambda variant: tmp_path / "labs")


@needs_course_build
def test_a_refused_call_and_a_malformed_prediction_are_both_reported_without_a_gpu(
    tmp_path, monkeypatch, capsys, no_gpu
):
    def exits(text):  # std::exit(3) when the serial run is handed no elements, as a student might end it
        head = "float run_serial(const float* input, float* output, std::size_t n, int iterations) {\n"
        assert head in text
        return "#include <cstdlib>\n" + text.replace(head, head + "    if (n == 0) std::exit(3);\n")

    student_copy(tmp_path, monkeypatch, exits, "blocking: A < B < C\nnonblocking A+B+C\n")
    status, out = check(capsys, "01")
    assert status == 1
    assert "  FAIL  null_stream.cu vetted: nothing graded code may not do" in out
    assert "null_stream.cu calls exit(): graded code may not end the process: use SL_CHECK, which throws" in out
    assert "prediction.txt: line 2 is not `key: value`: nonblocking A+B+C" in out
    assert "course: lab 01 is refused (above): the grader runs none of its tests and scores it 0" in out
    assert "no GPU" not in out  # nothing of it would run at the grader either: the GPU is not what is missing


@needs_course_build
def test_a_malformed_prediction_fails_the_check_without_a_gpu(tmp_path, monkeypatch, capsys, no_gpu):
    student_copy(tmp_path, monkeypatch, prediction="blocking: A < B < C\nnonblocking: A B C\n")
    status, out = check(capsys, "01")
    assert status == 1
    assert "  pass  null_stream.cu vetted: nothing graded code may not do" in out
    assert "prediction.txt, `nonblocking:` `A B C` is not an order such as" in out
    assert out.count("no GPU") == 1
    assert out.splitlines()[-1] == "course: exit status 1: 1 check(s) above failed; the grader would fail them too"


@needs_course_build
def test_a_source_an_earlier_check_vetted_is_not_compiled_again_until_it_changes(tmp_path, monkeypatch, capsys, no_gpu):
    student_copy(tmp_path, monkeypatch, lambda text: f"{text}\n// {tmp_path.name}\n")  # this run's own content
    assert "  pass  null_stream.cu vetted: nothing graded code may not do\n" in check(capsys, "01")[1]
    compiled, compile_alone = [], lab_checks.object_verdicts
    monkeypatch.setattr(lab_checks, "object_verdicts", lambda *args: compiled.append(args) or compile_alone(*args))
    unchanged = "  pass  null_stream.cu vetted: nothing graded code may not do (unchanged since an earlier check"
    assert unchanged in check(capsys, "01")[1] and not compiled
    source = tmp_path / "labs" / LAB / "null_stream.cu"
    source.write_text(source.read_text() + "// changed\n")
    assert unchanged not in check(capsys, "01")[1] and len(compiled) == 1


@needs_course_build
def test_both_tracks_say_the_same_without_a_gpu(capsys, no_gpu):
    """The C++ and Python solutions of lab 01: one no-GPU line, worded alike, the same last line and status."""
    endings = []
    for track in ([], ["--python"]):
        status, out = check(capsys, "01", "--solution", *track)
        assert status == 77, out
        assert out.count("no GPU") == 1 and "cudaError" not in out and "tests passed" not in out
        lines = out.splitlines()
        reason = next(line for line in lines if "no GPU" in line)
        assert re.fullmatch(
            r"course: no GPU: hidden by the test\. Lab 01's \d+ graded tests \(\d+ points\) run on the GPU: "
            r"not graded here, counting neither for nor against\.",
            reason,
        ), reason
        assert "FAIL" not in out and "  pass  " in out
        endings.append(lines[lines.index(reason) :])
    assert endings[0][1:] == endings[1][1:]  # the picture and the exit status
    assert endings[0][-1] == "course: exit status 77: not graded for want of a GPU (not a failing grade)"


def test_a_refused_python_file_stops_the_check_with_the_graders_words(tmp_path, monkeypatch, capsys, no_gpu):
    folder = tmp_path / "labs" / LAB / "python"
    shutil.copytree(ROOT / "solutions" / LAB / "python", folder)
    (folder / "null_stream.py").write_text("import os\n" + (folder / "null_stream.py").read_text())
    monkeypatch.setattr(labs, "student_root", lambda variant: tmp_path / "labs")
    monkeypatch.setattr(
        labs, "read_labels", lambda folder: {"lab01.python-yours.SerialRun.OpsRunOneAfterAnother": ["gpu", "pts:2"]}
    )
    status, out = check(capsys, "01", "--python")
    assert status == 1
    assert "  FAIL  null_stream.py vetted: nothing graded code may not do" in out
    assert "null_stream.py:1 imports os: graded code may import only the lab's API" in out


# --- the answer files ------------------------------------------------------------------


def answer_files():
    """(lab folder, answer file name) for each answer_files entry of every lab.json."""
    return sorted(
        (lab.parent, name) for lab in (ROOT / "labs").glob("*/lab.json") for name in read_lab(lab.parent).answer_files
    )


def test_the_labs_that_ask_for_answers_are_found():
    assert {(lab.name[:2], name) for lab, name in answer_files()} >= {("01", "prediction.txt"), ("09", "choice.txt")}


@pytest.mark.parametrize("lab, name", answer_files(), ids=lambda v: getattr(v, "name", v))
def test_each_labs_questions_are_the_templates_and_its_solution_answers_all(lab, name):
    template, _ = answers.parse_answer_file((lab / name).read_text())
    assert set(template) == set(answers.ANSWER_FORMS[lab.name[:2]]) and set(template.values()) == {"?"}
    assert answers.answer_problems(lab.name[:2], name, ROOT / "solutions" / lab.name / name) == []
    unanswered = answers.answer_problems(lab.name[:2], name, lab / name)
    assert unanswered == [f"{name}: `{key}:` is not answered yet (still `?`)" for key in template]
    for key in template:  # the keys the lab's graded test reads
        assert f'"{key}"' in next(lab.glob("test_lab*.cpp")).read_text(), key


@pytest.mark.parametrize(
    "number, text, problem",
    [
        ("01", "blocking: A<B<C\nnonblocking: a+b+c\n", ""),
        ("01", "blocking: A<B<C\nnonblocking: A+B\n", ", `nonblocking:` `A+B` must name each of ABC once"),
        ("01", "blocking: A<B<D\nnonblocking: A+B+C\n", ", `blocking:` `A<B<D` names D, which is not one of ABC"),
        ("01", "blocking: A<<B\nnonblocking: A+B+C\n", ", `blocking:` `A<<B` is not an order such as `A < B < C`"),
        ("01", "blocking: A<B<C\nblocking: A+B+C\n", ": line 2 answers `blocking` a second time"),
        ("01", "blocking: A < B < C\n", " has no `nonblocking:` line"),
        ("02", "last_stream_idle_when_polled: no\nfirst_stream_idle_after_sync: maybe\n", ", `first_stream_"),
        ("03", "large: pinned\nregistered: quick\n", ", `registered:` must be `faster` or `slower` or `same`"),
        ("04", "pinned: Busy\npageable: done  # comment\n", ""),
        ("05", "speedup: 1.8 x\n", ""),
        ("05", "speedup: about 2\n", ", `speedup:` must be a number such as 1.5 (or 1.5x), not `about 2`"),
        ("05", "speedup: 0\n", ", `speedup:` must be a number such as 1.5 (or 1.5x), not `0`"),
        ("09", "wait: polling\ncpu: 0.97\nwhy: the work fills the wait\n", ""),
        (
            "09",
            "wait: polling\ncpu: 97%\nwhy: the work fills the wait\n",
            ", `cpu:` must be a number from 0 to 1, not `97%`",
        ),
        ("09", "wait: sleep\ncpu: 0\nwhy: it sleeps\n", ", `wait:` must be `spin` or `yield`"),
        ("09", "wait: event\ncpu: 0.01\n", " has no `why:` line"),
    ],
)
def test_answers_are_read_and_their_forms_checked_as_the_graded_tests_do(tmp_path, number, text, problem):
    (tmp_path / "prediction.txt").write_text(text)
    found = answers.answer_problems(number, "prediction.txt", tmp_path / "prediction.txt")
    assert len(found) == (1 if problem else 0) and all(line.startswith("prediction.txt" + problem) for line in found)


def test_the_form_messages_are_the_graded_tests_own():
    """Where a lab's test words a malformed answer itself, answers.py says it in the same words."""
    for lab, key in (("02", "last_stream_idle_when_polled"), ("04", "pinned"), ("05", "speedup"), ("09", "cpu")):
        message = answers.ANSWER_FORMS[lab][key]("maybe")
        words = message[: message.index("not `") + len("not `")]
        assert words in next((ROOT / "labs").glob(f"{lab}-*/test_lab{lab}.cpp")).read_text(), words


def test_a_missing_answer_file_is_named(tmp_path):
    assert answers.answer_problems("05", "prediction.txt", tmp_path / "prediction.txt") == [
        "prediction.txt is missing: write your answers there (the starter has a template)"
    ]


# --- exit statuses ---------------------------------------------------------------------


def test_the_course_help_lists_the_exit_statuses(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    for line in ("0   done: everything graded passed", "1   a check or a graded test failed", "77  not graded: no GPU"):
        assert line in out, line


def test_an_unknown_lab_is_the_courses_own_error(capsys, monkeypatch):
    monkeypatch.setattr(course_main.environment, "setup_or_exit", lambda: None)
    status, out = check(capsys, "99")
    assert status == 2 and out.startswith("course: no lab 99 (labs: 01, 02, ")


# Lab 05's runs made on an H200, committed with the course.
SOLUTION = committed_record(ROOT, "05-three-chunks", "h200", "solution")
STARTER = committed_record(ROOT, "05-three-chunks", "h200", "starter")
PYTHON_SOLUTION = committed_record(ROOT, "05-three-chunks", "h200", "python-solution")
PYTHON_STARTER = committed_record(ROOT, "05-three-chunks", "h200", "python-starter")


@needs_course_build
def test_check_judges_a_record_again_without_a_gpu(capsys, no_gpu):
    points = read_lab(ROOT / "labs" / "05-three-chunks").cpp.points
    status, out = check(capsys, "05", "--solution", "--record", str(SOLUTION), "--preset", PRESET)
    assert status == 0, out
    assert re.search(rf"total\s+{points}/{points}", out), out
    assert "no GPU" not in out  # judging a record needs none

    status, out = check(capsys, "05", "--record", str(STARTER), "--preset", PRESET)
    assert status == 1
    assert re.search(rf"total\s+0/{points}", out), out


@needs_course_build
def test_check_says_a_record_made_with_too_few_gpus_is_not_graded(tmp_path, capsys, no_gpu):
    """Lab 08 needs two GPUs: the record a one-GPU machine leaves says only that (RECORD_FORMAT.md), and
    judging it again grades nothing and fails nothing."""
    record = tmp_path / "one-gpu.record.jsonl"
    reason = "not graded: needs two GPUs (this machine has 1)"
    lines = [
        {"format": "streamlab-record", "version": 1, "lab": "08", "program": "p", "date": "d", "seed": 1},
        {"setup": {"no_gpu": reason}},
        {"end": "complete"},
    ]
    record.write_text("".join(json.dumps(line) + "\n" for line in lines))
    status, out = check(capsys, "08", "--solution", "--record", str(record), "--preset", PRESET)
    assert status == NO_GPU_EXIT, out
    assert f"{reason}: lab 08 cannot be graded on the machine that made this record" in out, out


@needs_course_build
def test_check_draws_nothing_from_a_record_the_judges_refused(tmp_path, capsys, no_gpu):
    """A truncated record: every test fails with the judges' reason, and no picture claims to be the judged
    run (the first scenarios' lines are whole, but nothing was judged)."""
    solution = SOLUTION.read_text()
    cut = solution[: solution.index("\n", solution.index('"scenario":"serial"')) + 200]
    record = tmp_path / "truncated.record.jsonl"
    record.write_text(cut)
    status, out = check(capsys, "05", "--solution", "--record", str(record), "--preset", PRESET)
    assert status == 1, out
    assert "the record cannot be judged" in out and "not one JSON object" in out, out
    assert "No timeline picture: the judges refused the record" in out and "Timeline of" not in out, out


def test_check_record_refuses_what_it_cannot_judge(tmp_path, capsys, no_gpu):
    status, out = check(capsys, "05", "--record", str(tmp_path / "missing.jsonl"))
    assert status == COURSE_ERROR and "no such file" in out
    status, out = check(capsys, "05", "--sanitize", "--record", str(SOLUTION))
    assert status == COURSE_ERROR and "takes no --sanitize" in out
    status, out = check(capsys, "08", "--python", "--record", str(SOLUTION))
    # Every track is recorded once; a lab without a Python version (lab 08) has no Python record.
    assert status == COURSE_ERROR and "has no Python version" in out, out


@needs_course_build
def test_check_judges_a_python_tracks_record_with_the_cpp_judges(capsys, no_gpu):
    points = read_lab(ROOT / "labs" / "05-three-chunks").cpp.points
    status, out = check(capsys, "05", "--python", "--solution", "--record", str(PYTHON_SOLUTION), "--preset", PRESET)
    assert status == 0, out
    assert "Lab 05 (solution, Python): graded tests" in out and re.search(rf"total\s+{points}/{points}", out), out
    status, out = check(capsys, "05", "--python", "--record", str(PYTHON_STARTER), "--preset", PRESET)
    assert status == 1 and "NotImplementedError" in out, out
