"""One test process per GPU: each submission's tests take a GPU of their own for as long as they run.

Submissions are graded several at a time; their builds overlap freely, but the
steps that run their code (tests, timeline programs, the sanitizer) first take
a free GPU from here and see only that one (CUDA_VISIBLE_DEVICES), so timings
are never taken while another submission's code shares the GPU. Without a GPU
there is one slot, which runs those steps one submission at a time as before.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from contextlib import contextmanager


def chosen_devices(devices: list[str], limit: int | None) -> list[str]:
    """The first `limit` of `devices` (all of them when limit is None)."""
    return devices if limit is None else devices[:limit]


class GpuSlots:
    """Hands out `devices` (CUDA_VISIBLE_DEVICES values), each to one holder at a time."""

    def __init__(self, devices: list[str]):
        self.devices = list(devices)
        self._free: queue.Queue[str | None] = queue.Queue()
        for device in self.devices or [None]:
            self._free.put(device)

    @property
    def count(self) -> int:
        """How many submissions may run their code at once."""
        return max(1, len(self.devices))

    @contextmanager
    def hold(self) -> Iterator[dict[str, str]]:
        """Waits for a free GPU; yields the environment that shows a step only that GPU ({} without GPUs)."""
        device = self._free.get()
        try:
            yield {} if device is None else {"CUDA_VISIBLE_DEVICES": device}
        finally:
            self._free.put(device)
