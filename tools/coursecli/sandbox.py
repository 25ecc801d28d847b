"""Every build and test step of a submission runs in a sandbox, and nothing of it outlives the step.

With bubblewrap (`bwrap`, Debian's `bubblewrap` package) a step gets its own
PID, network, IPC and user namespaces (no network; "killing its parent" kills
only its own processes), runs as uid 65534, sees `/` read-only with a private
/tmp, the course and the student's staged sources read-only, its own work
folder writable, and neither the output folder (grades, the grader's key)
nor the submissions folder (other students' files). When the step ends, its
namespace ends, and every process in it with it.

Where bubblewrap cannot run (some containers forbid namespaces), the fallback
runs the step as uid 65534 (when the grader is root) under the same rlimits,
in its own process group, and kills whatever the step left behind: the group,
and every orphan the grader inherits as a child subreaper. The file system is
then protected only by file permissions. The console and every report say which
isolation was in force.

rlimits (through util-linux's `prlimit`): processes, file size, CPU time, open
files, no core files; memory (RLIMIT_DATA) for build steps only, since CUDA
reserves far more address space than it uses.
"""

from __future__ import annotations

import ctypes
import glob
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from . import output_cap
from .output_cap import copy_capped

BUBBLEWRAP, FALLBACK, NONE = "bubblewrap", "fallback", "none"
MODES = ("auto", BUBBLEWRAP, FALLBACK, NONE)
NOBODY = 65534
BWRAP_VARIABLE = "STREAMLAB_BWRAP"  # where bwrap is, when it is not on PATH
STEP_VARIABLE = "STREAMLAB_GRADER_STEP"  # marks a step's processes, to find what it left behind
OUTPUT_LIMIT = 1 << 20  # bytes of a step's output kept; the rest is counted and dropped
TIMED_OUT = 124
# Builds run at a lower CPU priority than the steps that run tests: a batch builds
# several submissions while another one's tests run on the GPU, and a test's host
# thread held up by a compiler would change the timeline it is graded on.
BUILD_NICENESS = 10
PROBE_TIMEOUT_S = 30


def at_build_priority(argv: list[str]) -> list[str]:
    """`argv` run at the builds' lower CPU priority (BUILD_NICENESS)."""
    return ["nice", "-n", str(BUILD_NICENESS), *argv]


class SandboxUnavailable(Exception):
    """The isolation asked for cannot run here."""


@dataclass(frozen=True)
class Limits:
    """rlimits of one step, applied to each of its processes."""

    cpu_s: int
    file_bytes: int
    processes: int = 1024
    open_files: int = 4096
    data_bytes: int | None = None  # None for steps that run CUDA code

    def prlimit(self) -> list[str]:
        command = [
            "prlimit",
            f"--cpu={self.cpu_s}",
            f"--fsize={self.file_bytes}",
            f"--nproc={self.processes}",
            f"--nofile={self.open_files}",
            "--core=0",
        ]
        if self.data_bytes:
            command.append(f"--data={self.data_bytes}")
        return [*command, "--"]


def build_limits(timeout_s: int) -> Limits:
    """Compilers and linkers: large files and much memory, but bounded."""
    return Limits(cpu_s=timeout_s, file_bytes=4 << 30, data_bytes=32 << 30)


def run_limits(timeout_s: int) -> Limits:
    """Tests and lab programs: the student's code runs; CUDA needs its address space."""
    return Limits(cpu_s=max(60, timeout_s), file_bytes=256 << 20, processes=512)


@dataclass(frozen=True)
class Isolation:
    """Which isolation a batch runs under, and why."""

    kind: str
    detail: str = ""
    bwrap: str = ""

    def describe(self) -> str:
        if self.kind == BUBBLEWRAP:
            return (
                f"bubblewrap ({self.detail}): own PID and network namespaces, uid {NOBODY}, course and "
                "submission read-only, private /tmp, output and other students' files hidden, rlimits"
            )
        if self.kind == FALLBACK:
            user = f"uid {NOBODY}" if os.geteuid() == 0 else "the grader's own user (not root)"
            return (
                f"fallback, no bubblewrap ({self.detail}): {user}, rlimits, each step's processes killed; "
                "files protected by permissions only, network and processes not isolated"
            )
        return "none (--sandbox none): students' code runs unconfined, as the grader's own user"


def find_bwrap(explicit: str | None = None) -> str | None:
    """bwrap from --bwrap, else $STREAMLAB_BWRAP, else PATH."""
    for candidate in (explicit, os.environ.get(BWRAP_VARIABLE)):
        if candidate:
            return candidate if os.access(candidate, os.X_OK) else None
    return shutil.which("bwrap")


