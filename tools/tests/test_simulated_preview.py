"""`course check NN` without a GPU previews the lab on the simulated GPU (common/simgpu, preset `sim`): the
student's own code recorded on the stand-in runtime and judged by that build's judges, with the timeline
drawn, marked as a preview everywhere it shows, and the exit status of a check without a GPU unchanged.

The previews themselves need the simulated build (build-sim: `cmake --preset sim`, about as long as the
course's own build), which `course test` does not make: they are skipped, with the reason, where it is not
configured. The rest needs no build.
"""

import json
import re

import pytest
from coursecli import labs, records
from coursecli.gpu import NO_GPU_EXIT
from coursecli.main import main
from coursecli.records import committed_record
from coursecli.shell import FAILING, ROOT

NO_GPU = (False, "no GPU: hidden by the test")
SIM_BUILD = ROOT / "build-sim"
needs_sim_build = pytest.mark.skipif(
    not (SIM_BUILD / "CMakeCache.txt").is_file(),
    reason="no simulated build here (cmake --preset sim makes build-sim; course test does not, for time)",
)


def test_a_lab_the_simulated_gpu_does_not_cover_says_so(capsys):
    labs._preview_on_the_simulated_gpu("08", "yours", python=False)
    assert (
        "No preview on the simulated GPU for lab 08: the simulated GPU previews labs 01, 02, 03, 04, 05, 06, 07 only"
        in capsys.readouterr().out
    )
    labs._preview_on_the_simulated_gpu("05", "yours", python=True)
    assert "No preview on the simulated GPU for the Python track yet" in capsys.readouterr().out


def test_a_simulated_records_pictures_say_simulated(tmp_path):
    """The trace drawn from a record of the simulated GPU names its device "... (simulated)"; a GPU's
    record keeps its device's own name."""
    real = committed_record(ROOT, "05-three-chunks", "h200", "solution")
    lines = [json.loads(line) for line in real.read_text().splitlines() if line]
    lines[0]["simulated"] = True
    simulated = tmp_path / "simulated.record.jsonl"
    simulated.write_text("".join(json.dumps(line) + "\n" for line in lines))
    name = records.scenario_trace(simulated, "pipeline")["otherData"]["device"]["name"]
    assert name == "NVIDIA H200 (simulated)"
    assert records.scenario_trace(real, "pipeline")["otherData"]["device"]["name"] == "NVIDIA H200"


def check_without_a_gpu(monkeypatch, capsys, *argv) -> tuple[int, str]:
    monkeypatch.setattr(labs, "gpu_presence", lambda: NO_GPU)
    status = main(["check", *argv])
    return status, capsys.readouterr().out


@needs_sim_build
def test_the_solution_previews_full_points_and_its_staircase(monkeypatch, capsys):
    status, out = check_without_a_gpu(monkeypatch, capsys, "05", "--solution")
    assert status == NO_GPU_EXIT, out  # a preview is no grade: the check ends as any check without a GPU
    assert "Preview on the simulated GPU (a model of an NVIDIA H200): a preview, not your grade" in out
    assert "Lab 05 (solution, simulated NVIDIA H200: a preview): graded tests" in out
    assert "  total                                          18/18" in out, out
    assert "Timeline of the solution's run on the simulated GPU (a preview):" in out
    assert (SIM_BUILD / "plots" / "lab05-simulated-solution.png").is_file()


@needs_sim_build
def test_the_starter_previews_its_failing_tests_with_their_hints(monkeypatch, capsys):
    status, out = check_without_a_gpu(monkeypatch, capsys, "05")
    preview = out.split("Preview on the simulated GPU", 1)[1]
    assert status == FAILING, out  # its prediction.txt is unanswered: a check that needs no GPU, as without a preview
    assert re.search(r"ThreeChunks\.EachChunkRunsInItsOwnStream +0/2  FAIL", preview), preview
    assert re.search(r"ThreeChunks\.CopiesOverlapKernels +0/3  FAIL", preview), preview
    assert "hint:" in preview
