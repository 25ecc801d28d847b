"""The judged fixture of fixtures/grading: seven tests of lab 01 at 2 points each, as their judge processes
ended (exit status) with GoogleTest's own report of each (gtest/; none where the process crashed, hung or
exited before its test ended)."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from coursecli.judging import Judged
from coursecli.results import read_gtest_report
from coursecli.sandbox import TIMED_OUT

FIXTURES = Path(__file__).parent / "fixtures" / "grading"
# How each test's process ended when it ran alone (fixtures/grading/README.md).
EXIT_STATUS = {
    "Demo.Pass": 0,
    "Demo.Fail": 1,
    "Demo.Segv": -signal.SIGSEGV,
    "Demo.Hang": TIMED_OUT,
    "Demo.Skip": 0,
    "Demo.CudaError": 1,
    "Demo.EarlyExit": 0,
}


def fixture_labels() -> dict[str, list[str]]:
    """The tests' ctest labels: test name -> LABELS."""
    return json.loads((FIXTURES / "ctest-labels.json").read_text())


def fixture_judged() -> dict[str, Judged]:
    """Suite.Name -> how its judge ended and what it reported."""
    return {
        name: Judged(name, status, read_gtest_report(FIXTURES / "gtest" / f"lab01.yours.{name}.xml", name), "")
        for name, status in EXIT_STATUS.items()
    }
