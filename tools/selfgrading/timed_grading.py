"""How the self-checks grade a batch: again, into a fresh output folder, against one course build kept
beside it (regrade_settings); timed, for the measuring scripts (timed_grade)."""

from __future__ import annotations

import contextlib
import io
import shutil
import time
from pathlib import Path

from coursecli.batch import GradeSettings, default_cuda_arch, gpu_presence, grade_batch
from coursecli.submissions import selected_labs


def regrade_settings(out: Path, numbers: list[str] | None, jobs: int | None, sandbox: str = "auto") -> GradeSettings:
    """Grading labs `numbers` (every lab when None) again, `jobs` at a time, into `out`. Every batch links
    against one course build beside the output folders (out/../course), brought up to date by each."""
    return GradeSettings(
        out=out,
        labs=selected_labs(numbers),
        all_labs=selected_labs(None),
        jobs=jobs,
        regrade=True,
        cuda_arch=default_cuda_arch(gpu_presence()[0]),
        sandbox=sandbox,
        course_build_dir=out.parent / "course",
    )


def timed_grade(
    submissions: Path, out: Path, labs: list[str], jobs: int | None, sandbox: str = "auto"
) -> tuple[float, str]:
    """Seconds to grade `submissions` into a fresh `out` (the course built once beside it and kept, so
    that only grading is timed), and what the grader printed; exits, printing it, when the batch fails."""
    shutil.rmtree(out, ignore_errors=True)
    console = io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(console):
        status = grade_batch(submissions, regrade_settings(out, labs, jobs, sandbox))
    seconds = time.monotonic() - started
    if status != 0:
        print(console.getvalue())
        raise SystemExit(f"grading {submissions} (labs {' '.join(labs)}, --sandbox {sandbox}) failed")
    return seconds, console.getvalue()
