"""Whether there is a GPU here, asked of the NVIDIA driver itself (no build needed).

Every "no GPU" message of the course starts the same way, `no GPU: ` (SKIP_NO_GPU
of common/grader_words.json), followed by the detail (no driver,
no device, ...), whichever part of the course says it.
"""

from __future__ import annotations

import ctypes
import os

from .grader_words import SKIP_NO_GPU

NO_GPU = SKIP_NO_GPU.removesuffix(": ")  # "no GPU", as the tallies name the reason


def no_gpu(detail: str) -> str:
    """The one wording of "there is no GPU here", with the detail after it."""
    return SKIP_NO_GPU + detail


def gpu_presence() -> tuple[bool, str]:
    """(True, device name) when the CUDA driver sees a GPU, else (False, no_gpu(why not))."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False, no_gpu("the NVIDIA driver (libcuda.so.1) is not installed")
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        return False, no_gpu("the driver sees no CUDA device")
    name = ctypes.create_string_buffer(256)
    cuda.cuDeviceGetName(name, 256, 0)
    return True, name.value.decode(errors="replace") or "a CUDA GPU"


def gpu_devices() -> list[str]:
    """The GPUs this process may use, as values for CUDA_VISIBLE_DEVICES: those that CUDA_VISIBLE_DEVICES
    already lists (as Slurm sets it for a job's GPUs), else one per device the driver counts."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        return [device.strip() for device in listed.split(",") if device.strip()]
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return []
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return []
    return [str(index) for index in range(count.value)]


# Exit status of `course check` / `course run` where nothing could run for want of a GPU:
# neither success nor a failing grade (77 is what ctest and the course's scripts use for "skipped").
NO_GPU_EXIT = 77
