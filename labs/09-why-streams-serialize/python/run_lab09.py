"""Lab 09's program in Python: the serial reference and your four-chunk pipeline on the same data.

Checks the result and prints (and with --trace writes) both timelines, the calls that can
make streams wait for each other, and how your pipeline compares with the model, as the
C++ program does. `./course run 09 --python` runs it and draws the timeline.

    python run_lab09.py [--trace PATH]
"""

from __future__ import annotations

import sys

import streamlab
from lab09 import CHUNKS, FLOAT_BYTES, PageableFloats, copy_on_host, job_over
from lab_program import pipeline_program_start


def main(argv: list[str]) -> int:
    started = pipeline_program_start(argv, "Lab 09 in Python: why streams serialize", "run_lab09.py")
    if started is None:
        return 1
    trace, n = started
    import serialize  # the student's module: after the GPU check, so that its errors are its own

    output = PageableFloats(n)

    # run_pipeline writes into pageable memory; the course's result check reads
    # memory.output, so the results are copied there after each run.
    def pipelined(memory, iterations: int) -> None:
        serialize.run_pipeline(job_over(memory, output, iterations), CHUNKS)
        copy_on_host(memory.output, output.address, memory.n * FLOAT_BYTES)

    run = streamlab.record_pipeline_run(CHUNKS, pipelined)
    streamlab.report_timeline(run.serial.timeline, "serial reference", trace, "serial")
    streamlab.report_timeline(run.pipelined, "run_pipeline, 4 chunks", trace)
    print(f"run_pipeline: result: {run.result.message()}")
    calls = run.pipelined.api_calls
    print(
        "calls that can make streams wait for each other: "
        + ", ".join(f"{name} {calls.get(name, 0)}" for name in ("cudaMalloc", "cudaFree", "cudaMallocHost"))
        + f"; ops in the NULL stream: {streamlab.null_stream_ops(run.pipelined.ops)}"
    )
    print(f"the timelines against the model:\n{run.comparison}")
    return 0 if run.result.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
