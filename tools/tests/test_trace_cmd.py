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
