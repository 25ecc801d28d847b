"""The Python track on the simulated GPU: in the simulated build, importing streamlab puts the simulated GPU's
runtime calls in the place of cuda-bindings' (python/simulated_cuda_runtime.py). A program written for
cuda-bindings gets cuda-bindings' own types back, its errors as cuda-bindings gives them, and Python's clocks
read the simulated host clock, as a C++ program's do in that build.

Each check runs a small program with the simulated build's module, as the lab's recording program runs; it
needs the simulated build (build-sim), and is skipped, with the reason, where that is not configured.
"""

import ast
import re
import subprocess
import textwrap

import pytest
from coursecli import environment, pycheck
from coursecli.python_module import module_python
from coursecli.shell import ROOT

SIM_BUILD = ROOT / "build-sim"
needs_sim_module = pytest.mark.skipif(
    module_python(SIM_BUILD) is None,
    reason="no simulated build with the Python module here (cmake --preset sim, then build streamlab_python)",
)


def runtime_calls(path) -> set[str]:
    """The runtime calls `cudart.cudaXxx(...)` in the code of `path` (a handle type's constructor,
    `cudart.cudaStream_t(...)`, is none)."""
    return {
        node.func.attr
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "cudart"
        and not node.func.attr.endswith("_t")
    }


def test_every_runtime_call_a_python_lab_may_make_is_bound():
    """Every call a student's Python may make (pycheck's list) and every call the course's Python makes has its
    simulated binding: none reaches NVIDIA's runtime, which finds no GPU, in a preview. Read from the sources:
    no build needed."""
    binding = (ROOT / "python" / "bind_simulated_runtime.cpp").read_text()
    bound = set(re.findall(r'def\(\s*"(cuda\w+)"', binding))
    course_python = [path for folder in ("labs", "solutions", "python") for path in (ROOT / folder).rglob("*.py")]
    called = {name for path in course_python for name in runtime_calls(path)}
    assert called and pycheck.RUNTIME_CALLS <= bound, sorted(pycheck.RUNTIME_CALLS - bound)
    assert called <= bound, sorted(called - bound)


def run_with_the_simulated_module(tmp_path, program: str) -> str:
    """`program` run by the module's Python, importing the simulated build's module first; its output."""
    (tmp_path / "program.py").write_text("import streamlab\n" + textwrap.dedent(program))
    env = environment.python_lab_environment(tmp_path, tmp_path, ROOT, SIM_BUILD)
    ran = subprocess.run(
        [module_python(SIM_BUILD), tmp_path / "program.py"], env=env, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return ran.stdout


@needs_sim_module
def test_calls_return_cuda_bindings_own_types(tmp_path):
    run_with_the_simulated_module(
        tmp_path,
        """
        from cuda.bindings import runtime as cudart
        error, stream = cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking)
        assert error == cudart.cudaError_t.cudaSuccess and isinstance(error, cudart.cudaError_t)
        assert isinstance(stream, cudart.cudaStream_t) and int(stream) != 0
        assert cudart.cudaStreamGetFlags(stream) == (cudart.cudaError_t.cudaSuccess, cudart.cudaStreamNonBlocking)
        error, event = cudart.cudaEventCreate()
        assert isinstance(event, cudart.cudaEvent_t)
        assert cudart.cudaEventRecord(event, stream) == (cudart.cudaError_t.cudaSuccess,)
        assert cudart.cudaStreamWaitEvent(None, event, 0) == (cudart.cudaError_t.cudaSuccess,)  # None: NULL stream
        assert cudart.cudaStreamIsCapturing(stream)[1] == cudart.cudaStreamCaptureStatus.cudaStreamCaptureStatusNone
        error, device = cudart.cudaMalloc(1 << 20)
        assert isinstance(device, int) and device != 0
        assert cudart.cudaFree(device) == (cudart.cudaError_t.cudaSuccess,)
        assert cudart.cudaEventDestroy(event) == (cudart.cudaError_t.cudaSuccess,)
        assert cudart.cudaStreamDestroy(stream) == (cudart.cudaError_t.cudaSuccess,)
        assert cudart.cudaGetErrorName(cudart.cudaError_t.cudaErrorNotReady) == (
            cudart.cudaError_t.cudaSuccess, b"cudaErrorNotReady")
        """,
    )


@needs_sim_module
def test_a_failed_call_gives_its_documented_error_and_no_results(tmp_path):
    """The runtime documents cudaErrorMemoryAllocation for an allocation that cannot be made, and
    cudaErrorInvalidResourceHandle for the time between events made with cudaEventDisableTiming; cuda-bindings
    gives None for the results of a call that failed."""
    run_with_the_simulated_module(
        tmp_path,
        """
        from cuda.bindings import runtime as cudart
        assert cudart.cudaMalloc(1 << 60) == (cudart.cudaError_t.cudaErrorMemoryAllocation, None)
        cudart.cudaGetLastError()
        _, start = cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming)
        _, stop = cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming)
        cudart.cudaEventRecord(start, 0)
        cudart.cudaEventRecord(stop, 0)
        cudart.cudaEventSynchronize(stop)
        assert cudart.cudaEventElapsedTime(start, stop) == (cudart.cudaError_t.cudaErrorInvalidResourceHandle, None)
        """,
    )


@needs_sim_module
def test_pythons_clocks_see_the_copy_take_its_simulated_time(tmp_path):
    """A synchronous copy holds the host until it is done: on the host's clock it lasts at least its time on
    the GPU (between two events around it) and not much more. The CPU doing the copy's work takes far longer
    or shorter than the modelled link, so only clocks on the simulated host clock agree with the events."""
    out = run_with_the_simulated_module(
        tmp_path,
        """
        import time
        from cuda.bindings import runtime as cudart
        nbytes = 256 << 20
        _, host = cudart.cudaMallocHost(nbytes)
        _, device = cudart.cudaMalloc(nbytes)
        _, start = cudart.cudaEventCreate()
        _, stop = cudart.cudaEventCreate()
        began = time.perf_counter()
        cudart.cudaEventRecord(start, 0)
        cudart.cudaMemcpy(device, host, nbytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice)
        cudart.cudaEventRecord(stop, 0)
        cudart.cudaEventSynchronize(stop)
        host_ms = (time.perf_counter() - began) * 1e3
        print(host_ms / cudart.cudaEventElapsedTime(start, stop)[1])
        """,
    )
    assert 1.0 <= float(out) < 1.2, out
