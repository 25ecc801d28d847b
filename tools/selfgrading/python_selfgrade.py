"""The Python labs graded as the grader grades them: on a GPU, every Python solution must
pass every graded test, every Python starter must fail some, and every known-wrong
sample of PYTHON_CATALOGUE (a solution with one mistake planted) must fail exactly
the tests it names, so that a test grades its own idea and nothing else.

    python3 -m selfgrading.python_selfgrade [--labs 01 05] [--build build-ci] [--keep-records DIR]

Each variant of a Python track (every one is recorded once: recorder in its lab.json) is
recorded by its recording program under the harness, and its record judged by the C++ track's
judges; no process that ran the student's code decides a verdict. Exits 77 without a GPU or
without the built module, 1 when a rule breaks, 0 otherwise. With --keep-records DIR, each catalogue
sample's record is copied to DIR/common/tests/records/NN-topic/GPU-SAMPLE.record.jsonl, GPU named for the
device the record was made on (h100-, h200-: selfgrade.copy_kept_record), which is where it is committed
for CI's judges (tools/tests/test_lab_records.py).
Standard library only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from coursecli import environment, judging, recording
from coursecli.gpu import gpu_presence
from coursecli.lab_declaration import read_lab
from coursecli.python_module import module_python
from coursecli.records import COMMITTED_RECORDS
from coursecli.shell import COURSE_ERROR, ROOT

from .selfgrade import copy_kept_record

SKIP = 77
RECORDING_TIMEOUT_S = 120  # the harness's deadline for a whole recording: the labs' default ctest timeout


@dataclass(frozen=True)
class Mistake:
    """A known-wrong Python submission: the solution's `file` in `lab`, `old` replaced by `new`."""

    lab: str
    file: str
    old: str
    new: str
    must_fail: frozenset[str]


