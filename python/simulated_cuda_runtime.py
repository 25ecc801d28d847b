"""The simulated GPU for the Python labs: cuda-bindings' runtime calls answered by the simulated GPU.

In the simulated build (preset `sim`, for a machine without an NVIDIA GPU) the module streamlab links the
simulated GPU (common/simgpu) in the place of NVIDIA's CUDA runtime, and calls `install` here when it is
imported. Each runtime call the Python labs make (`cudart.cudaStreamCreateWithFlags`, `cudart.cudaMemcpyAsync`,
...) is then replaced, in cuda-bindings' own module, by the same call on the simulated GPU
(streamlab.simulated_runtime). Everything else of cuda-bindings stays: its errors (cudaError_t), handles
(cudaStream_t, cudaEvent_t, ...), enums and flags. So a lab's Python code runs unchanged, on the same
simulated GPU as the course's kernel and tracer, and its record is marked simulated as the C++ track's is.
Python's clocks read the simulated host clock, as a C++ program's do in that build, and, as a C++ program's
census does there, the stand-in notes what the program never released (Census).

What it does not cover: any other runtime call (it still reaches NVIDIA's runtime, which finds no GPU here
and answers with an error), the driver API (cuda.bindings.driver), and a call bound by name before streamlab
was first imported (`from cuda.bindings.runtime import cudaMalloc` ahead of `import streamlab`).
"""

from __future__ import annotations

import atexit
import json
import os
import time
import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any

# The census of what a program left behind (the C++ programs': common/support/src/resource_census.cpp): where
# STREAMLAB_LEAK_REPORT names a file, every stream, event, device allocation, pinned buffer and pinned-in-place
# range still alive at exit is written to it, one JSON line each, with the Python frames that made it.
LEAK_REPORT = "STREAMLAB_LEAK_REPORT"
MADE = {  # the calls that make something to release, and what: the handle is their first result
    "cudaStreamCreate": "stream",
    "cudaStreamCreateWithFlags": "stream",
    "cudaStreamCreateWithPriority": "stream",
    "cudaEventCreate": "event",
    "cudaEventCreateWithFlags": "event",
    "cudaMalloc": "device allocation",
    "cudaMallocAsync": "device allocation",
    "cudaMallocHost": "pinned buffer",
    "cudaHostAlloc": "pinned buffer",
}
PINNED_IN_PLACE = "cudaHostRegister"  # makes "registered host memory" of its first argument
RELEASING = {"cudaStreamDestroy", "cudaEventDestroy", "cudaFree", "cudaFreeAsync", "cudaFreeHost", "cudaHostUnregister"}


class Census:
    """What the program made and has not released yet: handle -> one JSON line's object."""

    def __init__(self, report: str):
        self.alive: dict[int, dict] = {}
        atexit.register(lambda: self.write(report))

    def note(self, name: str, arguments: tuple, results: list) -> None:
        """After `name` succeeded with `arguments` and `results` (plain numbers)."""
        if name in MADE or name == PINNED_IN_PLACE:
            handle = results[0] if name in MADE else arguments[0]
            kind = MADE.get(name, "registered host memory")
            # Innermost first, as the C++ census's return addresses; this file's own frames left out.
            frames = [[f.filename, f.lineno, f.name] for f in reversed(traceback.extract_stack()[:-2])]
            self.alive[handle] = {"kind": kind, "api": name, "frames": frames}
        elif name in RELEASING and arguments:
            self.alive.pop(arguments[0], None)

    def write(self, report: str) -> None:
        with open(report, "w") as lines:
            lines.writelines(json.dumps(made) + "\n" for made in self.alive.values())


def _plain(argument: Any) -> Any:
    """An argument as the simulated call takes it: a handle, enum or pointer as its integer (cuda-bindings'
    handles give theirs to int()), None as 0 (cuda-bindings' NULL stream), anything else as it is."""
    if argument is None:
        return 0
    if isinstance(argument, float):
        return argument
    try:
        return int(argument)
    except TypeError:
        return argument  # the simulated call says what it takes


