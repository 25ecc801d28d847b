"""The catalogue of cheating submissions (make_grading_samples.CHEATS) graded for real, without a GPU.

Each is refused before anything of it is linked or run, with a reason naming
what it did; the honest solution is still "not graded (no GPU)". Then the
forged pass once more with the check before linking switched off: it runs in the
recording program only, which it ends before any scenario, and the judges, which
never load it, fail every test on that empty record. Lab 01 only, one
GPU architecture; skipped where cmake or nvcc is missing.
"""

import os
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from coursecli import batch as grade_module
from coursecli import environment, grading_build, objcheck
from coursecli.gradebook import load_grade, student_folder
from coursecli.objcheck import check_lab, lab_rules
from coursecli.scoring import FAILED, NO_GPU, NOT_GRADED
from coursecli.shell import ROOT
from coursecli.submissions import selected_labs
from selfgrading.make_grading_samples import CHEATS, cheat_files, make_cheats, student_files, write_folder

pytestmark = pytest.mark.skipif(
    shutil.which("cmake") is None or environment.find_nvcc() is None, reason="needs cmake and nvcc to build submissions"
)


@pytest.mark.builds
def test_every_cheat_is_refused_with_its_reason_and_the_honest_solution_is_not_graded(tmp_path, grade_without_gpu):
    make_cheats(tmp_path / "subs")
    write_folder(tmp_path / "subs" / "honest", student_files("solution"))
    assert grade_without_gpu(tmp_path / "subs", tmp_path / "out") == 0

    for cheat in CHEATS:
        lab = load_grade(student_folder(tmp_path / "out", cheat.name)).labs[0]
        assert lab.earned == 0 and lab.tests and all(t.status == FAILED for t in lab.tests), cheat.name
        assert cheat.says in lab.problem + "\n" + lab.details, f"{cheat.name}: {lab.problem}"
        assert lab.problem.startswith("null_stream.cu"), f"{cheat.name}: {lab.problem}"
        assert "root:" not in lab.details  # an included file's lines never reach the report
    honest = load_grade(student_folder(tmp_path / "out", "honest")).labs[0]
    assert not honest.problem and all(t.status == NOT_GRADED and t.reason == NO_GPU for t in honest.tests)


@pytest.mark.builds
def test_a_forged_pass_fails_even_when_the_check_before_linking_misses_it(tmp_path, monkeypatch, grade_without_gpu):
    forged = next(cheat for cheat in CHEATS if cheat.name == "forged-pass")
    write_folder(tmp_path / "subs" / forged.name, cheat_files(forged))
    for check in ("check_source", "check_code", "check_symbols", "code_outside_the_labs_functions"):  # compiled, linked
        monkeypatch.setattr(objcheck, check, lambda *args: [])
    assert grade_without_gpu(tmp_path / "subs", tmp_path / "out") == 0

    lab = load_grade(student_folder(tmp_path / "out", forged.name)).labs[0]
    assert not lab.problem and lab.tests
    # It ends the recording program before the set-up: a record of nothing, whatever the program printed.
    assert all(t.status == FAILED and "ended before its set-up" in t.reason for t in lab.tests), lab.tests


@pytest.mark.builds
def test_every_starter_and_solution_passes_the_check(tmp_path, monkeypatch):
    """The course's own code is what honest students write: the check must never refuse it."""
    labs = selected_labs(None, ROOT)
    settings = grade_module.GradeSettings(out=tmp_path / "out", labs=labs, all_labs=labs, cuda_arch="90")
    assert grading_build.configure_course(settings) == ""

    def check(variant, lab):
        return check_lab(
            lab.folder,
            lab.files,
            ROOT / variant,
            tmp_path / "objects" / variant,
            lab_rules(ROOT / "labs" / lab.folder, lab.files),
            settings.compiler,
        )

    every = [(variant, lab) for variant in ("labs", "solutions") for lab in labs]
    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:  # each check is a compiler run of its own
        for (variant, lab), (refusal, compiler_output) in zip(every, pool.map(lambda job: check(*job), every)):
            assert refusal is None and compiler_output == "", f"{variant}/{lab.folder}: {refusal or compiler_output}"
    # A student's own kernel in an anonymous namespace is a helper like any other (nvcc gives it a global stub).
    own_kernel = (ROOT / "solutions" / "05-three-chunks" / "three_chunks.cu").read_text() + (
        "\nnamespace {\n__global__ void scale(float* x, int n) { if (threadIdx.x < n) x[threadIdx.x] *= 2; }\n}\n"
        "void launch_scale(float* x) { scale<<<1, 32>>>(x, 32); }\n"
    )
    (tmp_path / "own" / "05-three-chunks").mkdir(parents=True)
    (tmp_path / "own" / "05-three-chunks" / "three_chunks.cu").write_text(own_kernel)
    lab05 = next(lab for lab in labs if lab.number == "05")
    refusal, _ = check_lab(
        lab05.folder,
        lab05.files,
        tmp_path / "own",
        tmp_path / "objects",
        lab_rules(ROOT / "labs" / lab05.folder, lab05.files),
        settings.compiler,
    )
    assert refusal is not None and refusal.problem.startswith("three_chunks.cu defines launch_scale, which lab05.hpp")
    assert "scale" not in refusal.details.replace("launch_scale", "")