PYTHON_CATALOGUE = {
    "wrong-py-lab01-time-not-from-events": Mistake(
        "01-null-stream",
        "null_stream.py",
        "        return check(cudart.cudaEventElapsedTime(start, stop))",
        "        check(cudart.cudaEventElapsedTime(start, stop))\n        return 1.0  # a made-up time",
        frozenset({"SerialRun.EventTimeMatchesTimeline"}),
    ),
    "wrong-py-lab02-streams-never-destroyed": Mistake(
        "02-streams",
        "streams.py",
        "            check(cudart.cudaStreamDestroy(stream))",
        "            pass  # cudaStreamDestroy forgotten",
        frozenset({"Streams.EveryCreatedStreamIsDestroyed"}),
    ),
    "wrong-py-lab03-pinned-memory-never-freed": Mistake(
        "03-pinned-memory",
        "pinned_memory.py",
        "    check(cudart.cudaFreeHost(address))",
        "    pass  # cudaFreeHost forgotten",
        frozenset({"PinnedAllocations.EveryAllocationIsFreed"}),
    ),
    "wrong-py-lab04-device-memory-never-freed": Mistake(
        "04-async-copies",
        "async_copies.py",
        "        check(cudart.cudaFreeAsync(device_input, stream))\n"
        "        check(cudart.cudaFreeAsync(device_output, stream))",
        "        pass  # cudaFreeAsync forgotten",
        frozenset({"Batches.DeviceMemoryFromTheStreamOrderedAllocator"}),
    ),
    "wrong-py-lab05-stop-without-join": Mistake(
        "05-three-chunks",
        "three_chunks.py",
        "        for done in chunk_done[1:]:\n            check(cudart.cudaStreamWaitEvent(first, done, 0))",
        "        pass  # no join: `stop` waits for the first stream only",
        frozenset({"ThreeChunks.ReportedSpeedupMatchesTimeline"}),
    ),
    # The host refills a staging buffer without waiting for the H2D copy that last read it (the C++
    # catalogue's wrong-lab06-staging-reused-early). The results come out right while the GPU keeps
    # up; the hazards' scenario, with a slow GPU, shows the early reuse.
    "wrong-py-lab06-staging-reused-early": Mistake(
        "06-many-chunks",
        "many_chunks.py",
        "            if c >= staging_slots:\n                check(cudart.cudaEventSynchronize(copied_in[s]))",
        "            pass  # the staging buffer is written without waiting for its last H2D copy",
        frozenset({"ManyChunks.NoBufferReusedBeforeItsLastUseEnded"}),
    ),
    "wrong-py-lab07-consumed-on-the-host": Mistake(
        "07-dependencies-and-graphs",
        "dependencies.py",
        "        check(cudart.cudaLaunchHostFunc(streams.copy_out, consumer.host_function, consumer.user_data(c)))",
        "        check(cudart.cudaStreamSynchronize(streams.copy_out))\n        consumer.consume(c)  # here, after waiting",
        frozenset({"HostConsumer.ConsumedInHostFunctionsThatCallNoCuda"}),
    ),
    "wrong-py-lab07-graph-without-join": Mistake(
        "07-dependencies-and-graphs",
        "dependencies.py",
        "        for stage in stages:\n            check(cudart.cudaEventRecord(joined, stage))\n"
        "            check(cudart.cudaStreamWaitEvent(origin, joined, 0))",
        "        pass  # no join: the capture ends with the stage streams still forked",
        frozenset(
            {
                "Graph.ResultsMatchCpuReference",
                "Graph.OneInstantiationLaunchedManyTimes",
                "Graph.ChunksOverlapInsideEachLaunch",
            }
        ),
    ),
    # Blocking streams: the memset in the legacy NULL stream waits for every chunk queued before it, and
    # every chunk queued after it waits for the memset. The results stay right; the overlap is gone.
    "wrong-py-lab09-memset-in-the-null-stream": Mistake(
        "09-why-streams-serialize",
        "serialize.py",
        "            check(cudart.cudaMemsetAsync(device_out[i], 0, nbytes, stream))",
        "            check(cudart.cudaMemset(device_out[i], 0, nbytes))",
        frozenset(
            {
                "Serialize.EachChunkRunsInItsOwnStream",
                "Serialize.CopiesOverlapKernels",
                "Serialize.MakespanNearTheModel",
            }
        ),
    ),
    # Task 2: a wait for each chunk's stream right after its work is queued, so that its kernel's
    # error shows in its chunk. Every report is right, with or without launch blocking, and no
    # chunk overlaps another (the C++ catalogue's lab09-waits-per-chunk).
    "wrong-py-lab09-waits-per-chunk": Mistake(
        "09-why-streams-serialize",
        "late_error.py",
        "            if error != SUCCESS:\n                report = ChunkError(i, error)\n",
        "            if error == SUCCESS:\n"
        "                (error,) = cudart.cudaStreamSynchronize(stream)  # the chunk's error, in its chunk\n"
        "            if error != SUCCESS:\n                report = ChunkError(i, error)\n",
        frozenset({"LateError.ChecksKeepThePipelineOverlapped"}),
    ),
    # An event made without cudaEventBlockingSync: cudaEventSynchronize then waits as the device's
    # schedule flag says, by spinning under the default one on a machine with more cores than GPUs.
    # The wait still returns when the work is done; its CPU time is the whole wait's. The
    # solution's choice (polling) is graded from its wait_polling, which this leaves alone.
    "wrong-py-lab09-event-without-blocking-sync": Mistake(
        "09-why-streams-serialize",
        "waiting_host.py",
        "cudart.cudaEventCreateWithFlags(cudart.cudaEventBlockingSync | cudart.cudaEventDisableTiming)",
        "cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming)",
        frozenset({"WaitingHost.BlockingWaitLeavesTheCpuFree"}),
    ),
}


def python_labs(numbers: list[str] | None) -> list[str]:
    labs = sorted(path.parent.name for path in (ROOT / "labs").glob("[0-9][0-9]-*/python"))
    return [lab for lab in labs if numbers is None or lab[:2] in numbers]


def record_of(junit: Path) -> Path:
    """Where run_tests has the harness write the record whose judges' report is `junit`."""
    return junit.with_suffix(recording.RECORD_SUFFIX)


