"""A batch's progress: students done / total, who is being graded now, an estimate of the time left, and
how busy the GPUs have been (the share of their time some submission's recording held them).

On a terminal, one line that updates in place (each finished student's result
is printed above it); otherwise, plain lines, one each time a student starts.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO


def duration(seconds: float) -> str:
    """A rough, readable length of time: 45 s, 3 min, 1 h 20 min."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


class Progress:
    """Tracks a batch of `total` students graded `parallel` at a time; prints to `stream`."""

    def __init__(
        self,
        total: int,
        parallel: int,
        stream: TextIO | None = None,
        clock=time.monotonic,
        gpu_busy: Callable[[], float] | None = None,
    ):
        self.total, self.parallel = total, max(1, parallel)
        self.gpu_busy = gpu_busy  # the GPUs' busy share so far (GpuSlots.busy_share), where there are GPUs
        self.stream = stream or sys.stdout
        self.clock = clock
        self.started = clock()
        self.done = 0
        self.graded_seconds: list[float] = []  # wall time of each student actually graded (not skipped)
        self.current: list[str] = []
        self.lock = threading.Lock()
        self.live = self.stream.isatty()

    def estimate(self) -> str:
        """The time left, from the students graded so far ("" before the first)."""
        if not self.graded_seconds:
            return ""
        left = self.total - self.done
        per_student = sum(self.graded_seconds) / len(self.graded_seconds)
        return duration(per_student * left / min(self.parallel, max(1, left)))

    def busy(self) -> str:
        """'GPU busy 87%' once a student is done ('' before, or without GPUs)."""
        return f"GPU busy {self.gpu_busy():.0%}" if self.gpu_busy and self.done else ""

    def status(self) -> str:
        now = ", ".join(self.current) or "-"
        after = [f"about {self.estimate()} left"] if self.estimate() else []
        after += [self.busy()] if self.busy() else []
        return f"[{self.done}/{self.total} done] grading: {now}" + "".join(f"; {part}" for part in after)

    def _show(self) -> None:
        width = shutil.get_terminal_size((100, 20)).columns - 1
        self.stream.write("\r\033[K" + self.status()[:width])
        self.stream.flush()

    def start(self, student: str) -> None:
        with self.lock:
            self.current.append(student)
            if self.live:
                self._show()
            else:
                left = f", about {self.estimate()} left" if self.graded_seconds else ""
                left += f", {self.busy()}" if self.busy() else ""
                print(f"course: grading {student} ({self.done}/{self.total} done{left})", file=self.stream, flush=True)

    def finish(self, student: str, message: str, graded_seconds: float | None) -> None:
        """A student is done: their result line, then (on a terminal) the updated status line."""
        with self.lock:
            if student in self.current:
                self.current.remove(student)
            self.done += 1
            if graded_seconds is not None:
                self.graded_seconds.append(graded_seconds)
            if self.live:
                self.stream.write("\r\033[K")
            print(f"[{self.done}/{self.total}] {student}: {message}", file=self.stream, flush=True)
            if self.live and self.done < self.total:
                self._show()

    def close(self) -> None:
        if self.live:
            self.stream.write("\r\033[K")
            self.stream.flush()
