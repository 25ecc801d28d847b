"""Lab 06's Python solution against a pretend GPU, without a GPU.

The pretend runtime runs a stream's work as late as CUDA may: only when the host
waits for an event recorded after it, and it answers every cudaEventQuery with
"not ready". A host that writes a staging buffer or reads a results buffer before
the copy that uses it has run therefore sees the wrong data, as it could on a real
GPU that happens to be slow. The GPU tests (test_lab06.py) grade the real timeline;
this checks the Python solution's bookkeeping and waits before any GPU sees it.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import types
from pathlib import Path

import pytest
from python_selfgrade import PYTHON_CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "labs" / "06-many-chunks" / "python"
SOLUTION = ROOT / "solutions" / "06-many-chunks" / "python" / "many_chunks.py"
FLOAT_BYTES = 4


class PretendGpu:
    """Memory as a dict of floats by byte address; each stream a queue of work run on demand."""

    def __init__(self) -> None:
        self.memory: dict[int, float] = {}
        self.queues: dict[int, list] = {}
        # event: (stream of its latest record, that record's number, whether the stream has reached it)
        self.events: dict[int, tuple[int, int, bool]] = {}
        self.ids = itertools.count(1)
        self.streams_created = 0
        self.live_streams: set[int] = set()
        self.live_events: set[int] = set()

    def allocate(self, floats: int) -> int:
        base = next(self.ids) << 32
        for i in range(floats):
            self.memory[base + FLOAT_BYTES * i] = float("nan")
        return base

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        for i in range(0, nbytes, FLOAT_BYTES):
            self.memory[dst + i] = self.memory[src + i]

    def run_until(self, event: int) -> None:
        """Runs the event's stream up to the event: what waiting for it makes happen."""
        stream = self.events[event][0]
        while not self.events[event][2]:
            self.queues[stream].pop(0)()

    def runtime(self) -> types.ModuleType:
        gpu, cudart = self, types.ModuleType("cuda.bindings.runtime")
        ok = cudart.cudaError_t = types.SimpleNamespace(cudaSuccess=0, cudaErrorNotReady=600)
        cudart.cudaMemcpyKind = types.SimpleNamespace(cudaMemcpyHostToDevice=1, cudaMemcpyDeviceToHost=2)
        cudart.cudaStreamNonBlocking, cudart.cudaEventDisableTiming = 1, 2
        cudart.cudaGetErrorName = lambda error: (0, f"error {error}".encode())
        cudart.cudaGetErrorString = lambda error: (0, b"pretend")

        def stream_create(flags):
            assert flags == cudart.cudaStreamNonBlocking, "lab 06's streams are non-blocking"
            stream = next(gpu.ids)
            gpu.queues[stream] = []
            gpu.streams_created += 1
            gpu.live_streams.add(stream)
            return ok.cudaSuccess, stream

        def event_create(flags):
            event = next(gpu.ids)
            gpu.events[event] = (0, 0, True)  # never recorded: already reached, as in CUDA
            gpu.live_events.add(event)
            return ok.cudaSuccess, event

        def record(event, stream):
            number = gpu.events[event][1] + 1  # recording again: waits are for the latest record only
            gpu.events[event] = (stream, number, False)

            def reached():
                if gpu.events[event][1] == number:
                    gpu.events[event] = (stream, number, True)

            gpu.queues[stream].append(reached)
            return (ok.cudaSuccess,)

        def synchronize(event):
            gpu.run_until(event)
            return (ok.cudaSuccess,)

        def query(event):
            return (ok.cudaSuccess if gpu.events[event][2] else ok.cudaErrorNotReady,)

        def memcpy_async(dst, src, nbytes, kind, stream):
            gpu.queues[stream].append(lambda: gpu.copy(dst, src, nbytes))
            return (ok.cudaSuccess,)

        def destroy(live):
            return lambda handle: (live.discard(handle), (ok.cudaSuccess,))[1]

        cudart.cudaStreamCreateWithFlags, cudart.cudaEventCreateWithFlags = stream_create, event_create
        cudart.cudaEventRecord, cudart.cudaEventSynchronize, cudart.cudaEventQuery = record, synchronize, query
        cudart.cudaMemcpyAsync = memcpy_async
        cudart.cudaStreamDestroy, cudart.cudaEventDestroy = destroy(gpu.live_streams), destroy(gpu.live_events)
        return cudart

    def course(self) -> types.ModuleType:
        """The parts of the module streamlab a student file may use: chunking and the kernel (x -> x + 1 here)."""
        gpu, streamlab = self, types.ModuleType("streamlab")

        def chunk_range(n, chunks, index):
            base, extra = divmod(n, chunks)
            return index * base + min(index, extra), base + (1 if index < extra else 0)

        def launch_workload(input, output, count, iterations, stream):
            def kernel():
                for i in range(count):
                    gpu.memory[output + FLOAT_BYTES * i] = gpu.memory[input + FLOAT_BYTES * i] + 1

            gpu.queues[stream].append(kernel)

        streamlab.chunk_range, streamlab.launch_workload = chunk_range, launch_workload
        return streamlab


def load(path: Path, source: str | None, gpu: PretendGpu, monkeypatch) -> types.ModuleType:
    """The student file at `path` (or `source` in its place), importing the pretend GPU's modules."""
    cuda, bindings = types.ModuleType("cuda"), types.ModuleType("cuda.bindings")
    bindings.runtime = gpu.runtime()
    cuda.bindings = bindings
    for name, module in [("cuda", cuda), ("cuda.bindings", bindings), ("cuda.bindings.runtime", bindings.runtime)]:
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setitem(sys.modules, "streamlab", gpu.course())
    for name in ("cuda_check", "lab06"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "python"))
    monkeypatch.syspath_prepend(str(LAB))
    spec = importlib.util.spec_from_file_location("many_chunks_under_test", path)
    module = importlib.util.module_from_spec(spec)
    if source is None:
        spec.loader.exec_module(module)
    else:
        exec(compile(source, str(path), "exec"), module.__dict__)
    return module


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
