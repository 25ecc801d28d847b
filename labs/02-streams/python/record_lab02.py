"""Lab 02's recording program for the Python track: the only course program that runs your
Python functions for grading.

It runs the same scenarios as the C++ track's record_lab02.cpp, on the same set-up, while
CUPTI records what the GPU did and which runtime calls your code made, and sends that to the
recording harness (streamlab_record). It judges nothing: the C++ track's judges
(test_lab02.cpp) read its record afterwards, in processes that never load your code, so both
tracks are graded by the same tests.

    streamlab_record --lab 02 --out RECORD --timeout S -- python3 record_lab02.py
"""

from __future__ import annotations

import sys

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab02 import KernelJob
from streamlab import recording

STREAMS = 4  # independent kernels, one per stream, each small enough that all fit on the GPU at once
ELEMENTS = 1 << 20  # of each kernel's input and output
FLOAT_BYTES = 4
H2D, D2H = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost


def record_lab02(session) -> None:
    import streams  # your module: after the GPU check, so that its errors are its own

    n = int(session.setup_value("n", lambda: float(session.salted_elements(ELEMENTS))))  # bound to this run
    max_blocks = max(1, session.facts.sm_count // STREAMS)
    # Kernels of about 2 ms each on this GPU, on a grid that leaves room for the others.
    iterations = int(
        session.setup_value("iterations", lambda: float(streamlab.iterations_for_kernel_ms(n, 2.0, max_blocks)))
    )

    # Job i reads its own buffer, slice i of one seeded input, and writes its own:
    # one output sample of STREAMS * n elements in STREAMS chunks covers every job.
    host = streamlab.PinnedFloats(n)
    inputs = [streamlab.DeviceFloats(n) for _ in range(STREAMS)]
    outputs = [streamlab.DeviceFloats(n) for _ in range(STREAMS)]
    for i, device_input in enumerate(inputs):
        streamlab.fill_input(host.address, n, session.seed, i * n)
        check(cudart.cudaMemcpy(device_input.address, host.address, host.nbytes, H2D))
    jobs = [
        KernelJob(source.address, result.address, n, iterations, max_blocks) for source, result in zip(inputs, outputs)
    ]

    def null_stream(scenario) -> None:
        session.record(scenario, "lab02 python run_in_null_stream", lambda: streams.run_in_null_stream(jobs))

    def in_streams(scenario) -> None:
        for output in outputs:
            check(cudart.cudaMemset(output.address, 0xFF, output.nbytes))  # NaN poison
        check(cudart.cudaDeviceSynchronize())  # the poison is in place before your streams, which do not wait for it

        def work() -> None:
            streams.run_in_streams(jobs, cudart.cudaStreamNonBlocking)

        session.record(scenario, "lab02 python run_in_streams", work)
        every_output = streamlab.PinnedFloats(STREAMS * n)
        for i, output in enumerate(outputs):
            check(cudart.cudaMemcpy(every_output.address + i * n * FLOAT_BYTES, output.address, output.nbytes, D2H))
        scenario.sample_output(every_output.address, every_output.n, iterations, STREAMS, session.seed)

    # Your kernels in the NULL stream first, then in streams of your own, as the
    # overlap test compares them: the same kernels, a moment apart, on this GPU.
    session.scenario("null_stream", null_stream)
    session.scenario("streams", in_streams)


if __name__ == "__main__":
    sys.exit(recording.record_scenarios(sys.argv, record_lab02))
