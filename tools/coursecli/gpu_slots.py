"""One test process per GPU: the steps of a submission that run its code (tests, timeline programs, the
sanitizer) each take a free GPU from here and see only that one (CUDA_VISIBLE_DEVICES), so that no timing
is taken while another submission's code shares the GPU; their builds overlap freely. Without a GPU there
is one slot, which runs those steps one submission at a time.

The slots also count how long each GPU was held: a batch's GPU-busy share (busy_share) says whether its
GPUs waited for compilers and judges, which run outside a hold.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


def chosen_devices(devices: list[str], limit: int | None) -> list[str]:
    """The first `limit` of `devices` (all of them when limit is None)."""
    return devices if limit is None else devices[:limit]


class GpuSlots:
    """Hands out `devices` (CUDA_VISIBLE_DEVICES values), each to one holder at a time; a holder may take
    several together (a lab whose tests need two GPUs). Holders are served in the order they asked, so one
    that waits for two GPUs is never passed over, again and again, by holders of one."""

    def __init__(self, devices: list[str], clock=time.monotonic):
        self.devices = list(devices)
        self.clock = clock
        self.started = clock()
        self.held_seconds = 0.0  # of the holds ended, summed over GPUs: two GPUs held for 1 s count 2 s
        self._open: dict[int, tuple[float, int]] = {}  # the holds going on: ticket -> (since, GPUs)
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
            self._open[ticket] = (self.clock(), len(taken))
        try:
            yield {} if taken == [None] else {"CUDA_VISIBLE_DEVICES": ",".join(taken)}
        finally:
            with self._changed:
                since, _ = self._open.pop(ticket)
                self.held_seconds += (self.clock() - since) * len(taken)
                self._free += taken
                self._changed.notify_all()

    def busy_share(self) -> float:
        """The share of the slots' time, since they were made, that some holder held them (0 to 1)."""
        with self._changed:
            now = self.clock()
            held = self.held_seconds + sum((now - since) * gpus for since, gpus in self._open.values())
        elapsed = (now - self.started) * self.count
        return min(1.0, held / elapsed) if elapsed > 0 else 0.0
