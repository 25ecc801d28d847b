"""The sandbox layer on its own: a hostile program run as a step harms nothing outside it.

The program tries what a class's most inventive students tried: kill its
parent, write another student's grade, rewrite its own staged source and the
course, leave a process behind in a new session, print far too much. It runs
under each isolation this machine offers (bubblewrap where it works, and
always the fallback), independent of any check the grader makes on the
student's object before running it.
"""

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest
from coursecli import output_cap
from coursecli import sandbox as sb

HOSTILE = r"""
import os, signal, subprocess, sys
out, staged, course, token = sys.argv[1:5]
def attempt(what, action):
    try:
        action()
        print(f"DID {what}")
    except OSError as problem:
        print(f"COULD NOT {what}: {problem.__class__.__name__}")
def write(path, text="forged"):
    with open(path, "w") as stream:
        stream.write(text)
print("SEES-OUTPUT:", sorted(os.listdir(out)) if os.path.isdir(out) else "nothing")
attempt("write another grade", lambda: write(os.path.join(out, "students", "other", "grade.json"), "{}"))
attempt("plant a student", lambda: os.makedirs(os.path.join(out, "students", "planted")))
attempt("rewrite the staged source", lambda: write(staged))
attempt("rewrite the course", lambda: write(course))
attempt("write scratch", lambda: write(os.path.join(os.environ["TMPDIR"], "scratch.txt")))
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", token], start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
sys.stdout.write("x" * (3 << 20))
sys.stdout.flush()
os.kill(os.getppid(), signal.SIGKILL)
print("\nSURVIVED KILLING THE PARENT")
"""


def step_python(box: sb.Sandbox) -> str:
    """A Python the step's user may run (the fallback's uid 65534 may not enter /root, say)."""
    for python in (sys.executable, "/usr/bin/python3"):
        if not box.unreachable([Path(python)]):
            return python
    pytest.skip("no Python that uid 65534 may run")


def isolations():
    kinds = [sb.FALLBACK]
    path = sb.find_bwrap()
    if path and not sb._probe(path):
        kinds.insert(0, sb.BUBBLEWRAP)
    return kinds


@pytest.fixture
def layout():
    """A grader's folders in a folder uid 65534 may enter (pytest's own tmp_path is private)."""
    top = Path(tempfile.mkdtemp(prefix="sandbox-test-"))
    top.chmod(0o755)
    course, out = top / "course", top / "out"
    work = out / ".work" / "student"
    staging = work / "labs"
    for folder in (course, out / "students" / "other", staging):
        folder.mkdir(parents=True)
    (course / "common.cu").write_text("course code\n")
    (out / "students" / "other" / "grade.json").write_text('{"earned": 7}\n')
    (staging / "work.cu").write_text("student code\n")
    (top / "hostile.py").write_text(HOSTILE)
    yield top
    shutil.rmtree(top, ignore_errors=True)


def processes_with(token: str) -> list[int]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if token.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("kind", isolations())
def test_a_hostile_step_harms_nothing_outside_it(layout, kind):
    isolation = sb.choose_isolation(kind)
    assert isolation.kind == kind
    out, work, course = layout / "out", layout / "out" / ".work" / "student", layout / "course"
    view = sb.View(read_only=[course, layout / "hostile.py"], hidden=[out], writable=[work], protected=[work / "labs"])
    box = sb.Sandbox(isolation, view)
    box.writable_folder(work)
    token = f"sandbox-test-{os.getpid()}-{time.monotonic_ns()}"
    before = {
        p: p.read_bytes()
        for p in (out / "students" / "other" / "grade.json", work / "labs" / "work.cu", course / "common.cu")
    }
    result = box.run(
        [step_python(box), layout / "hostile.py", out, work / "labs" / "work.cu", course / "common.cu", token],
        timeout_s=60,
        limits=sb.run_limits(30),
        cwd=work,
    )

    # The grader (this process) is alive, and the step's output was cut at the limit.
    assert len(result.output) < sb.OUTPUT_LIMIT + 1000
    assert "dropped" in result.output
    # Nothing outside the step changed, and nothing of it is left running.
    assert {p: p.read_bytes() for p in before} == before
    assert not (out / "students" / "planted").exists()
    time.sleep(0.5)
    assert processes_with(token) == []
    assert "COULD NOT write another grade" in result.output and "COULD NOT rewrite the course" in result.output
    if kind == sb.BUBBLEWRAP:
        assert "SEES-OUTPUT: []" in result.output or "SEES-OUTPUT: ['.work']" in result.output
        assert "DID write scratch" in result.output


