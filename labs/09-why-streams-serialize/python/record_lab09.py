"""Lab 09's recording program for the Python track: the only course program that runs your
Python code for grading.

It runs the same scenarios as the C++ track's record_lab09.cpp, on the same set-up, in the
same order: your pipeline next to the serial run (Task 1); the course's cudaStreamSynchronize
under each schedule flag (Task 3's choice); your run_checked_pipeline clean and into a
tripwire, with kernel launches queued and then blocking (Task 2); your two waits (Task 3).
The waits are for the course's job (streamlab.lab09.WaitJob, the C++ lab's course side), and
the course notes what each cost. CUPTI records what the GPU did. It judges nothing: the C++
track's judges (test_lab09.cpp) read its record afterwards, in processes that never load
your code, so both tracks are graded by the same tests, choice.txt included.

Some scenarios need a process of their own (recording.ProcessNeeds), which the harness
starts for them: CUDA reads CUDA_LAUNCH_BLOCKING, and the device takes its schedule flag,
only when it starts, and a tripwire leaves the GPU unusable for the rest of its process.

    streamlab_record --lab 09 --out RECORD --timeout S -- python3 record_lab09.py
"""

from __future__ import annotations

import os
import sys

import streamlab
from cuda.bindings import runtime as cudart
from cuda_check import check
from lab09 import CHUNKS, PageableFloats, checked_job_over, job_over
from streamlab import recording

course = streamlab.lab09  # the C++ lab's course side and what its record holds (lab09_record.hpp)


def device_flags() -> int:
    """The device's flags, its schedule flag among them (cudaGetDeviceFlags)."""
    return check(cudart.cudaGetDeviceFlags())


