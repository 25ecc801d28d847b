"""A lab's two recording programs, labs/NN-topic/record_labNN.cpp and labs/NN-topic/python/record_labNN.py,
run the same scenarios (the C++ track's judges grade both records), checked on a CPU.

The Python recorder is run without a GPU (python_recorder_listing.py): the scenarios it declares, in order,
with what each needs of its process. The C++ recorder cannot run without one (its set-up allocates and
times on the device before its first scenario), so its side is what it recorded last: the committed record
of the solution, made on a GPU (common/tests/records/NN-topic/h200-solution.record.jsonl). The two
solution records are compared too, scenario by scenario: what each scenario recorded beside its trace (its
values, its output sample's chunks), the program it names, the set-up's values and where a fresh process
started. A scenario one track has and the other has not, or that differs, fails the test naming the lab
and the scenario, unless KNOWN_DIFFERENCES lists it with its reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from coursecli import environment, records

ROOT = Path(__file__).resolve().parents[2]
LISTING = Path(__file__).with_name("python_recorder_listing.py")
RECORDED_ON = "h200"  # both tracks' solution records of every lab with a Python track were made on an H200
PYTHON_RECORDERS = sorted(ROOT.glob("labs/*/python/record_lab*.py"))

# (lab folder, scenario) -> why the tracks legitimately differ there. Empty: every lab's twins agree today.
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {}


def _lab_folder(recorder: Path) -> str:
    return recorder.parent.parent.name


def declared_by_python(recorder: Path, build: Path) -> list[dict]:
    """The scenarios the Python recorder declares, in order (python_recorder_listing.py, in a Python of its own)."""
    folder = _lab_folder(recorder)
    solution = ROOT / "solutions" / folder / "python"
    env = {**os.environ, **environment.python_lab_environment(solution, recorder.parent, ROOT, build)}
    listed = subprocess.run(
        [sys.executable, str(LISTING), str(recorder)], capture_output=True, text=True, env=env, timeout=120
    )
    assert listed.returncode == 0, f"lab {folder}: {recorder.name} could not be listed without a GPU:\n{listed.stderr}"
    return json.loads(listed.stdout)


def fresh_process_before(declared: list[dict]) -> list[str]:
    """The scenarios the harness starts a fresh process for, from what each needs (recording::ProcessNeeds):
    one whose variables differ from the process before it, and one after a scenario that ends its process."""
    fresh, environment_now, ended = [], {}, False
    for scenario in declared:
        if scenario["environment"] != environment_now or ended:
            fresh.append(scenario["name"])
        environment_now, ended = scenario["environment"], scenario["ends_process"]
    return fresh


def recorded(record: Path) -> dict:
    """What a record says of its scenarios, beside their traces: each one's values (their names), output sample
    (its chunks), program (the track's word "python" left out) and whether a fresh process started for it."""
    scenarios: dict[str, dict] = {}
    setup_keys: set[str] = set()
    fresh: list[str] = []
    starts = 0  # set-up lines seen: each start of the program sends its set-up first
    for line in record.read_text().splitlines():
        entry = json.loads(line)
        if "setup" in entry:
            setup_keys |= set(entry["setup"].get("values", {}))
            starts += 1
        elif "started" in entry and starts > 1:
            fresh.append(entry["started"])
            starts = 1
        elif "scenario" in entry:
            program = entry.get("trace", {}).get("otherData", {}).get("program", "")
            output = entry.get("output")
            scenarios[entry["scenario"]] = {
                "values": sorted(entry.get("values", {})),
                "output_chunks": output.get("chunks") if output else None,
                "program": program.replace(" python ", " ", 1),
            }
    return {"scenarios": scenarios, "setup": sorted(setup_keys), "fresh_process_before": fresh}


def _solution_record(folder: str, track: str) -> Path:
    whose = "python-solution" if track == "python" else "solution"
    record = records.committed_record(ROOT, folder, RECORDED_ON, whose)
    if not record.is_file():
        pytest.skip(f"lab {folder} has no committed {record.name}")
    return record


def _drifted(folder: str, names: list[str]) -> list[str]:
    return [name for name in names if (folder, name) not in KNOWN_DIFFERENCES]


@pytest.mark.parametrize("recorder", PYTHON_RECORDERS, ids=_lab_folder)
def test_the_python_recorder_declares_the_cpp_recorders_scenarios(recorder, course_build):
    folder = _lab_folder(recorder)
    declared = declared_by_python(recorder, course_build)
    cpp = recorded(_solution_record(folder, "cpp"))
    python_names, cpp_names = [s["name"] for s in declared], list(cpp["scenarios"])
    only_python = _drifted(folder, [name for name in python_names if name not in cpp_names])
    only_cpp = _drifted(folder, [name for name in cpp_names if name not in python_names])
    assert not only_python and not only_cpp, (
        f"lab {folder}: scenarios only {recorder.name} declares: {only_python}; "
        f"only the C++ recorder recorded: {only_cpp}"
    )
    shared = [name for name in python_names if name in cpp_names]
    assert shared == [name for name in cpp_names if name in python_names], (
        f"lab {folder}: the scenarios run in another order: Python {python_names}, C++ {cpp_names}"
    )
    assert fresh_process_before(declared) == cpp["fresh_process_before"], (
        f"lab {folder}: a fresh process before other scenarios: {recorder.name} asks for one before "
        f"{fresh_process_before(declared)}, the C++ recorder had one before {cpp['fresh_process_before']}"
    )


@pytest.mark.parametrize("recorder", PYTHON_RECORDERS, ids=_lab_folder)
def test_both_tracks_record_each_scenario_alike(recorder):
    folder = _lab_folder(recorder)
    cpp, python = (recorded(_solution_record(folder, track)) for track in ("cpp", "python"))
    assert cpp["setup"] == python["setup"], f"lab {folder}: set-up values C++ {cpp['setup']}, Python {python['setup']}"
    assert cpp["fresh_process_before"] == python["fresh_process_before"], f"lab {folder}: fresh processes differ"
    differing = [
        f"{name}: C++ {what}, Python {python['scenarios'].get(name)}"
        for name, what in cpp["scenarios"].items()
        if what != python["scenarios"].get(name) and (folder, name) not in KNOWN_DIFFERENCES
    ]
    assert not differing, f"lab {folder}: scenarios the two solution records hold differently:\n" + "\n".join(differing)
