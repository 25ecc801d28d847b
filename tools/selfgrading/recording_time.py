"""Where each recording's time goes: for every record in a folder, how many times the harness started the
recording program and how long each scenario took (the harness's own `observed` figures,
common/RECORD_FORMAT.md), against the whole recording's time as ctest measured it (its log).

    python3 -m selfgrading.recording_time RECORDS_FOLDER [CTEST_LOG]

What the scenarios do not account for is the programs' starts: CUDA and CUPTI starting, memory prepared,
warm-ups outside a scenario. Prints one line per record, slowest first; exits 1 when a record is unreadable.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

SHOWN = 5  # the slowest scenarios named per record


def observed(record: Path) -> dict:
    """The harness's `observed` figures of `record` (its end line); {} where it has none."""
    with record.open() as lines:
        for line in lines:
            entry = json.loads(line)
            if isinstance(entry, dict) and "end" in entry:
                return entry.get("observed") or {}
    return {}


def ctest_seconds(log: Path | None) -> dict[str, float]:
    """Each recording test's seconds in a ctest log ("lab05.solution" -> 1.6)."""
    if log is None or not log.is_file():
        return {}
    found = re.findall(r"(lab\d\d\.[\w-]+)\.record \.*\s+Passed\s+([\d.]+) sec", log.read_text(errors="replace"))
    return {name: float(seconds) for name, seconds in found}


def describe(name: str, figures: dict, seconds: float | None) -> str:
    """One record's line: its time, its starts, its scenarios' share and the slowest of them."""
    walls = figures.get("scenario_wall_ms", {})
    in_scenarios = sum(walls.values()) / 1000
    slowest = sorted(walls.items(), key=lambda item: -item[1])[:SHOWN]
    whole = f"{seconds:.2f} s, " if seconds is not None else ""
    outside = f" ({seconds - in_scenarios:.2f} s outside them)" if seconds is not None else ""
    return (
        f"{name}: {whole}{len(figures.get('starts', []))} start(s), {len(walls)} scenarios {in_scenarios:.2f} s"
        f"{outside}; slowest: " + ", ".join(f"{scenario} {ms / 1000:.2f} s" for scenario, ms in slowest)
    )


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print("usage: python3 -m selfgrading.recording_time RECORDS_FOLDER [CTEST_LOG]")
        return 2
    seconds = ctest_seconds(Path(argv[1]) if len(argv) > 1 else None)
    lines, status = [], 0
    for record in sorted(Path(argv[0]).glob("*.record.jsonl")):
        name = record.name.removesuffix(".record.jsonl")
        try:
            lines.append((seconds.get(name, 0.0), describe(name, observed(record), seconds.get(name))))
        except (OSError, ValueError) as problem:
            print(f"recording_time: {record}: unreadable ({problem})")
            status = 1
    for _, line in sorted(lines, key=lambda pair: -pair[0]):
        print(f"recording_time: {line}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
