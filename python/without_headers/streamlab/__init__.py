"""The course's module `streamlab` for a Python that could not build it.

The module is built with nanobind, which needs Python's C headers. Where they are
missing (or nanobind is), this package stands in for it: the same names, over the
same C++ library, built as libstreamlab_c.so (python/without_headers/c_library.hpp)
and loaded with ctypes. The Python labs and their tests run unchanged, graded by the
same analysis. Python finds this package only after the module: the labs' path puts
python/without_headers last.

The functions here carry the module's signatures; see python/bind_*.cpp for what
each does.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from . import _library
from ._library import (
    LOADED_FROM,
    Kept,
    Value,
    call,
    decode,
    has_call,
    value_class,
)

# The module's exceptions.
TraceFormatError = _library.TraceFormatError
TimelineUnavailable = _library.TimelineUnavailable

BUILT_AS = (
    f"the course's C library {LOADED_FROM.name} through ctypes: the Python module could not be built here "
    "(it needs Python's C headers and nanobind)"
)

# The module's classes whose values the library hands out, by name (for isinstance and annotations).
DeviceFacts = value_class("DeviceFacts")
ResultCheck = value_class("ResultCheck")
SerialReference = value_class("SerialReference")
PipelineChunks = value_class("PipelineChunks")
PipelineComparison = value_class("PipelineComparison")
PipelineRun = value_class("PipelineRun")
PreparedPipeline = value_class("PreparedPipeline", kept=True)

# ---------------------------------------------------------------- timelines and trace files


def Timeline() -> Value:  # noqa: N802  (the module's class name)
    """An empty timeline."""
    return call("Timeline")


def DeviceOp(  # noqa: N802, PLR0913  (the module's class and its fields)
    kind: str,
    start_ns: int,
    end_ns: int,
    stream: int = 0,
    stream_kind: str = "created",
    bytes: int = 0,  # noqa: A002
    name: str = "",
    label: str = "",
    host_memory: str = "not_applicable",
    correlation_id: int = 0,
    graph_id: int = 0,
    graph_node_id: int = 0,
    device: int = 0,
    source_device: int = 0,
    destination_device: int = 0,
) -> Value:
    """One operation the GPU ran (made by hand: for questions asked of chosen times)."""
    fields = dict(locals())
    return call("DeviceOp", **fields)


def read_trace(path: str) -> Value:
    return call("read_trace", path=str(path))


def parse_trace(text: str) -> Value:
    return call("parse_trace", text=text)


def trace_to_json(timeline: Value) -> str:
    return call("trace_to_json", timeline=timeline)


def write_trace(path: str, timeline: Value) -> None:
    call("write_trace", path=str(path), timeline=timeline)


# ---------------------------------------------------------------- the analysis


def makespan_ns(ops: list[Value]) -> int:
    return call("makespan_ns", ops=ops)


def event_record_span_ns(timeline: Value) -> int:
    return call("event_record_span_ns", timeline=timeline)


def copy_compute_overlap_ns(ops: list[Value]) -> int:
    return call("copy_compute_overlap_ns", ops=ops)


def h2d_d2h_overlap_ns(ops: list[Value]) -> int:
    return call("h2d_d2h_overlap_ns", ops=ops)


def kernel_overlap_ns(ops: list[Value]) -> int:
    return call("kernel_overlap_ns", ops=ops)


def hidden_copy_fraction(ops: list[Value]) -> float:
    return call("hidden_copy_fraction", ops=ops)


def distinct_streams(ops: list[Value]) -> int:
    return call("distinct_streams", ops=ops)


def null_stream_ops(ops: list[Value]) -> int:
    return call("null_stream_ops", ops=ops)


# ---------------------------------------------------------------- the model


def LinkSharing(h2d: float = 1.0, d2h: float = 1.0) -> Value:  # noqa: N802  (the module's class name)
    return Value({"__class__": "LinkSharing", "h2d": h2d, "d2h": d2h})


def pipeline_model(h2d: float, kernel: float, d2h: float, chunks: int, copy_engines: int) -> dict[str, float]:
    return call("pipeline_model", h2d=h2d, kernel=kernel, d2h=d2h, chunks=chunks, copy_engines=copy_engines)


def simulate_pipeline(
    h2d: float,
    kernel: float,
    d2h: float,
    chunks: int,
    streams: int,
    copy_engines: int,
    order: str = "chunk",
    link: Value | None = None,
) -> list[Value]:
    link = link if link is not None else LinkSharing()
    return call(
        "simulate_pipeline",
        h2d=h2d,
        kernel=kernel,
        d2h=d2h,
        chunks=chunks,
        streams=streams,
        copy_engines=copy_engines,
        order=order,
        link=link,
    )


def simulated_makespan(ops: list[Value]) -> float:
    return call("simulated_makespan", ops=ops)


# ---------------------------------------------------------------- the device and the workload


def gpu_presence() -> tuple[bool, str]:
    return tuple(call("gpu_presence"))


def device_facts(ordinal: int = 0) -> Value:
    return call("device_facts", ordinal=ordinal)


def launch_workload(input: Any, output: Any, n: int, iterations: int, stream: Any = 0, max_blocks: int = 0) -> None:  # noqa: A002
    call(
        "launch_workload", input=input, output=output, n=n, iterations=iterations, stream=stream, max_blocks=max_blocks
    )


def fill_input(data: Any, n: int, seed: int = 1) -> None:
    call("fill_input", data=data, n=n, seed=seed)


def fill_poison(data: Any, n: int) -> None:
    call("fill_poison", data=data, n=n)


def check_workload_output(input: Any, output: Any, n: int, iterations: int, chunks: int = 1) -> Value:  # noqa: A002
    return call("check_workload_output", input=input, output=output, n=n, iterations=iterations, chunks=chunks)


def chunk_range(n: int, chunks: int, index: int) -> tuple[int, int]:
    return tuple(call("chunk_range", n=n, chunks=chunks, index=index))


def iterations_for_kernel_ms(n: int, target_ms: float, max_blocks: int = 0) -> int:
    return call("iterations_for_kernel_ms", n=n, target_ms=target_ms, max_blocks=max_blocks)


def measure_h2d_ms(bytes: int) -> float:  # noqa: A002
    return call("measure_h2d_ms", bytes=bytes)


# ---------------------------------------------------------------- the pipeline's memory and runs


def PinnedFloats(n: int) -> Kept:  # noqa: N802  (the module's class name)
    """n floats of pinned host memory, freed with the object."""
    return call("PinnedFloats", n=n)


def DeviceFloats(n: int) -> Kept:  # noqa: N802
    """n floats of device memory, freed with the object."""
    return call("DeviceFloats", n=n)


def PipelineMemory(n: int) -> Kept:  # noqa: N802
    return call("PipelineMemory", n=n)


def pipeline_elements(total_memory_bytes: int) -> int:
    return call("pipeline_elements", total_memory_bytes=total_memory_bytes)


def prepare_pipeline(facts: Value, kernel_to_copy: float = 1.0) -> Kept:
    return call("prepare_pipeline", facts=facts, kernel_to_copy=kernel_to_copy)


def run_serial_reference(memory: Kept, iterations: int) -> Value:
    return call("run_serial_reference", memory=memory, iterations=iterations)


def measure_link_sharing(memory: Kept) -> Value:
    return call("measure_link_sharing", memory=memory)


def find_chunks(ops: list[Value]) -> Value:
    return call("find_chunks", ops=ops)


def chunks_by_issue_order(ops: list[Value], chunks: int) -> Value:
    return call("chunks_by_issue_order", ops=ops, chunks=chunks)


def issue_order(ops: list[Value]) -> str:
    return call("issue_order", ops=ops)


def modelled_ops(simulated: list[Value]) -> list[Value]:
    return call("modelled_ops", simulated=simulated)


def last_event_waits_for_all(timeline: Value) -> tuple[bool, str]:
    return tuple(call("last_event_waits_for_all", timeline=timeline))


def compare_with_model(serial: Value, pipelined: Value, chunks: int, copy_engines: int) -> Value:
    return call("compare_with_model", serial=serial, pipelined=pipelined, chunks=chunks, copy_engines=copy_engines)


# What record_pipeline_run calls back: the memory (JSON text) and the iterations; 0, or 1 when it raised.
PIPELINED_FUNCTION = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_int)


def record_pipeline_run(chunks: int, pipelined: Callable[[Kept, int], Any], kernel_to_copy: float = 1.0) -> Value:
    raised: list[BaseException] = []

    def run(memory: bytes, iterations: int) -> int:
        try:
            pipelined(decode(memory), iterations)
            return 0
        except BaseException as error:  # noqa: BLE001  (raised again below, once the library has stopped)
            raised.append(error)
            return 1

    function = PIPELINED_FUNCTION(run)
    address = ctypes.cast(function, ctypes.c_void_p).value
    try:
        return call("record_pipeline_run", chunks=chunks, pipelined=address, kernel_to_copy=kernel_to_copy)
    except RuntimeError:
        if raised:
            raise raised[0] from None
        raise


def report_timeline(timeline: Value, title: str, trace_path: str = "", variant: str = "") -> None:
    call("report_timeline", timeline=timeline, title=title, trace_path=str(trace_path), variant=variant)


# ---------------------------------------------------------------- the tracer


class Recording:
    """What record returns: use it in a with statement."""

    def __init__(self, program: str) -> None:
        self._program = program
        self._started: Any = None
        self._timeline: Value | None = None

    def __enter__(self) -> Value:
        if self._timeline is not None:
            raise RuntimeError("a recording can be entered once; call streamlab.record again")
        self._started = call("record.start", program=self._program)
        self._timeline = Timeline()
        return self._timeline

    def __exit__(self, exception_type: Any, exception: Any, traceback: Any) -> bool:
        started, self._started = self._started, None
        if exception_type is not None:
            call("record.discard", recording=started)
            return False
        recorded = call("record.finish", recording=started, program=self._program)
        self._timeline._fields.clear()
        self._timeline._fields.update(recorded._fields)
        return False


def record(program: str) -> Recording:
    """Records the GPU's timeline of this process while the with block runs:
    with streamlab.record("lab05") as timeline: ..."""
    return Recording(program)


def host_thread_id() -> int:
    return call("host_thread_id")


def mark(name: str) -> None:
    call("mark", name=name)


def tracing_off_reason() -> str:
    return call("tracing_off_reason")


# ---------------------------------------------------------------- the labs' course sides

from ._batches import *  # noqa: E402, F403  (lab 04)

if has_call("lab06.pair_chunks"):
    from . import lab06  # noqa: E402, F401
if has_call("lab07.HostConsumer"):
    from . import lab07  # noqa: E402, F401
