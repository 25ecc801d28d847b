"""Lab 04's batches, with the module's names (python/bind_batches.cpp): the host buffers,
the host's marked work, another stream's kernel, and the batches read back from a
timeline. The buffers, the work and the kernel stay in the library, kept; the classes
here hold them and call their methods by name."""

from __future__ import annotations

from typing import Any

from ._library import Kept, Value, call

__all__ = [
    "BACKGROUND_LABEL",
    "BackgroundKernel",
    "BatchBuffers",
    "HostWork",
    "find_batches",
    "marked_host_work",
    "unlabelled_ops",
]

BACKGROUND_LABEL: str = call("BACKGROUND_LABEL")  # the background kernel's op label on the timeline


class BatchBuffers:
    """Host input and output of `count` batches, n floats each."""

    def __init__(self, count: int, n: int, pinned: bool) -> None:
        self._kept: Kept = call("BatchBuffers", count=count, n=n, pinned=pinned)

    @property
    def count(self) -> int:
        return self._kept.count

    @property
    def n(self) -> int:
        return self._kept.n

    @property
    def pinned(self) -> bool:
        return self._kept.pinned

    def input(self, batch: int) -> int:
        return call("BatchBuffers.input", buffers=self._kept, batch=batch)

    def output(self, batch: int) -> int:
        return call("BatchBuffers.output", buffers=self._kept, batch=batch)

    def reset(self, prepare_all: bool) -> None:
        """Outputs poisoned; batch 0's input prepared, and the others too when prepare_all."""
        call("BatchBuffers.reset", buffers=self._kept, prepare_all=prepare_all)

    def check(self, batch: int, iterations: int) -> Value:
        """Batch's output against the CPU reference."""
        return call("BatchBuffers.check", buffers=self._kept, batch=batch, iterations=iterations)


class HostWork:
    """The host's work for a batch run; call it as host_work(b). The library keeps the
    buffers it works on for as long as it lives."""

    def __init__(self, kept: Kept) -> None:
        self._kept = kept

    def __call__(self, batch: int) -> None:
        call("HostWork.call", host_work=self._kept, batch=batch)


def marked_host_work(buffers: BatchBuffers, prepare_next: bool) -> HostWork:
    """The host's work for a batch run, host_work(b): marks when control came back and when
    the work ended, on the timeline's clock; prepares batch b + 1's input when prepare_next."""
    return HostWork(call("marked_host_work", buffers=buffers._kept, prepare_next=prepare_next))


class BackgroundKernel:
    """A kernel of about `ms` milliseconds in a stream of its own, labelled BACKGROUND_LABEL."""

    def __init__(self, ms: float, facts: Value) -> None:
        self._kept: Kept = call("BackgroundKernel", ms=ms, facts=facts)

    def launch(self) -> None:
        """Queues the kernel and returns at once."""
        call("BackgroundKernel.launch", kernel=self._kept)


def find_batches(timeline: Value, count: int, bytes: int) -> Value:  # noqa: A002  (the module's name)
    """The batches of a batch run: the b-th H2D copy, kernel and D2H copy and batch b's host marks."""
    return call("find_batches", timeline=timeline, count=count, bytes=bytes)


def unlabelled_ops(ops: list[Any]) -> list[Value]:
    """The ops without a label: the run's own, not the grader's."""
    return call("unlabelled_ops", ops=ops)
