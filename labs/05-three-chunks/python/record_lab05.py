"""Lab 05's recording program for the Python track: the only course program that runs your
Python pipeline for grading.

It runs the same scenarios as the C++ track's record_lab05.cpp, on the same set-up, while
CUPTI records, and sends what the GPU did to the recording harness (streamlab_record). It
judges nothing: the C++ track's judges (test_lab05.cpp) read its record afterwards, in
processes that never load your code, so both tracks are graded by the same tests.

    streamlab_record --lab 05 --out RECORD --timeout S -- python3 record_lab05.py
"""

from __future__ import annotations

import sys

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab05 import CHUNKS, job_over
from streamlab import recording

BLOCKER_ELEMENTS = 1 << 20  # the NULL-stream kernel queued before the pipeline in "behind_null_stream"


def record_lab05(session) -> None:
    import three_chunks  # your module: after the GPU check, so that its errors are its own

    seed = session.seed
    # A kernel over all the data about as long as its whole H2D copy; the blocker
    # as long, on a quarter of the SMs (room for the pipeline's kernels beside it).
    prepared = recording.prepare_recorded_pipeline(session)
    memory, iterations = prepared.memory, prepared.iterations
    n = memory.n
    blocker_blocks = max(1, session.facts.sm_count // 4)
    blocker_iterations = int(
        session.setup_value(
            "blocker_iterations",
            lambda: float(streamlab.iterations_for_kernel_ms(BLOCKER_ELEMENTS, prepared.h2d_ms, blocker_blocks)),
        )
    )
    job = job_over(memory, iterations)

    def record_pipeline(scenario, chunks: int, before=lambda: None) -> None:
        """Your run_pipeline at `chunks` while CUPTI records, `before` queued first inside the recording."""
        streamlab.fill_poison(memory.output, n)
        returned = []

        def work() -> None:
            before()
            returned.append(float(three_chunks.run_pipeline(job, chunks)))

        session.record(scenario, f"lab05 python run_pipeline, {chunks} chunks", work)
        scenario.set_value("returned_ms", returned[-1])
        scenario.sample_output(memory.output, n, iterations, chunks, seed)

    def serial(scenario) -> None:
        event_ms = []
        session.record(
            scenario,
            "serial reference: H2D, kernel, D2H in the NULL stream",
            lambda: event_ms.append(recording.run_serial_once(memory, iterations)),
        )
        scenario.set_value("event_ms", event_ms[-1])

    def behind_null_stream(scenario) -> None:
        # A kernel in the legacy NULL stream, queued just before your pipeline:
        # blocking streams wait for it, non-blocking streams start at once.
        blocker_in, blocker_out = streamlab.DeviceFloats(BLOCKER_ELEMENTS), streamlab.DeviceFloats(BLOCKER_ELEMENTS)
        check(cudart.cudaMemset(blocker_in.address, 0, blocker_in.nbytes))
        record_pipeline(
            scenario,
            CHUNKS,
            lambda: streamlab.launch_workload(
                blocker_in.address, blocker_out.address, BLOCKER_ELEMENTS, blocker_iterations, 0, blocker_blocks
            ),
        )

    session.scenario("serial", serial)
    session.scenario("warm_up", lambda scenario: record_pipeline(scenario, CHUNKS))
    session.scenario("pipeline", lambda scenario: record_pipeline(scenario, CHUNKS))
    session.scenario("behind_null_stream", behind_null_stream)
    for chunks in (1, 5):  # lab05.py promises any `chunks` >= 1
        session.scenario(f"chunks_{chunks}", lambda scenario, chunks=chunks: record_pipeline(scenario, chunks))


if __name__ == "__main__":
    sys.exit(recording.record_scenarios(sys.argv, record_lab05))