def run_tests(lab: str, student: Path, build: Path, junit: Path) -> tuple[dict[str, str], str]:
    """(test name -> "passed", "failed" or "skipped", the C++ track's judges' verdicts on the record of
    the lab's Python track run on `student`; "" or, when there is no record, why). The recording
    program runs from the student's folder, with the lab's folder after it on the import path, so that the
    student's modules are imported, not the starter files."""
    lab_python = ROOT / "labs" / lab / "python"
    env = {**os.environ, **environment.python_lab_environment(student, lab_python, ROOT, build)}
    declared = read_lab(ROOT / "labs" / lab)
    record = record_of(junit)
    recorder = lab_python / declared.python_recorder
    command = recording.recording_command(build, lab[:2], record, RECORDING_TIMEOUT_S, [sys.executable, recorder])
    ended = subprocess.run(command, env=env, cwd=student, capture_output=True, text=True)
    if not record.is_file():
        return {}, f"the recording harness wrote no record: {ended.stdout + ended.stderr}"
    tests = [test.name for test in declared.cpp.tests]
    judged = judging.run_judges(build, lab[:2], record, student, junit.parent, tests)
    return {j.test: j.report.result if j.report else "failed" for j in judged}, ""


def judge(name: str, outcomes: dict[str, str], must_fail: frozenset[str] | None) -> str:
    """ "" when `outcomes` keep the rule for this variant, else what breaks it. must_fail None: a starter."""
    failed = {test for test, status in outcomes.items() if status == "failed"}
    skipped = {test for test, status in outcomes.items() if status == "skipped"}
    if not outcomes:
        return f"{name}: no test ran"
    if must_fail is None:
        return "" if failed else f"{name}: the starter failed no test"
    if skipped:
        return f"{name}: not graded here ({', '.join(sorted(skipped))} skipped)"
    return "" if failed == must_fail else f"{name}: failed {sorted(failed) or 'nothing'}, must fail {sorted(must_fail)}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--labs", nargs="+", metavar="NN", help="these labs only (default: every Python lab)")
    parser.add_argument("--build", type=Path, default=ROOT / "build-ci", help="the build with the module")
    parser.add_argument(
        "--keep-records",
        type=Path,
        metavar="DIR",
        help=f"copy each catalogue sample's record into DIR, laid out as committed (DIR/{COMMITTED_RECORDS}/NN-topic/)",
    )
    args = parser.parse_args(argv)
    args.build = args.build.resolve()  # the tests run from the student's folder: the path must not be relative
    if module_python(args.build) is None:
        print(f"python_selfgrade: the course's Python module is not built in {args.build}: run ./course build")
        return COURSE_ERROR
    present, why = gpu_presence()  # asked of the driver: the module itself is loaded by each test's own process
    if not present:
        print(f"SKIPPED: {why}")
        return SKIP
    problems = []
    with tempfile.TemporaryDirectory(prefix="python-selfgrade-") as work:
        work_dir = Path(work)
        for lab in python_labs(args.labs):
            variants = [
                ("starter", ROOT / "labs" / lab / "python", None),
                ("solution", ROOT / "solutions" / lab / "python", frozenset()),
            ]
            for sample, mistake in PYTHON_CATALOGUE.items():
                if mistake.lab == lab:
                    folder = work_dir / sample
                    shutil.copytree(ROOT / "solutions" / lab / "python", folder)
                    text = (folder / mistake.file).read_text()
                    if mistake.old not in text:
                        problems.append(f"{sample}: the solution no longer has the line the mistake replaces")
                        continue
                    (folder / mistake.file).write_text(text.replace(mistake.old, mistake.new, 1))
                    variants.append((sample, folder, mistake.must_fail))
            for name, folder, must_fail in variants:
                junit = work_dir / f"{lab}-{name}.xml"
                outcomes, ended = run_tests(lab, folder, args.build, junit)
                if args.keep_records is not None and name in PYTHON_CATALOGUE and record_of(junit).is_file():
                    kept = copy_kept_record(record_of(junit), lab, name, args.keep_records)
                    print(f"python_selfgrade: kept {kept}")
                problem = judge(f"lab {lab[:2]} {name}", outcomes, must_fail)
                if ended:
                    problem = f"{problem}: {ended}"
                passed = sum(status == "passed" for status in outcomes.values())
                print(f"python_selfgrade: lab {lab[:2]} {name}: {passed}/{len(outcomes)} passed: {problem or 'ok'}")
                if problem:
                    problems.append(problem)
    for problem in problems:
        print(f"python_selfgrade: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
