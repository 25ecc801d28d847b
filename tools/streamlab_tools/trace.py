"""Reading the files the labs write: traces (GPU timelines) and sweep results.

common/TRACE_FORMAT.md is the contract. Every reader here checks a file against it
strictly and raises TraceError with a one-line message that says what is wrong, so a
command can print that line and stop instead of drawing or grading nonsense.

Times stay integer nanoseconds, exactly as the file's ``args.start_ns`` /
``args.end_ns`` hold them; the floating-point ``ts`` / ``dur`` fields exist only for
trace viewers and are ignored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TRACE_FORMAT = "streamlab-trace"
BANDWIDTH_FORMAT = "streamlab-bandwidth"
CHUNKS_FORMAT = "streamlab-chunks"
SUPPORTED_VERSION = 1

OP_KINDS = ("kernel", "memcpy_h2d", "memcpy_d2h", "memcpy_d2d", "memcpy_p2p", "memcpy_other", "memset")
STREAM_KINDS = ("created", "legacy_null", "per_thread_default")
RANGE_CATEGORY = "nvtx"  # the "cat" of an NVTX range's "X" event
HOST_MEMORY_KINDS = ("not_applicable", "pageable", "pinned", "managed", "device", "unknown")
# What a runtime call that queues or orders stream work does (RECORD_FORMAT.md, stream_calls).
STREAM_CALL_KINDS = (
    "work",
    "event_record",
    "stream_wait_event",
    "stream_synchronize",
    "event_synchronize",
    "device_synchronize",
    "stream_query",
    "implicit_sync",
)

# What each file kind is called in messages ("not a streamlab trace ...").
FORMAT_DESCRIPTIONS = {
    TRACE_FORMAT: "streamlab trace",
    BANDWIDTH_FORMAT: "streamlab bandwidth sweep",
    CHUNKS_FORMAT: "streamlab chunk sweep",
}

# The keys every entry of "points" must have in the sweep files, with their JSON types.
POINT_SCHEMAS = {
    BANDWIDTH_FORMAT: {"bytes": "integer", "direction": "string", "memory": "string", "gbps": "number"},
    CHUNKS_FORMAT: {
        "chunks": "integer",
        "intensity": "string",
        "makespan_ms": "number",
        "serial_ms": "number",
        "model_ms": "number",
        "bound_ms": "number",
    },
}


class TraceError(Exception):
    """A file is missing, unreadable, or not what TRACE_FORMAT.md describes.

    The message is always a single line, ready to be printed after a program name.
    """


@dataclass(frozen=True)
class DeviceOp:
    """One operation the GPU ran, with the GPU's own timestamps (ns)."""

    kind: str  # one of OP_KINDS
    name: str  # what a viewer shows: "H2D_1", "K_1", "memset", a kernel's name
    label: str  # the lab's name for the op (a chunk number, say), or ""
    stream: int  # CUPTI's stream id
    stream_kind: str  # one of STREAM_KINDS
    start_ns: int
    end_ns: int
    bytes: int = 0  # bytes moved or set; 0 for kernels
    host_memory: str = "not_applicable"  # for copies: where the host buffer lives
    correlation_id: int = 0  # ties the op to the API call that issued it
    kernel_name: str = ""  # for kernels: the kernel's own name, label or not
    graph_id: int = 0  # the CUDA graph whose launch ran the op, or 0
    graph_node_id: int = 0  # its node in that graph (the same in every launch), or 0
    device: int = 0  # the GPU that ran it (CUDA's device ordinal): the event's pid is 1 + device
    source_device: int = 0  # for a copy between two GPUs (memcpy_p2p): the GPU it copied from
    destination_device: int = 0  # and the GPU it copied to; 0 for every other op

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns


@dataclass(frozen=True)
class HostMark:
    """An instant the host recorded, on the same clock as the device operations."""

    name: str
    time_ns: int


@dataclass(frozen=True)
class HostRange:
    """A stretch of host time the program named with an NVTX range, on the same clock."""

    name: str
    start_ns: int
    end_ns: int
    thread: int = 0  # the host thread that opened it


@dataclass(frozen=True)
class StreamCall:
    """A runtime call that queued or ordered stream work, as the host made it (a record's
    stream_calls): streams and events are named by their handles, not by the trace's stream ids."""

    call: str  # one of STREAM_CALL_KINDS
    function: str  # "cudaEventRecord", ...
    stream: int  # the stream's handle (0: the legacy NULL stream, 2: the per-thread default stream)
    event: int  # the event's handle, or 0
    time_ns: int  # when the host made the call, on the trace's clock
    device: int = 0  # the GPU current on the calling thread


