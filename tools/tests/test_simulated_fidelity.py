"""The simulated GPU's fidelity page (labs/SIMULATED_GPU_FIDELITY.md, made by selfgrading.simulated_fidelity):
a row for every program the course has a GPU record of in the previewed labs, both tracks; its GPU side what the
judges say of those records now; and every verdict that differs one the preview shows no verdict for.
Where the simulated build is present (build-sim), a few rows are made again on it and compared.
"""

import os
import re
from pathlib import Path

import pytest
from coursecli.labs import SIMULATED_LABS, SIMULATED_NO_VERDICT, SIMULATED_NO_VERDICT_PYTHON, simulated_no_verdict
from coursecli.results import read_labels
from coursecli.scoring import graded_tests
from coursecli.shell import ROOT
from selfgrading import simulated_fidelity

PAGE = simulated_fidelity.PAGE
BUILD = Path(os.environ.get("STREAMLAB_BUILD", ROOT / "build-ci"))
SIM_BUILD = ROOT / "build-sim"
needs_course_build = pytest.mark.skipif(
    not (BUILD / "judges" / "lab05_judge").is_file(), reason="needs the course's build (its judges)"
)
needs_sim_build = pytest.mark.skipif(
    not (SIM_BUILD / "compile_commands.json").is_file(),
    reason="no simulated build here (cmake --preset sim makes build-sim; course test does not, for time)",
)


def page_rows() -> dict[tuple[str, str], tuple[int, int]]:
    """(lab, program) -> (tests with the same verdict, tests), from the page's table."""
    rows = {}
    for lab, whose, same, total in re.findall(r"^\| (\d\d) \| ([\w-]+) \| (\d+) of (\d+) \|", PAGE.read_text(), re.M):
        rows[(lab, whose)] = (int(same), int(total))
    return rows


def page_differences() -> list[tuple[str, str, str, str, str, bool]]:
    """(lab, program, test, GPU verdict, simulated verdict, whether the preview shows no verdict for it)."""
    found = re.findall(
        r"^- lab (\d\d), ([\w-]+): ([\w.]+): (pass|FAIL|not graded), simulated (pass|FAIL|not graded|absent)( \(the "
        r"preview shows no verdict for this test\))?$",
        PAGE.read_text(),
        re.M,
    )
    return [(lab, whose, test, gpu, simulated, bool(none)) for lab, whose, test, gpu, simulated, none in found]


def test_the_page_has_a_row_for_every_program_with_a_gpu_record():
    programs = {(lab, whose) for lab, whose, _ in simulated_fidelity.programs(list(SIMULATED_LABS))}
    assert programs and set(page_rows()) == programs, "run selfgrading.simulated_fidelity --write again"
    for lab, whose, *_ in page_differences():
        same, total = page_rows()[(lab, whose)]
        assert same < total


def test_every_verdict_that_differs_is_one_the_preview_gives_none_for():
    differences = page_differences()
    for lab, whose, test, _, _, no_verdict in differences:
        python = simulated_fidelity.is_python(whose)
        assert no_verdict and simulated_no_verdict(lab, test, python), (lab, whose, test)
    text = PAGE.read_text()
    explained = simulated_fidelity.no_verdict_lines()  # each named on the page, with why
    assert len(explained) == sum(map(len, [*SIMULATED_NO_VERDICT.values(), *SIMULATED_NO_VERDICT_PYTHON.values()]))
    for line in explained:
        assert line in text
    rows = page_rows()
    assert sum(total - same for same, total in rows.values()) == len(differences)


@needs_course_build
def test_the_gpu_side_is_what_the_judges_say_of_the_committed_records_now(tmp_path):
    """Each row counts its track's graded tests of the lab as they are now, and each verdict the page says
    differs is, on the GPU's side, what the judges say of the committed record now. (test_lab_records.py
    judges every committed record against the verdicts it must have.)"""
    differences = {(lab, whose, test): gpu for lab, whose, test, gpu, *_ in page_differences()}
    labels = read_labels(BUILD)
    for lab, whose, files in simulated_fidelity.programs(list(SIMULATED_LABS)):
        track = "python-yours" if simulated_fidelity.is_python(whose) else "yours"
        assert page_rows()[(lab, whose)][1] == len(graded_tests(labels, lab, track)), (lab, whose)
        differing = {test: gpu for (row_lab, row, test), gpu in differences.items() if (row_lab, row) == (lab, whose)}
        if differing:
            row = simulated_fidelity.gpu_side(BUILD, lab, whose, files, tmp_path / f"{lab}-{whose}")
            assert {test: row.gpu[test] for test in differing} == differing, (lab, whose)


@needs_course_build
@needs_sim_build
@pytest.mark.parametrize(
    ("lab", "whose"), [("05", "solution"), ("07", "wrong-lab07-graph-without-join"), ("05", "python-starter")]
)
def test_a_row_made_again_on_the_simulated_gpu_is_the_pages(tmp_path, lab, whose):
    files = next(f for number, name, f in simulated_fidelity.programs([lab]) if name == whose)
    row = simulated_fidelity.compare(SIM_BUILD, BUILD.resolve(), lab, whose, files, tmp_path)
    assert not row.problem and not row.differing
    assert (len(row.gpu), len(row.gpu)) == page_rows()[(lab, whose)]


def test_the_stated_makespan_bound_is_the_tables():
    text = PAGE.read_text()
    differences = [
        float(p)
        for lab, p in re.findall(r"^\| (\d\d) \| [\w-]+ \| .* \(([+-]\d+)%\) \|$", text, re.M)
        if lab not in simulated_fidelity.HOST_PACED
    ]
    stated = re.search(r"^Every simulated makespan is within (\d+)% of the GPU's", text, re.M)
    assert differences and stated and int(stated.group(1)) == max(abs(d) for d in differences)
