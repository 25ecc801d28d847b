"""Lab 07's recording program for the Python track: the only course program that runs your
Python code for grading.

It runs the same scenarios as the C++ track's record_lab07.cpp, on the same set-up, each
after a warm-up run, while CUPTI records what the GPU did and which host thread made which
runtime call; the course's consumer and urgent kernel (streamlab.lab07, the C++ lab's course
side) note their own times on the same clock. It judges nothing: the C++ track's judges
(test_lab07.cpp) read its record afterwards, in processes that never load your code, so both
tracks are graded by the same tests.

    streamlab_record --lab 07 --out RECORD --timeout S -- python3 record_lab07.py
"""

from __future__ import annotations

import sys

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab07 import consumer_over, job_over, urgent_work_over
from streamlab import recording

CHUNKS = streamlab.lab07.CHUNKS  # of every graded run, as the judges count them
LAUNCHES = streamlab.lab07.LAUNCHES  # of the graded run of Task 3


def priority_range() -> tuple[int, int]:
    """The least and the greatest stream priority the device offers (cudaDeviceGetStreamPriorityRange)."""
    least, greatest = check(cudart.cudaDeviceGetStreamPriorityRange())
    return least, greatest


def record_lab07(session) -> None:
    import dependencies  # your module: after the GPU check, so that its errors are its own

    seed = session.seed
    # 256 MiB (less on a small GPU), a kernel over all of it about as long as its whole H2D copy.
    prepared = recording.prepare_recorded_pipeline(session)
    memory, iterations = prepared.memory, prepared.iterations
    n = memory.n
    least = int(session.setup_value("least_priority", lambda: float(priority_range()[0])))
    greatest = int(session.setup_value("greatest_priority", lambda: float(priority_range()[1])))
    job = job_over(memory, iterations)

    def warm_up_then_record(scenario, program: str, work) -> None:
        """Your `work` once to warm up, then once more, on a poisoned output, while CUPTI records."""
        work()
        streamlab.fill_poison(memory.output, n)
        session.record(scenario, program, work)

    # The stage times the model needs, from the serial run on the same data.
    def serial(scenario) -> None:
        def work() -> None:
            recording.run_serial_once(memory, iterations)

        session.record(scenario, "serial reference: H2D, kernel, D2H in the NULL stream", work)

    # Task 1 ("pipeline": the run `course check` draws).
    def pipeline(scenario) -> None:
        def work() -> None:
            dependencies.run_stage_streams(job, CHUNKS)

        warm_up_then_record(scenario, "lab07 python run_stage_streams", work)
        scenario.sample_output(memory.output, n, iterations, CHUNKS, seed)

    # Task 4, where a priority can change anything: the urgent kernel behind a GPU
    # full of background blocks, and when the course's urgent.launch launched it.
    demos = []  # the course's PriorityDemo, made by the first of the two scenarios that runs

    def record_urgent_kernel(scenario, high_priority: bool) -> None:
        if not demos:
            demos.append(streamlab.lab07.PriorityDemo())
        demo = demos[0]
        urgent = urgent_work_over(demo)

        def work() -> None:
            dependencies.run_with_urgent_kernel(urgent, high_priority)

        work()
        session.record(scenario, "lab07 python run_with_urgent_kernel", work)
        scenario.set_value("launched_ns", float(demo.launched_ns(scenario.timeline.origin_ns)))

    # Task 3.
    def graph(scenario) -> None:
        def work() -> None:
            dependencies.run_graph(job, CHUNKS, LAUNCHES)

        warm_up_then_record(scenario, "lab07 python run_graph", work)
        scenario.sample_output(memory.output, n, iterations, CHUNKS, seed)

    # Task 2, last: a host function that calls CUDA may hang, and a hang ends the
    # recording, so no other task's scenario comes after it. What the course's
    # consumer took, when, and on which thread; and the thread that called you.
    # The consumer's host function is the course's C++ code (streamlab.lab07.HostConsumer):
    # no Python runs on CUDA's thread, and every runtime call there is your code's.
    def host_consumer(scenario) -> None:
        course = streamlab.lab07.HostConsumer(memory, iterations, CHUNKS)
        consumer = consumer_over(course)

        def work() -> None:
            course.reset()
            dependencies.run_with_host_consumer(job, CHUNKS, consumer)

        warm_up_then_record(scenario, "lab07 python run_with_host_consumer", work)
        streamlab.lab07.put_consumptions(course.consumptions(scenario.timeline.origin_ns), scenario)
        scenario.set_value("caller_thread", float(streamlab.host_thread_id()))  # this thread ran `work`
        scenario.sample_output(course.consumed, n, iterations, CHUNKS, seed)

    session.scenario("serial", serial)
    session.scenario("pipeline", pipeline)
    if least != greatest:
        session.scenario("priority_default", lambda scenario: record_urgent_kernel(scenario, False))
        session.scenario("priority_greatest", lambda scenario: record_urgent_kernel(scenario, True))
    session.scenario("graph", graph)
    session.scenario("host_consumer", host_consumer)


if __name__ == "__main__":
    sys.exit(recording.record_scenarios(sys.argv, record_lab07))