def _probe(bwrap: str) -> str:
    """'' when bwrap runs a trivial command with the options the grader uses, else why not."""
    try:
        done = subprocess.run(
            [bwrap, *_namespace_options(), "--", "true"],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            errors="replace",
        )
    except (OSError, subprocess.TimeoutExpired) as problem:
        return f"{bwrap} cannot run: {problem}"
    if done.returncode != 0:
        return f"{bwrap} cannot make a sandbox here: {(done.stderr.strip().splitlines() or ['no message'])[-1]}"
    return ""


def _bwrap_version(bwrap: str) -> str:
    done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, errors="replace")
    return f"{done.stdout.strip() or 'bwrap'} at {bwrap}"


def choose_isolation(mode: str = "auto", bwrap: str | None = None) -> Isolation:
    """The strongest isolation that works here; `mode` bubblewrap refuses to fall back."""
    if mode == NONE:
        return Isolation(NONE)
    if shutil.which("prlimit") is None:
        raise SandboxUnavailable("prlimit (util-linux) is missing: it sets each step's rlimits")
    why = "asked for with --sandbox fallback"
    if mode != FALLBACK:
        path = find_bwrap(bwrap)
        why = (
            _probe(path)
            if path
            else (f"bwrap not found: install the bubblewrap package, or give its path with --bwrap or {BWRAP_VARIABLE}")
        )
        if not why:
            return Isolation(BUBBLEWRAP, _bwrap_version(path), path)
        if mode == BUBBLEWRAP:
            raise SandboxUnavailable(why)
    return Isolation(FALLBACK, why)


def _namespace_options() -> list[str]:
    """bwrap's options for every step: new namespaces of every kind, as uid 65534, `/` read-only, a private /tmp."""
    return (
        f"--unshare-all --unshare-user --uid {NOBODY} --gid {NOBODY} --die-with-parent --new-session "
        "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp"
    ).split()


@dataclass
class View:
    """What a submission's steps see besides `/` read-only, in mount order (later mounts cover earlier)."""

    read_only: list[Path] = field(default_factory=list)  # the course
    hidden: list[Path] = field(default_factory=list)  # output folder, submissions folder
    writable: list[Path] = field(default_factory=list)  # the submission's work folder
    protected: list[Path] = field(default_factory=list)  # read-only again inside a writable one (staged sources)
    build_cache: Path | None = None  # ccache's folder: writable for build steps only


@dataclass
class StepResult:
    status: int
    output: str
    timed_out: bool = False


# Steps now running, by process id: what the end-of-step sweep must leave alone.
_running: set[int] = set()
_running_lock = threading.Lock()


