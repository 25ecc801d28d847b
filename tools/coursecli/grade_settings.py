"""How a batch is graded (`course grade`'s settings): what every step of the grader reads, and nothing that
runs. Its own module, below the steps, so that a step (python_grading.py's) reads the settings without
importing the orchestrator (batch.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .shell import ROOT

if TYPE_CHECKING:  # the fields' types only: the settings import no step
    from .course_build import CourseBuild
    from .objcheck import CourseCompiler
    from .sandbox import Isolation
    from .submissions import LabSources

DEFAULT_TIMEOUT_S = 30  # per test; a solution's test takes a few seconds


@dataclass
class GradeSettings:
    """How a batch is graded."""

    out: Path
    labs: list[LabSources]  # the labs to grade
    all_labs: list[LabSources]  # every lab of the course (CMake configures them all)
    timeout_s: int = DEFAULT_TIMEOUT_S
    jobs: int | None = 1  # submissions graded at a time; None: from the CPUs and GPUs (batch.default_jobs)
    regrade: bool = False
    cuda_arch: str = ""
    keep_builds: bool = False
    verbose: bool = False
    course_root: Path = ROOT
    sanitize: bool = False  # also run each lab's program under compute-sanitizer
    sanitize_points: int | None = None  # points a clean run earns; None: each lab.json's sanitize_points
    sandbox: str = "auto"  # auto, bubblewrap, fallback or none (sandbox.MODES)
    bwrap: str | None = None  # bwrap's path, when not on PATH
    isolation: Isolation | None = None  # chosen by grade_batch
    submissions: Path | None = None  # hidden from the steps, with the output folder
    compiler: CourseCompiler | None = None  # the course build's compile commands (prepare_course)
    course_labels: dict[str, list[str]] | None = None
    course_build: CourseBuild | None = None  # the batch's built course (prepare_course)
    course_build_dir: Path | None = None  # a course build kept between batches (--course-build); None: own
    course_prebuilt: bool = False  # course_build_dir was built by a job before (Slurm's build job): used as it is
    gpus: int | None = None  # GPUs to use at most (None: all the driver shows)
    todo: Path | None = None  # grade only the submissions this file lists (a Slurm shard)
    shard: tuple[int, int] = (0, 1)  # (index, count): grade found[index::count]
    python: bool = False  # the labs' Python versions (python_grading.py) instead of the C++ ones
    module_python: str | None = None  # the Python the course's module was built for (prepare_course)
