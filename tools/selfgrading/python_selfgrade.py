"""The Python labs graded as the grader grades them: on a GPU, every Python solution must
pass every graded test, every Python starter must fail some, and every known-wrong
sample of PYTHON_CATALOGUE (a solution with one mistake planted) must fail exactly
the tests it names, so that a test grades its own idea and nothing else.

    python3 -m selfgrading.python_selfgrade [--labs 01 05] [--build build-ci] [--keep-records DIR]

Each variant is recorded once by its lab's recording program under the harness and its record judged
by the C++ track's judges, as `course grade --python` grades a submission (python_grading.py): no
process that ran the student's code decides a verdict. Exits 77 without a GPU, 2 without the built
module, 1 when a rule breaks, 0 otherwise. --keep-records keeps each catalogue sample's record where it
is committed for CI's judges (selfgrade.copy_kept_record; tools/tests/test_lab_records.py).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from coursecli import recording
from coursecli.course_build import CourseBuild
from coursecli.gpu import gpu_presence
from coursecli.grade_settings import GradeSettings
from coursecli.python_grading import grade_python_lab
from coursecli.python_module import module_python
from coursecli.records import COMMITTED_RECORDS
from coursecli.results import read_labels
from coursecli.scoring import FAILED, NOT_GRADED, PASSED
from coursecli.shell import COURSE_ERROR, ROOT
from coursecli.submissions import LabSources, selected_labs

from .selfgrade import SKIP, copy_kept_record

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


def grade_variant(lab: LabSources, student: Path, settings: GradeSettings, reports: Path) -> tuple[dict[str, str], str]:
    """(test name -> PASSED, FAILED or NOT_GRADED, "" or, when the harness wrote no record, why): lab `lab`'s
    Python track recorded on `student` and judged as `course grade --python` grades it
    (python_grading.grade_python_lab), the recording run here rather than in a sandbox."""
    printed = []

    def run_step(command: list, env: dict[str, str], cwd: Path) -> tuple[int, str]:
        ended = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
        printed.append(ended.stdout + ended.stderr)
        return ended.returncode, printed[-1]

    graded = grade_python_lab(lab, settings, settings.module_python, True, run_step, student, reports)
    record = recording.record_file(reports, lab.number, "python-yours")
    ended = "" if record.is_file() else f"the recording harness wrote no record: {''.join(printed)}"
    return {test.name: test.status for test in graded.tests}, ended


def judge(name: str, outcomes: dict[str, str], must_fail: frozenset[str] | None) -> str:
    """ "" when `outcomes` keep the rule for this variant, else what breaks it. must_fail None: a starter."""
    failed = {test for test, status in outcomes.items() if status == FAILED}
    skipped = {test for test, status in outcomes.items() if status == NOT_GRADED}
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
    python = module_python(args.build)
    if python is None:
        print(f"python_selfgrade: the course's Python module is not built in {args.build}: run ./course build")
        return COURSE_ERROR
    present, why = gpu_presence()  # asked of the driver: the module itself is loaded by each test's own process
    if not present:
        print(f"SKIPPED: {why}")
        return SKIP
    problems = []
    with tempfile.TemporaryDirectory(prefix="python-selfgrade-") as work:
        work_dir = Path(work)
        labels = read_labels(args.build)
        settings = GradeSettings(work_dir, [], [], RECORDING_TIMEOUT_S, course_labels=labels, module_python=python)
        settings.course_build = CourseBuild(args.build)
        for lab in selected_labs(None, python=True):
            if args.labs and lab.number not in args.labs:
                continue
            solution = ROOT / "solutions" / lab.folder / "python"
            variants = [("starter", ROOT / "labs" / lab.folder / "python", None), ("solution", solution, frozenset())]
            for sample, mistake in PYTHON_CATALOGUE.items():
                if mistake.lab == lab.folder:
                    folder = work_dir / sample
                    shutil.copytree(solution, folder)
                    text = (folder / mistake.file).read_text()
                    if mistake.old not in text:
                        problems.append(f"{sample}: the solution no longer has the line the mistake replaces")
                        continue
                    (folder / mistake.file).write_text(text.replace(mistake.old, mistake.new, 1))
                    variants.append((sample, folder, mistake.must_fail))
            for name, folder, must_fail in variants:
                reports = work_dir / f"{lab.folder}-{name}"
                outcomes, ended = grade_variant(lab, folder, settings, reports)
                record = recording.record_file(reports, lab.number, "python-yours")
                if args.keep_records is not None and name in PYTHON_CATALOGUE and record.is_file():
                    print(f"python_selfgrade: kept {copy_kept_record(record, lab.folder, name, args.keep_records)}")
                problem = judge(f"lab {lab.number} {name}", outcomes, must_fail)
                if ended:
                    problem = f"{problem}: {ended}"
                passed = sum(status == PASSED for status in outcomes.values())
                print(f"python_selfgrade: lab {lab.number} {name}: {passed}/{len(outcomes)} passed: {problem or 'ok'}")
                if problem:
                    problems.append(problem)
    for problem in problems:
        print(f"python_selfgrade: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
