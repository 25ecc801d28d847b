"""Lab 07's Python solution, Tasks 1 and 2, against a pretend GPU (pretend_gpu.py), without a GPU.

The pretend GPU runs a stream's work only when something waits for it, so a stage
that does not wait for its chunk's stage before it reads memory nobody has written
yet. On a GPU, record_lab07.py records the real timeline, the graph included, and the
C++ track's judges grade it; this checks the Python solution's events and host functions
before any GPU sees them.
"""

from __future__ import annotations

import pytest
from pretend_gpu import FLOAT_BYTES, ROOT, PretendGpu, load
from selfgrading.python_selfgrade import PYTHON_CATALOGUE

LAB = ROOT / "labs" / "07-dependencies-and-graphs" / "python"
SOLUTION = ROOT / "solutions" / "07-dependencies-and-graphs" / "python" / "dependencies.py"
N, CHUNKS = 1000, 8


def pipeline(gpu: PretendGpu):
    """The lab's PipelineJob over pretend memory, its input filled with 0, 1, 2, ..."""
    from lab07 import PipelineJob

    host_input, host_output, device_input, device_output = (gpu.allocate(N) for _ in range(4))
    for i in range(N):
        gpu.memory[host_input + FLOAT_BYTES * i] = float(i)
    return PipelineJob(host_input, host_output, device_input, device_output, N, 1)


def outputs(gpu: PretendGpu, job) -> list[float]:
    return [gpu.memory[job.output + FLOAT_BYTES * i] for i in range(N)]


class PretendConsumer:
    """The course's consumer, on the pretend GPU: its host function is a Python callable here."""

    def __init__(self, gpu: PretendGpu, job) -> None:
        self.gpu, self.job, self.delivered, self.taken_directly = gpu, job, [], []
        self.host_function = self.deliver

    def user_data(self, chunk: int) -> int:
        return chunk

    def deliver(self, chunk: int) -> None:
        self.delivered.append((chunk, outputs(self.gpu, self.job)))

    def consume(self, chunk: int) -> None:
        self.taken_directly.append(chunk)


def chunk_of(c: int) -> range:
    base, extra = divmod(N, CHUNKS)
    start = c * base + min(c, extra)
    return range(start, start + base + (1 if c < extra else 0))


def test_the_stage_streams_wait_for_each_chunk_however_late_the_gpu_runs(monkeypatch):
    gpu = PretendGpu()
    module = load(SOLUTION, None, gpu, monkeypatch)
    job = pipeline(gpu)
    module.run_stage_streams(job, CHUNKS)
    assert outputs(gpu, job) == [float(i) + 1 for i in range(N)]
    assert gpu.streams_created == 3
    assert not gpu.live_streams and not gpu.live_events, "every stream and event is destroyed"


def test_a_kernel_that_does_not_wait_for_its_copy_reads_nothing(monkeypatch):
    source = SOLUTION.read_text()
    missing_wait = "            check(cudart.cudaStreamWaitEvent(streams.compute, copied_in, 0))\n"
    assert missing_wait in source
    gpu = PretendGpu()
    module = load(SOLUTION, source.replace(missing_wait, ""), gpu, monkeypatch)
    job = pipeline(gpu)
    module.run_stage_streams(job, CHUNKS)
    assert outputs(gpu, job) != [float(i) + 1 for i in range(N)]


def test_each_chunk_is_delivered_by_a_host_function_once_its_copy_has_run(monkeypatch):
    gpu = PretendGpu()
    module = load(SOLUTION, None, gpu, monkeypatch)
    from lab07 import Consumer

    job = pipeline(gpu)
    course = PretendConsumer(gpu, job)
    module.run_with_host_consumer(job, CHUNKS, Consumer(course.host_function, course.user_data, course.consume))
    assert [chunk for chunk, _ in course.delivered] == list(range(CHUNKS))
    assert not course.taken_directly
    for chunk, seen in course.delivered:
        assert all(seen[i] == float(i) + 1 for i in chunk_of(chunk)), f"chunk {chunk} was delivered before its copy"


def test_the_catalogues_consumer_on_the_host_takes_each_chunk_itself(monkeypatch):
    mistake = PYTHON_CATALOGUE["wrong-py-lab07-consumed-on-the-host"]
    source = SOLUTION.read_text()
    assert mistake.old in source
    gpu = PretendGpu()
    module = load(SOLUTION, source.replace(mistake.old, mistake.new), gpu, monkeypatch)
    from lab07 import Consumer

    job = pipeline(gpu)
    course = PretendConsumer(gpu, job)
    module.run_with_host_consumer(job, CHUNKS, Consumer(course.host_function, course.user_data, course.consume))
    assert course.taken_directly == list(range(CHUNKS)) and not course.delivered


@pytest.mark.parametrize("task", ["queue_stages", "run_stage_streams", "run_with_host_consumer", "run_graph"])
def test_the_starter_runs_nothing(task, monkeypatch):
    gpu = PretendGpu()
    module = load(LAB / "dependencies.py", None, gpu, monkeypatch)
    job = pipeline(gpu)
    arguments = {
        "queue_stages": (job, CHUNKS, None),
        "run_stage_streams": (job, CHUNKS),
        "run_with_host_consumer": (job, CHUNKS, None),
        "run_graph": (job, CHUNKS, 2),
    }[task]
    with pytest.raises(NotImplementedError):
        getattr(module, task)(*arguments)
