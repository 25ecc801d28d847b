"""One batch graded and timed, as the measuring scripts (measure_sandbox, measure_batch) grade theirs."""

from __future__ import annotations

import contextlib
import io
import shutil
import time
from pathlib import Path

from coursecli.batch import GradeSettings, default_cuda_arch, gpu_presence, grade_batch
from coursecli.submissions import selected_labs


def timed_grade(
    submissions: Path, out: Path, labs: list[str], jobs: int, course: Path, sandbox: str = "auto"
) -> tuple[float, str]:
    """Seconds to grade `submissions` into a fresh `out` (the course built in `course` once and kept, so
    that only grading is timed), and what the grader printed; exits, printing it, when the batch fails."""
    shutil.rmtree(out, ignore_errors=True)
    settings = GradeSettings(
        out=out,
        labs=selected_labs(labs),
        all_labs=selected_labs(None),
        jobs=jobs,
        regrade=True,
        cuda_arch=default_cuda_arch(gpu_presence()[0]),
        sandbox=sandbox,
        course_build_dir=course,
    )
    console = io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(console):
        status = grade_batch(submissions, settings)
    seconds = time.monotonic() - started
    if status != 0:
        print(console.getvalue())
        raise SystemExit(f"grading {submissions} (labs {' '.join(labs)}, --sandbox {sandbox}) failed")
    return seconds, console.getvalue()
