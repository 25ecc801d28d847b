"""How faithful the simulated GPU is: every program the course has a GPU record of (each previewed lab's
solution, starter and catalogue samples, C++ track), run on the simulated GPU and judged there, against the
judges' verdicts on the committed GPU record of the same program; and the drawn scenario's makespan on both.

    python3 -m selfgrading.simulated_fidelity [--sim-build build-sim] [--build build-ci] [--labs 05 ...]
                                              [--write labs/SIMULATED_GPU_FIDELITY.md]

Each program is graded on the simulated GPU as the grader grades a submission: its student sources compiled
alone with the simulated build's compile commands, linked after that build's own code, recorded under its
harness and judged by its judges. The committed record (common/tests/records/NN-topic/h200-WHOSE...) is
judged by the judges of `--build`, a build for a GPU. Prints the table; with --write, writes it as the
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

from coursecli import objcheck, recording, records
from coursecli.course_build import CourseBuild, starter_targets
from coursecli.lab_declaration import read_lab
from coursecli.labs import SIMULATED_LABS, SIMULATED_NO_VERDICT
from coursecli.results import read_labels
from coursecli.scoring import FAILED, NOT_GRADED, PASSED, grade_record, graded_tests
from coursecli.shell import ROOT
from coursecli.submissions import course_labs

from .catalogue import CATALOGUE
from .sample_files import student_files, write_folder

GPU = "h200"  # the committed records compared with: the simulated GPU models an H200
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
    whose: str  # "solution", "starter" or a catalogue sample's name
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
        """(simulated - GPU) / GPU, or None where either is missing."""
        if not self.gpu_ms or self.simulated_ms is None:
            return None
        return (self.simulated_ms - self.gpu_ms) / self.gpu_ms


def programs(labs: list[str]) -> list[tuple[str, str, dict[str, str]]]:
    """(lab, whose, the student files of every lab) of each program with a committed GPU record."""
    found = []
    for number in labs:
        folder = next(lab.folder for lab in course_labs(ROOT) if lab.number == number)
        samples = {"solution": None, "starter": None} | {
            name: sample for name, sample in CATALOGUE.items() if sample.lab == number
        }
        for whose, sample in samples.items():
            if not records.committed_record(ROOT, folder, GPU, whose).is_file():
                continue
            files = student_files("starter" if whose == "starter" else "solution")
            if sample is not None:
                sample.make(files)
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


def compare(sim: Path, build: Path, number: str, whose: str, files: dict[str, str], work: Path) -> Row:
    folder = next(lab.folder for lab in course_labs(ROOT) if lab.number == number)
    row = Row(number, whose)
    write_folder(work, files)
    answers = work / "labs" / folder  # the program's answer files, which both judges read
    committed = records.committed_record(ROOT, folder, GPU, whose)
    tests = graded_tests(read_labels(build), number, "yours")
    row.gpu = verdicts(grade_record(build, number, folder, committed, answers, work / "gpu-judged", tests))
    drawn = read_lab(ROOT / "labs" / folder).drawn_scenario
    row.gpu_ms = makespan_ms(committed, drawn)
    record, row.problem = run_simulated(sim, number, folder, files, work)
    if row.problem:
        return row
    simulated_tests = graded_tests(read_labels(sim), number, "yours")
    graded = grade_record(sim, number, folder, record, answers, work / "simulated-judged", simulated_tests)
    row.simulated = verdicts(graded)
    row.simulated_ms = makespan_ms(record, drawn)
    return row


def no_verdict(row: Row, test: str) -> str:
    """Whether the preview shows no verdict for `test` (labs.SIMULATED_NO_VERDICT), as the table says it."""
    return " (the preview shows no verdict for this test)" if test in SIMULATED_NO_VERDICT.get(row.lab, {}) else ""


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
        span = "–"
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
    explained = [(lab, test, why) for lab, tests in sorted(SIMULATED_NO_VERDICT.items()) for test, why in tests.items()]
    if explained:
        lines += [
            "",
            "The tests the preview shows no verdict for (its verdict there may change from one run to the next):",
            "",
        ]
        lines += [
            f"- lab {lab}, {test}: {why.removeprefix('no verdict on the simulated GPU: ')}"
            for lab, test, why in explained
        ]
    return lines


PAGE_HEAD = """# How faithful the simulated GPU is

The simulated GPU (`common/simgpu/`) previews labs {labs} for students without a GPU.
Here every program the course has an H200 record of (each of those labs' solution,
starter and catalogue samples, C++ track) was run on the simulated GPU and judged
by its judges, and its verdicts compared with the judges' verdicts on the
committed H200 record of the same program
(`common/tests/records/NN-topic/h200-*.record.jsonl`). The makespan is that of
the scenario the lab draws (lab.json's `drawn_scenario`): its first GPU
operation's start to its last one's end.

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
