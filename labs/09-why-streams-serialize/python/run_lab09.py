"""Lab 09's program in Python: the serial reference and your four-chunk pipeline on the same data.

Checks the result and prints (and with --trace writes) both timelines, the calls that can
make streams wait for each other, and how your pipeline compares with the model; then
waits for the GPU with your two waits (Task 3) and shows what each cost, as the C++
program does. `./course run 09 --python` runs it and draws the pipeline's timeline. With
--late-error it runs Task 2 instead: your run_checked_pipeline, clean and then with a
tripwire in one chunk.

    python run_lab09.py [--trace PATH]
    [CUDA_LAUNCH_BLOCKING=1] python run_lab09.py --late-error
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import streamlab
from lab09 import CHUNKS, FLOAT_BYTES, NO_CHUNK, PageableFloats, checked_job_over, copy_on_host, job_over
from lab_program import first_gpu_or_say, pipeline_program_start

PROGRAM = "run_lab09.py"
LATE_ERROR_OPTION = "--late-error"  # runs Task 2 instead of Task 1
DESCRIPTION = (
    "Lab 09 in Python: why streams serialize. --late-error: run Task 2 instead, run_checked_pipeline clean, then "
    "with a tripwire in one chunk (put CUDA_LAUNCH_BLOCKING=1 in front to see where the error shows, and what it costs)"
)


def main(argv: list[str]) -> int:
    if LATE_ERROR_OPTION in argv:
        return run_late_error([arg for arg in argv if arg != LATE_ERROR_OPTION])
    started = pipeline_program_start(argv, DESCRIPTION, PROGRAM)
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
    """Task 3: your two waits, each for the recording's long job (streamlab.lab09), once to warm
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


# ---------------------------------------------------------------- Task 2: --late-error


def error_name(error) -> str:
    from cuda.bindings import runtime as cudart

    return cudart.cudaGetErrorName(error)[1].decode()


def print_report(run: str, report) -> None:
    """run_checked_pipeline's report, in words."""
    print(f"{run}: run_checked_pipeline reported chunk {report.chunk}, {error_name(report.error)}", flush=True)


def run_late_error(argv: list[str]) -> int:
    """Task 2: a clean run (its makespan on the timeline and its time on the host clock, which
    CUDA_LAUNCH_BLOCKING=1 changes), then a run whose kernel fails in a chunk picked at random.
    The failure leaves the GPU unusable for the rest of the process, so it is the last thing the
    program does."""
    parser = argparse.ArgumentParser(prog=f"{PROGRAM} {LATE_ERROR_OPTION}", description=DESCRIPTION)
    _, unknown = parser.parse_known_args(argv)
    if unknown:  # its clean run has Task 1's shape, which `course run 09 --python` draws
        parser.error(f"{LATE_ERROR_OPTION} writes no trace and takes no other option: leave out {' '.join(unknown)}")
    facts = first_gpu_or_say(PROGRAM)
    if facts is None:
        return 1
    import late_error  # the student's module: after the GPU check, so that its errors are its own
    from cuda.bindings import runtime as cudart

    prepared = streamlab.prepare_pipeline(facts)
    memory = prepared.memory
    job = checked_job_over(memory, prepared.iterations)
    blocking = os.environ.get("CUDA_LAUNCH_BLOCKING", "(not set)")
    mib = memory.n * FLOAT_BYTES >> 20
    print(f"{facts.name}: {mib} MiB each way, {CHUNKS} chunks; CUDA_LAUNCH_BLOCKING={blocking}", flush=True)

    late_error.run_checked_pipeline(job, CHUNKS)  # warm-up
    streamlab.fill_poison(memory.output, memory.n)
    start = time.perf_counter()
    clean = late_error.run_checked_pipeline(job, CHUNKS)
    took_ms = (time.perf_counter() - start) * 1e3
    result = streamlab.check_workload_output(memory.input, memory.output, memory.n, prepared.iterations, CHUNKS)
    print_report("clean run", clean)
    print(f"clean run: {took_ms:.3f} ms on the host clock, call to return; result: {result.message()}", flush=True)
    with streamlab.record("lab09 python run_checked_pipeline") as timeline:
        late_error.run_checked_pipeline(job, CHUNKS)
    streamlab.report_timeline(timeline, "run_checked_pipeline, clean run")

    tripwire = streamlab.lab09.plant_tripwire(memory.input, memory.n, CHUNKS)
    print(f"\ntripwire planted at element {tripwire.index}, in chunk {tripwire.chunk} (0-based)", flush=True)
    report = late_error.run_checked_pipeline(job, CHUNKS)
    print_report("faulty run", report)
    (seen,) = cudart.cudaDeviceSynchronize()
    described = cudart.cudaGetErrorString(seen)[1].decode()
    print(f"faulty run: cudaDeviceSynchronize() afterwards returns {error_name(seen)} ({described})")
    if seen != cudart.cudaError_t.cudaSuccess:
        print(
            "the context is unusable from here on: every CUDA call of this process returns that error, the "
            "releases of the course's buffers at exit included (on stderr)"
        )
    named_right = report.chunk in (NO_CHUNK, tripwire.chunk)
    clean_right = clean.error == cudart.cudaError_t.cudaSuccess and clean.chunk == NO_CHUNK and result.ok
    return 0 if clean_right and report.error == cudart.cudaError_t.cudaErrorIllegalAddress and named_right else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
