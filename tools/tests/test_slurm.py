"""`course grade --slurm`: the scripts it writes (--dry-run), and a small batch graded through a real one-node
Slurm cluster (tools/slurm/local_cluster.sh) with the scripts --dry-run wrote, submitted unchanged, whose merged
gradebook must equal the one `course grade` writes without Slurm. The cluster test needs root and slurm-wlm or
apt-get to install it; it builds lab 01 of the course once, in the build job, whose build the batch graded here
without Slurm then uses too, and takes a few minutes.
"""

import os
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from coursecli import environment
from coursecli.gradebook import load_grade, save_grade, student_folder
from coursecli.main import main
from coursecli.scoring import LabGrade, SubmissionGrade
from coursecli.shell import ROOT
from selfgrading.make_grading_samples import CHEATS, cheat_files, student_files, write_folder

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


def referenced_paths(script: str) -> list[Path]:
    """The absolute paths a script names (its SBATCH --output folders as folders), shell quoting and the array
    task's own shard folder left aside."""
    paths = []
    for word in shlex.split(script, comments=True) + re.findall(r"^#SBATCH --output=(\S+)", script, re.M):
        if word.startswith("/") and "$SLURM_ARRAY_TASK_ID" not in word and "/shards/" not in word:
            paths.append(Path(word).parent if "%" in word else Path(word))
    return paths


def test_dry_run_writes_every_file_it_names_and_submits_nothing(tmp_path, capsys):
    small_batch(tmp_path / "subs")
    out = tmp_path / "out"
    save_grade(student_folder(out, "solution"), SubmissionGrade("solution", labs=[]))  # a grade without lab 01
    options = ["--partition", "gpu", "--gpus-per-task", "2", "--tasks", "8", "--time", "1:30:00", "--dry-run"]
    assert course_grade(tmp_path / "subs", out, "--labs", "01", "--slurm", *options) == 0
    printed = capsys.readouterr().out
    assert "(3 submission(s), graded in 3 array task(s))" in printed  # its grade covers no lab: graded again
    folder = out / "slurm"
    listed = (folder / "todo.txt").read_text().splitlines()
    assert sorted(Path(line).name for line in listed) == ["compile-error", "forged-pass", "solution"]
    assert (folder / "logs").is_dir()
    build, array, merge, submit = (
        (folder / name).read_text() for name in ("build.sbatch", "grade-array.sbatch", "merge.sbatch", "submit.sh")
    )
    for text in (build, array, merge, submit):
        assert text in printed  # what it prints is what it wrote
    assert "#SBATCH --array=0-2\n" in array and "#SBATCH --gres=gpu:2\n" in array
    assert "#SBATCH --partition=gpu\n" in array and "#SBATCH --time=1:30:00\n" in array
    assert re.search(
        r'-o \S+/shards/"\$SLURM_ARRAY_TASK_ID" --todo \S+/slurm/todo.txt --shard '
        r'"\$SLURM_ARRAY_TASK_ID/3" --course-build \S+/slurm/course --course-prebuilt --labs 01 ',
        array,
    )
    assert "--merge-shards --labs 01" in merge and "--gres" not in merge and "#SBATCH --partition=gpu" in merge
    # The build job builds the course once, on one GPU of the same partition, for the array's tasks.
    assert "--build-course-only" in build and f"--course-build {folder / 'course'} " in build
    assert "#SBATCH --gres=gpu:1\n" in build and "#SBATCH --partition=gpu\n" in build
    # Every file the scripts name exists (the course build and the shards are the jobs' own to write).
    for script in (build, array, merge, submit):
        for path in referenced_paths(script):
            assert path.exists() or path == folder / "course", (path, script)
    assert "sbatch --parsable build.sbatch" in submit and "afterany" in submit
    assert sorted(p.name for p in out.iterdir()) == [".grader-key", "slurm", "students"]  # no shards: not submitted

    # Without GPUs: no --gres line. A student graded for lab 01 is left out.
    save_grade(student_folder(out, "solution"), SubmissionGrade("solution", labs=[LabGrade("01", "01-null-stream")]))
    assert course_grade(tmp_path / "subs", out, "--labs", "01", "--slurm", "--gpus-per-task", "0", "--dry-run") == 0
    printed = capsys.readouterr().out
    assert "(2 submission(s), graded in 2 array task(s))" in printed and "--gres" not in printed
    assert len((folder / "todo.txt").read_text().splitlines()) == 2


def test_cpus_and_memory_go_to_the_build_job_and_each_task(tmp_path, capsys):
    small_batch(tmp_path / "subs")
    options = ["--slurm", "--dry-run", "--cpus-per-task", "8", "--mem", "32G"]
    assert course_grade(tmp_path / "subs", tmp_path / "out", "--labs", "01", *options) == 0
    folder = tmp_path / "out" / "slurm"
    for name in ("build.sbatch", "grade-array.sbatch"):
        text = (folder / name).read_text()
        assert "#SBATCH --cpus-per-task=8\n" in text and "#SBATCH --mem=32G\n" in text, name
    assert "--mem" not in (folder / "merge.sbatch").read_text()
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        course_grade(tmp_path / "subs", tmp_path / "out", "--slurm", "--mem", "lots")
    assert refused.value.code == 2 and "'lots': give a number with a unit" in capsys.readouterr().err


