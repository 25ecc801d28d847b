"""How faithful the simulated GPU is: every program the course has a GPU record of (each previewed lab's
solution, starter and catalogue samples, in both tracks), run on the simulated GPU and judged there, against
the judges' verdicts on the committed GPU record of the same program; and the drawn scenario's makespan on
both, where that record is an H200's (the GPU the simulated GPU models).

    python3 -m selfgrading.simulated_fidelity [--sim-build build-sim] [--build build-ci] [--labs 05 ...]
                                              [--write labs/SIMULATED_GPU_FIDELITY.md]

Each program is graded on the simulated GPU as the grader grades a submission: a C++ program's student
sources compiled alone with the simulated build's compile commands, linked after that build's own code; a
Python program's files run by the lab's recording program with the simulated build's module (whose runtime
calls cuda-bindings' own stand in for: python/simulated_cuda_runtime.py); either recorded under that build's
harness and judged by its judges. The committed record (common/tests/records/NN-topic/GPU-WHOSE..., an H200's
where there is one, else an H100's) is judged by the judges of `--build`, a build for a GPU. Prints the table; with --write, writes it as the
fidelity page, which tools/tests/test_simulated_fidelity.py checks. Exits 1 when a verdict differs.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from coursecli import environment, objcheck, recording, records
from coursecli.course_build import CourseBuild, starter_targets
from coursecli.lab_declaration import read_lab
from coursecli.labs import SIMULATED_LABS, SIMULATED_NO_VERDICT, SIMULATED_NO_VERDICT_PYTHON, simulated_no_verdict
from coursecli.python_module import module_python
from coursecli.results import read_labels
from coursecli.scoring import FAILED, NOT_GRADED, PASSED, grade_record, graded_tests
from coursecli.shell import ROOT
from coursecli.submissions import course_labs

from .catalogue import CATALOGUE
from .python_selfgrade import PYTHON_CATALOGUE
from .sample_files import student_files, write_folder

GPU = "h200"  # the GPU the simulated GPU models, whose records are compared with first
GPUS = (GPU, "h100")  # the committed records compared with: a verdict does not depend on the GPU, a makespan does
TIMEOUT_S = 300
PAGE = ROOT / "labs" / "SIMULATED_GPU_FIDELITY.md"  # about the labs: nothing under common/ names one
VERDICT = {PASSED: "pass", FAILED: "FAIL", NOT_GRADED: "not graded"}
# Labs whose drawn scenario is paced by the host's own work, done on the CPU that runs the simulation: their
# makespans say as much of that CPU as of the model, and are kept out of the stated bound.
HOST_PACED = {"06": "its ring's fills and drains are the host's work, timed on the CPU that ran the simulation"}


@dataclass
class Row:
    """One program compared: its verdicts on both and its drawn scenario's makespan on both (ms)."""

    lab: str
    whose: str  # "solution", "starter", "python-solution", "python-starter" or a catalogue sample's name
    gpu_name: str = GPU  # the GPU whose committed record it is compared with
    gpu: dict[str, str] = field(default_factory=dict)  # test -> verdict, the GPU record's
    simulated: dict[str, str] = field(default_factory=dict)  # test -> verdict, the simulated run's
    gpu_ms: float | None = None
    simulated_ms: float | None = None
    problem: str = ""  # why the program could not be run on the simulated GPU

    @property
    def differing(self) -> list[str]:
        return [test for test in self.gpu if self.simulated.get(test) != self.gpu[test]]

    @property
    def makespan_difference(self) -> float | None:
        """(simulated - GPU) / GPU, or None where either is missing or the record is not the modelled GPU's."""
        if not self.gpu_ms or self.simulated_ms is None or self.gpu_name != GPU:
            return None
        return (self.simulated_ms - self.gpu_ms) / self.gpu_ms


def is_python(whose: str) -> bool:
    return whose.startswith("python-") or whose in PYTHON_CATALOGUE


def committed_gpu_record(folder: str, whose: str) -> tuple[Path, str] | None:
    """(the committed GPU record of `whose` run of lab `folder`, the GPU's name): an H200's where there is one."""
    found = ((records.committed_record(ROOT, folder, gpu, whose), gpu) for gpu in GPUS)
    return next(((record, gpu) for record, gpu in found if record.is_file()), None)


