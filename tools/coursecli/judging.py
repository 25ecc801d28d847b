"""The grader's judge step (recorder in lab.json; common/RECORD_FORMAT.md).

A submission's tests run in two steps. In its sandbox, with its GPU (the record step, recording.py): only
each lab's recording (labNN.yours.record), which leaves one record per lab in the submission's report
folder. Then here, outside the sandbox, after every process of the student's has ended and without a GPU:
each lab's judges (labNN.yours.Suite.Name), course programs that read the record, validate it, and write
GoogleTest's reports and the verdicts. No process that ran the student's code writes a verdict.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from . import sandbox
from .recording import MAX_RECORD_BYTES, RECORD_SUFFIX
from .results import GtestReport, read_gtest_report
from .submissions import LabSources

# Every judge reads one record and nothing else: seconds enough for the largest, on a busy machine.
JUDGE_TIMEOUT_S = 60


def judged_pattern(labs: list[LabSources]) -> str:
    """The ctest tests of the labs that run outside the sandbox: their judges."""
    return "^lab(" + "|".join(lab.number for lab in labs) + r")\.yours\."


def fresh_report_folder(folder: Path) -> list[str]:
    """Gives the judges a report folder the sandbox never had: `folder` (which the sandbox could write) is
    moved aside, whole, and made again with copies of its plain record files only, so that nothing the
    student's code left there (a link where a report will be written, a FIFO, a report written in advance)
    and no process of the student's that outlived its step can touch what the judges read and write.
    Returns the names left behind, for the log."""
    aside = folder.with_name(folder.name + "-sandboxed")
    shutil.rmtree(aside, ignore_errors=True)
    if folder.exists() or folder.is_symlink():
        folder.rename(aside)
    folder.mkdir(parents=True)
    left = []
    for entry in sorted(aside.iterdir()) if aside.is_dir() and not aside.is_symlink() else []:
        if entry.name.endswith(RECORD_SUFFIX) and sandbox.is_plain_file(entry, MAX_RECORD_BYTES):
            shutil.copyfile(entry, folder / entry.name)
        else:
            left.append(entry.name)
    return left


def run_judges(build: Path, pattern: str, junit: Path, judges: int) -> tuple[int, str]:
    """Runs the judges matching `pattern` in the submission's test folder `build`, never their recordings
    (already run, in the sandbox): ctest's status and console. Their JUnit file is `junit`."""
    command = [
        "ctest",
        "--test-dir",
        str(build),
        "-R",
        pattern,
        "-E",
        r"\.record$",
        "--fixture-exclude-setup",
        ".*",
        "--output-junit",
        str(junit),
        "--no-tests=error",
        "--parallel",
        str(max(1, judges)),
        "--test-output-size-passed",
        "262144",
        "--test-output-size-failed",
        "262144",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=JUDGE_TIMEOUT_S * 4, check=False)
    except subprocess.TimeoutExpired as stopped:
        return 124, f"the judges did not finish within {stopped.timeout} s"
    return done.returncode, done.stdout + done.stderr


def judge_count() -> int:
    """Judges run at once: they need a CPU each and nothing else."""
    return min(8, os.cpu_count() or 2)


def private_copy(record: Path, folder: Path) -> Path:
    """Where the judges read `record` (written in the sandbox): a copy in `folder`, made anew, which the
    sandbox never had, when the record is a plain file of a sane size; otherwise nothing is there and the
    judges say the record is missing. Returns the copy's path."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    if sandbox.is_plain_file(record, MAX_RECORD_BYTES):
        shutil.copyfile(record, folder / record.name)
    return folder / record.name


def judge_binary(build: Path, number: str) -> Path:
    """Lab NN's judges, built once by the course: the same for both tracks."""
    return build / "judges" / f"lab{number}_judge"


def judge_record(
    build: Path, number: str, record: Path, answers: Path, folder: Path, tests: list[str]
) -> dict[str, tuple[GtestReport | None, int, str]]:
    """Runs each of lab NN's judges `tests` (Suite.Name) on `record`, here, with no GPU and no student
    code, one process each: test -> (GoogleTest's own report, or None when it wrote none; the exit
    status; the console). `answers` holds the answer files; `folder` gets the reports."""
    judged = {}
    env = {**os.environ, "STREAMLAB_RECORD": str(record), "STREAMLAB_ANSWER_DIR": str(answers)}
    for test in tests:
        xml = folder / f"{test}.xml"
        xml.unlink(missing_ok=True)
        command = [str(judge_binary(build, number)), f"--gtest_filter={test}", f"--gtest_output=xml:{xml}"]
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=JUDGE_TIMEOUT_S)
            status, console = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired:
            status, console = 124, f"the judge did not finish within {JUDGE_TIMEOUT_S} s"
        judged[test] = (read_gtest_report(xml, test), status, console)
    return judged
