"""Fixtures shared by the test files. The tools' packages are found by name: tools/pyproject.toml puts
tools/ on pytest's path.

A test that needs the course built (its judges, its Python module, its ctest registrations) takes the build
`course test` made, which it names in STREAMLAB_BUILD (coursecli.build.build_under_test), never a folder of its
own choosing; run by hand, `STREAMLAB_BUILD=build-ci pytest ...` names one. Without it such a test is skipped,
saying so (NO_COURSE_BUILD)."""

from pathlib import Path

import pytest
from coursecli import batch, grading_build
from coursecli.build import NO_COURSE_BUILD, build_under_test
from coursecli.shell import ROOT
from coursecli.submissions import selected_labs


def pytest_collection_modifyitems(items):
    """The tests that build and grade (marked `builds`) first: run in parallel (pytest-xdist), the long ones
    then start at once on different processes, and the short ones fill in around them instead of leaving
    one long test running alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("builds") is None)


@pytest.fixture(scope="session")
def course_build() -> Path:
    """The build `course test` made and runs the tests on; the test is skipped where none is named."""
    folder = build_under_test()
    if folder is None:
        pytest.skip(NO_COURSE_BUILD)
    return folder


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory) -> tuple[Path, Path]:
    """(course, build): the course, built for grading lab 01 (C++ and Python) and lab 05, recorded once
    (C++), once for the whole run, as
    Slurm's build job builds it (`course grade --build-course-only`). A test grades with it through
    GradeSettings(course_root=course, course_build_dir=build, course_prebuilt=True), which builds each
    submission in its own folder and never writes to the shared build, so tests may use it at once.
    The course is this checkout itself: with ccache, its files compile from the cache that `course test`'s
    own build filled (the same sources at the same paths)."""
    folder = tmp_path_factory.mktemp("graded-course")
    course = ROOT
    build = folder / "build"
    for python in (False, True) if (ROOT / ".venv").exists() else (False,):
        # Both passes name every lab, so that the build's mark (the labs it was built for) covers them all.
        labs = selected_labs(["01", "05"], course, python=python)
        settings = batch.GradeSettings(
            out=folder / "log",
            labs=labs,
            all_labs=labs,
            cuda_arch="90",
            course_root=course,
            course_build_dir=build,
            python=python,
        )
        if grading_build.build_course_only(settings) != 0:
            pytest.fail(f"the course for the grading tests did not build: see {folder / 'log' / '.work'}")
    return course, build


@pytest.fixture
def grade_without_gpu(graded_course, monkeypatch):
    """grade(submissions, out, python=False, lab="01") -> grade_batch's status: the batch graded with
    graded_course, lab 01's or lab 05's C++ or Python track, as on a machine without a GPU even where
    there is one."""
    course, build = graded_course
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setattr(batch, "gpu_presence", lambda: (False, "no GPU: hidden by the test"))

    def grade(submissions: Path, out: Path, python: bool = False, lab: str = "01") -> int:
        labs = selected_labs([lab], course, python=python)
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