def programs(labs: list[str]) -> list[tuple[str, str, dict[str, str]]]:
    """(lab, whose, its files) of each program with a committed GPU record: a C++ program's files are every
    lab's student files (labs/NN-topic/name), a Python program's its lab's (name, in the Python folder)."""
    found = []
    for number in labs:
        folder = next(lab.folder for lab in course_labs(ROOT) if lab.number == number)
        samples = {"solution": None, "starter": None} | {
            name: sample for name, sample in CATALOGUE.items() if sample.lab == number
        }
        for whose, sample in samples.items():
            if committed_gpu_record(folder, whose) is None:
                continue
            files = student_files("starter" if whose == "starter" else "solution")
            if sample is not None:
                sample.make(files)
            found.append((number, whose, files))
        found += python_programs(number)
    return found


def python_programs(number: str) -> list[tuple[str, str, dict[str, str]]]:
    """The same for lab `number`'s Python track: its solution, starter and PYTHON_CATALOGUE's samples."""
    lab = next((lab for lab in course_labs(ROOT, python=True) if lab.number == number), None)
    if lab is None:
        return []
    samples = ["python-solution", "python-starter", *(n for n, m in PYTHON_CATALOGUE.items() if m.lab == lab.folder)]
    found = []
    for whose in samples:
        if committed_gpu_record(lab.folder, whose) is None:
            continue
        source = ROOT / ("labs" if whose == "python-starter" else "solutions") / lab.folder / "python"
        files = {name: (source / name).read_text() for name in lab.files + lab.answers}
        mistake = PYTHON_CATALOGUE.get(whose)
        if mistake is not None:
            if files[mistake.file].count(mistake.old) != 1:
                raise SystemExit(f"simulated_fidelity: {whose}: the solution no longer has the line it replaces")
            files[mistake.file] = files[mistake.file].replace(mistake.old, mistake.new)
        found.append((number, whose, files))
    return found


