"""libstreamlab_c.so through ctypes: one call by name, its arguments and result as JSON
(c_library.hpp). Values come back as Value (read like the module's classes), objects
the library keeps (memory, tracers) as Kept, which lets go of them when Python does."""

from __future__ import annotations

import ctypes
import json
import numbers
import os
from pathlib import Path
from typing import Any

LIBRARY_NAME = "libstreamlab_c.so"
ROOT = Path(__file__).resolve().parents[3]
BUILD_FOLDERS = ("build", "build-ci", "build-debug")  # CMakePresets.json's binary folders


class TraceFormatError(ValueError):
    """A malformed trace file or spelling (the module's streamlab.TraceFormatError)."""


class TimelineUnavailable(RuntimeError):
    """Nothing can be recorded here: no GPU, or CUPTI taken by another tool."""


ERRORS: dict[str, type[Exception]] = {
    "TraceFormatError": TraceFormatError,
    "TimelineUnavailable": TimelineUnavailable,
    "ValueError": ValueError,
    "TypeError": TypeError,
    "IndexError": IndexError,
    "RuntimeError": RuntimeError,
}


def library_path() -> Path:
    """The library: STREAMLAB_C_LIBRARY, else the newest one the course's build folders hold."""
    named = os.environ.get("STREAMLAB_C_LIBRARY")
    if named:
        return Path(named)
    built = [ROOT / folder / "python" / LIBRARY_NAME for folder in BUILD_FOLDERS]
    built = [path for path in built if path.is_file()]
    if not built:
        raise ImportError(f"{LIBRARY_NAME} is not built (./course build builds it into BUILD/python)")
    return max(built, key=lambda path: path.stat().st_mtime)


def _load(path: Path) -> ctypes.CDLL:
    try:
        library = ctypes.CDLL(str(path))
    except OSError as error:
        raise ImportError(f"cannot load {path}: {error}") from None
    library.streamlab_call.restype = ctypes.c_void_p
    library.streamlab_call.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    library.streamlab_free.argtypes = [ctypes.c_void_p]
    return library


LOADED_FROM = library_path()  # looked for once: the file loaded is the file named
LIBRARY = _load(LOADED_FROM)


class Value:
    """A value of the course's library, read as the module's class of the same name is:
    its fields are attributes; a field named "name()" is a method returning that value."""

    def __init__(self, fields: dict[str, Any]) -> None:
        object.__setattr__(self, "_fields", fields)

    def __getattr__(self, name: str) -> Any:
        fields = object.__getattribute__(self, "_fields")
        if name in fields:
            return fields[name]
        if f"{name}()" in fields:
            result = fields[f"{name}()"]
            return lambda: result
        raise AttributeError(f"{fields.get('__class__', 'value')} has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._fields:
            raise AttributeError(f"{self._fields.get('__class__', 'value')} has no attribute {name!r}")
        self._fields[name] = value

    def __str__(self) -> str:
        return self._fields.get("__str__()", repr(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self._fields.items() if not k.startswith("__") and "()" not in k)
        return f"{self._fields.get('__class__', 'Value')}({shown})"


class Timeline(Value):
    """A recorded timeline (the module's streamlab.Timeline)."""

    @property
    def api_calls_by_thread(self) -> dict[int, int]:
        return {thread: calls for thread, calls in self._fields["api_calls_by_thread"]}


class Kept(Value):
    """An object the library keeps (memory, a tracer, ...) for as long as this one lives."""

    def __del__(self) -> None:
        try:
            call("release", handle=self._fields["__handle__"])
        except Exception:  # noqa: BLE001  (at interpreter exit the library may be gone)
            pass


VALUE_CLASSES: dict[str, type[Value]] = {"Timeline": Timeline}


def value_class(name: str, kept: bool = False) -> type[Value]:
    """The class the library's values of the module's class `name` come back as (for isinstance)."""
    VALUE_CLASSES[name] = type(name, (Kept if kept else Value,), {"__doc__": f"The module's streamlab.{name}."})
    return VALUE_CLASSES[name]


def _from_json(fields: dict[str, Any]) -> Any:
    if "__class__" in fields:
        default = Kept if "__handle__" in fields else Value
        return VALUE_CLASSES.get(fields["__class__"], default)(fields)
    return fields


def _to_json(value: Any) -> Any:
    """What json.dumps cannot write itself: the library's values, numbers of other types (numpy's),
    and cuda-bindings' streams and pointers, whose int() is the handle or address."""
    if isinstance(value, Value):
        return value._fields
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if hasattr(value, "__int__"):
        return int(value)
    raise TypeError(f"cannot pass {type(value).__name__} to the course's library")


def decode(text: bytes | str) -> Any:
    """A value the library wrote as JSON text."""
    return json.loads(text, object_hook=_from_json)


def call(function: str, /, **arguments: Any) -> Any:
    """Runs the library's call `function` with these arguments (any names, `function` and `name`
    included); raises what the module would raise."""
    reply_address = LIBRARY.streamlab_call(function.encode(), json.dumps(arguments, default=_to_json).encode())
    if not reply_address:
        raise MemoryError(f"{function}: the course's library could not allocate its reply")
    try:
        reply = decode(ctypes.string_at(reply_address))
    finally:
        LIBRARY.streamlab_free(reply_address)
    if "error" in reply:
        raise ERRORS.get(reply["error"], RuntimeError)(reply["message"])
    return reply["value"]


def has_call(name: str) -> bool:
    """Whether this build of the library has the call `name` (lab 06's and 07's are there when their labs are)."""
    return name in call("calls")