class Sandbox:
    """Runs one submission's steps under `isolation`, seeing `view`."""

    def __init__(self, isolation: Isolation, view: View):
        self.isolation, self.view = isolation, view
        self.drop_user = isolation.kind == FALLBACK and os.geteuid() == 0
        if isolation.kind == FALLBACK:
            _become_subreaper()

    def unreachable(self, paths: list[Path]) -> list[Path]:
        """Of `paths`, those the steps cannot read (in the fallback, uid 65534 stops at a private folder)."""
        if not self.drop_user:
            return []
        listed = subprocess.run(
            ["sh", "-c", 'for p; do [ -r "$p" ] || echo "$p"; done', "sh", *map(str, paths)],
            capture_output=True,
            text=True,
            user=NOBODY,
            group=NOBODY,
            extra_groups=[],
        )
        return [Path(line) for line in listed.stdout.splitlines()]

    def writable_folder(self, path: Path, tree: bool = False) -> Path:
        """Creates `path` so that the steps may write there (owned by uid 65534 in the fallback, with
        everything in it when `tree`)."""
        path.mkdir(parents=True, exist_ok=True)
        if self.drop_user:
            for folder, _, files in os.walk(path) if tree else [(str(path), [], [])]:
                for name in [folder, *(os.path.join(folder, f) for f in files)]:
                    os.chown(name, NOBODY, NOBODY, follow_symlinks=False)
        return path

    def command(self, argv: list[str], cwd: Path, building: bool) -> list[str]:
        """The full command line of a step."""
        if self.isolation.kind != BUBBLEWRAP:
            return argv
        view = self.view
        # The grader's own Python and tools, which run inside steps (the tests' output cap, the plots):
        # seen through "/" anyway, unless they live under /tmp, which each step gets empty.
        mounts = [("--ro-bind", p) for p in grader_tools()]
        mounts += [("--ro-bind", p) for p in view.read_only] + [("--tmpfs", p) for p in view.hidden]
        if building and view.build_cache:
            mounts.append(("--bind", view.build_cache))
        mounts += [("--bind", p) for p in view.writable] + [("--ro-bind", p) for p in view.protected]
        options = [self.isolation.bwrap, *_namespace_options()]
        for device in sorted(glob.glob("/dev/nvidia*")):
            options += ["--dev-bind", device, device]
        for kind, path in mounts:
            if kind == "--tmpfs" or path.exists():
                options += [kind, str(path)] if kind == "--tmpfs" else [kind, str(path), str(path)]
        return [*options, "--chdir", str(cwd), "--", *argv]

    def environment(self, extra: dict[str, str] | None, building: bool) -> dict[str, str]:
        env = {**os.environ, **(extra or {}), STEP_VARIABLE: secrets.token_hex(8)}
        if self.isolation.kind == BUBBLEWRAP:
            env.update(HOME="/tmp", TMPDIR="/tmp")
        elif self.isolation.kind == FALLBACK and self.view.writable:
            scratch = self.writable_folder(self.view.writable[0] / "scratch")
            env.update(HOME=str(scratch), TMPDIR=str(scratch))
        if self.isolation.kind == FALLBACK or (self.isolation.kind == BUBBLEWRAP and not building):
            env["CCACHE_DISABLE"] = "1"  # a step that runs students' code never writes the shared cache
        elif self.view.build_cache:
            env["CCACHE_DIR"] = str(self.view.build_cache)
        return env

    def run(
        self,
        argv: list,
        timeout_s: float,
        limits: Limits,
        cwd: Path,
        env: dict[str, str] | None = None,
        building: bool = False,
    ) -> StepResult:
        """Runs one step; keeps OUTPUT_LIMIT bytes of its output; kills all of it when it ends or times out."""
        argv = [str(part) for part in argv]
        command = argv if self.isolation.kind == NONE else limits.prlimit() + self.command(argv, cwd, building)
        if building:
            command = at_build_priority(command)
        user = dict(user=NOBODY, group=NOBODY, extra_groups=[]) if self.drop_user else {}
        process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=self.environment(env, building),
            **user,
        )
        with _running_lock:
            _running.add(process.pid)
        kept = bytearray()
        reader = threading.Thread(target=copy_capped, args=(process.stdout, kept.extend, OUTPUT_LIMIT), daemon=True)
        reader.start()
        timed_out = False
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:  # on success, timeout or Ctrl-C alike: nothing of the step outlives it
            self._end_step(process)
        reader.join(timeout=10)
        output = kept.decode(errors="replace")
        if timed_out:
            return StepResult(TIMED_OUT, output + f"\n[stopped after {timeout_s:.0f} s]", True)
        return StepResult(process.returncode, output)

    def _end_step(self, process: subprocess.Popen) -> None:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # bwrap's namespace ends with it (--die-with-parent)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
        with _running_lock:
            _running.discard(process.pid)
        if self.isolation.kind == FALLBACK:
            kill_orphans()


def grader_tools() -> list[Path]:
    """The folders of the Python that runs the grader (its virtual environment, say) and of its tools."""
    return sorted({Path(sys.prefix), Path(output_cap.__file__).resolve().parents[1]})


def output_cap_launcher() -> str:
    """CMAKE_CROSSCOMPILING_EMULATOR for the tests: each test's output is cut at OUTPUT_LIMIT where it is made."""
    return f"{sys.executable};{output_cap.__file__};{OUTPUT_LIMIT}"


def ccache_folder() -> Path | None:
    """ccache's folder, which build steps may write (and steps that run students' code never see writable)."""
    if shutil.which("ccache") is None:
        return None
    done = subprocess.run(["ccache", "-k", "cache_dir"], capture_output=True, text=True)
    folder = Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None
    if folder:
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def is_plain_file(path: Path, limit: int) -> bool:
    """True for a regular file (not a link, FIFO or device a step planted) of at most `limit` bytes."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size <= limit


PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> None:
    """Orphans of a step (a setsid'd child, a double fork) become the grader's children, so it can end them."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _children() -> list[int]:
    """Process ids whose parent is the grader."""
    me, found = os.getpid(), []
    for status_file in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(status_file).read_text()
        except OSError:
            continue
        if int(text.rsplit(")", 1)[1].split()[1]) == me:
            found.append(int(Path(status_file).parent.name))
    return found


def _is_step_process(pid: int) -> bool:
    """A process some step started: it carries the step marker, or runs as the sandbox's user."""
    try:
        if os.stat(f"/proc/{pid}").st_uid == NOBODY and os.geteuid() == 0:
            return True
        return f"{STEP_VARIABLE}=".encode() in Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False


def kill_orphans() -> int:
    """Kills (and reaps) every child of the grader that a finished step left behind; returns how many."""
    with _running_lock:
        running = set(_running)
    killed = 0
    for pid in _children():
        if pid in running or not _is_step_process(pid):
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            killed += 1
        except (ProcessLookupError, ChildProcessError, PermissionError):
            pass
    return killed
