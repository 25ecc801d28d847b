"""Checked cuda-bindings calls, the Python labs' SL_CHECK.

cuda-bindings returns every runtime call's error code first, then its results:
`err, stream = cudart.cudaStreamCreate()`. `check` turns a failure into an
exception that names the error, and returns the results:

    from cuda.bindings import runtime as cudart
    from cuda_check import check

    stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
    check(cudart.cudaStreamSynchronize(stream))
"""

from __future__ import annotations

from typing import Any

from cuda.bindings import runtime as cudart


class CudaError(RuntimeError):
    """A CUDA runtime call that failed, with the error's name and description."""


def check(result: Any) -> Any:
    """The results of a cuda-bindings runtime call: None, one value, or a tuple of them.

    Raises CudaError when the call failed."""
    error, *values = result if isinstance(result, tuple) else (result,)
    if error != cudart.cudaError_t.cudaSuccess:
        _, name = cudart.cudaGetErrorName(error)
        _, text = cudart.cudaGetErrorString(error)
        raise CudaError(f"{name.decode()} ({text.decode()})")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)
