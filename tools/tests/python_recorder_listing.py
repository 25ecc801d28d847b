"""The scenarios a Python lab's recording program declares, found without a GPU: prints them as JSON.

    python python_recorder_listing.py labs/05-three-chunks/python/record_lab05.py

It runs the program's record_labNN(session) with a session that lists each scenario (its name and
what it needs of its process, recording.ProcessNeeds) instead of running it, so no scenario's body
runs. The set-up before the first scenario does run, on stand-ins: every function and class of the
modules that reach the GPU (streamlab, cuda.bindings.runtime, cuda_check) is a MagicMock, while their
constants and submodules, and the few functions the recorders call to name a scenario or its
process's needs (NAMING), are the real ones. The lab's own Python files and the solution's module
are imported for real (they see the stand-ins). Run it with the import path of a Python lab
(coursecli.environment.python_lab_environment) and the course's module built.
"""

from __future__ import annotations

import importlib
import json
import sys
import types
from pathlib import Path
from unittest import mock

# The functions and classes the recorders call to name a scenario or say what its process needs:
# pure, CPU only, and what the listing is about, so they run for real.
NAMING = {"ProcessNeeds", "wait_way", "job_scenario"}


def prepare_recorded_pipeline(session):
    """recording.prepare_recorded_pipeline without a GPU: its set-up values, its memory a MagicMock of n floats
    (lab 09 allocates host memory of that size before its first scenario)."""
    n = int(session.setup_value("n", None))
    memory = mock.MagicMock(name="PipelineMemory", n=n)
    return types.SimpleNamespace(memory=memory, h2d_ms=session.setup_value("h2d_ms", None), iterations=1)


# Functions of the course's modules that a recorder's set-up needs to return numbers, by their stand-ins.
NUMERIC = {"prepare_recorded_pipeline": prepare_recorded_pipeline}


class StandIn(types.ModuleType):
    """A module of the course as a recorder's set-up sees it without a GPU: its constants and submodules,
    the NAMING functions, and a MagicMock for anything else it calls."""

    def __init__(self, real: types.ModuleType) -> None:
        super().__init__(real.__name__)
        self._real = real

    def __getattr__(self, name: str):
        value = getattr(self._real, name)
        if isinstance(value, types.ModuleType):
            return StandIn(value)
        if name in NAMING or not callable(value):
            return value
        if name in NUMERIC:
            return NUMERIC[name]
        return mock.MagicMock(name=f"{self._real.__name__}.{name}")


class ListingSession:
    """recording.Session as record_labNN sees it, listing each scenario instead of running it."""

    seed = 1

    def __init__(self) -> None:
        # A GPU with every feature a scenario needs (lab 04's waits beside a kernel need concurrent kernels).
        self.facts = mock.MagicMock(name="facts", sm_count=132, concurrent_kernels=True)
        self.setup: dict[str, float] = {}
        self.scenarios: list[dict] = []

    def salted_elements(self, usual: int) -> int:
        return usual

    def setup_value(self, key: str, measure) -> float:
        """Each set-up value a number of its own, none measured (lab 07 declares its priority scenarios only
        where the device's least and greatest priorities differ)."""
        return self.setup.setdefault(key, float(len(self.setup) + 1))

    def scenario(self, name, *needs_then_body) -> None:
        needs = needs_then_body[0] if len(needs_then_body) == 2 else None
        if not isinstance(name, str):
            raise TypeError(f"a scenario's name is not known without a GPU: {name!r} (add what makes it to NAMING)")
        self.scenarios.append(
            {
                "name": name,
                "environment": dict(needs.environment) if needs is not None else {},
                "ends_process": bool(needs.ends_process) if needs is not None else False,
            }
        )


def declared_scenarios(recorder: Path) -> list[dict]:
    """Every scenario `recorder` (labs/NN-topic/python/record_labNN.py) declares, in order, with the stand-ins
    where the recorder and the lab's files import the course's modules from."""
    import cuda.bindings
    import cuda_check
    import streamlab
    from cuda.bindings import runtime

    reals = (streamlab, runtime, cuda_check)
    for real in reals:
        sys.modules[real.__name__] = StandIn(real)
    cuda.bindings.runtime = sys.modules[runtime.__name__]
    try:
        module = importlib.import_module(recorder.stem)
        session = ListingSession()
        getattr(module, recorder.stem)(session)
        return session.scenarios
    finally:  # the real modules back, so that they are torn down as usual
        for real in reals:
            sys.modules[real.__name__] = real
        cuda.bindings.runtime = runtime


if __name__ == "__main__":
    print(json.dumps(declared_scenarios(Path(sys.argv[1]))))