def record_lab09(session) -> None:
    # Your modules: after the GPU check, so that their errors are their own.
    import late_error
    import serialize
    import waiting_host

    seed = session.seed
    # 256 MiB (less on a small GPU), a kernel over all of it about as long as its whole H2D copy.
    prepared = recording.prepare_recorded_pipeline(session)
    memory, iterations = prepared.memory, prepared.iterations
    n = memory.n

    # ---------------------------------------------------------------- Task 1
    # run_pipeline writes its results into pageable memory.
    output = PageableFloats(n)
    job = job_over(memory, output, iterations)

    def record_pipeline(scenario, chunks: int) -> None:
        """Your pipeline at `chunks` once to warm up, then once more, its output poisoned, while CUPTI records."""
        serialize.run_pipeline(job, chunks)
        streamlab.fill_poison(output.address, n)
        session.record(scenario, "lab09 python run_pipeline", lambda: serialize.run_pipeline(job, chunks))
        scenario.sample_output(output.address, n, iterations, chunks, seed)

    # The stage times the model needs (Tasks 1 and 2), from the serial run on the same data.
    def serial(scenario) -> None:
        session.record(
            scenario,
            "serial reference: H2D, kernel, D2H in the NULL stream",
            lambda: recording.run_serial_once(memory, iterations),
        )

    session.scenario("serial", serial)
    session.scenario("pipeline", lambda scenario: record_pipeline(scenario, CHUNKS))
    for chunks in (1, 5):  # run_pipeline promises any `chunks` >= 1
        session.scenario(f"chunks_{chunks}", lambda scenario, chunks=chunks: record_pipeline(scenario, chunks))

    # ---------------------------------------------------------------- Task 3
    # The course's job over memory of its own, its input from the record's seed; made
    # by the first wait of a process, with the length of the host's slice of work
    # measured then.
    made = []  # (the job, the slice's length), once made

    def job_here():
        if not made:
            wait_job = course.WaitJob(n, iterations, seed)
            made.append((wait_job, wait_job.host_slice_ns()))
        return made[0]

    def record_wait(scenario, kernels: int, wait) -> None:
        """`wait(stream, work)` once unrecorded (its first call pays one-time costs), then for the
        job with `kernels` kernels while CUPTI records: what it cost, the host's slices done in it,
        and the results, sampled the moment it returned."""
        waits, slice_ns = job_here()
        work = course.HostWork(slice_ns)  # made here: this thread is the waiting one

        def waiting(stream: int) -> None:
            wait(stream, work)

        seen = course.WaitValues()
        seen.device_flags_before = device_flags()
        waits.warm_up(waiting)
        work.reset()
        costs = []
        stream = waits.stream

        def observed() -> None:
            waits.queue(kernels)
            costs.append(course.observe_wait(lambda: waiting(stream)))
            scenario.sample_output(waits.output, n, iterations, 1, seed)

        session.record(scenario, "lab09 python wait", observed)
        seen.device_flags_after = device_flags()
        cost, origin = costs[-1], scenario.timeline.origin_ns
        seen.called_ns = cost.called_ns - origin
        seen.returned_ns = cost.returned_ns - origin
        seen.cpu_ns = cost.cpu_ns
        seen.work_ns = work.busy_ns
        seen.slices = work.slices
        seen.slices_elsewhere = work.slices_elsewhere
        seen.mean_slice_ns = work.mean_slice_ns
        course.put_wait(seen, scenario)

    def blocking(stream: int, work) -> None:
        waiting_host.wait_blocking(stream)

    def polling(stream: int, work) -> None:
        waiting_host.wait_polling(stream, work.slice)

    def synchronize(stream: int, work) -> None:
        check(cudart.cudaStreamSynchronize(stream))

    # The ways choice.txt may name that run none of your code: cudaStreamSynchronize
    # under a schedule flag, each flag but the default in a process of its own (see
    # schedule_named_by_the_environment).
    for name in ("auto", "spin", "yield", "blocking-sync"):
        way = course.wait_way(name)
        environment = {} if way.schedule == cudart.cudaDeviceScheduleAuto else {course.SCHEDULE_VARIABLE: way.name}
        session.scenario(
            way.scenario,
            recording.ProcessNeeds(environment),
            lambda scenario: record_wait(scenario, course.LONG_JOB_KERNELS, synchronize),
        )

    # ---------------------------------------------------------------- Task 2
    # In processes of their own: CUDA reads CUDA_LAUNCH_BLOCKING when it starts, and
    # a tripwire leaves the GPU unusable for the rest of its process.
    checked_job = checked_job_over(memory, iterations)
    queued = recording.ProcessNeeds({"CUDA_LAUNCH_BLOCKING": "0"})
    queued_into_tripwire = recording.ProcessNeeds({"CUDA_LAUNCH_BLOCKING": "0"}, True)
    blocking_into_tripwire = recording.ProcessNeeds({"CUDA_LAUNCH_BLOCKING": "1"}, True)

    def put_report(scenario, report, blocked: bool) -> None:
        """What run_checked_pipeline reported, and whether launches blocked in this process."""
        scenario.set_value("chunk", float(report.chunk))
        scenario.set_value("error", float(int(report.error)))
        scenario.set_value("launches_block", 1.0 if blocked else 0.0)

    def late_error_clean(scenario) -> None:
        blocked = course.launches_block(memory.device_input, memory.device_output, n, iterations)
        streamlab.fill_poison(memory.output, n)
        reports = []
        session.record(
            scenario,
            "lab09 python run_checked_pipeline",
            lambda: reports.append(late_error.run_checked_pipeline(checked_job, CHUNKS)),
        )
        put_report(scenario, reports[-1], blocked)
        scenario.sample_output(memory.output, n, iterations, CHUNKS, seed)

    def late_error_overlap(scenario) -> None:
        blocked = course.launches_block(memory.device_input, memory.device_output, n, iterations)
        reports = [late_error.run_checked_pipeline(checked_job, CHUNKS)]  # warm-up
        session.record(
            scenario,
            "lab09 python run_checked_pipeline",
            lambda: reports.append(late_error.run_checked_pipeline(checked_job, CHUNKS)),
        )
        put_report(scenario, reports[-1], blocked)

    def run_into_the_tripwire(scenario) -> None:
        """KTRIPWIRE at a random element of a random chunk: the run fails in that chunk's kernel.
        What it reported, where the tripwire was, and what the course's own wait afterwards
        returned (the faulty kernel's error, when its kernel ran). Untraced: no tracer survives
        the sticky error."""
        blocked = course.launches_block(memory.device_input, memory.device_output, n, iterations)
        tripwire = course.plant_tripwire(memory.input, n, CHUNKS)
        reports = []

        def run() -> None:
            try:
                reports.append(late_error.run_checked_pipeline(checked_job, CHUNKS))
            except Exception as raised:  # noqa: BLE001  whatever it raised is the failure recorded
                # In the judges' words (lab09_record.hpp): they read the message's start.
                raise recording.ScenarioFailed(
                    f"{course.THREW_INSTEAD_OF_REPORTING}{type(raised).__name__}: {raised}"
                ) from raised

        session.run_untraced(scenario, "lab09 python run_checked_pipeline, a tripwire planted", run)
        put_report(scenario, reports[-1], blocked)
        (seen_after,) = cudart.cudaDeviceSynchronize()
        scenario.set_value("seen_after", float(int(seen_after)))
        scenario.set_value("tripwire_chunk", float(tripwire.chunk))
        scenario.set_value("tripwire_index", float(tripwire.index))

    session.scenario("late_error_clean", queued, late_error_clean)
    session.scenario("late_error_overlap", queued, late_error_overlap)
    session.scenario("late_error_tripwire", queued_into_tripwire, run_into_the_tripwire)
    session.scenario("late_error_blocking_tripwire", blocking_into_tripwire, run_into_the_tripwire)

    # Your waits, last: a wait that never returns ends the recording, and nothing else comes after it.
    for kernels in (course.SHORT_JOB_KERNELS, course.LONG_JOB_KERNELS):
        session.scenario(
            course.job_scenario("wait_blocking", kernels),
            lambda scenario, kernels=kernels: record_wait(scenario, kernels, blocking),
        )
    for kernels in (course.SHORT_JOB_KERNELS, course.LONG_JOB_KERNELS):
        session.scenario(
            course.job_scenario("wait_polling", kernels),
            lambda scenario, kernels=kernels: record_wait(scenario, kernels, polling),
        )


def schedule_named_by_the_environment() -> None:
    """The wait under a schedule flag runs in a process started with SCHEDULE_VARIABLE naming its
    way: the flag is set before any other CUDA call, since the device takes it when CUDA starts.
    Its scenario records the flags it ran under."""
    named = os.environ.get(course.SCHEDULE_VARIABLE)
    way = course.wait_way(named) if named else None
    if way is not None:
        (error,) = cudart.cudaSetDeviceFlags(way.schedule)
        if error != cudart.cudaError_t.cudaSuccess:
            cudart.cudaGetLastError()  # no GPU: record_scenarios says so


if __name__ == "__main__":
    schedule_named_by_the_environment()
    sys.exit(recording.record_scenarios(sys.argv, record_lab09))