@dataclass
class Trace:
    """A recorded timeline, each list sorted by time (the stream calls in call order)."""

    ops: list[DeviceOp]
    marks: list[HostMark]
    metadata: dict[str, Any]  # the file's otherData block
    ranges: list[HostRange] = field(default_factory=list)  # none in files recorded without NVTX ranges
    stream_calls: list[StreamCall] = field(default_factory=list)  # only in a trace taken from a record

    @property
    def program(self) -> str:
        return self.metadata.get("program", "")

    @property
    def device_name(self) -> str:
        return self.metadata.get("device", {}).get("name", "")

    @property
    def copy_engines(self) -> int | None:
        """The device's copy engine count (asyncEngineCount), or None when not recorded."""
        return self.metadata.get("device", {}).get("copy_engines")


# --- reading JSON ------------------------------------------------------------------


def read_json_object(path: str | Path) -> dict[str, Any]:
    """The JSON object stored in the file at ``path``; TraceError, its message starting with the path, where
    there is none."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise TraceError(f"{path}: is a folder, not a file") from None
    except OSError as error:
        raise TraceError(f"{path}: cannot read ({error.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not JSON (the file is not UTF-8 text)") from None
    if not text.strip():
        raise TraceError(f"{path}: empty file")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise TraceError(f"{path}: not JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    if not isinstance(obj, dict):
        raise TraceError(f"{path}: not a streamlab file (the top level is {_json_type(obj)}, not an object)")
    return obj


def file_format(obj: dict[str, Any]) -> str:
    """The ``otherData.format`` of a parsed file; TraceError when it has none."""
    other = obj.get("otherData")
    if not isinstance(other, dict) or not isinstance(other.get("format"), str):
        raise TraceError("not a streamlab file (no otherData.format)")
    return other["format"]


# --- traces --------------------------------------------------------------------------


def load_trace(path: str | Path) -> Trace:
    """Reads and checks the trace file at ``path``; TraceError, its message starting with the path."""
    obj = read_json_object(path)
    try:
        return parse_trace(obj)
    except TraceError as error:
        raise TraceError(f"{path}: {error}") from None


def parse_trace(obj: Any) -> Trace:
    """An already parsed trace (a dict from ``json.load``), checked; TraceError names the first problem."""
    metadata = _check_header(obj, TRACE_FORMAT)
    events = _get(obj, "traceEvents", "array")
    ops: list[DeviceOp] = []
    marks: list[HostMark] = []
    ranges: list[HostRange] = []
    for index, event in enumerate(events):
        where = f" in event {index}"
        if not isinstance(event, dict):
            raise TraceError(f"event {index} is {_json_type(event)}, not an object")
        phase = _get(event, "ph", "string", context=where)
        if phase == "X" and event.get("cat") == RANGE_CATEGORY:
            ranges.append(_parse_range(event, where))
        elif phase == "X":
            ops.append(_parse_op(event, where))
        elif phase == "i":
            marks.append(_parse_mark(event, where))
        elif phase != "M":  # "M" events only name the tracks for viewers
            raise TraceError(f"unsupported event phase {json.dumps(phase)}{where} (known: X, i, M)")
    ops.sort(key=lambda op: (op.start_ns, op.end_ns, op.stream))
    marks.sort(key=lambda mark: mark.time_ns)
    ranges.sort(key=lambda item: item.start_ns)
    return Trace(ops=ops, marks=marks, metadata=metadata, ranges=ranges, stream_calls=_parse_stream_calls(metadata))


def _parse_stream_calls(metadata: dict[str, Any]) -> list[StreamCall]:
    """The optional ``otherData.stream_calls``, checked; [] where the file has none."""
    calls = _get(metadata, "stream_calls", "array", prefix="otherData.") if "stream_calls" in metadata else []
    return [_parse_stream_call(call, f" in otherData.stream_calls[{index}]") for index, call in enumerate(calls)]


def _parse_stream_call(call: Any, where: str) -> StreamCall:
    if not isinstance(call, dict):
        raise TraceError(f"a stream call is {_json_type(call)}, not an object{where}")
    return StreamCall(
        call=_one_of(_get(call, "call", "string", context=where), STREAM_CALL_KINDS, "stream call", where),
        function=_get(call, "function", "string", context=where),
        stream=_count(call, "stream", where),
        event=_count(call, "event", where),
        time_ns=_count(call, "time_ns", where),
        device=_count(call, "device", where)
        if "device" in call
        else 0,  # records made before GPUs were told apart: GPU 0
    )


def _span(args: dict[str, Any], what: str, where: str) -> tuple[int, int]:
    """``args.start_ns`` and ``args.end_ns``, checked to be in that order."""
    start_ns, end_ns = _count(args, "start_ns", where, "args."), _count(args, "end_ns", where, "args.")
    if end_ns < start_ns:
        raise TraceError(f"{what} ends before it starts{where} (end_ns {end_ns} < start_ns {start_ns})")
    return start_ns, end_ns


def _parse_range(event: dict[str, Any], where: str) -> HostRange:
    pid = _count(event, "pid", where)
    if pid != 0:
        raise TraceError(f"an NVTX range with pid {pid}{where}; it must be 0")
    name = _get(event, "name", "string", context=where)
    thread = _count(event, "tid", where)
    start_ns, end_ns = _span(_get(event, "args", "object", context=where), "NVTX range", where)
    return HostRange(name=name, start_ns=start_ns, end_ns=end_ns, thread=thread)


def _parse_op(event: dict[str, Any], where: str) -> DeviceOp:
    pid = _count(event, "pid", where)
    if pid == 0:
        raise TraceError(f"a device op with pid 0{where}; it must be 1 + the GPU's device id (1 for GPU 0)")
    name = _get(event, "name", "string", context=where)
    args = _get(event, "args", "object", context=where)

    def text(key: str) -> str:
        return _get(args, key, "string", prefix="args.", context=where)

    def count(key: str, present: bool = True) -> int:
        return _count(args, key, where, "args.") if present else 0

    kind = _one_of(text("op"), OP_KINDS, "op kind", where)
    stream_kind = _one_of(text("stream_kind"), STREAM_KINDS, "stream kind", where)
    start_ns, end_ns = _span(args, "event", where)
    # Copies always say how much they moved and from where; memsets how much they set.
    is_copy = kind.startswith("memcpy_")
    size = count("bytes", present=is_copy or kind == "memset" or "bytes" in args)
    host_memory = text("host_memory") if is_copy else args.get("host_memory", "not_applicable")
    host_memory = _one_of(host_memory, HOST_MEMORY_KINDS, "host memory kind", where)
    graphed, p2p = "graph_id" in args, kind == "memcpy_p2p"  # only ops a graph launch ran carry graph ids
    return DeviceOp(
        kind=kind,
        name=name,
        label=text("label"),
        stream=count("stream"),
        stream_kind=stream_kind,
        start_ns=start_ns,
        end_ns=end_ns,
        bytes=size,
        host_memory=host_memory,
        correlation_id=count("correlation_id"),
        kernel_name=text("kernel_name") if kind == "kernel" else "",
        graph_id=count("graph_id", graphed),
        graph_node_id=count("graph_node_id", graphed),
        device=pid - 1,
        source_device=count("source_device", p2p),
        destination_device=count("destination_device", p2p),
    )


def _parse_mark(event: dict[str, Any], where: str) -> HostMark:
    name = _get(event, "name", "string", context=where)
    args = _get(event, "args", "object", context=where)
    return HostMark(name=name, time_ns=_count(args, "time_ns", where, "args."))


# --- the other files -----------------------------------------------------------------


def parse_json_file(obj: Any, expected_format: str) -> dict[str, Any]:
    """An already parsed sweep file (``streamlab-bandwidth`` or ``streamlab-chunks``), checked, unchanged."""
    if expected_format not in POINT_SCHEMAS:
        raise ValueError(f"no point schema for format {expected_format!r}; use load_trace for traces")
    _check_header(obj, expected_format)
    points = _get(obj, "points", "array")
    if not points:
        raise TraceError("the file has no points")
    for index, point in enumerate(points):
        where = f" in point {index}"
        if not isinstance(point, dict):
            raise TraceError(f"point {index} is {_json_type(point)}, not an object")
        for key, expected in POINT_SCHEMAS[expected_format].items():
            _get(point, key, expected, context=where)
    if expected_format == BANDWIDTH_FORMAT:
        _check_bandwidth_points(points)
    else:
        _check_chunk_points(points)
    return obj


def _check_bandwidth_points(points: list[dict[str, Any]]) -> None:
    for index, point in enumerate(points):
        where = f" in point {index}"
        _one_of(point["direction"], ("H2D", "D2H"), "direction", where)
        _one_of(point["memory"], ("pageable", "pinned"), "memory", where)
        if point["bytes"] <= 0:
            raise TraceError(f"bytes{where} must be positive, not {point['bytes']}")
        if point["gbps"] < 0:
            raise TraceError(f"gbps{where} must not be negative, not {point['gbps']}")


def _check_chunk_points(points: list[dict[str, Any]]) -> None:
    for index, point in enumerate(points):
        where = f" in point {index}"
        if point["chunks"] < 1:
            raise TraceError(f"chunks{where} must be at least 1, not {point['chunks']}")
        # Speedups divide by these times, so each must be positive.
        for key in ("makespan_ms", "serial_ms", "model_ms", "bound_ms"):
            if point[key] <= 0:
                raise TraceError(f"{key}{where} must be positive, not {point[key]}")
        # The interference model came later, and lab 06's sweep has none: files without it are still good.
        if "link_model_ms" in point:
            link = point["link_model_ms"]
            if isinstance(link, bool) or not isinstance(link, (int, float)) or link <= 0:
                raise TraceError(f"link_model_ms{where} must be a positive number, not {json.dumps(link)}")


# --- checking helpers ----------------------------------------------------------------


def _check_header(obj: Any, expected_format: str) -> dict[str, Any]:
    """Checks the top level and the ``otherData`` block; returns ``otherData``."""
    description = FORMAT_DESCRIPTIONS[expected_format]
    if not isinstance(obj, dict):
        raise TraceError(f"not a {description} (the top level is {_json_type(obj)}, not an object)")
    other = obj.get("otherData")
    if not isinstance(other, dict) or "format" not in other:
        raise TraceError(f"not a {description} (no otherData.format)")
    if other["format"] != expected_format:
        found = json.dumps(other["format"])
        raise TraceError(f"not a {description} (otherData.format is {found}, expected {json.dumps(expected_format)})")
    version = _get(other, "version", "integer", prefix="otherData.")
    if version != SUPPORTED_VERSION:
        raise TraceError(
            f"unsupported {expected_format} version {version} (this reader knows version {SUPPORTED_VERSION})"
        )
    _get(other, "program", "string", prefix="otherData.")
    device = _get(other, "device", "object", prefix="otherData.")
    _get(device, "name", "string", prefix="otherData.device.")
    if "copy_engines" in device:
        _count(device, "copy_engines", prefix="otherData.device.")
    return other


_JSON_TYPES = {
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    "string": lambda value: isinstance(value, str),
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
}


def _get(obj: dict[str, Any], key: str, expected: str, prefix: str = "", context: str = "") -> Any:
    """``obj[key]``, checked to be of the JSON type ``expected``; ``prefix`` and ``context`` place the key in
    messages: ``args.`` and `` in event 3`` make "missing key args.start_ns in event 3"."""
    if key not in obj:
        raise TraceError(f"missing key {prefix}{key}{context}")
    value = obj[key]
    if not _JSON_TYPES[expected](value):
        raise TraceError(f"{prefix}{key}{context} must be {_with_article(expected)}, not {_json_type(value)}")
    return value


def _count(obj: dict[str, Any], key: str, where: str = "", prefix: str = "") -> int:
    """``obj[key]``, checked to be a non-negative integer (a time, an id, a size)."""
    value = _get(obj, key, "integer", prefix=prefix, context=where)
    if value < 0:
        raise TraceError(f"{prefix}{key}{where} must not be negative, not {value}")
    return value


def _one_of(value: Any, known: tuple[str, ...], what: str, where: str) -> str:
    if value not in known:
        raise TraceError(f"unknown {what} {json.dumps(value)}{where} (known: {', '.join(known)})")
    return value


def _json_type(value: Any) -> str:
    """The JSON name of a Python value's type, with an article: "an array", "null"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    name = next((name for name, is_one in _JSON_TYPES.items() if is_one(value)), None)
    return _with_article(name) if name else type(value).__name__


def _with_article(name: str) -> str:
    return ("an " if name[0] in "aeiou" else "a ") + name