def makespan_ms(record: Path, scenario: str | None) -> float | None:
    """The span of `scenario`'s GPU operations in `record`, first start to last end, in ms."""
    if not scenario:
        return None
    try:
        events = records.scenario_trace(record, scenario)["traceEvents"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    spans = [(e["ts"], e["ts"] + e["dur"]) for e in events if e.get("ph") == "X" and "dur" in e]
    return (max(end for _, end in spans) - min(start for start, _ in spans)) / 1000 if spans else None


def verdicts(graded) -> dict[str, str]:
    return {test.name: VERDICT.get(test.status, test.status) for test in graded.tests}


def run_simulated(sim: Path, number: str, folder: str, files: dict[str, str], work: Path) -> tuple[Path, str]:
    """Lab `number` of `files` (written under `work` already) compiled alone, linked into the simulated
    build's programs and recorded on the simulated GPU: (its record, "") or (_, what went wrong)."""
    staged = work / "labs"
    names = list(read_lab(ROOT / "labs" / folder).cpp.student_sources)
    rules = objcheck.lab_rules(ROOT / "labs" / folder, names)
    refusal, output = objcheck.check_lab(folder, names, staged, work / "obj", rules, objcheck.CourseCompiler(sim, ROOT))
    if refusal is not None or output:
        return work, f"not built: {(refusal.problem if refusal else output)[:200]}"
    library = work / f"liblab{number}_yours.a"
    objects = [objcheck.object_path(work / "obj", folder, name) for name in names]
    subprocess.run(["ar", "qc", library, *objects], check=True)
    for target in starter_targets(number):
        link_folder, command = CourseBuild(sim).link_command(target, number, library, work / target)
        linked = subprocess.run(command, cwd=link_folder, capture_output=True, text=True)
        if linked.returncode != 0:
            return work, f"not linked: {linked.stderr[-200:]}"
    record = recording.record_file(work, number, "yours")
    command = recording.recording_command(sim, number, record, TIMEOUT_S, [work / f"lab{number}_yours_record"])
    subprocess.run(command, capture_output=True, timeout=TIMEOUT_S + 60)
    return record, ""


def run_simulated_python(sim: Path, number: str, folder: str, student: Path, work: Path) -> tuple[Path, str]:
    """Lab `number`'s Python files (in `student`) run by its recording program with the simulated build's
    module, as the grader runs them (python_grading.record_python_lab): (its record, "") or (_, why not)."""
    python = module_python(sim)
    if python is None:
        return work, "not run: the simulated build has no Python module"
    lab = next(lab for lab in course_labs(ROOT, python=True) if lab.number == number)
    env = environment.python_lab_environment(student, ROOT / "labs" / folder / "python", ROOT, sim)
    record = recording.record_file(work, number, "python-yours")
    command = recording.python_recording_command(sim, lab, ROOT, python, record, TIMEOUT_S)
    subprocess.run(command, env=env, cwd=student, capture_output=True, timeout=TIMEOUT_S + 60)
    return record, ""


def answer_folder(work: Path, folder: str, python: bool) -> Path:
    """Where a program's files lie under `work`, its answer files among them, which both judges read: its
    Python folder, or its lab's folder."""
    return work / "python" if python else work / "labs" / folder


def gpu_side(build: Path, number: str, whose: str, files: dict[str, str], work: Path) -> Row:
    """The row of `whose` with its GPU side: the committed GPU record judged by the judges of `build` against
    the program's answer files (written under `work`, where the simulated run finds them too)."""
    folder = next(lab.folder for lab in course_labs(ROOT) if lab.number == number)
    row = Row(number, whose)
    python = is_python(whose)
    answers = answer_folder(work, folder, python)
    write_folder(answers if python else work, files)
    committed, row.gpu_name = committed_gpu_record(folder, whose)
    tests = graded_tests(read_labels(build), number, "python-yours" if python else "yours")
    row.gpu = verdicts(grade_record(build, number, folder, committed, answers, work / "gpu-judged", tests))
    row.gpu_ms = makespan_ms(committed, read_lab(ROOT / "labs" / folder).drawn_scenario)
    return row


def compare(sim: Path, build: Path, number: str, whose: str, files: dict[str, str], work: Path) -> Row:
    row = gpu_side(build, number, whose, files, work)
    folder = next(lab.folder for lab in course_labs(ROOT) if lab.number == number)
    python = is_python(whose)
    track = "python-yours" if python else "yours"
    answers = answer_folder(work, folder, python)
    if python:
        record, row.problem = run_simulated_python(sim, number, folder, answers, work)
    else:
        record, row.problem = run_simulated(sim, number, folder, files, work)
    if row.problem:
        return row
    simulated_tests = graded_tests(read_labels(sim), number, track)
    graded = grade_record(sim, number, folder, record, answers, work / "simulated-judged", simulated_tests)
    row.simulated = verdicts(graded)
    row.simulated_ms = makespan_ms(record, read_lab(ROOT / "labs" / folder).drawn_scenario)
    return row


def no_verdict(row: Row, test: str) -> str:
    """Whether the preview shows no verdict for `test` in `row`'s track (labs.simulated_no_verdict), as the
    table says it."""
    shown_none = simulated_no_verdict(row.lab, test, is_python(row.whose))
    return " (the preview shows no verdict for this test)" if shown_none else ""


def no_verdict_lines() -> list[str]:
    """The page's line for each test the preview shows no verdict for, with why."""
    tracks = ((SIMULATED_NO_VERDICT, ""), (SIMULATED_NO_VERDICT_PYTHON, " (Python track)"))
    return [
        f"- lab {lab}, {test}{track}: {why.removeprefix('no verdict on the simulated GPU: ')}"
        for tests_by_lab, track in tracks
        for lab, tests in sorted(tests_by_lab.items())
        for test, why in tests.items()
    ]


def unexplained(rows: list[Row]) -> list[str]:
    """The differing verdicts the preview would still show, and the programs that could not run."""
    return [f"lab {r.lab} {r.whose}: {r.problem}" for r in rows if r.problem] + [
        f"lab {r.lab} {r.whose}: {test}" for r in rows for test in r.differing if not no_verdict(r, test)
    ]


def table(rows: list[Row]) -> list[str]:
    """The fidelity table, in Markdown: one line per program, then each verdict that differs."""
    lines = [
        "| lab | program | tests with the same verdict | drawn scenario's makespan, GPU → simulated |",
        "|---|---|---|---|",
    ]
    for row in rows:
        if row.problem:
            same = f"not run: {row.problem}"
        else:
            same = f"{len(row.gpu) - len(row.differing)} of {len(row.gpu)}"
        span = "–" if row.gpu_name == GPU else f"– (the record is an {row.gpu_name.upper()}'s)"
        if row.makespan_difference is not None:
            span = f"{row.gpu_ms:.2f} → {row.simulated_ms:.2f} ms ({row.makespan_difference:+.0%})"
        lines.append(f"| {row.lab} | {row.whose} | {same} | {span} |")
    spans = [
        (abs(row.makespan_difference), row)
        for row in rows
        if row.makespan_difference is not None and row.lab not in HOST_PACED
    ]
    if spans:
        largest, row = max(spans, key=lambda pair: pair[0])
        lines += [
            "",
            f"Every simulated makespan is within {largest:.0%} of the GPU's (the largest: lab {row.lab}, {row.whose}), "
            "but those of the labs paced by the host:",
            "",
        ]
        lines += [f"- lab {lab}: {why}." for lab, why in sorted(HOST_PACED.items())]
    differing = [(row, test) for row in rows for test in row.differing if not row.problem]
    if differing:
        lines += ["", "Verdicts that differ (GPU record, then simulated GPU):", ""]
        lines += [
            f"- lab {r.lab}, {r.whose}: {t}: {r.gpu[t]}, simulated {r.simulated.get(t, 'absent')}{no_verdict(r, t)}"
            for r, t in differing
        ]
    explained = no_verdict_lines()
    if explained:
        lines += [
            "",
            "The tests the preview shows no verdict for (its verdict there may change from one run to the next):",
            "",
        ]
        lines += explained
    return lines


PAGE_HEAD = """# How faithful the simulated GPU is

The simulated GPU (`common/simgpu/`) previews labs {labs} for students without a GPU.
Here every program the course has a GPU record of (each of those labs' solution,
starter and catalogue samples, in the C++ track and the Python track) was run on
the simulated GPU and judged by its judges, and its verdicts compared with the
judges' verdicts on the committed GPU record of the same program
(`common/tests/records/NN-topic/GPU-*.record.jsonl`: an H200's where there is
one, else an H100's). The Python programs (`python-*`, `wrong-py-*`) ran with
the simulated build's module, whose runtime calls stand in for cuda-bindings'
(`python/simulated_cuda_runtime.py`). The makespan is that of the scenario the
lab draws (lab.json's `drawn_scenario`): its first GPU operation's start to its
last one's end, compared where the record is an H200's.

Made by `python3 -m selfgrading.simulated_fidelity --write {page}` (from `tools/`)
on {date}, at {commit}. `tools/tests/test_simulated_fidelity.py` judges the
committed records again in every run of the tests and checks the GPU side of
this table; where the simulated build is present it runs the simulated side
again too.

"""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sim-build", type=Path, default=ROOT / "build-sim")
    parser.add_argument("--build", type=Path, default=ROOT / "build-ci")
    parser.add_argument("--labs", nargs="+", default=sorted(SIMULATED_LABS), metavar="NN")
    parser.add_argument(
        "--write", type=Path, help="write the table as the fidelity page (labs/SIMULATED_GPU_FIDELITY.md)"
    )
    args = parser.parse_args(argv)
    for build, how in ((args.sim_build, "cmake --preset sim"), (args.build, "cmake --preset ci")):
        if not (build / "compile_commands.json").is_file():
            print(f"simulated_fidelity: {build} is no configured build ({how}, then build it)")
            return 2
    rows = []
    work = Path(tempfile.mkdtemp(prefix="simulated-fidelity-"))
    for number, whose, files in programs(args.labs):
        started = time.monotonic()
        rows.append(
            compare(args.sim_build.resolve(), args.build.resolve(), number, whose, files, work / f"{number}-{whose}")
        )
        print(f"simulated_fidelity: lab {number} {whose}: {time.monotonic() - started:.0f} s", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    lines = table(rows)
    print("\n".join(lines))
    if args.write:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        head = PAGE_HEAD.format(
            labs=", ".join(sorted(SIMULATED_LABS)),
            page=args.write,
            date=time.strftime("%Y-%m-%d"),
            commit=commit.stdout.strip() or "an unknown commit",
        )
        args.write.write_text(head + "\n".join(lines) + "\n")
    for problem in unexplained(rows):
        print(f"simulated_fidelity: differs, and the preview would show it: {problem}")
    return 1 if unexplained(rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
