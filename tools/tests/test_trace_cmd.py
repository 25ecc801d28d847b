"""The trace command's environment: the program it runs is handed to the injection library
both by CUDA (every op) and by NVTX (the program's ranges). CPU only: the program here is a
shell that writes down what it was given, and no trace is written."""

import sys

from streamlab_tools import trace_cmd


def test_the_program_runs_with_cuda_and_nvtx_naming_the_injection_library(tmp_path):
    inject = tmp_path / "libstreamlab_inject.so"
    inject.write_text("")
    seen = tmp_path / "environment.txt"
    program = (
        "import os, sys; open(sys.argv[1], 'w').write("
        "os.environ.get('CUDA_INJECTION64_PATH', '') + '\\n' + os.environ.get('NVTX_INJECTION64_PATH', ''))"
    )
    status = trace_cmd.main(
        ["--inject", str(inject), "-o", str(tmp_path / "t.json"), "--", sys.executable, "-c", program, str(seen)]
    )
    assert status == trace_cmd.TRACE_FAILED  # the program used no CUDA: no trace
    assert seen.read_text().splitlines() == [str(inject.resolve())] * 2


def test_where_the_caller_knows_there_is_no_gpu_the_missing_trace_is_said_plainly(tmp_path, capsys):
    inject = tmp_path / "libstreamlab_inject.so"
    inject.write_text("")
    output = tmp_path / "t.json"
    no_gpu = "no GPU: the NVIDIA driver (libcuda.so.1) is not installed"
    assert trace_cmd.main(["--inject", str(inject), "-o", str(output), "--no-gpu", no_gpu, "--", "true"]) == 2
    said = capsys.readouterr().err
    assert said == (
        f"trace: no trace was written to {output}: {no_gpu}, so nothing ran on a GPU to record "
        "(the program exited with status 0)\n"
    )
    assert "may" not in said  # no hedging where the course knows
    # Without that knowledge (the tool run on its own), it says what may have happened.
    assert trace_cmd.main(["--inject", str(inject), "-o", str(output), "--", "true"]) == 2
    assert "there may be no GPU" in capsys.readouterr().err


def test_course_trace_tells_the_tool_when_there_is_no_gpu(tmp_path, monkeypatch):
    from coursecli import main as course_main

    (tmp_path / "libstreamlab_inject.so").write_text("")
    ran = []
    monkeypatch.setattr(course_main.environment, "setup_or_exit", lambda: None)
    monkeypatch.setattr(course_main, "build", lambda preset, targets: tmp_path)
    monkeypatch.setattr(course_main.environment, "tools_python", lambda: sys.executable)
    monkeypatch.setattr(
        course_main, "run", lambda command, **_: ran.append(command) or type("Done", (), {"returncode": 2})
    )
    for present, told in (
        ((False, "no GPU: hidden by the test"), ["--no-gpu", "no GPU: hidden by the test"]),
        ((True, "a GPU"), []),
    ):
        monkeypatch.setattr(course_main, "gpu_presence", lambda present=present: present)
        assert course_main.main(["trace", "--", "/bin/true"]) == 2
        command = [str(part) for part in ran.pop()]
        assert command[command.index("--inject") + 2 : command.index("--")] == told
