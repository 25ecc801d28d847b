"""Lab 09's program in Python: the serial reference and your four-chunk pipeline on the same data.

Checks the result and prints (and with --trace writes) both timelines, the calls that can
make streams wait for each other, and how your pipeline compares with the model; then
waits for the GPU with your two waits (Task 3) and shows what each cost, as the C++
program does. `./course run 09 --python` runs it and draws the pipeline's timeline.

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
    print(f"the timelines against the model:\n{run.comparison}", flush=True)
    waits = show_waits()
    return waits if run.result.ok else 1


def show_waits() -> int:
    """Task 3: your two waits, each for the graded tests' long job (streamlab.lab09), once to warm
    up and once observed: the process's CPU time during the wait, how long after the GPU's last
    op it returned (while the tracer records), and for wait_polling the share of the wait spent
    in the host's slices of work. 0 when each wait's results were right."""
    import waiting_host  # the student's module

    course = streamlab.lab09
    job = course.WaitJob(streamlab.device_facts(0))
    work = course.HostWork(job.host_slice_ns())
    waits = {
        "wait_blocking": waiting_host.wait_blocking,
        "wait_polling": lambda stream: waiting_host.wait_polling(stream, work.slice),
    }
    ok = True
    for name, wait in waits.items():
        recorded = course.record_wait(job, course.LONG_JOB_KERNELS, wait, work)
        cost = recorded.observed.cost
        line = (
            f"{name}: CPU time {cost.cpu_ns / 1e6:.2f} ms in a {cost.wall_ns / 1e6:.2f} ms wait "
            f"({100 * cost.cpu_share:.0f}%)"
        )
        if recorded.timeline.recorded:
            delay_ns = course.wake_up_delay_ns(recorded.timeline, cost.returned_ns)
            line += f"; returned {delay_ns / 1e3:.1f} us after the GPU's last op"
        if name == "wait_polling":
            line += f"; {work.slices} slices of host work, {100 * work.busy_ns / cost.wall_ns:.0f}% of the wait"
        print(line)
        print(f"{name}: result: {recorded.observed.results.message()}", flush=True)
        ok = ok and recorded.observed.results.ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
