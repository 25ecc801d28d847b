"""A pretend GPU for the Python labs' CPU tests: the runtime calls a lab's solution
makes, carried out in plain Python, with every stream's work run as late as CUDA may.

A stream's work runs only when the host waits for it (an event, a stream) or when
other work that waits for it must run; cudaEventQuery always answers "not ready"
for work that has not run. cudaStreamQuery answers "not ready" while the stream has
work queued, and runs one op of it each time: a host that asks again and again, as a
poll does, sees the work end, and one that asks once sees it unfinished. A host that
reuses a buffer before the work that reads it has run therefore sees the wrong data,
as it could on a real GPU that happens to be slow. Memory is a dict of floats by byte address; the kernel is x -> x + 1.

The calls that CUDA runs in the legacy NULL stream or that wait for the whole device
(cudaMemset, cudaFree, cudaFreeHost) first run every stream's work, as they may on a
GPU; every runtime call is counted by name (`calls`), and memory freed is gone, so
work that reads it after its release fails.

Lab 09's faulty kernel (streamlab.lab09.launch_faulty_workload) fails where its input
holds the tripwire: from then on the error is sticky, as an illegal address is on a GPU:
no queued work runs any more and every runtime call returns it. With `launch_blocking`
(CUDA_LAUNCH_BLOCKING=1) a launch runs its stream's work before it returns.
"""

from __future__ import annotations

import collections
import importlib.util
import itertools
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLOAT_BYTES = 4
TRIPWIRE = 2.0  # lab09.hpp's kTripwire
ILLEGAL_ADDRESS = 700  # cudaErrorIllegalAddress
# What reads an error rather than makes a call that can fail: never the sticky error's.
ERROR_READERS = {"cudaGetErrorName", "cudaGetErrorString"}