def _stand_in(
    name: str,
    simulated: Callable[..., tuple],
    wrap: Callable[[Any], Any] | None,
    cudart: ModuleType,
    census: Census | None,
):
    """cuda-bindings' `name`, answered by `simulated`: (error, results...) with the error as cudaError_t and
    the first result, where the call succeeded, made a cuda-bindings value by `wrap`; None where it failed,
    as cuda-bindings gives. What it made or released goes into the `census`, where one is taken."""

    def call(*arguments: Any) -> tuple:
        plain = tuple(map(_plain, arguments))
        error, *results = simulated(*plain)
        if census is not None and error == 0:
            census.note(name, plain, results)
        error = cudart.cudaError_t(error)
        if not results:
            return (error,)
        if error != cudart.cudaError_t.cudaSuccess:
            return (error, *(None for _ in results))
        if wrap is not None:
            results[0] = wrap(results[0])
        return (error, *results)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{name} on the simulated GPU (simulated_cuda_runtime); cuda-bindings' arguments and results."
    return call


def _error_text(simulated: Callable[[int], str], cudart: ModuleType) -> Callable[[Any], tuple]:
    """cudaGetErrorName or cudaGetErrorString: (cudaSuccess, the text as bytes), as cuda-bindings gives."""

    def call(error: Any) -> tuple:
        return cudart.cudaError_t.cudaSuccess, simulated(int(error)).encode()

    return call


def _simulate_clocks(clock_ns: Callable[[int], int]) -> None:
    """Python's clocks (time.perf_counter, monotonic, time and their _ns forms) read the simulated host
    clock, as a C++ program's clocks do in the simulated build (common/simgpu/src/host_clocks.hpp): a
    program that times its own work sees what it would see on the GPU modelled, not how long the CPU took
    to do the GPU's work. Code that bound a clock by name before this ran keeps the real one."""

    def reading(clock: int, scale: float | None) -> Callable[[], float | int]:
        if scale is None:
            return lambda: clock_ns(clock)
        return lambda: clock_ns(clock) * scale

    for name, clock in (("perf_counter", time.CLOCK_MONOTONIC), ("monotonic", time.CLOCK_MONOTONIC),
                        ("time", time.CLOCK_REALTIME)):  # fmt: skip
        setattr(time, name, reading(clock, 1e-9))
        setattr(time, f"{name}_ns", reading(clock, None))


def _handle_maker(handle_type: type) -> Callable[[int], Any]:
    """A cuda-bindings handle (cudaStream_t, ...) of the integer the simulated GPU gave."""
    return lambda value: handle_type(init_value=value)


def install(simulated: ModuleType) -> bool:
    """Puts every call of `simulated` (streamlab.simulated_runtime) in the place of cuda-bindings' call of the
    same name, and Python's clocks on the simulated host clock. False, and cuda-bindings unchanged, where it is
    not installed: the Python labs need it, and their first import of it says so."""
    _simulate_clocks(simulated.host_clock_ns)
    try:
        from cuda.bindings import runtime as cudart
    except ImportError:
        return False
    handles = {
        "cudaStreamCreate": cudart.cudaStream_t,
        "cudaStreamCreateWithFlags": cudart.cudaStream_t,
        "cudaStreamCreateWithPriority": cudart.cudaStream_t,
        "cudaEventCreate": cudart.cudaEvent_t,
        "cudaEventCreateWithFlags": cudart.cudaEvent_t,
        "cudaStreamEndCapture": cudart.cudaGraph_t,
        "cudaGraphInstantiate": cudart.cudaGraphExec_t,
    }
    wraps: dict[str, Callable[[Any], Any]] = {name: _handle_maker(made) for name, made in handles.items()}
    wraps["cudaStreamIsCapturing"] = cudart.cudaStreamCaptureStatus
    census = Census(os.environ[LEAK_REPORT]) if os.environ.get(LEAK_REPORT) else None
    for name in dir(simulated):
        if not name.startswith("cuda"):
            continue
        if name in ("cudaGetErrorName", "cudaGetErrorString"):
            setattr(cudart, name, _error_text(getattr(simulated, name), cudart))
        else:
            setattr(cudart, name, _stand_in(name, getattr(simulated, name), wraps.get(name), cudart, census))
    return True
