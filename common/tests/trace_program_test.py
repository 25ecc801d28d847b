#!/usr/bin/env python3
"""Records an unmodified program with the trace command and checks its timeline.

    trace_program_test.py --inject LIB --analyze EXE --expect pipeline|copies \\
        -o TRACE.json -- PROGRAM ARGS...

It runs ``python3 -m streamlab_tools.trace_cmd`` (tools/ on its import path: the test's CMakeLists.txt),
then ``streamlab_analyze TRACE.json``, and checks what the program is known to do:

* ``pipeline``: three chunks in three streams (three_chunks_example): 9 ops,
  3 distinct streams, copies overlapping kernels.
* ``copies``: a host-to-device and a device-to-host copy from pinned memory
  (tools/examples/article_section3.py).
* ``phases``: the three overlap experiments (overlap_experiments): three phases
  cut at the idle gaps, the first (sequential) in the NULL stream, the other two
  in four created streams with copies overlapping kernels; and the program's three
  NVTX ranges (sequential, version 1, version 2) recorded, cutting the same phases.

Exit status: 0 pass, 1 fail, 77 skipped (no GPU, or the program skipped itself).
It never passes without a GPU.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

SKIPPED = 77


def gpu_present() -> bool:
    """Whether nvidia-smi lists at least one GPU."""
    if shutil.which("nvidia-smi") is None:
        return False
    listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=False)
    return listing.returncode == 0 and "GPU" in listing.stdout


def ops_in_trace(path: Path) -> list[dict]:
    """The args of every device operation in the trace file."""
    events = json.loads(path.read_text())["traceEvents"]
    return [event["args"] for event in events if event.get("ph") == "X" and event.get("pid") == 1]  # not NVTX ranges


def check_pipeline(summary: dict, ops: list[dict], trace: Path) -> list[str]:
    problems = []
    if summary["op_count"] != 9:
        problems.append(f"expected 9 ops (3 x H2D, kernel, D2H), found {summary['op_count']}")
    if summary["distinct_streams"] != 3:
        problems.append(f"expected 3 distinct streams, found {summary['distinct_streams']}")
    if summary["copy_compute_overlap_ns"] <= 0:
        problems.append("no copy overlapped a kernel")
    if summary["null_stream_ops"] != 0:
        problems.append(f"{summary['null_stream_ops']} ops ran in a default stream")
    return problems


def check_copies(summary: dict, ops: list[dict], trace: Path) -> list[str]:
    problems = []
    for kind in ("memcpy_h2d", "memcpy_d2h"):
        copies = [op for op in ops if op["op"] == kind]
        if not copies:
            problems.append(f"no {kind} in the trace")
        elif any(op["host_memory"] != "pinned" for op in copies):
            problems.append(f"a {kind} copy was not from pinned memory")
    if summary["busy_h2d_ns"] <= 0 or summary["busy_d2h_ns"] <= 0:
        problems.append("streamlab_analyze saw no time spent copying")
    return problems


def check_phases(summary: dict, ops: list[dict], trace: Path) -> list[str]:
    from streamlab_tools.library import summarize  # the C++ analysis, through the module streamlab
    from streamlab_tools.phases import split_phases
    from streamlab_tools.trace import load_trace

    recorded = load_trace(trace)
    phases = split_phases(recorded.ops)  # at idle gaps alone
    if len(phases) != 3:
        return [
            f"expected 3 phases (sequential, version 1, version 2), found {len(phases)}: "
            f"{[len(phase.ops) for phase in phases]} ops"
        ]
    problems = []
    # The program names each experiment with an NVTX range: the same three phases, named.
    names = [range_.name for range_ in recorded.ranges]
    by_range = split_phases(recorded.ops, ranges=recorded.ranges)
    if names != ["sequential", "version 1", "version 2"]:
        problems.append(f"expected the NVTX ranges sequential, version 1, version 2; the trace has {names}")
    elif [(p.name, len(p.ops)) for p in by_range] != [(n, len(p.ops)) for n, p in zip(names, phases)]:
        problems.append(
            "the phases cut at NVTX ranges are not the ones cut at idle gaps: "
            f"{[(p.name, len(p.ops)) for p in by_range]}"
        )
    if {op.stream_kind for op in phases[0].ops} != {"legacy_null"} or len(phases[0].ops) != 3:
        problems.append("phase 1 is not the sequential experiment's 3 ops in the NULL stream")
    for phase in phases[1:]:
        stats = summarize(phase.ops)
        if len(phase.ops) != 12 or stats["distinct_streams"] != 4 or stats["null_stream_ops"] != 0:
            problems.append(f"phase {phase.number} is not 12 ops in 4 created streams")
        if stats["copy_compute_overlap_ns"] <= 0:
            problems.append(f"in phase {phase.number} no copy overlapped a kernel")
    return problems


CHECKS = {"pipeline": check_pipeline, "copies": check_copies, "phases": check_phases}


def main(argv: list[str]) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--inject", required=True, help="libstreamlab_inject.so")
    cli.add_argument("--analyze", required=True, help="the streamlab_analyze executable")
    cli.add_argument("--expect", required=True, choices=sorted(CHECKS))
    cli.add_argument("-o", "--output", required=True, type=Path, help="trace file to write")
    cli.add_argument("command", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS")
    args = cli.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command

    if not gpu_present():
        print("SKIPPED: no GPU: nvidia-smi lists none")
        return SKIPPED

    args.output.parent.mkdir(parents=True, exist_ok=True)  # `course trace -o` writes only into a folder that exists
    traced = subprocess.run(
        [
            sys.executable,
            "-m",
            "streamlab_tools.trace_cmd",
            "--inject",
            args.inject,
            "-o",
            str(args.output),
            "--",
            *command,
        ],
        check=False,
    )
    if traced.returncode == SKIPPED:
        print("SKIPPED: the program skipped itself (see its message above)")
        return SKIPPED
    if traced.returncode != 0:
        print(f"FAILED: tracing {command[0]} exited with status {traced.returncode}")
        return 1

    analyzed = subprocess.run([args.analyze, str(args.output)], capture_output=True, text=True, check=False)
    if analyzed.returncode != 0:
        print(f"FAILED: streamlab_analyze: {analyzed.stderr.strip()}")
        return 1
    summary = json.loads(analyzed.stdout)
    print("summary:", json.dumps(summary))

    problems = CHECKS[args.expect](summary, ops_in_trace(args.output), args.output)
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