class PretendGpu:
    """Memory as a dict of floats by byte address; each stream a queue of work run on demand."""

    def __init__(self) -> None:
        self.memory: dict[int, float] = {}
        self.queues: dict[int, list] = {}
        self.latest: dict[int, int] = {}  # event: the number of its latest record (0: never recorded)
        self.reached: dict[int, int] = {}  # event: the highest record number its stream has reached
        self.recorded_in: dict[tuple[int, int], int] = {}  # (event, record number): the stream
        self.ids = itertools.count(1)
        self.streams_created = 0
        self.live_streams: set[int] = set()
        self.live_events: set[int] = set()
        self.event_flags: dict[int, int] = {}  # event: the flags it was created with
        self.calls: collections.Counter[str] = collections.Counter()  # runtime function -> calls
        self.allocated: dict[int, int] = {}  # what runtime calls allocated and nothing freed yet: base -> floats
        self.sticky = 0  # the sticky error once a faulty kernel has run (0: none)
        self.last_error = 0  # what cudaGetLastError returns next
        self.launch_blocking = False  # CUDA_LAUNCH_BLOCKING=1: a launch returns once its stream's work has run

    def allocate(self, floats: int) -> int:
        base = next(self.ids) << 32
        for i in range(floats):
            self.memory[base + FLOAT_BYTES * i] = float("nan")
        return base

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        for i in range(0, nbytes, FLOAT_BYTES):
            self.store(dst + i, self.memory[src + i])

    def store(self, address: int, value: float) -> None:
        assert address in self.memory, f"a write to {address:#x}, which is not allocated (or freed already)"
        self.memory[address] = value

    def release(self, base: int) -> None:
        """Frees what a runtime call allocated at `base`: its floats are gone from memory."""
        for i in range(self.allocated.pop(base)):
            del self.memory[base + FLOAT_BYTES * i]

    def run_every_stream(self) -> None:
        """What a call that waits for the whole device makes happen: every stream's work runs."""
        while any(self.queues.values()):
            for stream in self.queues:
                self.run_all(stream)

    def run_until(self, event: int, number: int) -> None:
        """Runs the stream of the event's record `number` up to it: what waiting for it makes happen."""
        while self.reached[event] < number:
            self.run_next(self.recorded_in[(event, number)])

    def run_all(self, stream: int) -> None:
        while self.queues[stream]:
            self.run_next(stream)

    def run_next(self, stream: int) -> None:
        """The stream's next work, run unless a sticky error came first: then it is dropped."""
        work = self.queues[stream].pop(0)
        if not self.sticky:
            work()

    def runtime(self) -> types.ModuleType:
        gpu, cudart = self, types.ModuleType("cuda.bindings.runtime")
        ok = cudart.cudaError_t = types.SimpleNamespace(
            cudaSuccess=0, cudaErrorNotReady=600, cudaErrorIllegalAddress=ILLEGAL_ADDRESS
        )
        cudart.cudaMemcpyKind = types.SimpleNamespace(cudaMemcpyHostToDevice=1, cudaMemcpyDeviceToHost=2)
        cudart.cudaStreamNonBlocking, cudart.cudaEventBlockingSync, cudart.cudaEventDisableTiming = 1, 1, 2
        cudart.cudaGetErrorName = lambda error: (0, f"error {error}".encode())
        cudart.cudaGetErrorString = lambda error: (0, b"pretend")

        def new_stream():  # cudaStreamCreate's blocking stream (lab 09), which the NULL-stream calls wait for
            stream = next(gpu.ids)
            gpu.queues[stream] = []
            gpu.streams_created += 1
            gpu.live_streams.add(stream)
            return ok.cudaSuccess, stream

        def stream_create(flags):
            assert flags == cudart.cudaStreamNonBlocking, "labs 06 and 07 make non-blocking streams"
            return new_stream()

        def event_create(flags):
            event = next(gpu.ids)
            gpu.latest[event] = gpu.reached[event] = 0  # never recorded: already reached, as in CUDA
            gpu.live_events.add(event)
            gpu.event_flags[event] = flags
            return ok.cudaSuccess, event

        def record(event, stream):
            number = gpu.latest[event] + 1  # recording again: later waits are for this record
            gpu.latest[event] = number
            gpu.recorded_in[(event, number)] = stream
            gpu.queues[stream].append(lambda: gpu.reached.__setitem__(event, max(gpu.reached[event], number)))
            return (ok.cudaSuccess,)

        def synchronize(event):
            gpu.run_until(event, gpu.latest[event])
            return (ok.cudaSuccess,)

        def query(event):
            return (ok.cudaSuccess if gpu.reached[event] >= gpu.latest[event] else ok.cudaErrorNotReady,)

        def stream_wait(stream, event, flags):
            number = gpu.latest[event]  # the record the event has now, not a later one
            gpu.queues[stream].append(lambda: gpu.run_until(event, number))
            return (ok.cudaSuccess,)

        def stream_synchronize(stream):
            gpu.run_all(stream)
            return (ok.cudaSuccess,)

        def stream_query(stream):  # the GPU moves on by one op each time it is asked
            if not gpu.queues[stream]:
                return (ok.cudaSuccess,)
            gpu.run_next(stream)
            return (ok.cudaErrorNotReady,)

        def launch_host_func(stream, fn, user_data):
            gpu.queues[stream].append(lambda: fn(user_data))  # the pretend host function: a Python callable
            return (ok.cudaSuccess,)

        def memcpy_async(dst, src, nbytes, kind, stream):
            gpu.queues[stream].append(lambda: gpu.copy(dst, src, nbytes))
            return (ok.cudaSuccess,)

        def destroy(live):
            return lambda handle: (live.discard(handle), (ok.cudaSuccess,))[1]

        def malloc(nbytes, stream=None):  # cudaMalloc, cudaMallocHost, and cudaMallocAsync with a stream
            base = gpu.allocate(nbytes // FLOAT_BYTES)
            gpu.allocated[base] = nbytes // FLOAT_BYTES
            return ok.cudaSuccess, base

        def free_now(base):  # cudaFree, cudaFreeHost: they wait for the whole device first
            gpu.run_every_stream()
            gpu.release(base)
            return (ok.cudaSuccess,)

        def free_async(base, stream):
            gpu.queues[stream].append(lambda: gpu.release(base))
            return (ok.cudaSuccess,)

        def fill(base, value, nbytes):
            for i in range(0, nbytes, FLOAT_BYTES):
                gpu.store(base + i, float(value))

        def memset(base, value, nbytes):  # in the legacy NULL stream: after every blocking stream's work
            gpu.run_every_stream()
            fill(base, value, nbytes)
            return (ok.cudaSuccess,)

        def memset_async(base, value, nbytes, stream):
            gpu.queues[stream].append(lambda: fill(base, value, nbytes))
            return (ok.cudaSuccess,)

        cudart.cudaStreamCreateWithFlags, cudart.cudaEventCreateWithFlags = stream_create, event_create
        cudart.cudaEventRecord, cudart.cudaEventSynchronize, cudart.cudaEventQuery = record, synchronize, query
        cudart.cudaMemcpyAsync = memcpy_async
        cudart.cudaStreamWaitEvent, cudart.cudaStreamSynchronize = stream_wait, stream_synchronize
        cudart.cudaStreamQuery = stream_query
        cudart.cudaLaunchHostFunc = launch_host_func
        cudart.cudaStreamDestroy, cudart.cudaEventDestroy = destroy(gpu.live_streams), destroy(gpu.live_events)
        cudart.cudaStreamCreate = new_stream
        cudart.cudaMalloc, cudart.cudaMallocHost, cudart.cudaMallocAsync = malloc, malloc, malloc
        cudart.cudaFree, cudart.cudaFreeHost, cudart.cudaFreeAsync = free_now, free_now, free_async
        cudart.cudaMemset, cudart.cudaMemsetAsync = memset, memset_async

        def last_error(reset):  # cudaGetLastError resets what it returns; cudaPeekAtLastError leaves it
            error = gpu.last_error
            if reset:
                gpu.last_error = gpu.sticky
            return (error,)

        cudart.cudaGetLastError, cudart.cudaPeekAtLastError = lambda: last_error(True), lambda: last_error(False)
        cudart.cudaDeviceSynchronize = lambda: (gpu.run_every_stream(), (ok.cudaSuccess,))[1]
        for name, call in list(vars(cudart).items()):
            if name.startswith("cuda") and callable(call):
                setattr(cudart, name, self._counted(name, call))
        return cudart

    def _counted(self, name: str, call):
        def counted(*args):
            self.calls[name] += 1
            result = call(*args)
            if self.sticky and name not in ERROR_READERS:  # it came first, or during this call
                self.last_error = self.sticky
                return (self.sticky, *[None] * (len(result) - 1))
            return result

        return counted

    def course(self) -> types.ModuleType:
        """The parts of the module streamlab a student file may use: chunking and the kernel (x -> x + 1 here)."""
        gpu, streamlab = self, types.ModuleType("streamlab")

        def chunk_range(n, chunks, index):
            base, extra = divmod(n, chunks)
            return index * base + min(index, extra), base + (1 if index < extra else 0)

        def launch_workload(input, output, count, iterations, stream):
            def kernel():
                for i in range(count):
                    gpu.store(output + FLOAT_BYTES * i, gpu.memory[input + FLOAT_BYTES * i] + 1)

            gpu.queues[stream].append(kernel)

        def launch_faulty_workload(input, output, count, iterations, stream):
            def kernel():
                for i in range(count):
                    value = gpu.memory[input + FLOAT_BYTES * i]
                    if value == TRIPWIRE:
                        gpu.sticky = ILLEGAL_ADDRESS
                        return
                    gpu.store(output + FLOAT_BYTES * i, value + 1)

            gpu.queues[stream].append(kernel)
            if gpu.launch_blocking:
                gpu.run_all(stream)

        streamlab.chunk_range, streamlab.launch_workload = chunk_range, launch_workload
        streamlab.lab09 = types.SimpleNamespace(launch_faulty_workload=launch_faulty_workload)
        return streamlab


def load(path: Path, source: str | None, gpu: PretendGpu, monkeypatch) -> types.ModuleType:
    """The student file at `path` (or `source` in its place), importing the pretend GPU's modules
    and its lab's interface module (from the lab's python/ folder)."""
    cuda, bindings = types.ModuleType("cuda"), types.ModuleType("cuda.bindings")
    bindings.runtime = gpu.runtime()
    cuda.bindings = bindings
    for name, module in [("cuda", cuda), ("cuda.bindings", bindings), ("cuda.bindings.runtime", bindings.runtime)]:
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setitem(sys.modules, "streamlab", gpu.course())
    lab_folder = ROOT / "labs" / path.parent.parent.name / "python"
    for name in ("cuda_check", *(interface.stem for interface in lab_folder.glob("lab[0-9][0-9].py"))):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "python"))
    monkeypatch.syspath_prepend(str(lab_folder))
    spec = importlib.util.spec_from_file_location(f"{path.stem}_under_test", path)
    module = importlib.util.module_from_spec(spec)
    if source is None:
        spec.loader.exec_module(module)
    else:
        exec(compile(source, str(path), "exec"), module.__dict__)
    return module
