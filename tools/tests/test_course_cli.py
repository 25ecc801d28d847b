"""The `course` command as a newcomer meets it: every argument checked, one clear line for
bad input, the verb's own usage and help, and what happens where there is no GPU."""

import subprocess
import sys
from pathlib import Path

import pytest
from coursecli import apt, developer_tests, environment, gpu, labs, slides
from coursecli import build as build_module
from coursecli import main as course_main
from coursecli.main import main
from coursecli.shell import ROOT
from coursecli.tally import Tally, add_pytest_junit
from streamlab_tools import library

NO_GPU = (False, "no GPU: hidden by the test")


def course(capsys, *argv):
    """Runs `course ARGV`; returns (status, stdout, stderr). argparse's refusals exit with 2."""
    try:
        status = main([str(a) for a in argv])
    except SystemExit as done:
        status = done.code
    out, err = capsys.readouterr()
    return status, out, err


# --- arguments -------------------------------------------------------------------------


def test_grade_refuses_a_file_that_is_not_a_submission(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("README.md").write_text("# notes\n")
    assert course(capsys, "grade", "README.md", "-o", "g") == (
        2,
        "course: README.md is a file, not a folder of submissions (or one .zip / .tar.gz submission)\n",
        "",
    )
    assert not Path("g").exists()


def test_grade_refuses_a_missing_folder(tmp_path, capsys):
    status, out, _ = course(capsys, "grade", tmp_path / "none", "-o", tmp_path / "g")
    assert (
        status == 2
        and out == f"course: {tmp_path / 'none'} does not exist: give a folder holding one submission per student\n"
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["grade", "subs", "-o", "g", "--timeout", "-5"],
            "argument --timeout: -5 is not allowed: it must be at least 1",
        ),
        (["grade", "subs", "-o", "g", "--timeout", "0"], "argument --timeout: 0 is not allowed: it must be at least 1"),
        (["grade", "subs", "-o", "g", "--jobs", "0"], "argument --jobs: 0 is not allowed: it must be at least 1"),
        (["grade", "subs", "-o", "g", "--jobs", "two"], "argument --jobs: 'two' is not a whole number"),
        (["gradescope", "--timeout", "0"], "argument --timeout: 0 is not allowed: it must be at least 1"),
        (["bench", "--repeats", "0"], "argument --repeats: 0 is not allowed: it must be at least 1"),
        (["run", "01", "--bogus"], "unrecognized arguments: --bogus"),
        (["check", "01", "--solution", "extra"], "unrecognized arguments: extra"),
    ],
)
def test_bad_arguments_get_the_verbs_usage_and_status_2(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    status, out, err = course(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.startswith(f"usage: course {argv[0]} ") and err.endswith(f"course {argv[0]}: error: {message}\n")
    assert not any(tmp_path.iterdir())  # nothing was started


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-o", "{tmp}"], "course: -o {tmp}: give the name of the .zip file to write, e.g. -o autograder.zip\n"),
        (
            ["-o", "{tmp}/x.txt"],
            "course: -o {tmp}/x.txt: give the name of the .zip file to write, e.g. -o autograder.zip\n",
        ),
        (
            ["-o", "{tmp}/a.zip", "--cuda-version", "banana"],
            "course: --cuda-version banana: give the toolkit's major-minor version as apt names it, e.g. 13-0 or 12-6\n",
        ),
        (
            ["-o", "{tmp}/a.zip", "--cuda-arch", "90; rm -rf /"],
            "course: --cuda-arch 90; rm -rf /: give architectures as CMake names them, e.g. 90 or '80;90'\n",
        ),
    ],
)
def test_gradescope_refuses_a_bad_output_or_version_and_writes_nothing(tmp_path, capsys, argv, message):
    argv = [a.format(tmp=tmp_path) for a in argv]
    assert course(capsys, "gradescope", *argv) == (2, message.format(tmp=tmp_path), "")
    assert list(tmp_path.iterdir()) == []


def test_plot_help_is_the_plot_tools_own(capfd):
    assert main(["plot", "--help"]) == 0
    out = capfd.readouterr().out
    assert "usage: course plot [-h]" in out and "--compare" in out and "--phase K" in out and "--window FROM TO" in out


