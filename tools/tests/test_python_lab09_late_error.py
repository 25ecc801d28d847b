"""Lab 09's Python Task 2, starter and solution, against a pretend GPU (pretend_gpu.py), without a GPU.

The pretend GPU runs a stream's work only when something waits for it, and its faulty
kernel fails where the input holds the tripwire: from then on every runtime call returns
the sticky error and no queued work runs. So without launch blocking the error can only
show at a wait, and with it (`launch_blocking`, CUDA_LAUNCH_BLOCKING=1) at the failing
chunk's own calls. On a GPU, record_lab09.py records the report next to what the course's
own cudaDeviceSynchronize sees, and the C++ track's judges hold the one against the other;
this checks the calls and the report themselves.
"""

from __future__ import annotations

import pytest
from pretend_gpu import FLOAT_BYTES, ILLEGAL_ADDRESS, ROOT, TRIPWIRE, PretendGpu, load
from selfgrading.python_selfgrade import PYTHON_CATALOGUE

LAB = ROOT / "labs" / "09-why-streams-serialize" / "python" / "late_error.py"
SOLUTION = ROOT / "solutions" / "09-why-streams-serialize" / "python" / "late_error.py"
N = 1001  # five chunks do not divide it evenly
SUCCESS = 0


def run_checked(gpu: PretendGpu, module, chunks: int, tripwire: int | None = None):
    """(the report, the output) of the module's run_checked_pipeline over pretend memory, its input
    0.5, 1.5, 2.5, ... (never the tripwire), with the tripwire at element `tripwire` when given."""
    from lab09 import CheckedJob

    host_input, host_output, device_input, device_output = (gpu.allocate(N) for _ in range(4))
    for i in range(N):
        gpu.memory[host_input + FLOAT_BYTES * i] = i + 0.5
    if tripwire is not None:
        gpu.memory[host_input + FLOAT_BYTES * tripwire] = TRIPWIRE
    report = module.run_checked_pipeline(CheckedJob(host_input, host_output, device_input, device_output, N, 1), chunks)
    return report, [gpu.memory[host_output + FLOAT_BYTES * i] for i in range(N)]


def chunk_start(chunks: int, chunk: int) -> int:
    return chunk * (N // chunks) + min(chunk, N % chunks)


@pytest.mark.parametrize("path", [LAB, SOLUTION], ids=["starter", "solution"])
@pytest.mark.parametrize("chunks", [1, 4, 5])
def test_a_clean_run_reports_no_error_and_gives_the_results(path, chunks, monkeypatch):
    gpu = PretendGpu()
    report, output = run_checked(gpu, load(path, None, gpu, monkeypatch), chunks)
    assert (report.chunk, report.error) == (-1, SUCCESS)
    assert output == [i + 1.5 for i in range(N)]
    assert gpu.streams_created == chunks and not gpu.live_streams


@pytest.mark.parametrize("chunk", [0, 2, 3])
def test_without_launch_blocking_the_solution_reports_the_error_at_the_wait_naming_no_chunk(chunk, monkeypatch):
    gpu = PretendGpu()
    report, _ = run_checked(gpu, load(SOLUTION, None, gpu, monkeypatch), 4, chunk_start(4, chunk) + 7)
    assert (report.chunk, report.error) == (-1, ILLEGAL_ADDRESS)
    assert gpu.calls["cudaStreamSynchronize"] == 4, "every stream is waited for, after the error too"
    assert not any(gpu.queues.values()) and not gpu.live_streams


@pytest.mark.parametrize("chunk", [0, 2, 3])
def test_with_launch_blocking_the_solution_names_the_chunk_and_queues_no_more(chunk, monkeypatch):
    gpu = PretendGpu()
    gpu.launch_blocking = True
    report, _ = run_checked(gpu, load(SOLUTION, None, gpu, monkeypatch), 4, chunk_start(4, chunk) + 7)
    assert (report.chunk, report.error) == (chunk, ILLEGAL_ADDRESS)
    assert gpu.calls["cudaGetLastError"] == chunk + 1, "each launch is checked, and none follows the failing one"
    assert gpu.calls["cudaMemcpyAsync"] == 2 * chunk + 1, "no copy is queued after the failing launch"
    assert gpu.calls["cudaStreamSynchronize"] == 4 and not gpu.live_streams


@pytest.mark.parametrize("blocking", [False, True])
def test_the_starter_raises_the_error_at_the_wait(blocking, monkeypatch):
    gpu = PretendGpu()
    gpu.launch_blocking = blocking
    module = load(LAB, None, gpu, monkeypatch)
    from cuda_check import CudaError  # the one the module imported, on the pretend GPU

    with pytest.raises(CudaError, match=f"error {ILLEGAL_ADDRESS}"):
        run_checked(gpu, module, 4, chunk_start(4, 1))
    assert not gpu.live_streams, "its streams are destroyed on the way out"


@pytest.mark.parametrize("blocking", [False, True])
def test_the_catalogues_wait_per_chunk_names_the_chunk_either_way_by_waiting_in_the_loop(blocking, monkeypatch):
    mistake = PYTHON_CATALOGUE["wrong-py-lab09-waits-per-chunk"]
    source = SOLUTION.read_text()
    assert mistake.old in source
    gpu = PretendGpu()
    gpu.launch_blocking = blocking
    report, _ = run_checked(gpu, load(SOLUTION, source.replace(mistake.old, mistake.new), gpu, monkeypatch), 4, 600)
    assert (report.chunk, report.error) == (2, ILLEGAL_ADDRESS)  # element 600 is in chunk 2 of 4
    # A wait in each chunk up to the failing one (with launch blocking, its launch's check finds the
    # error before its wait), then one for each stream.
    assert gpu.calls["cudaStreamSynchronize"] == (2 if blocking else 3) + 4
