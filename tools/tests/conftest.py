"""Fixtures shared by the test files. The tools' packages are found by name: tools/pyproject.toml puts
tools/ on pytest's path."""

import shutil
from pathlib import Path

import pytest
from coursecli import batch
from coursecli.shell import ROOT

GRADED_LAB = "01-null-stream"


def copy_course(root: Path, python: bool = False) -> Path:
    """The course with lab 01 only, so that a batch builds quickly and other labs cannot disturb it; with
    `python`, also the Python module's sources and the course's .venv (the module is built for its Python)."""
    root.mkdir(parents=True)
    for name in ("CMakeLists.txt", "CMakePresets.json"):
        shutil.copy(ROOT / name, root / name)
    for name in ("cmake", "common", f"labs/{GRADED_LAB}", *(["python"] if python else [])):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "labs" / "CMakeLists.txt", root / "labs" / "CMakeLists.txt")
    (root / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "CMakeLists.txt", root / "tools" / "CMakeLists.txt")
    if python:
        (root / ".venv").symlink_to(ROOT / ".venv")
    return root


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory) -> tuple[Path, Path]:
    """(course, build): the course with lab 01, C++ and Python, built for grading once for the whole run, as
    Slurm's build job builds it (`course grade --build-course-only`). A test grades with it through
    GradeSettings(course_root=course, course_build_dir=build, course_prebuilt=True), which builds each
    submission in its own folder and never writes to the shared build, so tests may use it at once."""
    folder = tmp_path_factory.mktemp("graded-course")
    course = copy_course(folder / "course", python=(ROOT / ".venv").exists())
    build = folder / "build"
    for python in (False, True) if (course / "python").exists() else (False,):
        labs = batch.selected_labs(["01"], course, python=python)
        settings = batch.GradeSettings(
            out=folder / "log",
            labs=labs,
            all_labs=labs,
            cuda_arch="90",
            course_root=course,
            course_build_dir=build,
            python=python,
        )
        if batch.build_course_only(settings) != 0:
            pytest.fail(f"the course for the grading tests did not build: see {folder / 'log' / '.work'}")
    return course, build


@pytest.fixture
def grade_without_gpu(graded_course, monkeypatch):
    """grade(submissions, out, python=False) -> grade_batch's status: the batch graded with graded_course,
    lab 01's C++ or Python track, as on a machine without a GPU even where there is one."""
    course, build = graded_course
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setattr(batch, "gpu_presence", lambda: (False, "no GPU: hidden by the test"))

    def grade(submissions: Path, out: Path, python: bool = False) -> int:
        labs = batch.selected_labs(["01"], course, python=python)
        settings = batch.GradeSettings(
            out=out,
            labs=labs,
            all_labs=labs,
            cuda_arch="90",
            course_root=course,
            jobs=2,
            timeout_s=60,
            python=python,
            course_build_dir=build,
            course_prebuilt=True,
        )
        return batch.grade_batch(submissions, settings)

    return grade
