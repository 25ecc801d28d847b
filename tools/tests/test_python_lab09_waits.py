"""Lab 09's Task 3 in Python (waiting_host.py), starter and solution, against a pretend GPU
(pretend_gpu.py), without a GPU.

The pretend GPU runs a stream's work only when something waits for it, and cudaStreamQuery
runs one op of it each time it answers "not ready": a wait that returns before the work is
done leaves work queued, and a poll sees the work end only by asking again and again. Every
runtime call is counted, so each wait's way of waiting shows. On a GPU, record_lab09.py
records what a real wait costs, in CPU time and wake-up delay, and the C++ track's judges
grade it; this checks the calls themselves.
"""

from __future__ import annotations

import pytest
from pretend_gpu import ROOT, PretendGpu, load
from selfgrading.python_selfgrade import PYTHON_CATALOGUE

STARTER = ROOT / "labs" / "09-why-streams-serialize" / "python" / "waiting_host.py"
SOLUTION = ROOT / "solutions" / "09-why-streams-serialize" / "python" / "waiting_host.py"
OPS = 5  # the ops queued in the stream a wait is handed
ILLEGAL_ADDRESS = 700  # cudaErrorIllegalAddress: an error of the stream's work, not "not yet"


def loaded(path, monkeypatch, source: str | None = None):
    """(pretend GPU, the student file at `path` (or `source` in its place) on it, a stream with OPS ops
    queued, the numbers of the ops that have run so far)."""
    gpu = PretendGpu()
    module = load(path, source, gpu, monkeypatch)
    _, stream = module.cudart.cudaStreamCreate()
    ran: list[int] = []
    for op in range(OPS):
        gpu.queues[stream].append(lambda op=op: ran.append(op))
    gpu.calls.clear()  # only the wait's own calls from here on
    return gpu, module, stream, ran


def poll(module, stream, ran: list[int]) -> list[int]:
    """module.wait_polling(stream, host_work): for each slice of host work, how many ops had run when it began."""
    slices: list[int] = []

    def host_work() -> None:
        assert len(slices) < 10 * OPS, "wait_polling goes on calling host_work after the work ended"
        slices.append(len(ran))

    module.wait_polling(stream, host_work)
    return slices


def test_the_solutions_blocking_wait_sleeps_on_an_event_made_to_block_and_destroys_it(monkeypatch):
    gpu, module, stream, ran = loaded(SOLUTION, monkeypatch)
    module.wait_blocking(stream)
    assert ran == list(range(OPS)), "it returned with work left in the stream"
    assert dict(gpu.calls) == {
        "cudaEventCreateWithFlags": 1,
        "cudaEventRecord": 1,
        "cudaEventSynchronize": 1,
        "cudaEventDestroy": 1,
    }
    (flags,) = gpu.event_flags.values()
    assert flags & module.cudart.cudaEventBlockingSync, "an event without cudaEventBlockingSync spins"
    assert not gpu.live_events, "every event it creates is destroyed"


def test_the_solutions_poll_does_a_slice_per_not_ready_and_none_once_the_work_is_done(monkeypatch):
    gpu, module, stream, ran = loaded(SOLUTION, monkeypatch)
    slices = poll(module, stream, ran)
    assert ran == list(range(OPS)), "it returned with work left in the stream"
    # The stream answered "not ready" OPS times; the slice after each answer began with work still queued.
    assert slices == list(range(1, OPS + 1))
    assert dict(gpu.calls) == {"cudaStreamQuery": OPS + 1}, "it asks the stream, and never waits"


def test_the_solutions_poll_raises_an_error_of_the_stream_and_does_not_poll_for_ever(monkeypatch):
    gpu, module, stream, ran = loaded(SOLUTION, monkeypatch)
    monkeypatch.setattr(module.cudart, "cudaStreamQuery", lambda stream: (ILLEGAL_ADDRESS,))
    with pytest.raises(RuntimeError, match=f"error {ILLEGAL_ADDRESS}"):  # cuda_check.CudaError
        poll(module, stream, ran)


def test_the_starters_waits_are_right_but_wait_in_cuda_stream_synchronize_and_do_no_host_work(monkeypatch):
    gpu, module, stream, ran = loaded(STARTER, monkeypatch)
    module.wait_blocking(stream)
    assert ran == list(range(OPS)) and dict(gpu.calls) == {"cudaStreamSynchronize": 1}

    gpu, module, stream, ran = loaded(STARTER, monkeypatch)
    assert poll(module, stream, ran) == [], "the starter's poll does no host work"
    assert ran == list(range(OPS)) and dict(gpu.calls) == {"cudaStreamSynchronize": 1}


def test_the_catalogues_event_without_blocking_sync_waits_right_on_an_event_that_spins(monkeypatch):
    mistake = PYTHON_CATALOGUE["wrong-py-lab09-event-without-blocking-sync"]
    source = SOLUTION.read_text()
    assert mistake.old in source
    gpu, module, stream, ran = loaded(SOLUTION, monkeypatch, source.replace(mistake.old, mistake.new))
    module.wait_blocking(stream)
    assert ran == list(range(OPS)) and gpu.calls["cudaEventSynchronize"] == 1 and not gpu.live_events
    (flags,) = gpu.event_flags.values()
    assert not flags & module.cudart.cudaEventBlockingSync
