"""The grader graded by itself: on a GPU, every lab's solution must score full
points and every lab's starter less, through `course grade` exactly as a class
would be graded; every cheating submission of the catalogue
(make_grading_samples.CHEATS, lab 01) must score 0 with a reason naming what it did;
the samples that attack the grader (selfgrading/isolation_samples.py), graded on
lab 01 next to an honest solution, must harm nobody else; and in the teaching
catalogue (make_grading_samples.py --catalogue) each known-wrong sample must fail
exactly its named tests and each correct alternative score full points.

    python3 -m selfgrading.selfgrade [--work DIR]

Exits 77 (the test's SKIP_RETURN_CODE) when there is no GPU, 1 when a lab
breaks the rule, 0 otherwise. ctest runs it as the `selfgrade` test.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from coursecli import recording, records
from coursecli.batch import gpu_presence, grade_batch
from coursecli.gradebook import load_grade, student_folder
from coursecli.scoring import FAILED, NEEDS_GPUS, NOT_GRADED, PASSED
from coursecli.shell import LOG_LIMIT, ROOT
from coursecli.submissions import course_labs, find_submissions, selected_labs, student_name

from .catalogue import CATALOGUE, make_catalogue
from .isolation_samples import VICTIM, isolation_problems, make_isolation_samples
from .make_grading_samples import CHEATS, make_cheats
from .sample_files import student_files, write_folder
from .timed_grading import regrade_settings

SKIP = 77


def needs_more_gpus(lab) -> str:
    """The reason, when none of a graded lab's tests could be graded because the machine has fewer GPUs
    than the lab needs (its record says "not graded: needs two GPUs (this machine has 1)"); else ""."""
    reasons = {t.reason for t in lab.tests}
    if lab.tests and all(t.status == NOT_GRADED for t in lab.tests) and len(reasons) == 1:
        reason = reasons.pop()
        return reason if reason.startswith(NEEDS_GPUS) else ""
    return ""


def lab_problems(student: str, grade, want_full_points: bool) -> list[str]:
    """What is wrong with one graded sample, lab by lab. A lab that needs more GPUs than this machine
    has is reported as not graded here, which is no problem."""
    if grade is None:
        return [f"{student}: no grade was written"]
    problems = [f"{student}: {grade.problem}"] if grade.problem else []
    for lab in grade.labs:
        score = f"lab {lab.number} {student}: {lab.earned}/{lab.possible}"
        if not lab.problem and needs_more_gpus(lab):
            print(f"selfgrade: lab {lab.number} {student}: {needs_more_gpus(lab)}; counted neither way")
            continue
        if want_full_points and (lab.problem or not lab.graded or lab.earned != lab.possible):
            failed = [f"{t.name} ({t.reason})" for t in lab.tests if t.status != "passed"]
            problems.append(f"{score}, not full points: {'; '.join(failed) or lab.problem}")
        elif not want_full_points and lab.graded and lab.earned >= lab.possible:
            problems.append(f"{score}: the starter already scores full points")
    return problems


def graded_batch(submissions: Path, out: Path, numbers: list[str] | None, jobs: int) -> Path | None:
    """Grades labs `numbers` (all when None) of `submissions` again into `out`; `out`, or None when the
    batch did not finish."""
    return out if grade_batch(submissions, regrade_settings(out, numbers, jobs)) == 0 else None


def isolation_batch(work: Path, jobs: int) -> list[str]:
    """Grades the attacking samples and an honest solution on lab 01; what went wrong, if anything."""
    submissions = work / "isolation-submissions"
    shutil.rmtree(submissions, ignore_errors=True)
    submissions.mkdir(parents=True)
    make_isolation_samples(submissions)
    write_folder(submissions / VICTIM, student_files("solution"))
    out = graded_batch(submissions, work / "isolation-grades", ["01"], jobs)
    if out is None:
        return ["the batch of attacking samples did not finish"]
    students = [student_name(p) for p in find_submissions(submissions)]
    return isolation_problems(out, students, LOG_LIMIT)


def cheat_problems(out: Path) -> list[str]:
    """What is wrong with the graded catalogue: a cheat that earned points or whose reason misses what it did."""
    problems = []
    for cheat in CHEATS:
        grade = load_grade(student_folder(out, cheat.name))
        lab = grade.labs[0] if grade and grade.labs else None
        if lab is None:
            problems.append(f"{cheat.name}: no grade for lab 01")
            continue
        reasons = "\n".join([lab.problem, lab.details, *(t.reason for t in lab.tests)])
        if lab.earned or not lab.tests:
            problems.append(f"{cheat.name}: lab 01 {lab.earned}/{lab.possible}, expected 0")
        if cheat.says not in reasons:
            problems.append(f"{cheat.name}: the reason does not say '{cheat.says}': {lab.problem or reasons[:200]}")
    return problems


def catalogue_problems(sample: str, must_fail: list[str], grade, lab_number: str) -> list[str]:
    """What is wrong with one graded catalogue sample: it must fail exactly `must_fail`
    in its lab (tests that could not be graded here count neither way)."""
    if grade is None:
        return [f"{sample}: no grade was written"]
    lab = next((lab for lab in grade.labs if lab.number == lab_number), None)
    if lab is None or lab.problem:
        return [f"{sample}: lab {lab_number} was not graded: {lab.problem if lab else 'missing'}"]
    if needs_more_gpus(lab):
        return []  # grade_catalogue says so
    failed = {t.name for t in lab.tests if t.status == FAILED}
    passed = {t.name for t in lab.tests if t.status == PASSED}
    problems = [f"{sample}: {name} should fail and did not" for name in must_fail if name in passed]
    problems += [
        f"{sample}: {name} failed ({next(t.reason for t in lab.tests if t.name == name)}) but should pass"
        for name in sorted(failed - set(must_fail))
    ]
    return problems


def catalogue_verdict(problems: list[str], grade, lab_number: str) -> str:
    """One catalogue sample's verdict: "ok", "NOT AS EXPECTED", or, where the machine has too few
    GPUs for its lab, that it was not checked here."""
    if problems:
        return "NOT AS EXPECTED"
    lab = next((lab for lab in grade.labs if lab.number == lab_number), None) if grade else None
    unchecked = needs_more_gpus(lab) if lab else ""
    return f"not checked here ({unchecked})" if unchecked else "ok"


def grade_catalogue(work: Path, jobs: int, labs: set[str] | None = None, keep_records: Path | None = None) -> list[str]:
    """Grades every catalogue sample (of `labs`, default all) on its own lab only; returns what broke the
    catalogue's rules. With `keep_records`, copies the record of each sample of a lab recorded once there,
    where the course commits it (copy_kept_record; what the CPU tests judge: test_lab_records.py)."""
    samples = work / "catalogue"
    make_catalogue(samples)
    problems = []
    for number in sorted(
        {lab for _, lab, _ in CATALOGUE.values()} & (labs or {lab.number for lab in course_labs(ROOT)})
    ):
        names = [name for name, (_, lab, _) in CATALOGUE.items() if lab == number]
        batch = work / f"catalogue-lab{number}"
        shutil.rmtree(batch, ignore_errors=True)
        for name in names:
            shutil.copytree(samples / name, batch / name)
        out = graded_batch(batch, work / "catalogue-grades", [number], jobs)
        if out is None:
            return [f"grading the catalogue's lab {number} samples failed"]
        for name in names:
            must_fail = CATALOGUE[name].fails
            grade = load_grade(student_folder(out, name))
            found = catalogue_problems(name, must_fail, grade, number)
            record = recording.record_file(student_folder(out, name), number, "yours")  # lab NN recorded once
            if keep_records is not None and record.is_file():
                folder = selected_labs([number])[0].folder
                print(f"selfgrade: kept {copy_kept_record(record, folder, name, keep_records)}")
            problems += found
            print(
                f"selfgrade: catalogue {name}: must fail {', '.join(must_fail) or 'nothing'}: "
                f"{catalogue_verdict(found, grade, number)}"
            )
    return problems


def recorded_gpu(record: Path) -> str:
    """The name of the GPU `record` was made on: as the harness read it itself (the end line's observed
    gpus), else as the set-up names it; "" where the record names none (RECORD_FORMAT.md)."""
    named = ""
    for text in record.read_text(errors="replace").splitlines():
        try:
            line = json.loads(text)
            if "end" in line and line.get("observed", {}).get("gpus"):
                return str(line["observed"]["gpus"][0])
            if "setup" in line:
                named = str(line["setup"].get("trace", {}).get("otherData", {}).get("device", {}).get("name", ""))
        except (ValueError, TypeError, AttributeError):
            continue  # not a line of the record's format: it names no GPU
    return named


def gpu_slug(name: str) -> str:
    """A GPU's name as a kept record's prefix, without a hyphen (the sample's name follows the first one):
    its model where the maker's name is followed by one ("NVIDIA H100 80GB HBM3": h100, "NVIDIA H200":
    h200), else its words joined by underscores ("NVIDIA GeForce RTX 4090": geforce_rtx_4090)."""
    words = [word for word in re.findall(r"[a-z0-9]+", name.lower()) if word != "nvidia"]
    if words and re.fullmatch(r"[a-z]{1,2}[0-9]{1,4}[a-z]?", words[0]):
        return words[0]
    return "_".join(words) or "unknown_gpu"


def copy_kept_record(record: Path, lab_folder: str, sample: str, keep_records: Path) -> Path:
    """Copies `record` to where the course commits sample `sample`'s record of lab `lab_folder`, under
    `keep_records` (records.committed_record, named for the gpu_slug of the GPU the record was made on:
    h100-SAMPLE.record.jsonl on an H100), and returns the copy's path."""
    target = records.committed_record(keep_records, lab_folder, gpu_slug(recorded_gpu(record)), sample)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(record, target)
    return target


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, help="folder for submissions and grades (default: a temporary one)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-catalogue", action="store_true", help="grade only the solutions and the starters")
    parser.add_argument("--catalogue-only", nargs="+", metavar="NN", help="grade only these labs' catalogue samples")
    parser.add_argument(
        "--cheats-only", action="store_true", help="grade only the cheating submissions and the attacking batch"
    )
    parser.add_argument(
        "--keep-records",
        type=Path,
        metavar="DIR",
        help="copy the record of each catalogue sample of a lab recorded once into DIR, laid out as committed "
        f"(DIR/{records.COMMITTED_RECORDS}/NN-topic/)",
    )
    args = parser.parse_args(argv)
    gpu_present, gpu = gpu_presence()
    if not gpu_present:
        print(f"SKIPPED: {gpu}: grading the solutions and starters needs a GPU")
        return SKIP

    work = args.work or Path(tempfile.mkdtemp(prefix="selfgrade-"))
    if args.catalogue_only:
        problems = grade_catalogue(work, args.jobs, set(args.catalogue_only), args.keep_records)
        for problem in problems:
            print(f"selfgrade: {problem}")
        return 1 if problems else 0
    labs = course_labs(ROOT)
    problems = []
    if not args.cheats_only:
        shutil.rmtree(work / "submissions", ignore_errors=True)
        write_folder(work / "submissions" / "solutions", student_files("solution"))
        write_folder(work / "submissions" / "starters", student_files("starter"))
        out = graded_batch(work / "submissions", work / "grades", None, args.jobs)
        if out is None:
            return 1
        for student, full in (("solutions", True), ("starters", False)):
            problems += lab_problems(student, load_grade(student_folder(out, student)), full)
    # The catalogue of cheats, lab 01 only (the lab they change).
    shutil.rmtree(work / "cheats", ignore_errors=True)
    make_cheats(work / "cheats")
    out = graded_batch(work / "cheats", work / "cheat-grades", ["01"], args.jobs)
    if out is None:
        return 1
    problems += cheat_problems(out)
    problems += isolation_batch(work, args.jobs)
    if not (args.no_catalogue or args.cheats_only):
        problems += grade_catalogue(work, args.jobs, keep_records=args.keep_records)
    for problem in problems:
        print(f"selfgrade: {problem}")
    if problems:
        return 1
    if not args.cheats_only:
        print(f"selfgrade: {len(labs)} lab(s): every solution scores full points, every starter less")
    print(
        f"selfgrade: {len(CHEATS)} cheating submissions score 0 with their reasons; "
        "the attacking samples harmed nobody else"
    )
    if not (args.no_catalogue or args.cheats_only):
        print(f"selfgrade: catalogue: {len(CATALOGUE)} sample(s), each failing exactly its named tests")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
