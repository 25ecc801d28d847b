"""A recorded lab's record (common/RECORD_FORMAT.md), as the `course` command uses it: where ctest
writes it, and the trace of one of its scenarios, for drawing. The judges (C++) validate a record;
this module only finds the part to draw and says plainly when it is not there. Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path

# The scenario whose timeline `course check` draws: the lab's pipeline as the tests judged it.
DRAWN_SCENARIO = "pipeline"


def record_path(build: Path, number: str, variant: str) -> Path:
    """Where ctest's recording test writes lab `number`'s record for `variant` (cmake/StreamLab.cmake,
    streamlab_record_file, when no report folder is set)."""
    return build / "records" / f"lab{number}.{variant}.record.jsonl"


def scenario_trace(record: Path, scenario: str = DRAWN_SCENARIO) -> dict | None:
    """The trace (TRACE_FORMAT.md) that `scenario` recorded, or None when the record cannot be read or
    holds no recorded scenario of that name."""
    try:
        lines = record.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for text in lines:
        try:
            line = json.loads(text)
        except ValueError:
            continue
        if isinstance(line, dict) and line.get("scenario") == scenario and line.get("outcome") == "recorded":
            trace = line.get("trace")
            return trace if isinstance(trace, dict) else None
    return None


def write_scenario_trace(record: Path, trace_file: Path, scenario: str = DRAWN_SCENARIO) -> bool:
    """Writes `scenario`'s trace from `record` to `trace_file`, for the plot tool. False when there is none."""
    trace = scenario_trace(record, scenario)
    if trace is None:
        return False
    trace_file.parent.mkdir(parents=True, exist_ok=True)
    trace_file.write_text(json.dumps(trace))
    return True
