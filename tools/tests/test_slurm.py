"""`course grade --slurm`: the scripts it writes (--dry-run), and a small batch graded through a real one-node
Slurm cluster (tools/slurm/local_cluster.sh), whose merged gradebook must equal the one `course grade` writes
without Slurm. The cluster test needs root and slurm-wlm or apt-get to install it; it builds lab 01 of the
course three times (ccache makes the later ones quick) and takes a few minutes.
"""

import os
import re
import shutil
import subprocess
import time

import pytest
from coursecli import environment
from coursecli.gradebook import load_grade, save_grade, student_folder
from coursecli.main import main
from coursecli.scoring import LabGrade, SubmissionGrade
from coursecli.shell import ROOT
from make_grading_samples import CHEATS, cheat_files, student_files, write_folder

SCRIPT = ROOT / "tools" / "slurm" / "local_cluster.sh"
LAB01 = "labs/01-null-stream/null_stream.cu"


def small_batch(folder):
    """A solution, a compile error and a refused cheat (it calls _Exit), as three students' folders."""
    write_folder(folder / "solution", student_files("solution"))
    broken = student_files("solution")
    broken[LAB01] += "\nthis is not C++;\n"
    write_folder(folder / "compile-error", broken)
    write_folder(folder / "forged-pass", cheat_files(next(c for c in CHEATS if c.name == "forged-pass")))


def course_grade(subs, out, *options) -> int:
    """`course grade SUBS -o OUT OPTIONS...`: its exit status."""
    return main(["grade", str(subs), "-o", str(out), *options])


def test_dry_run_prints_the_array_and_the_merge_job_and_submits_nothing(tmp_path, capsys):
    small_batch(tmp_path / "subs")
    out = tmp_path / "out"
    save_grade(student_folder(out, "solution"), SubmissionGrade("solution", labs=[]))  # a grade without lab 01
    options = ["--partition", "gpu", "--gpus-per-task", "2", "--tasks", "8", "--time", "1:30:00", "--dry-run"]
    assert course_grade(tmp_path / "subs", out, "--labs", "01", "--slurm", *options) == 0
    printed = capsys.readouterr().out
    assert "would grade 3 submission(s) in 3 array task(s)" in printed  # its grade covers no lab: graded again
    array, merge = printed.split("# ---- ")[1:3]
    assert "#SBATCH --array=0-2\n" in array and "#SBATCH --gres=gpu:2\n" in array
    assert "#SBATCH --partition=gpu\n" in array and "#SBATCH --time=1:30:00\n" in array
    assert re.search(
        r'-o \S+/shards/"\$SLURM_ARRAY_TASK_ID" --todo \S+/slurm/todo.txt --shard '
        r'"\$SLURM_ARRAY_TASK_ID/3" --labs 01 ',
        array,
    )
    assert "--merge-shards --labs 01" in merge and "--gres" not in merge and "#SBATCH --partition=gpu" in merge
    assert "--dependency=afterany:<array job id>" in printed
    assert sorted(p.name for p in out.iterdir()) == [".grader-key", "students"]  # nothing written for Slurm

    # Without GPUs: no --gres line. A student graded for lab 01 is left out.
    save_grade(student_folder(out, "solution"), SubmissionGrade("solution", labs=[LabGrade("01", "01-null-stream")]))
    assert course_grade(tmp_path / "subs", out, "--labs", "01", "--slurm", "--gpus-per-task", "0", "--dry-run") == 0
    printed = capsys.readouterr().out
    assert "would grade 2 submission(s) in 2 array task(s)" in printed and "--gres" not in printed


def test_each_task_asks_for_the_gpus_its_labs_need_at_once(tmp_path, capsys):
    small_batch(tmp_path / "subs")
    for labs, gres in ((["01"], "gpu:1"), (["01", "08"], "gpu:2")):
        assert course_grade(tmp_path / "subs", tmp_path / "out", "--labs", *labs, "--slurm", "--dry-run") == 0
        array = capsys.readouterr().out.split("# ---- ")[1]
        assert f"#SBATCH --gres={gres}\n" in array, labs


