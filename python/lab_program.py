"""What every Python lab program does first: find the GPU, or say in one line why it cannot run.

facts = first_gpu_or_say("run_labNN.py")
if facts is None:
    return 1

A pipeline lab's program (labs 05 and 09) starts with pipeline_program_start, which also
reads its --trace option and prints the pipeline's size, as the C++ programs do.
"""

from __future__ import annotations

import argparse
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


def pipeline_program_start(argv: list[str], description: str, program: str) -> tuple[str, int] | None:
    """(the --trace path read from `argv`, the pipeline's elements on the first GPU), after a line naming
    the GPU and the pipeline's size; None after first_gpu_or_say's line where there is no GPU."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--trace", default="", help="write the pipeline's trace here (the serial one beside it)")
    args = parser.parse_args(argv)
    facts = first_gpu_or_say(program)
    if facts is None:
        return None
    n = streamlab.pipeline_elements(facts.total_memory_bytes)
    mib = n * 4 >> 20  # n floats of 4 bytes
    print(f"{facts.name}: {facts.copy_engines} copy engine(s), {mib} MiB each way", flush=True)
    return args.trace, n