def test_the_readme_command_table_names_every_plot_option():
    row = next(line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `./course plot"))
    for option in ("--by", "--model", "--compare", "--labels", "--phase", "--window"):
        assert option in row, option


# --- no GPU ------------------------------------------------------------------------------


def test_every_no_gpu_message_starts_the_same_way(monkeypatch):
    def no_driver(name):
        raise OSError(name)

    monkeypatch.setattr(gpu.ctypes, "CDLL", no_driver)
    assert gpu.gpu_presence() == (False, "no GPU: the NVIDIA driver (libcuda.so.1) is not installed")
    assert gpu.no_gpu("detail") == "no GPU: detail"
    sources = {  # the C++ side's wording is grader_words.hpp's kSkipNoGpu (test_grader_words.py)
        "common/support/include/streamlab/testing.hpp": "words::kSkipNoGpu + sl_presence.reason",
        "common/support/src/lab_program.cpp": "words::kSkipNoGpu, presence.reason",
        "programs/demo.cpp": "streamlab::words::kSkipNoGpu, presence.reason",
        "common/tests/trace_program_test.py": 'print("SKIPPED: no GPU: nvidia-smi lists none")',
    }
    for path, wording in sources.items():
        assert wording in (ROOT / path).read_text(), path


@pytest.fixture
def no_gpu_lab(monkeypatch):
    """`course check/run` with no GPU and a build that only records what it was asked to build."""
    built = []
    monkeypatch.setattr(labs, "gpu_presence", lambda: NO_GPU)
    monkeypatch.setattr(labs, "build", lambda preset, targets: built.append(targets) or ROOT / "build-test")
    monkeypatch.setattr(course_main.environment, "setup_or_exit", lambda: None)
    return built


def test_without_a_gpu_run_says_so_once_builds_and_shows_the_h200_picture(no_gpu_lab, capsys):
    """(`course check` without a GPU: test_check_without_gpu.py.)"""
    status, out, _ = course(capsys, "run", "01")
    assert status == gpu.NO_GPU_EXIT == 77
    lines = out.splitlines()
    assert (
        lines[0] == "course: no GPU: hidden by the test. Lab 01's program runs on the GPU: the lab is only built here."
    )
    assert lines[1] == "course: lab 01 builds."
    assert lines[2] == "course: What the solution's timelines look like, one picture per task:"
    # One picture per task with a timeline: the serial run and the barrier demo, each named.
    assert lines[3] == (
        "  Task 1: run_serial, the whole job in the NULL stream, the solution on an H200: "
        "labs/01-null-stream/timeline-h200.png"
    )
    assert lines[4].startswith("  Task 2: the barrier demo") and "labs/01-null-stream/barrier-h200.png" in lines[4]
    assert lines[5] == "course: exit status 77: not run for want of a GPU (not a failing grade)"
    assert out.count("no GPU") == 1 and len(lines) == 6
    assert no_gpu_lab == [["lab01_yours_run"]]


def test_grade_says_there_is_no_gpu_before_it_builds(tmp_path, capsys, monkeypatch):
    (tmp_path / "subs" / "ada").mkdir(parents=True)
    monkeypatch.setattr(course_main, "gpu_presence", lambda: NO_GPU)
    monkeypatch.setattr(course_main.batch, "grade_batch", lambda subs, settings: print("BUILDING") or 0)
    status, out, _ = course(capsys, "grade", tmp_path / "subs", "-o", tmp_path / "g")
    assert status == 0
    assert out.splitlines() == [
        "course: no GPU: hidden by the test. The submissions are built and their CPU tests run; "
        "their GPU tests are reported as not graded, counting neither for nor against.",
        "BUILDING",
    ]


def test_grade_of_an_empty_folder_says_no_submissions_and_nothing_about_the_gpu(tmp_path, capsys, monkeypatch):
    (tmp_path / "subs").mkdir()
    monkeypatch.setattr(course_main, "gpu_presence", lambda: NO_GPU)
    monkeypatch.setattr(course_main.batch, "grade_batch", lambda subs, settings: print("BUILDING") or 0)
    for slurm in ([], ["--slurm", "--dry-run"]):
        status, out, _ = course(capsys, "grade", tmp_path / "subs", "-o", tmp_path / "g", *slurm)
        assert (status, out) == (2, f"course: no submissions in {tmp_path / 'subs'} (folders, .zip or .tar.gz files)\n")
    assert not (tmp_path / "g").exists()


def test_building_the_course_alone_needs_no_submissions(tmp_path, capsys, monkeypatch):
    """What the Gradescope image's setup.sh and the Slurm build job run: the course built, nothing graded."""
    (tmp_path / "none").mkdir()
    built = []
    monkeypatch.setattr(course_main, "gpu_presence", lambda: NO_GPU)
    monkeypatch.setattr(course_main.grading_build, "build_course_only", lambda settings: built.append(settings) or 0)
    argv = ["grade", tmp_path / "none", "-o", tmp_path / "log", "--labs", "01", "--build-course-only"]
    assert course(capsys, *argv, "--course-build", tmp_path / "course") == (0, "", "")
    assert [s.course_build_dir for s in built] == [tmp_path / "course"] and built[0].cuda_arch == "90"
    status, out, _ = course(capsys, *argv)
    assert (status, out) == (2, "course: --build-course-only and --course-prebuilt need --course-build DIR\n")


# --- course test ---------------------------------------------------------------------------


def test_the_closing_count(tmp_path):
    tally = Tally()
    for status, reason in [("passed", "")] * 3 + [("skipped", "no GPU: no CUDA device found")] * 2 + [("failed", "")]:
        tally.add(status, reason)
    assert tally.line() == "3 passed, 2 not run (no GPU), 1 failed"
    tally.add("skipped", "needs cmake and nvcc")
    assert tally.line() == "3 passed, 3 not run (2 no GPU, 1 other reasons), 1 failed"
    junit = tmp_path / "pytest.xml"
    junit.write_text(
        '<testsuites><testsuite><testcase name="a"/><testcase name="b"><skipped message="no GPU: x"/>'
        '</testcase><testcase name="c"><failure/></testcase></testsuite></testsuites>'
    )
    add_pytest_junit(tally, junit)
    assert tally.line() == "4 passed, 4 not run (3 no GPU, 1 other reasons), 2 failed"
    assert Tally().line() == "0 passed, 0 not run, 0 failed"


@pytest.fixture
def course_test_run(tmp_path, monkeypatch):
    """`course test` with every step's work replaced by a note of it in `order` (installs, builds and tests
    made by nobody); pytest's and ctest's environments kept in `envs`."""
    order, envs = [], {}
    folder = tmp_path / "build"

    def fake_run(command, check=True, env=None, **kw):
        is_pytest = [str(c) for c in command[1:3]] == ["-m", "pytest"]
        if command[1:3] == ["-m", "coursecli.check_labs"]:
            assert env == environment.TOOLS_ENV  # the module is found by its package's name
        step = "pytest" if is_pytest else "ctest" if command[0] == "ctest" else command[2].split(".")[-1]
        order.append(step)
        envs[step] = env
        if is_pytest:
            junit = next(c for c in command if str(c).startswith("--junitxml=")).split("=", 1)[1]
            Path(junit).write_text(
                '<testsuite><testcase name="a"/><testcase name="b"><skipped message="no GPU: x"/>'
                "</testcase></testsuite>"
            )
        return subprocess.CompletedProcess(command, 0)

    def installs(preset, slides_too):
        order.append("installs" + ("" if slides_too else " without the slides' tools"))
        return False

    monkeypatch.setattr(developer_tests, "_install_for_tests", installs)
    monkeypatch.setattr(environment, "slide_tools_note", lambda: "the slides need pandoc and TeX, not installed here")
    monkeypatch.setattr(developer_tests, "architectures_here", lambda: None)
    monkeypatch.setattr(developer_tests, "build", lambda preset, architectures=None: order.append(preset) or folder)
    monkeypatch.setattr(developer_tests, "run", fake_run)
    monkeypatch.setattr(slides, "slides_step", lambda preset: order.append("slides") or True)
    monkeypatch.setattr(developer_tests.docs, "docs_step", lambda preset: order.append("docs") or True)
    monkeypatch.setattr(developer_tests.formatting, "format_step", lambda: order.append("formatting") or True)
    monkeypatch.setattr(environment, "tools_python", lambda: sys.executable)
    return order, envs, folder


def test_course_test_numbers_its_steps_runs_pytest_after_the_docs_and_ends_with_its_count(capsys, course_test_run):
    order, envs, folder = course_test_run
    status, out, _ = course(capsys, "test")
    assert status == 0
    # Everything installed first, the test preset built, Doxygen installed before its tests
    assert order == ["installs", "ci", "ctest", "check_labs", "formatting", "slides", "docs", "pytest"]
    lines = out.splitlines()
    assert (
        lines[0] == "course: the slides need pandoc and TeX, not installed here; `./course test --no-slides` skips them"
    )
    steps = [line for line in lines if line.startswith("course: step ") and " took " not in line]
    assert steps == [
        "course: step 1/8: install what is missing",
        "course: step 2/8: build",
        "course: step 3/8: C++ tests (ctest)",
        "course: step 4/8: lab consistency",
        "course: step 5/8: formatting",
        "course: step 6/8: slides",
        "course: step 7/8: API docs",
        "course: step 8/8: Python tests (pytest)",
    ]
    assert [line.split(" took ")[0] for line in lines if " took " in line] == [
        f"course: step {n}/8" for n in range(1, 9)
    ]
    assert lines[-2].startswith("course: time: install what is missing ") and " total " in lines[-2]
    assert lines[-1] == "course: 1 passed, 1 not run (no GPU), 0 failed"
    # Every test is told which build it tests.
    assert envs["pytest"]["STREAMLAB_BUILD"] == envs["ctest"]["STREAMLAB_BUILD"] == str(folder)


def test_course_test_without_slides_neither_installs_nor_builds_them(capsys, course_test_run):
    order, _, _ = course_test_run
    status, out, _ = course(capsys, "test", "--no-slides")
    assert status == 0 and "slides" not in order and order[0] == "installs without the slides' tools"
    assert "course: slides not built: --no-slides" in out and "not installed here" not in out


def test_course_test_documents_its_flag_and_builds_the_test_preset(capsys):
    status, out, _ = course(capsys, "test", "--help")
    assert status == 0 and "--no-slides" in out and "default: ci" in out


def test_a_steps_time_is_said_when_the_next_begins_and_all_of_them_at_the_end(capsys):
    times = iter([0.0, 42.4, 302.0, 305.0])
    steps = developer_tests.Steps(["install", "build", "tests"], clock=lambda: next(times))
    steps.next("install")
    steps.next("build")
    steps.next("tests")
    assert steps.summary() == "time: install 42 s, build 4 min 20 s, tests 3 s; total 5 min 05 s"
    assert capsys.readouterr().out.splitlines() == [
        "course: step 1/3: install",
        "course: step 1/3 took 42 s",
        "course: step 2/3: build",
        "course: step 2/3 took 4 min 20 s",
        "course: step 3/3: tests",
        "course: step 3/3 took 3 s",
    ]


def test_the_test_build_is_configured_again_for_the_gpus_here(tmp_path, monkeypatch):
    commands = []
    monkeypatch.setattr(build_module, "build_dir", lambda preset: tmp_path)
    monkeypatch.setattr(build_module, "run", lambda command, **kw: commands.append(command))
    (tmp_path / "Makefile").write_text("")
    (tmp_path / "CMakeCache.txt").write_text("CMAKE_CUDA_ARCHITECTURES:UNINITIALIZED=90\n")
    build_module.configure("ci", "90")
    build_module.configure("ci")
    assert commands == []  # configured already, for these GPUs
    build_module.configure("ci", "80;90")
    assert commands[0][:3] == ["cmake", "--preset", "ci"] and "-DCMAKE_CUDA_ARCHITECTURES=80;90" in commands[0]


def test_the_gpus_architectures_are_read_from_the_driver(tmp_path, monkeypatch):
    smi = tmp_path / "nvidia-smi"
    smi.write_text('#!/bin/sh\nprintf "%s" "$SMI_TEXT"\nexit "${SMI_STATUS:-0}"\n')
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    monkeypatch.setenv("SMI_TEXT", "9.0\n8.0\n9.0\n")
    assert build_module.architectures_here() == "80;90"
    monkeypatch.setenv("SMI_STATUS", "9")  # the driver sees no device
    assert build_module.architectures_here() is None
    monkeypatch.setenv("PATH", str(tmp_path / "none"))  # no driver
    assert build_module.architectures_here() is None


def test_a_test_finds_the_build_course_test_names(monkeypatch, tmp_path):
    monkeypatch.delenv("STREAMLAB_BUILD", raising=False)
    assert build_module.build_under_test() is None
    monkeypatch.setenv("STREAMLAB_BUILD", str(tmp_path))
    assert build_module.build_under_test() == tmp_path
    assert library.preset_of(ROOT / "build-ci") == "ci" and library.preset_of(tmp_path) is None


# --- installs --------------------------------------------------------------------------------

APT_ASSUME_NO = """Reading package lists...
The following NEW packages will be installed:
  pandoc texlive-latex-recommended
Need to get 130 MB of archives.
After this operation, 540 MB of additional disk space will be used.
Do you want to continue? [Y/n] N
Abort.
"""


def test_install_size_is_read_from_apt():
    assert apt.size_of(APT_ASSUME_NO) == "130 MB to download, 540 MB on disk"
    assert apt.size_of("Need to get 0 B/1,234 kB of archives.\n") == "0 B to download"
    assert apt.size_of("") == ""


def test_an_install_says_what_why_and_how_big_and_logs_apts_output(tmp_path, capfd, monkeypatch):
    fake = tmp_path / "bin" / "apt-get"
    fake.parent.mkdir()
    fake.write_text(
        '#!/bin/sh\ncase "$*" in *assume-no*) printf "%s" "$APT_TEXT"; exit 1;; esac\n'
        'for i in $(seq 300); do echo "Unpacking package $i"; done\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.setenv("APT_TEXT", APT_ASSUME_NO)
    monkeypatch.setattr(apt, "_prefix", lambda: [])
    log = tmp_path / "logs" / "apt-get.log"
    monkeypatch.setattr(apt, "LOG", log)
    monkeypatch.setattr(apt.run_logged, "__defaults__", (log,))
    assert apt.install(["pandoc", "texlive-latex-recommended"], "the slides")
    out = capfd.readouterr().out.splitlines()
    assert out[0] == "course: installing pandoc, texlive-latex-recommended with apt-get, for the slides"
    assert "course: 130 MB to download, 540 MB on disk; this can take a few minutes" in out
    assert not any("Unpacking" in line for line in out) and len(out) == 4
    assert log.read_text().count("Unpacking package") == 600  # update and install, both logged


def test_the_slides_install_pdftotext_for_their_overflow_check():
    packages = {r.name: r.debian_package for r in environment.slides_requirements()}
    assert packages["pdftotext"] == "poppler-utils"


def test_the_korean_slides_need_xelatex_and_the_font_only_course_slides_installs():
    packages = {r.debian_package for r in environment.korean_slides_requirements()}
    assert packages == {"texlive-xetex", "fonts-noto-cjk"}
    assert not packages & {r.debian_package for r in environment.slides_requirements()}


# --- output folders ------------------------------------------------------------------------


def test_trace_refuses_a_missing_output_folder_and_makes_none(tmp_path, capsys):
    from streamlab_tools import trace_cmd

    inject = tmp_path / "libstreamlab_inject.so"
    inject.write_text("")
    output = tmp_path / "nonexistent" / "d" / "t.json"
    assert trace_cmd.main(["--inject", str(inject), "-o", str(output), "--", "true"]) == 2
    assert capsys.readouterr().err == f"trace: cannot write {output}: there is no folder {output.parent}\n"
    assert not (tmp_path / "nonexistent").exists()


def test_course_trace_refuses_a_missing_output_folder_before_building(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(course_main.environment, "setup_or_exit", lambda: pytest.fail("set up and built anyway"))
    output = tmp_path / "nonexistent" / "d" / "t.json"
    assert course(capsys, "trace", "-o", output, "--", "true") == (
        2,
        f"course: cannot write {output}: there is no folder {output.parent}\n",
        "",
    )
    assert not (tmp_path / "nonexistent").exists()
