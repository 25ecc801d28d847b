#!/usr/bin/env python3
"""Runs a command and passes on at most LIMIT bytes of its output (its start and its end); the rest is dropped.

    output_cap.py LIMIT COMMAND ARGS...

The grader configures it as the tests' launcher (CMAKE_CROSSCOMPILING_EMULATOR),
because ctest keeps a test's whole output in memory before it truncates it: a
test that prints 200 MB would cost the grader 200 MB. Here the output is cut
where it is made. The command's exit status is passed on, and so is a signal
that ended it, so that ctest still tells a crash from a failure.

Standard library only, and nothing from the course: it runs inside the sandbox.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from io import BufferedReader

CHUNK = 1 << 16


def copy_capped(source: BufferedReader, keep, limit: int) -> int:
    """Reads `source` to its end and gives keep(bytes) at most about `limit` bytes of it: the first three
    quarters as they come, then a note of what was dropped, then the last quarter (where GoogleTest
    prints its verdict). Returns the number of bytes dropped."""
    head_room, tail_size = limit - limit // 4, limit // 4
    head = total = 0
    tail = bytearray()
    while True:
        chunk = source.read1(CHUNK)
        if not chunk:
            break
        total += len(chunk)
        take = max(0, min(len(chunk), head_room - head))
        if take:
            keep(chunk[:take])
            head += take
        tail += chunk[take:]
        del tail[: max(0, len(tail) - tail_size)]
    dropped = total - head - len(tail)
    if dropped:
        keep(f"\n[the grader dropped {dropped} bytes of output here]\n".encode())
    keep(bytes(tail))
    return dropped


PR_SET_PDEATHSIG = 1


def _die_with_this_process() -> None:
    """In the child: when ctest stops this launcher (a timeout), the test itself ends too."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not argv[0].isdigit():
        print("usage: output_cap.py LIMIT COMMAND ARGS...", file=sys.stderr)
        return 2
    limit, command = int(argv[0]), argv[1:]
    try:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_die_with_this_process
        )  # single-threaded here: safe
    except OSError as problem:
        print(f"output_cap: cannot run {command[0]}: {problem}", file=sys.stderr)
        return 127
    out = sys.stdout.buffer
    copy_capped(process.stdout, out.write, limit)
    status = process.wait()
    out.flush()
    if status < 0:  # ended by a signal: end the same way, so that ctest names the crash
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
