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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import sandbox
from .recording import MAX_RECORD_BYTES, RECORD_SUFFIX
from .results import GtestReport, read_gtest_report

# Every judge reads one record and nothing else: seconds enough for the largest, on a busy machine.
JUDGE_TIMEOUT_S = 60
COMMAND_NOT_RUN = 127  # as a shell says of a program it could not start


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


@dataclass
class Judged:
    """One judge process as it ended: its exit status and GoogleTest's own report of its test."""

    test: str  # Suite.Name
    status: int  # the exit status; TIMED_OUT when it was stopped, minus the signal's number when one ended it
    report: GtestReport | None  # None when it wrote none that shows exactly this test run to its end
    output: str  # what it printed, for the log (never read for a verdict; also kept in its .log file)


def run_judges(build: Path, number: str, record: Path, answers: Path, folder: Path, tests: list[str]) -> list[Judged]:
    """Runs each of lab NN's judges `tests` (Suite.Name) on `record`, here, with no GPU and no student code,
    one process each, as ctest's test labNN.VARIANT.Suite.Name runs it (cmake/StreamLab.cmake,
    streamlab_add_judge_test): how each ended, in the order of `tests`. `answers` holds the answer files;
    `folder` gets each judge's report (labNN.Suite.Name.xml) and what it printed (labNN.Suite.Name.log)."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "STREAMLAB_RECORD": str(record), "STREAMLAB_ANSWER_DIR": str(answers)}

    def judge(test: str) -> Judged:
        xml, log = folder / f"lab{number}.{test}.xml", folder / f"lab{number}.{test}.log"
        xml.unlink(missing_ok=True)
        command = [str(judge_binary(build, number)), f"--gtest_filter={test}", f"--gtest_output=xml:{xml}"]
        try:
            # errors="replace": a judge may quote the record, whose bytes the student's process wrote.
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, errors="replace", timeout=JUDGE_TIMEOUT_S
            )
            status, output = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired:
            status, output = sandbox.TIMED_OUT, f"the judge did not finish within {JUDGE_TIMEOUT_S} s"
        except OSError as problem:  # no judge program: nothing was judged
            status, output = COMMAND_NOT_RUN, f"the judge could not start: {problem}"
        log.write_text(output)
        return Judged(test, status, read_gtest_report(xml, test), output)

    with ThreadPoolExecutor(judge_count()) as pool:
        return list(pool.map(judge, tests))
