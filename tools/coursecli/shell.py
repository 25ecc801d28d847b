"""Running commands the way the course shows them: printed first, then run."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[2]

# The `course` command's exit statuses (`course --help` lists them):
#   0 done, everything graded passed;
#   1 FAILING: a check or a graded test failed (the grader would not give full points);
#   2 COURSE_ERROR: the course could not do what was asked: a bad argument (argparse's own
#     status), a missing file or folder, a step of the course's own that failed;
#   77 not graded for want of a GPU (gpu.NO_GPU_EXIT, ctest's SKIP_RETURN_CODE): neither.
FAILING = 1
COURSE_ERROR = 2


class CourseError(Exception):
    """What the course cannot do as asked, in one line: `course` says it and exits COURSE_ERROR."""


class CommandFailed(Exception):
    """A command the course ran exited with a non-zero status."""

    def __init__(self, command: list[str], returncode: int):
        super().__init__(f"command failed ({returncode}): {shlex.join(command)}")
        self.returncode = returncode


def say(message: str) -> None:
    """Prints one line of the course's own narration."""
    print(f"course: {message}", flush=True)


Built = TypeVar("Built")


def optional_step(not_installed: str, build: Callable[[], Built], failed: str, built: Callable[[Built], str]) -> bool:
    """A step of `course test` that needs a tool the rest does not: where `not_installed`
    (why not) is not "", says it and goes on; otherwise runs `build` and says `built` of
    its result, or, when a command fails, the failure and `failed` (where the reason is).
    False only when it ran and failed."""
    if not_installed:
        say(not_installed + " (the other tests do not need it)")
        return True
    try:
        result = build()
    except CommandFailed as failure:
        say(f"{failure}: {failed}")
        return False
    say(built(result))
    return True


def run(
    command: list[str],
    *,
    check: bool = True,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    capture: bool = False,
) -> subprocess.CompletedProcess:
    """Prints `command` as a shell line, runs it, and raises CommandFailed on failure."""
    print(f"$ {shlex.join(str(part) for part in command)}", flush=True)
    full_env = {**os.environ, **env} if env else None
    result = subprocess.run(
        [str(part) for part in command], cwd=cwd or ROOT, env=full_env, text=True, capture_output=capture
    )
    if check and result.returncode != 0:
        if capture:
            sys.stdout.write(result.stdout)
            sys.stderr.write(result.stderr)
        raise CommandFailed([str(part) for part in command], result.returncode)
    return result


LOG_LIMIT = 16 << 20  # bytes of a student's grade.log; later commands are listed without their output


class Log:
    """A log of the commands run for one job, each with its output: a student's grade.log in a batch, the
    course build's, `course check --sanitize`'s."""

    def __init__(self, path: Path, echo: bool):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.echo = path, echo
        self.written = 0
        path.write_text("")

    def command(self, command: list[str], output: str, returncode: int) -> None:
        line = f"$ {shlex.join(command)}"
        if self.echo:
            print(line, flush=True)
        if self.written + len(output) > LOG_LIMIT:
            output = f"[{len(output)} characters of output not kept: the log reached {LOG_LIMIT >> 20} MiB]"
        text = f"{line}\n{output}\n[exit status {returncode}]\n\n"
        self.written += len(text)
        with self.path.open("a", errors="backslashreplace") as stream:
            stream.write(text)


def run_logged(
    command: list, log, timeout_s: float, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """Runs `command` in its own process group, logged with `log.command`; on timeout kills the whole group.

    For the student's own runs on their own machine (`course check --sanitize`); graded runs go
    through the sandbox instead (sandbox.py). Returns (status, output); status 124 on timeout.
    """
    command = [str(part) for part in command]
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
        env={**os.environ, **env} if env else None,
    )
    try:
        output, _ = process.communicate(timeout=timeout_s)
        status = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        output += f"\n[stopped after {timeout_s:.0f} s]"
        status = 124
    except BaseException:  # Ctrl-C: its own process group would not get the signal, so stop it here
        os.killpg(process.pid, signal.SIGKILL)
        raise
    log.command(command, output, status)
    return status, output
