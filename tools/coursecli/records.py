"""A recorded lab's record (common/RECORD_FORMAT.md), as the `course` command uses it: where ctest
writes it, where the course's own records are committed, and the trace of one of its scenarios, for
drawing. The judges (C++) validate a record; this module only finds the part to draw and says plainly
when it is not there. Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from .grader_words import FAIL_RECORD_REFUSED
from .recording import RECORD_SUFFIX, record_file

# The records committed with the course, made on a GPU (the solutions', the starters' and the catalogue
# samples'), in one folder per lab (COMMITTED_RECORDS/NN-topic/): the judges' fixtures, outside the
# student's folder.
COMMITTED_RECORDS = Path("common") / "tests" / "records"


def record_path(build: Path, number: str, variant: str) -> Path:
    """Where ctest's recording test writes lab `number`'s record for `variant` (cmake/StreamLab.cmake,
    streamlab_record_file, when no report folder is set)."""
    return record_file(build / "records", number, variant)


def committed_record(root: Path, lab_folder: str, gpu: str, whose: str) -> Path:
    """The record of `whose` run of lab `lab_folder` ("05-three-chunks") made on `gpu` ("h200"), committed
    under `root`: COMMITTED_RECORDS/05-three-chunks/h200-solution.record.jsonl. `whose` is "solution",
    "starter", "python-solution", "python-starter" or a catalogue sample ("wrong-lab05-stop-without-join")."""
    return root / COMMITTED_RECORDS / lab_folder / f"{gpu}-{whose}{RECORD_SUFFIX}"


def committed_records(root: Path, lab_folder: str) -> list[Path]:
    """Every record committed for lab `lab_folder` under `root`, by name; [] for a lab with none."""
    return sorted((root / COMMITTED_RECORDS / lab_folder).glob(f"*-*{RECORD_SUFFIX}"))


def record_lab(record: Path) -> str | None:
    """The lab a record's header names ("05"); None where its first line is no record header (the judges
    then say what is wrong with it)."""
    try:
        with record.open(errors="replace") as lines:
            header = json.loads(lines.readline())
    except (OSError, ValueError):
        return None
    lab = header.get("lab") if isinstance(header, dict) and header.get("format") == "streamlab-record" else None
    return lab if isinstance(lab, str) else None


def committed_whose(record: Path, root: Path) -> str | None:
    """Whose run a record committed with the course (committed_record) is, from its name: "solution",
    "starter", "python-solution", "python-starter" or a sample of the catalogue
    ("wrong-lab05-stop-without-join"); None for any other file, such as a record of the student's own."""
    if record.resolve().parent.parent != (root / COMMITTED_RECORDS).resolve():
        return None
    _gpu, _, whose = record.name.removesuffix(RECORD_SUFFIX).partition("-")
    return whose or None


def whose_words(record: Path, root: Path) -> str:
    """What `course check --record` calls a record: the solution's, the starter's, a sample's (committed
    with the course, made on the GPU its name begins with), or the file's own path."""
    whose = committed_whose(record, root)
    if whose is None:
        return f"the record {record}"
    gpu = record.name.split("-", 1)[0].upper()
    track = "Python " if whose.startswith("python-") else ""
    whose = whose.removeprefix("python-")
    if whose in ("solution", "starter"):
        return f"the {track}{whose}'s record (committed with the course, made on an {gpu})"
    kind = {"wrong": "a typical mistake", "right": "another right answer"}.get(whose.split("-", 1)[0], "a sample run")
    return f"the record of {kind} ({whose}, committed with the course, made on an {gpu})"


def recorded_traces(record: Path) -> dict[str, dict]:
    """Scenario name -> the trace (TRACE_FORMAT.md) it recorded, in the record's order; {} when the record
    cannot be read."""
    try:
        lines = record.read_text(errors="replace").splitlines()
    except OSError:
        return {}
    traces = {}
    simulated = False
    for text in lines:
        try:
            line = json.loads(text)
        except ValueError:
            continue
        if isinstance(line, dict) and line.get("format") == "streamlab-record":
            simulated = line.get("simulated") is True  # a run on the simulated GPU (RECORD_FORMAT.md)
        if isinstance(line, dict) and line.get("outcome") == "recorded" and isinstance(line.get("trace"), dict):
            trace, calls = line["trace"], line.get("stream_calls")
            # The scenario's stream calls go into the trace's otherData (TRACE_FORMAT.md), so that its
            # picture draws the event records and the waits for them.
            if isinstance(calls, list) and isinstance(trace.get("otherData"), dict):
                trace["otherData"]["stream_calls"] = calls
            device = trace.get("otherData", {}).get("device") if isinstance(trace.get("otherData"), dict) else None
            if simulated and isinstance(device, dict) and isinstance(device.get("name"), str):
                device["name"] += " (simulated)"  # so that no picture of it passes for a GPU's own
            traces[str(line.get("scenario"))] = trace
    return traces


def ran_on_the_gpu(trace: dict) -> bool:
    events = trace.get("traceEvents")
    return isinstance(events, list) and any(isinstance(e, dict) and e.get("ph") == "X" for e in events)


def scenario_trace(record: Path, scenario: str) -> dict | None:
    """The trace that `scenario` (the lab's drawn_scenario, lab_declaration.py) recorded; where the record has no
    such scenario, the last one that ran anything on the GPU; None when there is none."""
    traces = recorded_traces(record)
    if scenario in traces:
        return traces[scenario]
    with_ops = [trace for trace in traces.values() if ran_on_the_gpu(trace)]
    return with_ops[-1] if with_ops else None


def write_scenario_trace(record: Path, trace_file: Path, scenario: str) -> bool:
    """Writes `scenario`'s trace from `record` to `trace_file`, for the plot tool. False when there is none."""
    trace = scenario_trace(record, scenario)
    if trace is None:
        return False
    trace_file.parent.mkdir(parents=True, exist_ok=True)
    trace_file.write_text(json.dumps(trace))
    return True


def judges_refused(failures: Iterable[str]) -> bool:
    """Whether every graded test's failure (its text) is the judges' refusal of the record itself: then
    nothing was judged, and no picture may claim to show the judged run."""
    failures = list(failures)
    return bool(failures) and all(FAIL_RECORD_REFUSED in failure for failure in failures)
