"""Lab 05's program in Python: the serial reference and your three-chunk pipeline on the same data.

Checks the result and prints (and with --trace writes) both timelines and how your
pipeline compares with the model, as the C++ program does. `./course run 05 --python`
runs it and draws the timeline.

    python run_lab05.py [--trace PATH]
"""

from __future__ import annotations

import sys

import streamlab
from lab05 import CHUNKS, job_over
from lab_program import pipeline_program_start


def main(argv: list[str]) -> int:
    started = pipeline_program_start(argv, "Lab 05 in Python: the three-chunk overlap", "run_lab05.py")
    if started is None:
        return 1
    trace, _ = started
    import three_chunks  # the student's module: after the GPU check, so that its errors are its own

    reported_ms = []

    def pipelined(memory, iterations: int) -> None:
        reported_ms.append(three_chunks.run_pipeline(job_over(memory, iterations), CHUNKS))

    run = streamlab.record_pipeline_run(CHUNKS, pipelined)
    streamlab.report_timeline(run.serial.timeline, "serial reference", trace, "serial")
    streamlab.report_timeline(run.pipelined, "run_pipeline, 3 chunks", trace)
    yours = reported_ms[-1]
    print(f"run_pipeline: your events say {yours:.3f} ms; result: {run.result.message()}")
    if yours > 0:
        print(f"your speedup (serial events {run.serial.event_ms:.3f} ms / yours): {run.serial.event_ms / yours:.2f}x")
    print(f"the timelines against the model:\n{run.comparison}")
    return 0 if run.result.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
