"""Installing Debian packages with apt-get: said before it starts (what, why, how big),
with apt's and dpkg's hundreds of lines kept in a log file instead of on the screen."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

from .shell import ROOT, CommandFailed, say

LOG = ROOT / "build" / "logs" / "apt-get.log"
LOG_LINES_ON_FAILURE = 15
# Give up soon where there is no network (a machine that reaches no mirror).
PATIENCE = ["-o", "Acquire::Retries=1", "-o", "Acquire::http::Timeout=30", "-o", "Acquire::https::Timeout=30"]


def _prefix() -> list[str] | None:
    """[] as root, ["sudo"] where sudo works without a password, None where we may not install."""
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo"]
    return None


def _environment() -> dict[str, str]:
    # English messages, so that sizes can be read from them; no questions asked.
    return {**os.environ, "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"}


def run_logged(command: list[str], log: Path = LOG) -> None:
    """Prints `command`, runs it with its output appended to `log`; on failure shows the log's
    last lines and raises CommandFailed."""
    print(f"$ {shlex.join(command)}   (output in {log})", flush=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as stream:
        stream.write(f"\n$ {shlex.join(command)}\n")
        stream.flush()
        returncode = subprocess.run(
            command, stdout=stream, stderr=subprocess.STDOUT, env=_environment(), stdin=subprocess.DEVNULL
        ).returncode
    if returncode != 0:
        print("".join(log.read_text(errors="replace").splitlines(keepends=True)[-LOG_LINES_ON_FAILURE:]), end="")
        raise CommandFailed(command, returncode)


def size_of(apt_output: str) -> str:
    """ "130 MB to download, 540 MB on disk" from what `apt-get install --assume-no` printed ("" if unsaid)."""
    download = re.search(r"Need to get ([\d.,]+ [kMG]?B)", apt_output)
    disk = re.search(r"After this operation, ([\d.,]+ [kMG]?B) of additional disk space", apt_output)
    parts = [f"{download[1]} to download"] if download else []
    parts += [f"{disk[1]} on disk"] if disk else []
    return ", ".join(parts)


def size_to_install(packages: list[str]) -> str:
    """What installing `packages` would download and take on disk, as apt-get says it without installing
    ("" where apt-get cannot say: no apt-get, no right to run it, or no package lists read yet)."""
    prefix = _prefix()
    if shutil.which("apt-get") is None or prefix is None:
        return ""
    asked = subprocess.run(
        [*prefix, "apt-get", "install", "--assume-no", "--no-install-recommends", *packages],
        capture_output=True,
        text=True,
        env=_environment(),
        stdin=subprocess.DEVNULL,
    )
    return size_of(asked.stdout)


def install(packages: list[str], purpose: str) -> bool:
    """Installs Debian `packages`, needed for `purpose`, if we may; otherwise prints the command.
    True if installed. Raises CommandFailed when apt-get fails."""
    command = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    if shutil.which("apt-get") is None:
        say(f"no apt-get here: install these for {purpose} with your system's package manager: " + " ".join(packages))
        return False
    prefix = _prefix()
    if prefix is None:
        say(f"missing system packages for {purpose}; run:  sudo apt-get update && sudo " + " ".join(command))
        return False
    say(f"installing {', '.join(packages)} with apt-get, for {purpose}")
    run_logged([*prefix, "apt-get", *PATIENCE, "update", "-q"])
    size = size_to_install(packages)
    if size:
        say(f"{size}; this can take a few minutes")
    run_logged([*prefix, command[0], *PATIENCE, *command[1:]])
    return True
