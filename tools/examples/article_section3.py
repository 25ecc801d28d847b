#!/usr/bin/env python3
"""A stream, pinned memory and asynchronous copies, from Python (cuda-python).

The same steps, in the same order, as a CUDA program in C++ would take:

1. create a stream (cudaStreamCreate);
2. allocate pinned (page-locked) host memory (cudaMallocHost) and device memory;
3. queue a host-to-device copy and a device-to-host copy in the stream
   (cudaMemcpyAsync): both calls return at once, the copies run later, in order;
4. wait for the stream (cudaStreamSynchronize), check the data came back;
5. free everything and destroy the stream.

Record its timeline with the course's tracer, which needs no change to the script:

    python3 -m streamlab_tools.trace_cmd --inject <build>/common/inject/libstreamlab_inject.so \\
        -o section3.json -- python3 tools/examples/article_section3.py

Exit status: 0 when the data came back intact, 1 on a CUDA error or wrong data,
77 when cuda-python or a GPU is missing (nothing to run).
"""

from __future__ import annotations

import ctypes
import sys

SKIPPED = 77
NBYTES = 64 << 20  # 64 MiB: long enough to see on a timeline

try:  # cuda-python 12.6 and later
    from cuda.bindings import runtime as cudart
except ImportError:
    try:  # older cuda-python
        from cuda import cudart
    except ImportError:
        cudart = None


class CudaError(RuntimeError):
    """A CUDA runtime call returned an error."""


def check(result):
    """cuda-python returns (error, value...): raise on an error, else return the value(s)."""
    error, *values = result
    if error != cudart.cudaError_t.cudaSuccess:
        _, name = cudart.cudaGetErrorName(error)
        raise CudaError(name.decode() if isinstance(name, bytes) else str(name))
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def run() -> int:
    stream = check(cudart.cudaStreamCreate())
    host_in = check(cudart.cudaMallocHost(NBYTES))  # pinned: the copy engine reads it directly
    host_out = check(cudart.cudaMallocHost(NBYTES))
    device = check(cudart.cudaMalloc(NBYTES))
    try:
        # A pattern that differs from byte to byte, so a missing or shifted copy shows.
        pattern = bytes(i % 251 for i in range(251)) * (NBYTES // 251 + 1)
        ctypes.memmove(host_in, pattern, NBYTES)
        ctypes.memset(host_out, 0, NBYTES)

        to_device = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
        to_host = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
        check(cudart.cudaMemcpyAsync(device, host_in, NBYTES, to_device, stream))
        check(cudart.cudaMemcpyAsync(host_out, device, NBYTES, to_host, stream))
        # Both calls have returned; the copies may still be running. Wait for them.
        check(cudart.cudaStreamSynchronize(stream))

        if ctypes.string_at(host_out, NBYTES) != pattern[:NBYTES]:
            print("the bytes that came back differ from the bytes sent", file=sys.stderr)
            return 1
        print(f"copied {NBYTES >> 20} MiB to the device and back in one stream: data intact")
        return 0
    finally:
        check(cudart.cudaFree(device))
        check(cudart.cudaFreeHost(host_out))
        check(cudart.cudaFreeHost(host_in))
        check(cudart.cudaStreamDestroy(stream))


def main() -> int:
    if cudart is None:
        print("skipped: cuda-python is not installed (pip install cuda-python)", file=sys.stderr)
        return SKIPPED
    error, count = cudart.cudaGetDeviceCount()
    if error != cudart.cudaError_t.cudaSuccess or count == 0:
        print("skipped: no usable CUDA device", file=sys.stderr)
        return SKIPPED
    try:
        return run()
    except CudaError as error:
        print(f"CUDA error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