def fake_slurm(folder: Path, refusal: str, refuse_from: int) -> Path:
    """A bin folder whose sbatch accepts jobs 1 to refuse_from - 1 and refuses the others with `refusal`, as
    Slurm writes it; scancel records what it was asked to cancel."""
    folder.mkdir()
    (folder / "sbatch").write_text(
        "#!/bin/bash\n"
        f'count=$(( $(cat "{folder}/count" 2>/dev/null || echo 0) + 1 )); echo $count > "{folder}/count"\n'
        f'if [ $count -ge {refuse_from} ]; then echo "sbatch: error: {refusal}" >&2; exit 1; fi\n'
        "echo $((100 + count))\n"
    )
    (folder / "scancel").write_text(f'#!/bin/bash\necho "$@" >> "{folder}/cancelled"\n')
    for name in ("sbatch", "scancel"):
        (folder / name).chmod(0o755)
    return folder


def test_an_sbatch_refusal_is_one_line_that_says_which_option_to_change(tmp_path, capsys, monkeypatch):
    small_batch(tmp_path / "subs")
    bin_folder = fake_slurm(tmp_path / "bin", "Invalid generic resource (gres) specification", refuse_from=1)
    monkeypatch.setenv("PATH", f"{bin_folder}:{os.environ['PATH']}")
    assert course_grade(tmp_path / "subs", tmp_path / "out", "--labs", "01", "--slurm") == 2
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("course: sbatch refused build.sbatch (Invalid generic resource (gres) specification)")
    assert "--gpus-per-task 1 asked for --gres=gpu:1" in lines[0] and "--gpus-per-task 0" in lines[0]
    assert lines[0].endswith("nothing was submitted")
    assert not (bin_folder / "cancelled").exists()


def test_a_refused_array_cancels_the_build_job_submitted_before_it(tmp_path, capsys, monkeypatch):
    small_batch(tmp_path / "subs")
    bin_folder = fake_slurm(tmp_path / "bin", "Batch job submission failed: Invalid partition name specified", 2)
    monkeypatch.setenv("PATH", f"{bin_folder}:{os.environ['PATH']}")
    options = ["--labs", "01", "--slurm", "--partition", "gpux"]
    assert course_grade(tmp_path / "subs", tmp_path / "out", *options) == 2
    printed = capsys.readouterr().out
    assert "sbatch refused grade-array.sbatch (Invalid partition name specified): --partition gpux:" in printed
    assert (bin_folder / "cancelled").read_text().split() == ["101"]


def test_an_array_task_without_its_built_course_says_so_and_builds_nothing(tmp_path, capsys):
    small_batch(tmp_path / "subs")
    built = tmp_path / "out" / "slurm" / "course"
    built.mkdir(parents=True)  # the build job failed: no mark that the course was built
    options = ["--labs", "01", "--course-build", str(built), "--course-prebuilt", "--sandbox", "none"]
    assert course_grade(tmp_path / "subs", tmp_path / "out" / "shards" / "0", *options) == 2
    assert f"the course was not built in {built} for these labs: the build job failed" in capsys.readouterr().out
    assert sorted(p.name for p in built.iterdir()) == []  # nothing configured nor built there


def test_each_task_asks_for_the_gpus_its_labs_need_at_once(tmp_path, capsys):
    small_batch(tmp_path / "subs")
    for labs, gres in ((["01"], "gpu:1"), (["01", "08"], "gpu:2")):
        assert course_grade(tmp_path / "subs", tmp_path / "out", "--labs", *labs, "--slurm", "--dry-run") == 0
        array = (tmp_path / "out" / "slurm" / "grade-array.sbatch").read_text()
        assert f"#SBATCH --gres={gres}\n" in array, labs
        assert "#SBATCH --gres=gpu:1\n" in (tmp_path / "out" / "slurm" / "build.sbatch").read_text()


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


@pytest.mark.builds
def test_a_batch_graded_through_slurm_equals_the_batch_graded_here(local_cluster, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # graded as without a GPU, on any machine; sbatch passes it on
    small_batch(tmp_path / "subs")
    common = ["--labs", "01", "--timeout", "60", "--cuda-arch", "90"]

    # The scripts --dry-run writes, submitted unchanged with the submit.sh it writes next to them.
    out = tmp_path / "cluster"
    options = ["--tasks", "2", "--gpus-per-task", "0", "--time", "00:20:00", "--cpus-per-task", "1", *common]
    assert course_grade(tmp_path / "subs", out, "--slurm", "--dry-run", *options) == 0
    capsys.readouterr()
    submitted = subprocess.run(["bash", str(out / "slurm" / "submit.sh")], capture_output=True, text=True)
    print(submitted.stdout)
    merge_job = re.search(r"merge job (\d+)", submitted.stdout)
    assert submitted.returncode == 0 and merge_job, submitted.stdout + submitted.stderr
    wait_for_job(merge_job[1], 900)
    logs = "\n".join(f"== {log}\n{log.read_text()[-3000:]}" for log in sorted((out / "slurm" / "logs").glob("*")))
    assert (out / "gradebook.csv").exists(), logs
    # The same batch graded here, without Slurm, with the course the build job built (one build per test run).
    here = ["--course-build", str(out / "slurm" / "course"), "--course-prebuilt"]
    assert main(["grade", str(tmp_path / "subs"), "-o", str(tmp_path / "here"), *here, *common]) == 0
    capsys.readouterr()
    # The build job built the course; the array's tasks only linked against it.
    assert "built the course once for the batch" in next((out / "slurm" / "logs").glob("build-*.out")).read_text()
    for task_log in (out / "slurm" / "logs").glob("grade-*.out"):
        assert "built the course" not in task_log.read_text(), task_log
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
    assert "--course-build is one machine's: with --slurm a build job builds the course once" in capsys.readouterr().out
