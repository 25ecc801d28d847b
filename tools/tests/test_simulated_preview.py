"""`course check NN` without a GPU previews the lab on the simulated GPU (common/simgpu, preset `sim`): the
student's own code recorded on the stand-in runtime and judged by that build's judges, with the timeline
drawn, marked as a preview everywhere it shows, and the exit status of a check without a GPU unchanged.

The previews themselves need the simulated build (build-sim: `cmake --preset sim`, about as long as the
course's own build), which `course test` does not make: they are skipped, with the reason, where it is not
configured. The rest needs no build.
"""

import json
import os
import re
import shutil
import subprocess

import pytest
from coursecli import environment, labs, objcheck, recording, records, sanitize
from coursecli.course_build import CourseBuild, starter_targets
from coursecli.gpu import NO_GPU_EXIT
from coursecli.main import main
from coursecli.python_module import module_python
from coursecli.records import committed_record
from coursecli.results import read_labels
from coursecli.scoring import FAILED, grade_record, graded_tests
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
        "No preview on the simulated GPU for lab 08: the simulated GPU previews labs 01, 02, 03, 04, 05, 06, 07, 09 only"
        in capsys.readouterr().out
    )
    labs._preview_on_the_simulated_gpu("08", "yours", python=True)
    assert "No preview on the simulated GPU for lab 08" in capsys.readouterr().out


def test_no_preview_is_made_where_it_is_turned_off(capsys, monkeypatch):
    monkeypatch.setenv(labs.NO_PREVIEW, "1")
    monkeypatch.setattr(labs, "build", lambda *_: pytest.fail("the preview's build started"))
    labs._preview_on_the_simulated_gpu("05", "yours", python=True)
    assert capsys.readouterr().out == f"No preview on the simulated GPU: {labs.NO_PREVIEW} is set.\n"


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
    assert "  nothing: every stream, event, device allocation and pinned buffer it made was released" in out


@needs_sim_build
def test_the_python_solution_previews_full_points_and_its_staircase(monkeypatch, capsys):
    """The Python track runs on the same simulated GPU: the simulated build's module answers cuda-bindings'
    runtime calls (python/simulated_cuda_runtime.py), and the same judges grade its record."""
    status, out = check_without_a_gpu(monkeypatch, capsys, "05", "--python", "--solution")
    assert status == NO_GPU_EXIT, out
    assert "Lab 05 (solution, simulated NVIDIA H200: a preview, Python): graded tests" in out
    assert "  total                                          18/18" in out, out
    assert (SIM_BUILD / "plots" / "lab05-simulated-python-solution.png").is_file()


@needs_sim_build
def test_the_starter_previews_its_failing_tests_with_their_hints(monkeypatch, capsys):
    status, out = check_without_a_gpu(monkeypatch, capsys, "05")
    preview = out.split("Preview on the simulated GPU", 1)[1]
    assert status == FAILING, out  # its prediction.txt is unanswered: a check that needs no GPU, as without a preview
    assert re.search(r"ThreeChunks\.EachChunkRunsInItsOwnStream +0/2  FAIL", preview), preview
    assert re.search(r"ThreeChunks\.CopiesOverlapKernels +0/3  FAIL", preview), preview
    assert "hint:" in preview


LAB05 = "05-three-chunks"
SOLUTION05 = (ROOT / "solutions" / LAB05 / "three_chunks.cu").read_text()
COPY_IN = """        SL_CHECK(cudaMemcpyAsync(job.device_input + chunk.offset, job.input + chunk.offset, bytes,
                                 cudaMemcpyHostToDevice, stream));"""
STREAMS = """    std::vector<streamlab::Stream> streams;
    for (int i = 0; i < chunks; ++i) {
        streams.emplace_back(cudaStreamNonBlocking);
    }
    cudaStream_t first = streams.front().get();"""
# The four classic mistakes of lab 05, each made in the solution: the tests it fails and what it leaves behind.
MISTAKES = {
    "a synchronous copy in the loop": (
        SOLUTION05.replace(
            COPY_IN,
            "        SL_CHECK(cudaMemcpy(job.device_input + chunk.offset, job.input + chunk.offset, bytes,\n"
            "                            cudaMemcpyHostToDevice));",
        ),
        {"EachChunkRunsInItsOwnStream", "StreamsDoNotWaitForTheNullStream"},
        set(),
    ),
    "streams without cudaStreamNonBlocking": (
        SOLUTION05.replace("emplace_back(cudaStreamNonBlocking)", "emplace_back(cudaStreamDefault)"),
        {"StreamsDoNotWaitForTheNullStream"},
        set(),
    ),
    "streams never destroyed": (
        SOLUTION05.replace(
            STREAMS,
            "    std::vector<cudaStream_t> streams(chunks);\n"
            "    for (int i = 0; i < chunks; ++i) {\n"
            "        SL_CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));\n"
            "    }\n"
            "    cudaStream_t first = streams.front();",
        ).replace("streams[i].get()", "streams[i]"),
        set(),
        {"leaked stream"},
    ),
    "a cudaMalloc never freed": (
        SOLUTION05.replace(
            "    cudaStream_t first = streams.front().get();",
            "    cudaStream_t first = streams.front().get();\n"
            "    float* scratch = nullptr;\n"
            "    SL_CHECK(cudaMalloc(&scratch, job.n * sizeof(float)));",
        ),
        # The programming guide lists a device memory allocation among the operations that keep commands of
        # different streams from overlapping, and the simulated GPU follows it.
        {"StreamsDoNotWaitForTheNullStream"},
        {"leaked device memory"},
    ),
}


