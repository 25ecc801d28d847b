"""Lab 09's Python starter and solution against a pretend GPU (pretend_gpu.py), without a GPU.

The pretend GPU runs a stream's work only when something waits for it, and a call that
waits for the whole device (cudaFree, cudaFreeHost, a cudaMemset in the NULL stream)
runs every stream's work first; memory freed is gone. So the starter, whose serializing
calls wait, gives the right results, and so must the solution, whose stream-ordered
calls wait for nothing: a release queued before the copy that reads the memory, or a
staging slice at the wrong offset, shows as wrong data. On a GPU, record_lab09.py records
the real timeline and the counts the tracer saw, and the C++ track's judges grade them; this
checks the calls themselves.
"""

from __future__ import annotations

import pytest
from pretend_gpu import FLOAT_BYTES, ROOT, PretendGpu, load
from selfgrading.python_selfgrade import PYTHON_CATALOGUE

LAB = ROOT / "labs" / "09-why-streams-serialize" / "python"
SOLUTION = ROOT / "solutions" / "09-why-streams-serialize" / "python" / "serialize.py"
N = 1001  # five chunks do not divide it evenly
# The calls that make streams wait for each other, which the graded tests count or find in the NULL stream.
SERIALIZING = ("cudaMalloc", "cudaFree", "cudaMemset", "cudaMallocHost")


def run_pipeline(gpu: PretendGpu, module, chunks: int) -> list[float]:
    """The module's run_pipeline over pretend memory, its input 0, 1, 2, ...; the output it left."""
    from lab09 import PipelineJob

    host_input, host_output = gpu.allocate(N), gpu.allocate(N)
    for i in range(N):
        gpu.memory[host_input + FLOAT_BYTES * i] = float(i)
    module.run_pipeline(PipelineJob(host_input, host_output, N, 1), chunks)
    return [gpu.memory[host_output + FLOAT_BYTES * i] for i in range(N)]


def loaded(path, monkeypatch, source: str | None = None):
    """(pretend GPU, the student file at `path` on it); its host copies go through the pretend memory."""
    gpu = PretendGpu()
    module = load(path, source, gpu, monkeypatch)
    monkeypatch.setattr(module, "copy_on_host", gpu.copy)  # lab09's own, with ctypes, reads real addresses
    return gpu, module


def serializing_calls(gpu: PretendGpu) -> dict[str, int]:
    return {name: gpu.calls[name] for name in SERIALIZING}


@pytest.mark.parametrize("chunks", [1, 4, 5])
def test_the_solution_is_right_however_late_the_streams_run_and_calls_nothing_that_serializes(chunks, monkeypatch):
    gpu, module = loaded(SOLUTION, monkeypatch)
    assert run_pipeline(gpu, module, chunks) == [float(i) + 1 for i in range(N)]
    assert serializing_calls(gpu) == {"cudaMalloc": 0, "cudaFree": 0, "cudaMemset": 0, "cudaMallocHost": 1}
    assert gpu.calls["cudaMallocAsync"] == gpu.calls["cudaFreeAsync"] == 2 * chunks
    assert gpu.streams_created == chunks
    assert not gpu.allocated, "everything run_pipeline allocated is freed"
    assert not gpu.live_streams, "every stream is destroyed"


@pytest.mark.parametrize("chunks", [1, 4, 5])
def test_the_starter_is_right_but_makes_the_calls_that_serialize(chunks, monkeypatch):
    gpu, module = loaded(LAB / "serialize.py", monkeypatch)
    assert run_pipeline(gpu, module, chunks) == [float(i) + 1 for i in range(N)]
    assert serializing_calls(gpu) == {
        "cudaMalloc": 2 * chunks,
        "cudaFree": 2 * chunks,
        "cudaMemset": chunks,
        "cudaMallocHost": chunks,
    }
    assert not gpu.allocated and not gpu.live_streams


def test_device_memory_released_in_the_loop_before_its_copy_is_caught(monkeypatch):
    # The release queued in the chunk's stream before the D2H copy that reads the results.
    source = SOLUTION.read_text()
    copy_out = "            check(cudart.cudaMemcpyAsync(staged[i], device_out[i], nbytes, D2H, stream))\n"
    assert copy_out in source
    early = "            check(cudart.cudaFreeAsync(device_out[i], stream))\n"
    gpu, module = loaded(SOLUTION, monkeypatch, source.replace(copy_out, early + copy_out))
    with pytest.raises(KeyError):  # the copy reads memory that is gone
        run_pipeline(gpu, module, 4)


def test_the_catalogues_null_stream_memset_is_right_but_in_the_null_stream(monkeypatch):
    mistake = PYTHON_CATALOGUE["wrong-py-lab09-memset-in-the-null-stream"]
    source = SOLUTION.read_text()
    assert mistake.old in source
    gpu, module = loaded(SOLUTION, monkeypatch, source.replace(mistake.old, mistake.new))
    assert run_pipeline(gpu, module, 4) == [float(i) + 1 for i in range(N)]
    assert gpu.calls["cudaMemset"] == 4 and gpu.calls["cudaMemsetAsync"] == 0
