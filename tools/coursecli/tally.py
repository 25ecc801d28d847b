"""The closing line of `course test`: how many tests passed, did not run (and why), failed,
counted over ctest's and pytest's JUnit reports."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .gpu import NO_GPU


@dataclass
class Tally:
    passed: int = 0
    failed: int = 0
    not_run: Counter = field(default_factory=Counter)  # why -> how many

    def add(self, status: str, reason: str = "") -> None:
        """Counts one test: status "passed", "failed" or "skipped" (with the reason it gave)."""
        if status == "passed":
            self.passed += 1
        elif status == "skipped":
            self.not_run[NO_GPU if reason.startswith(NO_GPU) else "other reasons"] += 1
        else:
            self.failed += 1

    def line(self) -> str:
        """ "117 passed, 62 not run (no GPU), 0 failed"."""
        total = sum(self.not_run.values())
        if len(self.not_run) == 1:
            why = f" ({next(iter(self.not_run))})"
        else:
            why = " (" + ", ".join(f"{count} {reason}" for reason, count in self.not_run.most_common()) + ")"
        return f"{self.passed} passed, {total} not run{why if total else ''}, {self.failed} failed"


def add_pytest_junit(tally: Tally, path: Path) -> None:
    """Adds every test case of pytest's JUnit XML report at `path` (none if it is missing or broken)."""
    try:
        cases = ET.parse(path).getroot().iter("testcase")
    except (OSError, ET.ParseError):
        return
    for case in cases:
        skipped = case.find("skipped")
        if skipped is not None:
            tally.add("skipped", skipped.get("message", ""))
        elif case.find("failure") is not None or case.find("error") is not None:
            tally.add("failed")
        else:
            tally.add("passed")
