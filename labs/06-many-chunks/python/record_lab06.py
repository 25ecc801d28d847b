"""Lab 06's recording program for the Python track: the only course program that runs your
Python run_stream and sweep_chunks for grading.

It runs the same scenarios as the C++ track's record_lab06.cpp (graded_jobs.hpp), on the same
set-up, while CUPTI records what the GPU did and the course's produce and consume time every
write and read of a ring buffer on the same clock, and sends both to the recording harness
(streamlab_record). What a scenario records beside its timeline (the host's fills and drains,
the output, what your sweep returned) is put there by the C++ track's own code
(recorded_runs.hpp, through the module streamlab.lab06). It judges nothing: the C++ track's
judges (test_lab06.cpp) read its record afterwards, in processes that never load your code, so
both tracks are graded by the same tests.

    streamlab_record --lab 06 --out RECORD --timeout S -- python3 record_lab06.py
"""

from __future__ import annotations

import sys

import streamlab
from lab06 import job_over
from streamlab import recording

course = streamlab.lab06  # the C++ lab's course side: the graded jobs, the host, what a scenario records


def record_lab06(session) -> None:
    import many_chunks  # your module: after the GPU check, so that its errors are its own

    recorded = course.RecordedHost(session)  # the set-up values n and h2d_ms; the input filled from the seed
    host = recorded.host

    def graded_job(shape, weight: float, counts: list[int] | None = None):
        return course.GradedJob(host, shape, weight, recorded.h2d_ms, counts or [])

    def record_stream(scenario, graded) -> None:
        """Your run_stream once to warm up, then once more while CUPTI records."""
        job = job_over(graded.job)
        many_chunks.run_stream(job)
        host.reset()
        session.record(scenario, "lab06 python run_stream", lambda: many_chunks.run_stream(job))
        course.put_recorded_run(scenario, recorded, graded)

    def results(scenario) -> None:
        graded = graded_job(course.RESULTS_SHAPE, course.BALANCED)
        record_stream(scenario, graded)
        course.put_output_sample(scenario, recorded, graded)

    def slow_host(scenario) -> None:
        graded = graded_job(course.SLOW_HOST_SHAPE, course.BALANCED)
        host.slow_down(course.slow_host_extra_ns(graded))
        record_stream(scenario, graded)
        host.slow_down(0)
        course.put_output_sample(scenario, recorded, graded)

    def hazards(scenario) -> None:
        record_stream(scenario, graded_job(course.HAZARD_SHAPE, course.HOST_RUNS_AHEAD))

    def pipeline(scenario) -> None:
        graded = graded_job(course.MODEL_SHAPE, course.BALANCED)
        # The GPU's stages alone and the interference between the copy directions,
        # measured on the same GPU a moment before, on the same data.
        measured = course.put_gpu_alone(scenario, recorded, graded)
        record_stream(scenario, graded)
        if not measured:
            raise RuntimeError("the GPU's stages alone could not be recorded, your run could")

    def sweep(scenario) -> None:
        graded = graded_job(course.MODEL_SHAPE, course.BALANCED, course.SWEEP_COUNTS)
        job = job_over(graded.job)
        many_chunks.run_stream(job)  # warm-up
        host.reset()
        returned = []
        session.record(
            scenario,
            "lab06 python sweep_chunks",
            lambda: returned.append(many_chunks.sweep_chunks(job, list(course.SWEEP_COUNTS))),
        )
        course.put_recorded_run(scenario, recorded, graded)
        course.put_sweep(scenario, returned[-1])

    # The C++ track's scenarios, by its names, in its order.
    session.scenario(course.scenarios.RESULTS, results)
    session.scenario(course.scenarios.SLOW_HOST, slow_host)
    session.scenario(course.scenarios.HAZARDS, hazards)
    session.scenario(course.scenarios.PIPELINE, pipeline)
    session.scenario(course.scenarios.SWEEP, sweep)


if __name__ == "__main__":
    sys.exit(recording.record_scenarios(sys.argv, record_lab06))
