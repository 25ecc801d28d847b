"""`course grade`, the batch: grades a folder of submissions, each in its own work folder.

The batch finds the submissions (a Slurm array task, its shard of them) and
chooses the isolation; has the course configured and built once
(grading_build.py) and matplotlib's font cache warmed once
(timeline_pictures.py); then grades the submissions `--jobs` at a time, each
by a SubmissionGrader (submission_grader.py). Their recordings each take a GPU
of their own (gpu_slots.py), since GPU timings of two processes sharing a GPU
would disturb each other; their builds and judges run on the CPU meanwhile, so
that more submissions are graded at once than there are GPUs (default_jobs).
A student's report is written as soon as they are graded, and the gradebook
with it (gradebook.py); the progress line and the summary say how busy the
GPUs were.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import environment, sandbox
from .gpu import gpu_devices, gpu_presence  # noqa: F401  (grade_batch asks them; tests replace them here)
from .gpu_slots import GpuSlots, chosen_devices
from .grade_settings import DEFAULT_TIMEOUT_S, GradeSettings  # noqa: F401  (re-exported: the batch's API)
from .gradebook import lab_points, load_grade, save_grade, student_folder, summary_table, write_gradebook
from .grading_build import course_build_folder, lock_course_build, prepare_course, use_prebuilt_course
from .progress import Progress
from .sandbox import Sandbox, SandboxUnavailable, View, choose_isolation
from .scoring import SubmissionGrade
from .shell import COURSE_ERROR
from .submission_grader import SubmissionGrader
from .submissions import find_submissions, student_name
from .timeline_pictures import prepare_plotting


def grade_batch(submissions: Path, settings: GradeSettings) -> int:
    """Grades every submission in `submissions`; writes OUTDIR; prints progress and a summary."""
    if not submissions.exists():
        print(f"course: {submissions} does not exist")
        return COURSE_ERROR
    found = find_submissions(submissions)
    if not found:
        print(f"course: no submissions in {submissions} (folders, .zip or .tar.gz files)")
        return COURSE_ERROR
    folders = [student_folder(settings.out, student_name(p)).name for p in found]
    clashes = sorted({name for name in folders if folders.count(name) > 1})
    if clashes:
        print(f"course: several submissions share a student name: {', '.join(clashes)}; rename them")
        return COURSE_ERROR
    found = shard_of(found, settings)
    numbers = [lab.number for lab in settings.labs]
    if not prepare_isolation(submissions, settings):
        return COURSE_ERROR
    started = time.monotonic()
    gpu = gpu_presence()
    devices = chosen_devices(gpu_devices(), settings.gpus) if gpu[0] else []
    jobs = settings.jobs or default_jobs(os.cpu_count() or 1, len(devices))
    # At least one more submission than GPUs: it builds while the others record, so that no GPU waits for a build.
    jobs = max(jobs, len(devices) + 1) if settings.isolation.kind != sandbox.FALLBACK else 1
    gpus = f"{len(devices)} GPU(s), one submission's recordings on each" if devices else "tests on the CPU only"
    print(
        f"course: grading {len(found)} submission(s), labs {' '.join(numbers)}, {jobs} at a time, "
        f"{settings.timeout_s} s per test; GPU: {gpu[1]}; {gpus}",
        flush=True,
    )
    print(f"course: isolation: {settings.isolation.describe()}", flush=True)
    to_grade = [s for s in found if settings.regrade or not already_graded(settings.out, student_name(s), numbers)]
    if settings.course_prebuilt:  # read by every Slurm array task at once: no lock, nothing built
        problem = use_prebuilt_course(settings) if to_grade else ""
    else:
        lock = lock_course_build(settings) if to_grade else None
        if to_grade and lock is None:
            print(
                f"course: another batch is using the course build in {course_build_folder(settings)}; "
                "wait for it to end, or give another --course-build"
            )
            return COURSE_ERROR
        problem = prepare_course(settings) if to_grade else ""
    if to_grade and gpu[0]:  # timelines are drawn only where a GPU recorded them
        prepare_plotting(settings)
    if problem:
        print(f"course: {problem}")
        return COURSE_ERROR
    print_lock = threading.Lock()
    slots = GpuSlots(devices)  # made now: the GPUs' busy share counts from the first submission
    progress = Progress(len(found), jobs, gpu_busy=slots.busy_share if devices else None)
    build_seconds: list[float] = []

    def grade_one(submission: Path) -> None:
        student = student_name(submission)
        if submission not in to_grade:
            progress.finish(student, "already graded (--regrade to grade again)", None)
            return
        progress.start(student)
        grade = grade_or_explain(submission, settings, gpu, slots)
        with print_lock:
            write_gradebook(settings.out, numbers)
            build_seconds.append(grade.build_seconds)
        labs = ", ".join(
            f"lab{lab.number} {lab_points(lab)}" + (f" ({lab.problem})" if lab.problem else "") for lab in grade.labs
        )
        built = "" if settings.python else f", build {grade.build_seconds:.1f} s"
        message = f"{labs}  [{grade.seconds:.0f} s{built}]" + (f"  {grade.problem}" if grade.problem else "")
        progress.finish(student, message, grade.seconds)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for future in [pool.submit(grade_one, s) for s in found]:
            future.result()
    progress.close()
    grades = write_gradebook(settings.out, numbers)
    if not settings.keep_builds:
        shutil.rmtree(settings.out / ".work", ignore_errors=True)
    print()
    print(summary_table(grades, numbers))
    if build_seconds:
        busy = f", GPU busy {slots.busy_share():.0%} of it" if devices else ""
        wall = f"\ncourse: {len(build_seconds)} graded in {time.monotonic() - started:.0f} s (wall){busy}"
        mean = sum(build_seconds) / len(build_seconds)
        builds = f"; build per submission (compile alone + link): mean {mean:.1f} s, max {max(build_seconds):.1f} s"
        print(wall + ("" if settings.python else builds))  # nothing of a Python submission is built
    print(f"\ncourse: gradebook {settings.out / 'gradebook.csv'}; reports in {settings.out / 'students'}")
    return 0


def already_graded(out: Path, student: str, numbers: list[str]) -> bool:
    """Whether `student` has a grade that verifies and covers every lab in `numbers`."""
    previous = load_grade(student_folder(out, student))
    return previous is not None and set(numbers) <= {lab.number for lab in previous.labs}


def shard_of(found: list[Path], settings: GradeSettings) -> list[Path]:
    """The submissions this run grades: those the --todo file lists (all without one), then every
    count-th from the index-th (a Slurm array task's shard, slurm.py)."""
    if settings.todo is not None:
        listed = set(settings.todo.read_text().splitlines())
        found = [submission for submission in found if str(submission) in listed]
    index, count = settings.shard
    return found[index::count]


def prepare_isolation(submissions: Path, settings: GradeSettings) -> bool:
    """Chooses the batch's isolation (settings.isolation); False, with the reason printed, when it cannot run."""
    try:
        settings.isolation = choose_isolation(settings.sandbox, settings.bwrap)
    except SandboxUnavailable as problem:
        print(f"course: cannot grade in a sandbox: {problem}")
        return False
    settings.submissions = submissions
    if settings.isolation.kind != sandbox.FALLBACK:
        return True
    if settings.jobs != 1:  # the fallback hides nothing: one submission at a time, so none can reach another's build
        print("course: without bubblewrap, submissions are graded one at a time")
        settings.jobs = 1
    settings.out.mkdir(parents=True, exist_ok=True)
    tools = [shutil.which(name) or name for name in ("cmake", "ctest")] + [environment.find_nvcc() or "nvcc"]
    unreachable = Sandbox(settings.isolation, View()).unreachable(
        [settings.course_root, settings.out, Path(sys.executable), *map(Path, tools)]
        + [folder for folder in [course_build_folder(settings)] if folder.exists()]
    )
    if unreachable:
        print(
            f"course: uid {sandbox.NOBODY} cannot read {', '.join(map(str, unreachable))}: put the course, the "
            "output folder and the tools where every user may read them, or install bubblewrap"
        )
        return False
    return True


def grade_or_explain(
    submission: Path, settings: GradeSettings, gpu: tuple[bool, str], slots: GpuSlots
) -> SubmissionGrade:
    """Grades one submission; whatever goes wrong, the student still gets a row that says what."""
    try:
        return SubmissionGrader(submission, settings, gpu, slots).grade()
    except Exception as problem:  # noqa: BLE001  one submission must never stop the batch
        grade = SubmissionGrade(student_name(submission), problem=f"grader error: {problem!r}"[:500])
        try:
            save_grade(student_folder(settings.out, grade.student), grade)
        except Exception:  # noqa: BLE001  the row is still printed and the batch goes on
            pass
        return grade


def default_cuda_arch(gpu_present: bool) -> str:
    """The GPU at hand when there is one (fastest to build), else one architecture, to check compiling."""
    return "native" if gpu_present else "90"


def default_jobs(cpus: int, gpus: int) -> int:
    """Submissions graded at a time, from the machine's CPUs and the GPUs the batch uses. Without a GPU, one
    per four cores, at most four. With GPUs, three per GPU: one records while two build or are judged, since
    building a submission takes longer than recording it (labs 01-07 on an H100, 2026-12-07: 26 s of
    building against 15 s of recording); at most one per two cores, so that the compilers leave the
    recordings' host threads a core; and never fewer than one more than the GPUs."""
    if gpus == 0:
        return max(1, min(4, cpus // 4))
    return max(gpus + 1, min(3 * gpus, cpus // 2))
