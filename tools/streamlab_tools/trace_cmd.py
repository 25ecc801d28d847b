"""Record the GPU timeline of any CUDA program, unmodified.

    python3 -m streamlab_tools.trace_cmd --inject build/common/inject/libstreamlab_inject.so \\
        -o trace.json -- ./my_program arg1 arg2

The program runs with ``CUDA_INJECTION64_PATH`` naming the injection library:
the CUDA driver loads it when the program first uses CUDA, it records every
kernel, copy and memset with CUPTI, and writes the trace file when the program
exits. ``NVTX_INJECTION64_PATH`` names it too, so the program's NVTX ranges
(nvtxRangePushA / nvtxRangePop, ...) reach CUPTI and are recorded on the host's
track; ``course plot`` cuts the timeline into phases at them. Python programs work the same way (``-- python3 script.py``).

The exit status is the program's own, so a failing program still fails; 2 means
the trace could not be made (no such program, no injection library, no trace
written).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

# Exit status when the command cannot do its job (the program's own status otherwise).
TRACE_FAILED = 2


def parser() -> argparse.ArgumentParser:
    cli = argparse.ArgumentParser(
        prog="python3 -m streamlab_tools.trace_cmd",
        description="Run a CUDA program and record its GPU timeline (CUPTI) into a trace file.",
        epilog="example: %(prog)s --inject build/common/inject/libstreamlab_inject.so "
        "-o trace.json -- ./three_chunks_example",
    )
    cli.add_argument(
        "--inject", required=True, type=Path, metavar="PATH", help="the built injection library, libstreamlab_inject.so"
    )
    cli.add_argument(
        "-o",
        "--output",
        default="trace.json",
        type=Path,
        metavar="FILE",
        help="trace file to write (default: %(default)s)",
    )
    cli.add_argument(
        "--no-gpu",
        metavar="REASON",
        help="what the caller knows: there is no GPU here, and why (a missing trace is then said to be for that)",
    )
    cli.add_argument(
        "command",
        nargs=argparse.REMAINDER,
        metavar="-- PROGRAM ARGS",
        help="the program to run and its arguments, after --",
    )
    return cli


def fail(message: str) -> int:
    print(f"trace: {message}", file=sys.stderr)
    return TRACE_FAILED


def find_program(name: str) -> str | None:
    """The program's path: as given when it contains a slash, else looked up in PATH."""
    if os.sep in name:
        return name if Path(name).is_file() else None
    return shutil.which(name)


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        return fail("no program given; put it after --, e.g. -- ./three_chunks_example")
    if find_program(command[0]) is None:
        return fail(f"no such program: {command[0]}")
    inject = args.inject.resolve()
    if not inject.is_file():
        return fail(f"no injection library at {args.inject} (build the target streamlab_inject)")

    output = args.output.resolve()
    if not output.parent.is_dir():  # a mistyped folder is neither made nor left behind
        return fail(f"cannot write {args.output}: there is no folder {args.output.parent}")
    # A trace left over from an earlier run must not pass for this run's.
    output.unlink(missing_ok=True)

    env = dict(os.environ)
    env["CUDA_INJECTION64_PATH"] = str(inject)
    # NVTX hands its calls to the library this names, the first time the program uses NVTX
    # (possibly before CUDA): the injection library passes them on to CUPTI.
    env["NVTX_INJECTION64_PATH"] = str(inject)
    env["STREAMLAB_TRACE_OUT"] = str(output)
    # The trace names the program as typed, without the folders in front of it.
    env.setdefault("STREAMLAB_TRACE_PROGRAM", shlex.join([Path(command[0]).name, *command[1:]]))
    try:
        status = subprocess.run(command, env=env, check=False).returncode
    except OSError as error:  # e.g. a file that is not executable
        return fail(f"cannot run {command[0]}: {error.strerror}")

    if status < 0:  # killed by a signal: report it the way a shell does
        status = 128 - status
    if not output.is_file():  # said plainly where the caller knows there is no GPU
        exited = f"the program exited with status {status}"
        if args.no_gpu:
            return fail(
                f"no trace was written to {output}: {args.no_gpu}, so nothing ran on a GPU to record ({exited})"
            )
        why = "it may not use CUDA, there may be no GPU, or another CUPTI tool is attached"
        return fail(f"no trace was written to {output} ({exited}; {why})")
    print(f"trace: timeline written to {output}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