@pytest.mark.parametrize("kind", isolations())
def test_a_step_that_runs_too_long_is_stopped_with_its_children(layout, kind):
    box = sb.Sandbox(sb.choose_isolation(kind), sb.View(writable=[layout / "out"]))
    box.writable_folder(layout / "out")
    token = f"sandbox-hang-{os.getpid()}-{time.monotonic_ns()}"
    script = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', '{token}'], "
        "start_new_session=True)\n"
        "time.sleep(300)\n"
    )
    started = time.monotonic()
    result = box.run([step_python(box), "-c", script, token], timeout_s=3, limits=sb.run_limits(3), cwd=layout / "out")
    assert result.timed_out and result.status == sb.TIMED_OUT
    assert time.monotonic() - started < 30
    time.sleep(0.5)
    assert processes_with(token) == []


@pytest.mark.parametrize("kind", isolations())
def test_rlimits_stop_a_file_that_grows_without_end(layout, kind):
    box = sb.Sandbox(sb.choose_isolation(kind), sb.View(writable=[layout / "out"]))
    box.writable_folder(layout / "out")
    limits = sb.Limits(cpu_s=60, file_bytes=1 << 20)
    script = "open('big', 'wb').write(b'x' * (8 << 20))"
    result = box.run([step_python(box), "-c", script], timeout_s=60, limits=limits, cwd=layout / "out")
    assert result.status != 0
    assert (layout / "out" / "big").stat().st_size <= 1 << 20


def test_bubblewrap_is_refused_where_it_cannot_run(monkeypatch, tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv(sb.BWRAP_VARIABLE, str(fake))
    with pytest.raises(sb.SandboxUnavailable, match="No permissions"):
        sb.choose_isolation(sb.BUBBLEWRAP)
    fallback = sb.choose_isolation("auto")
    assert fallback.kind == sb.FALLBACK and "No permissions" in fallback.describe()


def test_the_output_cap_keeps_the_start_and_the_end_and_passes_on_the_exit_status(tmp_path, capfdbinary):
    status = output_cap.main(["100", sys.executable, "-c", "import sys; print('y' * 1000); sys.exit(3)"])
    captured = capfdbinary.readouterr().out
    assert status == 3
    assert captured.startswith(b"y" * 75) and captured.endswith(b"y" * 24 + b"\n")
    assert b"y" * 76 not in captured and b"dropped 901 bytes" in captured


def test_the_output_cap_ends_like_a_crashed_test(tmp_path):
    import subprocess

    crash = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    done = subprocess.run([sys.executable, output_cap.__file__, "100", sys.executable, "-c", crash])
    assert done.returncode == -11


def test_a_test_stopped_by_ctest_ends_with_its_launcher(tmp_path):
    import signal
    import subprocess

    token = f"cap-child-{os.getpid()}-{time.monotonic_ns()}"
    launcher = subprocess.Popen(
        [sys.executable, output_cap.__file__, "100", sys.executable, "-c", "import time; time.sleep(300)", token]
    )
    deadline = time.monotonic() + 10
    while not processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    launcher.send_signal(signal.SIGKILL)  # what ctest does to a test that times out
    launcher.wait()
    time.sleep(0.5)
    assert [p for p in processes_with(token) if p != launcher.pid] == []


def test_build_steps_run_at_a_lower_cpu_priority_than_test_steps(tmp_path):
    box = sb.Sandbox(sb.choose_isolation(sb.NONE), sb.View(writable=[tmp_path]))
    test_step = box.run(["nice"], timeout_s=30, limits=sb.run_limits(30), cwd=tmp_path)
    build_step = box.run(["nice"], timeout_s=30, limits=sb.run_limits(30), cwd=tmp_path, building=True)
    assert int(build_step.output) - int(test_step.output) == sb.BUILD_NICENESS
