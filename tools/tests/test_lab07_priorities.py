"""Lab 07, Task 4: what the grader reads from a timeline (priority_side.cpp's urgent_wait),
on timelines made by hand, through the course's Python module streamlab, without a GPU.

The GPU test (Priorities.UrgentKernelWaitsLessWithGreatestPriority) compares these waits
between two recorded runs; this checks that each wait is the one the timeline shows.
"""

from __future__ import annotations

import pytest
from streamlab_tools import library


@pytest.fixture(scope="module")
def streamlab():
    """The module streamlab that `./course build` made, with its lab07."""
    return library.load()


def timeline(streamlab, *kernels: tuple[str, int, int]):
    """A timeline of kernels (label, start_ns, end_ns), each in a stream of its own."""
    return streamlab.Timeline(
        [
            streamlab.DeviceOp(kind="kernel", name="k", label=label, stream=7 + i, start_ns=start, end_ns=end)
            for i, (label, start, end) in enumerate(kernels)
        ]
    )


def test_the_wait_counts_from_the_background_start_as_a_share_of_its_run(streamlab):
    wait = streamlab.lab07.urgent_wait(timeline(streamlab, ("background", 1000, 9000), ("urgent", 2000, 2100)), 1500)
    assert wait.problem == ""
    assert (wait.background_ns, wait.wait_ns) == (8000, 1000)
    assert wait.share == pytest.approx(0.125)


def test_an_urgent_kernel_that_starts_first_did_not_wait(streamlab):
    wait = streamlab.lab07.urgent_wait(timeline(streamlab, ("urgent", 500, 600), ("background", 1000, 9000)), 400)
    assert (wait.problem, wait.wait_ns) == ("", 0)


def test_a_launch_after_the_background_ended_is_named(streamlab):
    wait = streamlab.lab07.urgent_wait(timeline(streamlab, ("background", 1000, 9000), ("urgent", 9600, 9700)), 9500)
    assert "after the background kernel had ended" in wait.problem


@pytest.mark.parametrize("missing", ["background", "urgent"])
def test_a_missing_kernel_is_named(streamlab, missing):
    kernels = [k for k in (("background", 1000, 9000), ("urgent", 2000, 2100)) if k[0] != missing]
    wait = streamlab.lab07.urgent_wait(timeline(streamlab, *kernels), 1500)
    assert f"no {missing} kernel" in wait.problem
