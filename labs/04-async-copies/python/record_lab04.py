"""Lab 04's recording program for the Python track: the only course program that runs your
Python batch loop for grading.

It runs the same scenarios as the C++ track's record_lab04.cpp, on the same set-up, while
CUPTI records, with host work of the course's own that marks on the same clock when control
came back to the host and when the host's work ended, and sends what the GPU did to the
recording harness (streamlab_record). It judges nothing: the C++ track's judges
(test_lab04.cpp) read its record afterwards, in processes that never load your code, so both
tracks are graded by the same tests.

    streamlab_record --lab 04 --out RECORD --timeout S -- python3 record_lab04.py
"""

from __future__ import annotations

import sys

import streamlab
from lab04 import FLOAT_BYTES, Batch, WaitWith
from streamlab import recording

BATCHES = 3  # three batches of 16 MiB (test_lab04.cpp judges these)
ELEMENTS = 4 << 20  # a batch's usual floats: in a recording, a little fewer, bound to the run (salted_elements)
BYTES = ELEMENTS * FLOAT_BYTES


def record_lab04(session) -> None:
    import async_copies  # your module: after the GPU check, so that its errors are its own

    facts = session.facts
    elements = session.salted_elements(ELEMENTS)
    # A kernel about as long as one batch's H2D copy.
    h2d_ms = session.setup_value("h2d_ms", lambda: streamlab.measure_h2d_ms(elements * FLOAT_BYTES))
    iterations = int(
        session.setup_value("iterations", lambda: float(streamlab.iterations_for_kernel_ms(elements, h2d_ms)))
    )

    def record_batches(scenario, buffers, wait: WaitWith, prepare_next: bool, before=lambda: None) -> None:
        """Your run_batches over `buffers` while CUPTI records, `before` queued first inside the
        recording; the host work is the course's (marked_host_work), and when `prepare_next` it
        prepares each next batch's input. What run_batches returned goes into the scenario's values."""
        batches = [Batch(buffers.input(b), buffers.output(b)) for b in range(buffers.count)]
        buffers.reset(not prepare_next)
        host_work = streamlab.marked_host_work(buffers, prepare_next)
        returned = []

        def work() -> None:
            before()
            returned.append(list(async_copies.run_batches(batches, elements, iterations, wait, host_work)))

        session.record(scenario, "lab04 python run_batches", work)
        reports = returned[-1]
        scenario.set_value("reports", float(len(reports)))
        for b, report in enumerate(reports[:BATCHES]):
            scenario.set_value(f"device_busy_on_return_{b}", 1.0 if report.device_busy_on_return else 0.0)

    def usual_run(scenario, pinned: bool) -> None:
        """The usual run: the host preparing each next batch, waits per stream."""
        buffers = streamlab.BatchBuffers(BATCHES, elements, pinned, session.seed)
        record_batches(scenario, buffers, WaitWith.STREAM, prepare_next=True)
        if pinned:  # the pageable run's output is not graded
            scenario.output = buffers.sample_outputs(iterations)

    def run_beside_a_background_kernel(scenario, wait: WaitWith) -> None:
        """Task 3: your waits beside a long kernel in another stream, queued just before your batches."""
        buffers = streamlab.BatchBuffers(BATCHES, elements, True, session.seed)
        # The other stream's kernel must outlast your batches by far: four times as long as
        # they take on this GPU, measured just now without it (and never less than four times
        # their copies and kernels). That run's timeline is replaced by the next one's.
        record_batches(scenario, buffers, WaitWith.STREAM, prepare_next=False)
        batches_end_ns = max((op.end_ns for op in scenario.timeline.ops), default=0)
        batches_ms = max(batches_end_ns / 1e6, BATCHES * 3.0 * h2d_ms)
        background = streamlab.BackgroundKernel(4.0 * batches_ms, facts)
        scenario.clear_values()
        record_batches(scenario, buffers, wait, prepare_next=False, before=background.launch)

    for pinned in (True, False):
        session.scenario(
            "pinned" if pinned else "pageable", lambda scenario, pinned=pinned: usual_run(scenario, pinned)
        )
    # Where kernels of different streams cannot run at once, the judges skip without these scenarios.
    if not facts.concurrent_kernels:
        return
    for wait in (WaitWith.STREAM, WaitWith.DEVICE):
        session.scenario(
            "wait_stream" if wait is WaitWith.STREAM else "wait_device",
            lambda scenario, wait=wait: run_beside_a_background_kernel(scenario, wait),
        )


if __name__ == "__main__":
    sys.exit(recording.record_scenarios(sys.argv, record_lab04))
