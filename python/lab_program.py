"""What every Python lab program does first: find the GPU, or say in one line why it cannot run.

facts = first_gpu_or_say("run_labNN.py")
if facts is None:
    return 1
"""

from __future__ import annotations

import sys
from typing import Any

import streamlab


def first_gpu_or_say(program: str) -> Any:
    """The first GPU's facts (streamlab.DeviceFacts), or None after one line on stderr: "<program>: no GPU: why"."""
    present, why = streamlab.gpu_presence()
    if not present:
        print(f"{program}: {streamlab.words.SKIP_NO_GPU}{why}", file=sys.stderr)
        return None
    return streamlab.device_facts(0)
