"""One test process per GPU: the steps of a submission that run its code (tests, timeline programs, the
sanitizer) each take a free GPU from here and see only that one (CUDA_VISIBLE_DEVICES), so that no timing
is taken while another submission's code shares the GPU; their builds overlap freely. Without a GPU there
is one slot, which runs those steps one submission at a time.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def chosen_devices(devices: list[str], limit: int | None) -> list[str]:
    """The first `limit` of `devices` (all of them when limit is None)."""
    return devices if limit is None else devices[:limit]


class GpuSlots:
    """Hands out `devices` (CUDA_VISIBLE_DEVICES values), each to one holder at a time; a holder may take
    several together (a lab whose tests need two GPUs). Holders are served in the order they asked, so one
    that waits for two GPUs is never passed over, again and again, by holders of one."""

    def __init__(self, devices: list[str]):
        self.devices = list(devices)
        self._free = list(self.devices) if self.devices else [None]
        self._changed = threading.Condition()
        self._tickets = itertools.count()
        self._serving: list[int] = []  # tickets of the holders waiting, in the order they asked

    @property
    def count(self) -> int:
        """How many submissions may run their code at once."""
        return max(1, len(self.devices))

    @contextmanager
    def hold(self, gpus: int = 1) -> Iterator[dict[str, str]]:
        """Waits until `gpus` GPUs are free together (all of them where there are fewer, one slot without
        GPUs) and it is this holder's turn; yields the environment that shows a step only those GPUs ({}
        without GPUs)."""
        wanted = max(1, min(gpus, self.count))
        with self._changed:
            ticket = next(self._tickets)
            self._serving.append(ticket)
            self._changed.wait_for(lambda: self._serving[0] == ticket and len(self._free) >= wanted)
            self._serving.pop(0)
            if self.devices:  # the lowest-numbered free GPUs, in the machine's order
                self._free.sort(key=self.devices.index)
            taken, self._free = self._free[:wanted], self._free[wanted:]
            self._changed.notify_all()  # the next in line may find enough free GPUs too
        try:
            yield {} if taken == [None] else {"CUDA_VISIBLE_DEVICES": ",".join(taken)}
        finally:
            with self._changed:
                self._free += taken
                self._changed.notify_all()
