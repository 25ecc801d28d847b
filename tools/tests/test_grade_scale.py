"""Grading a class at scale without a GPU: one recording per GPU (with a fake GPU count), the CPU's steps
beside the GPU's (a stand-in recorder and judges), the link command that reuses the course build, shards
of a batch, and the progress line."""

import io
import json
import threading
import time
from pathlib import Path

from coursecli import batch as grade_module
from coursecli import grading_build, submission_grader
from coursecli.course_build import CourseBuild
from coursecli.gpu_slots import GpuSlots, chosen_devices
from coursecli.gradebook import load_grade, save_grade, student_folder
from coursecli.progress import Progress, duration
from coursecli.scoring import LabGrade, SubmissionGrade
from coursecli.shell import ROOT
from coursecli.submissions import course_labs
from selfgrading import recording_time
from selfgrading.measure_batch import gpu_busy_share, lab_table
from selfgrading.sample_files import student_files, write_folder


def test_a_gpu_is_held_by_one_holder_at_a_time_and_all_are_used():
    slots = GpuSlots(["0", "1", "2"])
    holders: dict[str, int] = {"0": 0, "1": 0, "2": 0}
    most, lock, used = [0], threading.Lock(), set()

    def work():
        with slots.hold() as env:
            device = env["CUDA_VISIBLE_DEVICES"]
            with lock:
                holders[device] += 1
                used.add(device)
                most[0] = max(most[0], holders[device])
            time.sleep(0.05)
            with lock:
                holders[device] -= 1

    threads = [threading.Thread(target=work) for _ in range(9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1 and used == {"0", "1", "2"}
    with GpuSlots([]).hold() as env:  # no GPU: one slot, and the steps' environment is left alone
        assert env == {}
    assert chosen_devices(["4", "5", "6"], 2) == ["4", "5"] and chosen_devices(["4"], None) == ["4"]


def test_a_holder_of_two_gpus_gets_two_free_ones_together_and_is_not_starved():
    slots = GpuSlots(["0", "1"])
    order, lock = [], threading.Lock()
    first = slots.hold()
    assert first.__enter__() == {"CUDA_VISIBLE_DEVICES": "0"}  # one GPU held: the pair must wait

    def take(name, gpus, seconds):
        with slots.hold(gpus) as env:
            with lock:
                order.append((name, env["CUDA_VISIBLE_DEVICES"]))
            time.sleep(seconds)

    pair = threading.Thread(target=take, args=("pair", 2, 0.05))
    pair.start()
    time.sleep(0.05)  # the pair asks first; the singles after it, while GPU 1 is free
    singles = [threading.Thread(target=take, args=(f"single{i}", 1, 0.01)) for i in range(3)]
    for thread in singles:
        thread.start()
    time.sleep(0.05)
    assert order == []  # GPU 1 is free, but the pair asked before the singles: they wait behind it
    first.__exit__(None, None, None)
    for thread in [pair, *singles]:
        thread.join()
    assert order[0] == ("pair", "0,1")  # both GPUs, together
    assert sorted(name for name, _ in order[1:]) == ["single0", "single1", "single2"]
    with GpuSlots(["3"]).hold(2) as env:  # fewer GPUs than asked for: all there are (the tests say why)
        assert env == {"CUDA_VISIBLE_DEVICES": "3"}
    with GpuSlots([]).hold(2) as env:
        assert env == {}


def test_the_slots_count_how_long_their_gpus_were_held():
    now = [0.0]
    slots = GpuSlots(["0", "1"], clock=lambda: now[0])
    with slots.hold(2):
        now[0] = 3.0
        assert slots.busy_share() == 1.0  # a hold going on counts
    now[0] = 6.0
    with slots.hold():
        now[0] = 10.0
    assert slots.busy_share() == (2 * 3 + 4) / (2 * 10)  # GPU-seconds held over GPU-seconds passed
    assert GpuSlots([], clock=lambda: 0.0).busy_share() == 0.0


def test_jobs_default_from_the_cpus_and_the_gpus():
    assert grade_module.default_jobs(16, 0) == 4 and grade_module.default_jobs(2, 0) == 1
    assert grade_module.default_jobs(16, 1) == 3  # one records while two build or are judged
    assert grade_module.default_jobs(32, 2) == 6 and grade_module.default_jobs(128, 8) == 24
    assert grade_module.default_jobs(4, 2) == 3  # few cores: still one more than the GPUs
    assert grade_module.default_jobs(8, 8) == 9


def test_a_submissions_judges_run_while_the_next_one_records(tmp_path, monkeypatch):
    """The real SubmissionGrader with a stand-in recorder (its sandboxed ctest step takes the GPU slot for a
    while) and stand-in judges (scoring.grade_record, which take a while on the CPU). The judges must never
    hold the GPU; the second submission must record while the first is judged; and each lab's steps are
    timed into its grade."""
    events, lock = [], threading.Lock()
    recording = {"ada": threading.Event(), "bob": threading.Event()}  # set when that student's recording starts
    saw_the_other_record: dict[str, bool] = {}

    def log(what, student):
        with lock:
            events.append((what, student, time.monotonic()))

    def sandboxed_step(grader, command, timeout_s, limits, building=False, env=None, cwd=None):
        assert command[0] == "ctest" and grader.device == {"CUDA_VISIBLE_DEVICES": "0"}
        assert command[command.index("-R") + 1] == r"^lab(01)\.yours\.record$"  # one lab per step
        log("record", grader.student)
        recording[grader.student].set()
        time.sleep(0.3)
        log("recorded", grader.student)
        return 0, ""

    def judges(build, number, folder, record, answers, reports, tests, gpu_present):
        student = record.parts[record.parts.index(".work") + 1]
        log("judge", student)
        # While judged, waits (a while) for the other submission's recording: it starts only where the slot
        # was given back before the judges ran.
        other = "bob" if student == "ada" else "ada"
        saw_the_other_record[student] = recording[other].wait(timeout=10)
        time.sleep(0.3)
        log("judged", student)
        return LabGrade(number, folder)

    class StandInBuild:
        folder = tmp_path / "course"

        def write_test_lists(self, *args):
            pass

    def build_lab(grader, lab):
        grader._timed(lab.number, "build", time.monotonic() - 0.1)
        return 0, ""

    grader = submission_grader.SubmissionGrader
    monkeypatch.setattr(grader, "_check_before_linking", lambda self, intake: ({}, {}))
    monkeypatch.setattr(grader, "_build_lab", build_lab)
    monkeypatch.setattr(grader, "_checks", lambda self, lab, refusal, built: [])
    monkeypatch.setattr(grader, "_step", sandboxed_step)
    monkeypatch.setattr(grader, "_record_timelines", lambda self, labs, grade: {})
    monkeypatch.setattr(submission_grader, "grade_record", judges)
    monkeypatch.setattr(grade_module, "gpu_presence", lambda: (True, "a fake GPU"))
    monkeypatch.setattr(grade_module, "gpu_devices", lambda: ["0"])
    monkeypatch.setattr(grade_module, "prepare_course", lambda settings: "")
    monkeypatch.setattr(grade_module, "prepare_plotting", lambda settings: None)
    for name in ("ada", "bob"):
        write_folder(tmp_path / "subs" / name, student_files("solution"))
    labs = [lab for lab in course_labs(ROOT) if lab.number == "01"]
    settings = grade_module.GradeSettings(
        out=tmp_path / "out", labs=labs, all_labs=course_labs(ROOT), jobs=2, sandbox="none", compiler=object()
    )
    settings.course_build = StandInBuild()
    assert grade_module.grade_batch(tmp_path / "subs", settings) == 0
    when = {(what, student): at for what, student, at in events}
    first, second = sorted(("ada", "bob"), key=lambda student: when[("record", student)])
    assert when[("record", second)] >= when[("recorded", first)]  # one GPU: one recording at a time
    assert saw_the_other_record[first]  # the GPU did not wait for the first one's judges
    for student in ("ada", "bob"):
        assert when[("judge", student)] >= when[("recorded", student)]
        grade = load_grade(student_folder(settings.out, student))
        lab = grade.labs[0]
        assert set(lab.seconds) == {"build", "record", "judge"}
        # Each stand-in step slept 0.3 s; the steps are parts of the submission's own time.
        assert lab.seconds["record"] >= 0.29 and lab.seconds["judge"] >= 0.29
        assert sum(lab.seconds.values()) <= grade.seconds + 0.1


def test_the_batch_measurement_prints_each_labs_median_steps():
    def graded(record, build):
        lab = LabGrade("01", "01-null-stream", seconds={"record": record, "build": build, "judge": 0.5})
        return SubmissionGrade("s", labs=[lab, LabGrade("08", "08-two-gpus")])

    rows = lab_table([graded(1.0, 2.0), graded(4.0, 3.0), graded(2.0, 9.0)], ["01", "08"])
    assert rows[1].split() == ["01", "2.00", "3.00", "0.50", "5.50"]
    assert rows[2].split() == ["08", "(not", "run)"]
    assert rows[3].split() == ["all", "2.00", "3.00", "0.50", "5.50"]
    assert "over the target" in lab_table([graded(4.0, 1.0)], ["01"])[1]
    assert gpu_busy_share("course: 3 graded in 40 s (wall), GPU busy 87% of it") == "87%"
    assert gpu_busy_share("course: 3 graded in 40 s (wall)") == "?"


def test_labs_are_tested_in_groups_by_the_gpus_they_need():
    labs = course_labs(ROOT)
    by_number = {lab.number: lab for lab in labs}
    assert by_number["08"].gpus == 2 and by_number["01"].gpus == 1
    groups = submission_grader.labs_by_gpus([by_number["08"], by_number["01"], by_number["02"]])
    assert [(gpus, [lab.number for lab in group]) for gpus, group in groups] == [(1, ["01", "02"]), (2, ["08"])]
    assert submission_grader.labs_by_gpus([]) == []


def batch(tmp_path, monkeypatch, names, devices, gpus=None):
    """Grades `names` with a fake grader that holds a GPU for 0.2 s; (devices each used, most at once)."""
    for name in names:
        (tmp_path / "subs" / name).mkdir(parents=True)
    seen, running, most, lock = [], [0], [0], threading.Lock()

    class FakeGrader:
        def __init__(self, submission, settings, gpu, slots):
            self.submission, self.settings, self.slots = submission, settings, slots

        def grade(self):
            with self.slots.hold() as env:
                with lock:
                    seen.append(env.get("CUDA_VISIBLE_DEVICES"))
                    running[0] += 1
                    most[0] = max(most[0], running[0])
                time.sleep(0.2)
                with lock:
                    running[0] -= 1
            grade = SubmissionGrade(self.submission.name)
            save_grade(student_folder(self.settings.out, grade.student), grade)
            return grade

    monkeypatch.setattr(grade_module, "SubmissionGrader", FakeGrader)
    monkeypatch.setattr(grade_module, "gpu_presence", lambda: (True, "a fake GPU"))
    monkeypatch.setattr(grade_module, "gpu_devices", lambda: devices)
    monkeypatch.setattr(grade_module, "prepare_course", lambda settings: "")
    labs = [lab for lab in course_labs(ROOT) if lab.number == "01"]
    settings = grade_module.GradeSettings(
        out=tmp_path / "out", labs=labs, all_labs=labs, jobs=1, gpus=gpus, sandbox="none"
    )
    assert grade_module.grade_batch(tmp_path / "subs", settings) == 0
    return seen, most[0]


def test_every_gpu_grades_a_submission_at_the_same_time(tmp_path, monkeypatch, capsys):
    seen, most = batch(tmp_path, monkeypatch, ["a", "b", "c", "d"], ["0", "1"])
    assert sorted(set(seen)) == ["0", "1"] and len(seen) == 4
    assert most == 2  # --jobs 1 is raised to one submission per GPU
    assert "2 GPU(s), one submission's recordings on each" in capsys.readouterr().out


def test_gpus_limits_the_gpus_used(tmp_path, monkeypatch):
    seen, most = batch(tmp_path, monkeypatch, ["a", "b", "c"], ["0", "1", "2", "3"], gpus=1)
    assert set(seen) == {"0"} and most == 1


def test_a_shard_grades_every_kth_listed_submission(tmp_path):
    found = [tmp_path / name for name in "abcdefg"]
    todo = tmp_path / "todo.txt"
    todo.write_text("".join(f"{tmp_path / name}\n" for name in "bcdeg"))
    labs = course_labs(ROOT)
    settings = grade_module.GradeSettings(out=tmp_path, labs=labs, all_labs=labs, todo=todo, shard=(1, 2))
    assert grade_module.shard_of(found, settings) == [tmp_path / "c", tmp_path / "e"]
    settings.todo, settings.shard = None, (0, 1)
    assert grade_module.shard_of(found, settings) == found


def test_a_submission_links_its_own_library_in_the_starters_place(tmp_path):
    link = tmp_path / "labs" / "CMakeFiles" / "lab01_yours_record.dir" / "link.txt"
    link.parent.mkdir(parents=True)
    link.write_text(
        "/usr/bin/c++ -O3 -Wl,--dependency-file=CMakeFiles/lab01_yours_record.dir/link.d "
        '"CMakeFiles/lab01_yours_record.dir/record_lab01.cpp.o" -o lab01_yours_record '
        "-Wl,--whole-archive ../common/libstreamlab.a -Wl,--no-whole-archive liblab01_yours.a "
        "../common/libstreamlab.a -lcudart_static\n"
    )
    folder, argv = CourseBuild(tmp_path).link_command(
        "lab01_yours_record", "01", Path("/w/liblab01_yours.a"), Path("/w/lab01_yours_record")
    )
    assert folder == tmp_path / "labs"
    assert argv == [
        "/usr/bin/c++",
        "-O3",
        "CMakeFiles/lab01_yours_record.dir/record_lab01.cpp.o",
        "-o",
        "/w/lab01_yours_record",
        "-Wl,--whole-archive",
        "../common/libstreamlab.a",
        "-Wl,--no-whole-archive",
        "/w/liblab01_yours.a",
        "../common/libstreamlab.a",
        "-lcudart_static",
    ]


def test_a_submissions_tests_are_the_courses_pointed_at_its_programs(tmp_path):
    course = CourseBuild(tmp_path / "course")
    (course.folder / "labs").mkdir(parents=True)
    record = f"{course.xml_placeholder()}/lab01.yours.record.jsonl"
    (course.folder / "labs" / "CTestTestfile.cmake").write_text(
        f'add_test([=[lab01.yours.record]=] "{course.folder}/bin/streamlab_record" "--out" "{record}" '
        f'"--" "{course.folder}/labs/lab01_yours_record")\n'
        f'add_test([=[lab01.yours.A.B]=] "{course.folder}/judges/lab01_judge" '
        f'"--gtest_output=xml:{course.xml_placeholder()}/lab01.yours.A.B.xml")\n'
        f"set_tests_properties([=[lab01.yours.A.B]=] PROPERTIES ENVIRONMENT "
        f'"STREAMLAB_ANSWER_DIR={course.answers_placeholder()}/01-null-stream;STREAMLAB_RECORD={record}")\n'
    )
    build = tmp_path / "student" / "build"
    course.write_test_lists(build, tmp_path / "student" / "xml", tmp_path / "student" / "labs")
    text = (build / "labs" / "CTestTestfile.cmake").read_text()
    assert f'"{build}/labs/lab01_yours_record"' in text and f"{course.folder}/labs/" not in text
    # The harness and the judges, which never link a student's code, stay the course build's.
    assert f'"{course.folder}/bin/streamlab_record"' in text and f'"{course.folder}/judges/lab01_judge"' in text
    assert "student-" not in text  # no placeholder left
    assert f"xml:{tmp_path}/student/xml/lab01.yours.A.B.xml" in text
    assert text.count(f"{tmp_path}/student/xml/lab01.yours.record.jsonl") == 2  # written there, and read there
    assert f"STREAMLAB_ANSWER_DIR={tmp_path}/student/labs/01-null-stream" in text
    assert (build / "CTestTestfile.cmake").read_text() == 'subdirs("labs")\n'


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_plain_lines_and_one_updating_line_on_a_terminal():
    now = [0.0]
    plain = io.StringIO()
    progress = Progress(3, 1, plain, clock=lambda: now[0])
    progress.start("ada")
    progress.finish("ada", "lab01 4/4", 120.0)
    progress.start("bob")
    assert plain.getvalue().splitlines() == [
        "course: grading ada (0/3 done)",
        "[1/3] ada: lab01 4/4",
        "course: grading bob (1/3 done, about 4 min left)",
    ]
    terminal = FakeTerminal()
    progress = Progress(2, 1, terminal, clock=lambda: now[0])
    progress.start("ada")
    progress.finish("ada", "lab01 4/4", 30.0)
    progress.start("bob")
    shown = terminal.getvalue()
    assert shown.startswith("\r\033[K[0/2 done] grading: ada")
    assert "\r\033[K[1/2] ada: lab01 4/4\n" in shown and shown.endswith("[1/2 done] grading: bob; about 30 s left")
    assert duration(45) == "45 s" and duration(600) == "10 min" and duration(4800) == "1 h 20 min"


def test_a_kept_course_build_serves_one_batch_at_a_time(tmp_path):
    labs = course_labs(ROOT)
    first = grade_module.GradeSettings(out=tmp_path / "a", labs=labs, all_labs=labs, course_build_dir=tmp_path / "c")
    second = grade_module.GradeSettings(out=tmp_path / "b", labs=labs, all_labs=labs, course_build_dir=tmp_path / "c")
    assert grading_build.course_build_folder(second) == tmp_path / "c"
    held = grading_build.lock_course_build(first)
    assert held is not None
    assert grading_build.lock_course_build(second) is None  # the other batch must wait
    held.close()
    again = grading_build.lock_course_build(second)
    assert again is not None
    again.close()
    own = grade_module.GradeSettings(out=tmp_path / "a", labs=labs, all_labs=labs)
    assert grading_build.course_build_folder(own) == tmp_path / "a" / ".work" / ".course"


def test_a_prebuilt_course_is_used_as_it_is_by_every_task_at_once(tmp_path, monkeypatch):
    """Slurm's array tasks: the course their build job built, read without its lock and never built again."""
    labs = [lab for lab in course_labs(ROOT) if lab.number == "01"]
    (tmp_path / "subs" / "ada").mkdir(parents=True)
    built = tmp_path / "course"
    built.mkdir()
    (built / "compile_commands.json").write_text("[]")
    monkeypatch.setattr(grading_build, "read_labels", lambda folder: {})
    monkeypatch.setattr(grade_module, "prepare_course", lambda settings: "built the course again")
    monkeypatch.setattr(grade_module, "gpu_presence", lambda: (False, "no GPU: hidden by the test"))
    graded = []

    class FakeGrader:
        def __init__(self, submission, settings, gpu, slots):
            self.submission, self.settings = submission, settings

        def grade(self):
            graded.append(self.settings.course_build.folder)
            grade = SubmissionGrade(self.submission.name)
            save_grade(student_folder(self.settings.out, grade.student), grade)
            return grade

    monkeypatch.setattr(grade_module, "SubmissionGrader", FakeGrader)

    def task(index: int) -> int:
        out = tmp_path / "shards" / str(index)
        settings = grade_module.GradeSettings(
            out=out, labs=labs, all_labs=labs, course_build_dir=built, course_prebuilt=True, sandbox="none"
        )
        return grade_module.grade_batch(tmp_path / "subs", settings)

    held = grading_build.lock_course_build(  # another task holds it: a prebuilt course needs no lock
        grade_module.GradeSettings(out=tmp_path / "other", labs=labs, all_labs=labs, course_build_dir=built)
    )
    assert task(0) == 2 and graded == []  # the build job did not mark it built: nothing graded
    (built / grading_build.BUILT_MARK).write_text("01 02\n")
    assert task(1) == 0 and task(2) == 0 and graded == [built, built]
    held.close()


def test_where_a_recordings_time_went_is_read_from_the_harness_figures(tmp_path, capsys):
    end = {"end": "complete", "observed": {"starts": [{}, {}], "scenario_wall_ms": {"a": 500.0, "b": 1500.0}}}
    (tmp_path / "lab09.solution.record.jsonl").write_text('{"record": 1}\n' + json.dumps(end) + "\n")
    (tmp_path / "lab01.solution.record.jsonl").write_text("not json\n")
    log = tmp_path / "ctest.log"
    log.write_text("  3/9 Test  #41: lab09.solution.record ..........   Passed   3.25 sec\n")
    assert recording_time.main([str(tmp_path), str(log)]) == 1  # lab 01's record is unreadable
    out = capsys.readouterr().out
    assert (
        "lab09.solution: 3.25 s, 2 start(s), 2 scenarios 2.00 s (1.25 s outside them); slowest: b 1.50 s, a 0.50 s"
        in out
    )
    assert "lab01.solution.record.jsonl: unreadable" in out
