"""Lab 06's Python solution against a pretend GPU (pretend_gpu.py), without a GPU.

The pretend GPU runs a stream's work as late as CUDA may, so a host that writes a
staging buffer or reads a results buffer before the copy that uses it has run sees
the wrong data. On a GPU, the C++ track's judges grade the real timeline, as the
Python track's recording (record_lab06.py) kept it; this checks the Python
solution's bookkeeping and waits before any GPU sees it.
"""

from __future__ import annotations

import pytest
from pretend_gpu import FLOAT_BYTES, ROOT, PretendGpu, load
from selfgrading.python_selfgrade import PYTHON_CATALOGUE

LAB = ROOT / "labs" / "06-many-chunks" / "python"
SOLUTION = ROOT / "solutions" / "06-many-chunks" / "python" / "many_chunks.py"


class Host:
    """The host's side: the whole input and output, and the order chunks were consumed in."""

    def __init__(self, gpu: PretendGpu, n: int) -> None:
        self.gpu, self.input, self.output, self.consumed = gpu, [float(i) for i in range(n)], [None] * n, []

    def produce(self, offset, count, staging):
        for i in range(count):
            self.gpu.memory[staging + FLOAT_BYTES * i] = self.input[offset + i]

    def consume(self, offset, count, results):
        self.consumed.append(offset)
        for i in range(count):
            self.output[offset + i] = self.gpu.memory[results + FLOAT_BYTES * i]


def stream_through(module, gpu: PretendGpu, n: int, shape: tuple[int, int, int, int]) -> Host:
    """Runs the module's run_stream over n elements with rings of `shape` (chunks, S, R, K)."""
    from lab06 import DeviceSet, StreamingJob

    chunks, staging, results, sets = shape
    capacity = -(-n // chunks)
    host = Host(gpu, n)
    job = StreamingJob(
        n=n,
        chunks=chunks,
        iterations=1,
        capacity=capacity,
        staging=[gpu.allocate(capacity) for _ in range(staging)],
        results=[gpu.allocate(capacity) for _ in range(results)],
        device=[DeviceSet(gpu.allocate(capacity), gpu.allocate(capacity)) for _ in range(sets)],
        produce=host.produce,
        consume=host.consume,
    )
    module.run_stream(job)
    return host


SHAPES = [(16, 2, 4, 2), (7, 2, 1, 2), (16, 3, 3, 3), (5, 1, 1, 1)]


@pytest.mark.parametrize("shape", SHAPES)
def test_the_solution_streams_every_chunk_right_however_late_the_gpu_runs(shape, monkeypatch):
    gpu = PretendGpu()
    host = stream_through(load(SOLUTION, None, gpu, monkeypatch), gpu, 1000, shape)
    assert host.output == [x + 1 for x in host.input]
    assert host.consumed == sorted(host.consumed) and len(host.consumed) == shape[0]
    assert gpu.streams_created == shape[3]
    assert not gpu.live_streams and not gpu.live_events, "every stream and event is destroyed"


def test_the_catalogues_early_reuse_corrupts_the_data(monkeypatch):
    mistake = PYTHON_CATALOGUE["wrong-py-lab06-staging-reused-early"]
    source = SOLUTION.read_text()
    assert mistake.old in source
    gpu = PretendGpu()
    host = stream_through(
        load(SOLUTION, source.replace(mistake.old, mistake.new), gpu, monkeypatch), gpu, 1000, (16, 2, 4, 2)
    )
    assert host.output != [x + 1 for x in host.input]


def test_the_starter_runs_nothing(monkeypatch):
    gpu = PretendGpu()
    with pytest.raises(NotImplementedError):
        stream_through(load(LAB / "many_chunks.py", None, gpu, monkeypatch), gpu, 100, (4, 2, 2, 2))


def test_the_sweep_times_each_count_and_names_the_fastest(monkeypatch):
    gpu = PretendGpu()
    module = load(SOLUTION, None, gpu, monkeypatch)
    from lab06 import DeviceSet, StreamingJob

    host = Host(gpu, 64)
    job = StreamingJob(
        64,
        2,
        1,
        32,
        [gpu.allocate(32)] * 1,
        [gpu.allocate(32)],
        [DeviceSet(gpu.allocate(32), gpu.allocate(32))],
        host.produce,
        host.consume,
    )
    sweep = module.sweep_chunks(job, [2, 4, 8])
    assert [point.chunks for point in sweep.points] == [2, 4, 8]
    assert all(point.ms > 0 for point in sweep.points)
    assert sweep.best_chunks == min(sweep.points, key=lambda point: point.ms).chunks
