"""The grader's record step (recorder in lab.json; common/RECORD_FORMAT.md):
what runs in the submission's sandbox, on its GPU slot. For a C++ lab, its recording test
(labNN.yours.record: the recording program under the harness streamlab_record); for a Python track, its
recording script under the same harness. Either leaves one record per lab, which the judge step
(judging.py) reads afterwards, outside the sandbox. Nothing here reads a record or decides a verdict.
"""

from __future__ import annotations

from pathlib import Path

from .submissions import LabSources

RECORD_SUFFIX = ".record.jsonl"
MAX_RECORD_BYTES = 256 << 20  # as the judges' reader (common/support/src/record.cpp)


def record_file(folder: Path, number: str, variant: str) -> Path:
    """Lab `number`'s record of `variant` ("yours", "solution", "python-yours", ...) in `folder`
    (folder/lab05.yours.record.jsonl): the one name of a run's record, wherever it is written or kept.
    cmake/StreamLab.cmake's streamlab_record_file gives ctest's recording tests the same name."""
    return folder / f"lab{number}.{variant}{RECORD_SUFFIX}"


def sandboxed_pattern(labs: list[LabSources]) -> str:
    """The ctest tests that run in the submission's sandbox: each lab's recording, and nothing else."""
    return "^lab(" + "|".join(lab.number for lab in labs) + r")\.yours\.record$"


def recording_command(build: Path, number: str, record: Path, timeout_s: int, program: list) -> list[str]:
    """Lab NN's recording program (`program`: an executable, or an interpreter and a Python track's
    recording script) run by the course's harness, which writes the record to `record`."""
    harness = build / "bin" / "streamlab_record"
    return [str(harness), "--lab", number, "--out", str(record), "--timeout", str(timeout_s), "--", *map(str, program)]


def python_recording_command(
    build: Path, lab: LabSources, course_root: Path, python: str, record: Path, timeout_s: int
) -> list[str]:
    """A Python track's recording: its script (labs/NN-topic/python/record_labNN.py) run by `python`
    under the harness."""
    recorder = course_root / "labs" / lab.folder / "python" / f"record_lab{lab.number}.py"
    return recording_command(build, lab.number, record, timeout_s, [python, recorder])