def test_slurm_options_need_slurm(tmp_path, capsys):
    (tmp_path / "subs" / "ada").mkdir(parents=True)
    assert main(["grade", str(tmp_path / "subs"), "-o", str(tmp_path / "out"), "--tasks", "3"]) == 2
    assert "go with --slurm" in capsys.readouterr().out


def _cluster_up() -> bool:
    return (
        shutil.which("scontrol") is not None
        and subprocess.run(["scontrol", "ping"], capture_output=True, text=True).stdout.count("UP") > 0
    )


@pytest.fixture(scope="module")
def local_cluster():
    if os.geteuid() != 0:
        pytest.skip("needs root: the one-node Slurm cluster's daemons run as root")
    if shutil.which("slurmctld") is None and shutil.which("apt-get") is None:
        pytest.skip("needs slurm-wlm and munge, or apt-get to install them")
    if shutil.which("cmake") is None or environment.find_nvcc() is None:
        pytest.skip("needs cmake and nvcc to build submissions")
    already = _cluster_up()
    started = subprocess.run([str(SCRIPT), "start"], capture_output=True, text=True, timeout=600)
    print(started.stdout)
    assert started.returncode == 0, started.stdout + started.stderr
    yield
    if not already:
        subprocess.run([str(SCRIPT), "stop"], capture_output=True, text=True, timeout=120)


def wait_for_job(job: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        queued = subprocess.run(["squeue", "-h", "-j", job], capture_output=True, text=True)
        if queued.returncode == 0 and not queued.stdout.strip() or "Invalid job id" in queued.stderr:
            return
        time.sleep(2)
    subprocess.run(["scancel", job])
    pytest.fail(f"Slurm job {job} did not end within {timeout_s:.0f} s")


def test_a_batch_graded_through_slurm_equals_the_batch_graded_here(local_cluster, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # graded as without a GPU, on any machine; sbatch passes it on
    small_batch(tmp_path / "subs")
    common = ["--labs", "01", "--timeout", "60", "--cuda-arch", "90"]
    assert main(["grade", str(tmp_path / "subs"), "-o", str(tmp_path / "here"), *common]) == 0
    capsys.readouterr()

    out = tmp_path / "cluster"
    options = ["--tasks", "2", "--gpus-per-task", "0", "--time", "00:20:00", *common]
    assert course_grade(tmp_path / "subs", out, "--slurm", *options) == 0
    printed = capsys.readouterr().out
    merge_job = re.search(r"merge job (\d+)", printed)
    assert merge_job, printed
    wait_for_job(merge_job[1], 900)
    logs = "\n".join(f"== {log}\n{log.read_text()[-3000:]}" for log in sorted((out / "slurm" / "logs").glob("*")))
    assert (out / "gradebook.csv").exists(), logs
    assert (out / "gradebook.csv").read_text() == (tmp_path / "here" / "gradebook.csv").read_text(), logs
    for student in ("solution", "compile-error", "forged-pass"):
        grade = load_grade(student_folder(out, student))  # signed with the output folder's own key
        assert grade is not None and (student_folder(out, student) / "results.json").exists(), student
    assert load_grade(student_folder(out, "forged-pass")).labs[0].problem.startswith("null_stream.cu")

    # A rerun finds every grade and submits nothing.
    assert main(["grade", str(tmp_path / "subs"), "-o", str(out), "--slurm", "--tasks", "2", *common]) == 0
    assert "nothing to submit" in capsys.readouterr().out


def test_a_kept_course_build_is_one_machines(tmp_path, capsys):
    (tmp_path / "subs" / "ada").mkdir(parents=True)
    assert (
        main(
            [
                "grade",
                str(tmp_path / "subs"),
                "-o",
                str(tmp_path / "out"),
                "--slurm",
                "--course-build",
                str(tmp_path / "course"),
            ]
        )
        == 2
    )
    assert "--course-build is one machine's" in capsys.readouterr().out
