"""Lab 01's recording program for the Python track: the only course program that runs your
Python functions for grading.

It runs the same scenarios as the C++ track's record_lab01.cpp, on the same set-up, while
CUPTI records, and sends what the GPU did to the recording harness (streamlab_record). It
judges nothing: the C++ track's judges (test_lab01.cpp) read its record afterwards, in
processes that never load your code, so both tracks are graded by the same tests.

    streamlab_record --lab 01 --out RECORD --timeout S -- python3 record_lab01.py
"""

from __future__ import annotations

import sys

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab01 import FLOAT_BYTES, DemoWork
from streamlab import recording

SERIAL_ELEMENTS = 16 << 20  # Task 1's job: 64 MiB through H2D, the kernel and D2H (a little less: salted_elements)
DEMO_ELEMENTS = 1 << 20  # each of the barrier demo's three kernels reads and writes this many floats


def on_host(device: streamlab.DeviceFloats, n: int) -> streamlab.PinnedFloats:
    """A device buffer's n floats, copied to the host."""
    host = streamlab.PinnedFloats(n)
    check(
        cudart.cudaMemcpy(host.address, device.address, n * FLOAT_BYTES, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost)
    )
    return host


def record_lab01(session) -> None:
    import null_stream  # your module: after the GPU check, so that its errors are its own

    seed = session.seed
    serial_elements = session.salted_elements(SERIAL_ELEMENTS)  # bound to this run
    host_input, host_output = streamlab.PinnedFloats(serial_elements), streamlab.PinnedFloats(serial_elements)
    streamlab.fill_input(host_input.address, serial_elements, seed)
    # A kernel about as long as one copy of the input.
    iterations = int(
        session.setup_value(
            "iterations",
            lambda: float(
                streamlab.iterations_for_kernel_ms(serial_elements, streamlab.measure_h2d_ms(host_input.nbytes))
            ),
        )
    )
    # The demo's three kernels: a quarter of the SMs each, so that all three fit on
    # the GPU together and only a stream dependency can keep them apart; about 2 ms each.
    demo_input = streamlab.DeviceFloats(DEMO_ELEMENTS)
    staged = streamlab.PinnedFloats(DEMO_ELEMENTS)
    streamlab.fill_input(staged.address, DEMO_ELEMENTS, seed)
    check(
        cudart.cudaMemcpy(
            demo_input.address, staged.address, staged.nbytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
        )
    )
    outputs = [streamlab.DeviceFloats(DEMO_ELEMENTS) for _ in range(3)]
    max_blocks = max(1, session.facts.sm_count // 4)
    demo_iterations = int(
        session.setup_value(
            "demo_iterations", lambda: float(streamlab.iterations_for_kernel_ms(DEMO_ELEMENTS, 2.0, max_blocks))
        )
    )
    work = DemoWork(
        demo_input.address, tuple(output.address for output in outputs), DEMO_ELEMENTS, demo_iterations, max_blocks
    )

    def serial(scenario) -> None:
        streamlab.fill_poison(host_output.address, serial_elements)
        returned = []
        session.record(
            scenario,
            "lab01 python run_serial",
            lambda: returned.append(
                float(null_stream.run_serial(host_input.address, host_output.address, serial_elements, iterations))
            ),
        )
        scenario.set_value("returned_ms", returned[-1])
        scenario.sample_output(host_output.address, serial_elements, iterations, 1, seed)

    def barrier_demo(scenario, flags: int) -> None:
        # The three kernels read the same input: kernel A's output is sampled (the
        # judge recomputes it from the seed), and B's and C's are compared with A's in full.
        for output in outputs:
            check(cudart.cudaMemset(output.address, 0xFF, output.nbytes))  # NaN poison
        check(cudart.cudaDeviceSynchronize())  # the poison is in place before streams that may not wait for it
        session.record(
            scenario,
            f"lab01 python run_barrier_demo, {scenario.name}",
            lambda: null_stream.run_barrier_demo(flags, work),
        )
        a = on_host(outputs[0], DEMO_ELEMENTS)
        scenario.sample_output(a.address, DEMO_ELEMENTS, demo_iterations, 1, seed)
        for name, output in (("b", outputs[1]), ("c", outputs[2])):
            copied = on_host(output, DEMO_ELEMENTS)  # held by a name: its memory lives while it is compared
            differing = streamlab.count_differing(copied.address, a.address, DEMO_ELEMENTS)
            scenario.set_value(f"{name}_elements_unlike_a", float(differing))

    session.scenario("serial", serial)
    session.scenario("barrier_blocking", lambda scenario: barrier_demo(scenario, cudart.cudaStreamDefault))
    session.scenario("barrier_nonblocking", lambda scenario: barrier_demo(scenario, cudart.cudaStreamNonBlocking))


if __name__ == "__main__":
    sys.exit(recording.record_scenarios(sys.argv, record_lab01))
