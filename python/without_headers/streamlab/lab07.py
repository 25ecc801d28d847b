"""Lab 07's course side, the module's submodule streamlab.lab07 (python/bind_dependencies.cpp):
the host that consumes each chunk's results and times every call on the timeline's clock,
and Task 4's background and urgent kernels.

The host function is the course's C++ function in the library, as in the module:
`host_function` is its address and `user_data(chunk)` the address of the chunk's
delivery record, ready for cudart.cudaLaunchHostFunc(stream, cudart.cudaHostFn_t(
consumer.host_function), consumer.user_data(c)). CUDA's thread then consumes the
chunk without any Python, so it never waits for the interpreter."""

from __future__ import annotations

from typing import Any

from ._library import Kept, Value, call

__all__ = ["HostConsumer", "PriorityDemo", "urgent_wait"]


class HostConsumer:
    """The host that takes each chunk's results out of memory.output, timing each call.
    The library keeps `memory` for as long as the consumer lives."""

    def __init__(self, memory: Any, iterations: int, chunks: int) -> None:
        self._kept: Kept = call("lab07.HostConsumer", memory=memory, iterations=iterations, chunks=chunks)

    @property
    def host_function(self) -> int:
        """The address of the course's host function: cudaLaunchHostFunc's fn."""
        return self._kept.host_function

    def user_data(self, chunk: int) -> int:
        """The address of chunk's delivery record: cudaLaunchHostFunc's userData for that chunk."""
        return call("lab07.HostConsumer.user_data", consumer=self._kept, chunk=chunk)

    def consume(self, chunk: int) -> None:
        """Consumes chunk's results now, on this thread."""
        call("lab07.HostConsumer.consume", consumer=self._kept, chunk=chunk)

    def reset(self) -> None:
        """Forgets the calls and poisons what was consumed."""
        call("lab07.HostConsumer.reset", consumer=self._kept)

    def consumptions(self, origin_ns: int) -> list[Value]:
        """The calls since reset(), in the order they began, relative to origin_ns: each
        a Consumption with chunk, start_ns, end_ns and thread."""
        return call("lab07.HostConsumer.consumptions", consumer=self._kept, origin_ns=origin_ns)

    def check(self, chunks: int) -> Value:
        """What was consumed, against the CPU reference."""
        return call("lab07.HostConsumer.check", consumer=self._kept, chunks=chunks)


class PriorityDemo:
    """Task 4's background kernel and urgent kernel, sized from the device."""

    def __init__(self) -> None:
        self._kept: Kept = call("lab07.PriorityDemo")

    def fill_gpu(self, stream: Any) -> None:
        """Launches the background kernel in `stream`; returns once it has begun."""
        call("lab07.PriorityDemo.fill_gpu", demo=self._kept, stream=stream)

    def launch(self, stream: Any) -> None:
        """Launches the urgent kernel in `stream`, noting when."""
        call("lab07.PriorityDemo.launch", demo=self._kept, stream=stream)

    def launched_ns(self, origin_ns: int) -> int:
        """When the urgent kernel was last launched, relative to origin_ns."""
        return call("lab07.PriorityDemo.launched_ns", demo=self._kept, origin_ns=origin_ns)

    def describe(self) -> str:
        """The background's size, for a printout."""
        return call("lab07.PriorityDemo.describe", demo=self._kept)


def urgent_wait(timeline: Any, launched_ns: int) -> Value:
    """The urgent kernel's wait in the timeline: an UrgentWait with problem, background_ns,
    wait_ns and share."""
    return call("lab07.urgent_wait", timeline=timeline, launched_ns=launched_ns)
