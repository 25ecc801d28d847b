"""Checks what `course grade --sanitize` reported for the compute-sanitizer samples.

    python3 -m selfgrading.make_grading_samples --sanitizer /tmp/san
    ./course grade /tmp/san -o /tmp/san-grades --sanitize
    python3 -m selfgrading.check_sanitizer_samples /tmp/san/sanitizer-expected.json /tmp/san-grades

Prints one row per sample: the finding it must report (kind, file, lines) and
what the report says; `solutions-clean` must report nothing in any lab. Exits 1
when a sample is not reported as expected. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from coursecli.gradebook import load_grade, student_folder

_HEADER = re.compile(r"^\d+\. (?P<kind>[^:]+): ")
_AT = re.compile(r"^\s+at (?P<file>\S+):(?P<line>\d+)")


def reported_findings(lines: list[str]) -> list[tuple[str, str, int]]:
    """(kind, file, line) of each finding in a lab's sanitizer lines; file "" and line 0 when unplaced."""
    found: list[tuple[str, str, int]] = []
    for line in lines:
        header, at = _HEADER.match(line), _AT.match(line)
        if header:
            found.append((header.group("kind"), "", 0))
        elif at and found and not found[-1][1]:
            found[-1] = (found[-1][0], at.group("file"), int(at.group("line")))
    return found


def check(expected: dict, grades: Path) -> list[tuple[str, str, str, bool]]:
    """(sample, expected, reported, ok) for every sample."""
    rows = []
    for sample, want in expected.items():
        grade = load_grade(student_folder(grades, sample))
        if grade is None:
            rows.append((sample, "graded", "no grade.json", False))
            continue
        sanitized = {lab.number: reported_findings(lab.sanitizer) for lab in grade.labs if lab.sanitizer}
        if want.get("clean"):
            # Clean means both tools ran and said so, not that nothing could be checked.
            unchecked = sorted(
                lab.number
                for lab in grade.labs
                if not all(
                    any(line.startswith(f"{tool}") and line.endswith(": clean") for line in lab.sanitizer)
                    for tool in ("memcheck", "initcheck")
                )
            )
            dirty = {number: found for number, found in sanitized.items() if found}
            shown = "; ".join(f"lab {n}: {len(f)} finding(s)" for n, f in dirty.items()) or (
                f"not checked in labs {' '.join(unchecked)}"
                if unchecked
                else f"clean in labs {' '.join(sorted(sanitized))}"
            )
            rows.append((sample, "no findings", shown, bool(grade.labs) and not dirty and not unchecked))
            continue
        found = sanitized.get(want["lab"], [])
        ok = any(kind == want["kind"] and file == want["file"] and line in want["lines"] for kind, file, line in found)
        shown = "; ".join(f"{kind} at {file or '?'}:{line}" for kind, file, line in found) or "nothing"
        lines = "-".join(str(n) for n in (want["lines"][0], want["lines"][-1]))
        rows.append((sample, f"lab {want['lab']}: {want['kind']} at {want['file']}:{lines}", shown, ok))
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("expected", type=Path, help="sanitizer-expected.json, written with the samples")
    parser.add_argument("grades", type=Path, help="the output folder of `course grade --sanitize`")
    args = parser.parse_args(argv)
    rows = check(json.loads(args.expected.read_text()), args.grades)
    print("| sample | must report | reported | ok |\n|---|---|---|---|")
    for sample, want, shown, ok in rows:
        print(f"| {sample} | {want} | {shown} | {'yes' if ok else 'NO'} |")
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