def run_on_the_simulated_gpu(tmp_path, source: str):
    """Lab 05 with `source` as its three_chunks.cu, graded on the simulated GPU as the grader grades a
    submission (compiled alone, linked after the simulated build's own code, recorded under its harness,
    judged by its judges), and its program's census: (the failed tests, the kinds of what it left behind)."""
    staged = tmp_path / "labs"
    shutil.copytree(ROOT / "solutions" / LAB05, staged / LAB05)
    (staged / LAB05 / "three_chunks.cu").write_text(source)
    rules = objcheck.lab_rules(ROOT / "labs" / LAB05, ["three_chunks.cu"])
    compiler = objcheck.CourseCompiler(SIM_BUILD, ROOT)
    refusal, output = objcheck.check_lab(LAB05, ["three_chunks.cu"], staged, tmp_path / "obj", rules, compiler)
    assert refusal is None and not output, output
    library = tmp_path / "liblab05_yours.a"
    subprocess.run(["ar", "qc", library, objcheck.object_path(tmp_path / "obj", LAB05, "three_chunks.cu")], check=True)
    for target in starter_targets("05"):
        folder, command = CourseBuild(SIM_BUILD).link_command(target, "05", library, tmp_path / target)
        subprocess.run(command, cwd=folder, check=True, capture_output=True)
    record = recording.record_file(tmp_path, "05", "yours")
    subprocess.run(
        recording.recording_command(SIM_BUILD, "05", record, 120, [tmp_path / "lab05_yours_record"]),
        check=True,
        capture_output=True,
    )
    tests = graded_tests(read_labels(SIM_BUILD), "05", "yours")
    graded = grade_record(SIM_BUILD, "05", LAB05, record, staged / LAB05, tmp_path / "reports", tests)
    failed = {test.name.split(".", 1)[1] for test in graded.tests if test.status == FAILED}

    def runner(command, env, timeout_s):
        done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True, timeout=timeout_s)
        return done.returncode, done.stdout + done.stderr

    sources = sanitize.lab_sources(LAB05, ["three_chunks.cu"])
    findings, problem = sanitize.census_findings(
        tmp_path / "lab05_yours_run", sources, tmp_path / "census", 120, runner
    )
    assert not problem
    return failed, {finding.kind for finding in findings}


@needs_sim_build
@pytest.mark.parametrize("mistake", MISTAKES)
def test_each_classic_mistake_of_lab05_shows_in_the_preview(tmp_path, mistake):
    source, failing, left_behind = MISTAKES[mistake]
    assert source != SOLUTION05  # the mistake was made
    assert run_on_the_simulated_gpu(tmp_path, source) == (failing, left_behind)


@needs_sim_build
def test_a_test_whose_simulated_verdict_is_not_faithful_is_previewed_without_one(monkeypatch, capsys):
    status, out = check_without_a_gpu(monkeypatch, capsys, "06", "--solution")
    preview = out.split("Preview on the simulated GPU", 1)[1]
    assert status == NO_GPU_EXIT, out
    assert re.search(r"ManyChunks\.MakespanNearTheModel +-/\d+  not graded", preview), preview
    assert labs.SIMULATED_NO_VERDICT["06"]["ManyChunks.MakespanNearTheModel"] in preview
    assert "points not graded" in preview


@needs_sim_build
def test_the_python_preview_lists_what_the_program_left_behind_at_the_students_line(tmp_path):
    """The simulated build's module takes the Python program's census (python/simulated_cuda_runtime.py), with
    the Python frames that made each thing: a stream never destroyed is named at the student's own line."""
    student = tmp_path / "labs" / LAB05 / "python"  # as the preview's are: the census knows them by their path
    shutil.copytree(ROOT / "solutions" / LAB05 / "python", student)
    source = (student / "three_chunks.py").read_text()
    destroy = "            check(cudart.cudaStreamDestroy(stream))"
    assert source.count(destroy) == 1
    (student / "three_chunks.py").write_text(source.replace(destroy, "            pass  # never destroyed"))
    creation = next(i for i, line in enumerate(source.splitlines(), 1) if "cudaStreamCreateWithFlags" in line)

    def runner(command, env, timeout_s):
        done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True, timeout=timeout_s)
        return done.returncode, done.stdout + done.stderr

    env = environment.python_lab_environment(student, ROOT / "labs" / LAB05 / "python", ROOT, SIM_BUILD)
    sources = sanitize.lab_sources(f"{LAB05}/python", ["three_chunks.py"])
    program = ROOT / "labs" / LAB05 / "python" / "run_lab05.py"
    findings, problem = sanitize.census_findings(
        program, sources, tmp_path / "census", 120, runner, module_python(SIM_BUILD), env
    )
    assert not problem
    assert [(f.kind, f.where) for f in findings] == [
        ("leaked stream", f"labs/{LAB05}/python/three_chunks.py:{creation}")
    ]
