#!/usr/bin/env python3
"""The numbers the READMEs and slides quote, and the one file they come from.

common/reference/h200_quoted_numbers.json holds every measurement a README or
slide quotes (each with its device and date) and, under "quotes", where each is
quoted: a file and a text in which {measurement.key} (optionally {key:.2f})
stands for the number. tools/tests/test_quoted_numbers.py checks that every
quote appears in its file with the reference's number. A measurement not yet
taken is null; its quotes then read [[H200: measurement.key]] in the file.

    python3 tools/quoted_numbers.py fill RESULT.json [RESULT.json ...]

stores each result a measurement program wrote (pageable_overlap --json,
host_allocation_costs --json: their "program" names the measurement) in the
reference file and writes its numbers into the quoting files.

Standard library only.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "common" / "reference" / "h200_quoted_numbers.json"
FIELD = re.compile(r"\{([A-Za-z0-9_.\- ]+?)(?::([^}]+))?\}")


def lookup(measurements: dict, key: str):
    """The value at a dotted `key` ("three_chunks.serial_ms"); None while its measurement is pending."""
    value = measurements
    for part in key.split("."):
        if value is None:
            return None
        if not isinstance(value, dict) or part not in value:
            raise KeyError(f"{key}: not in the reference file")
        value = value[part]
    return value


def measured_text(template: str, measurements: dict) -> str | None:
    """The quote with the reference's numbers, or None when one of them is pending."""
    missing = False

    def number(match: re.Match) -> str:
        nonlocal missing
        value = lookup(measurements, match.group(1))
        missing = missing or value is None
        return "" if value is None else format(value, match.group(2) or "")

    text = FIELD.sub(number, template)
    return None if missing else text


def pending_text(template: str) -> str:
    """The quote as it reads while its numbers are pending."""
    return FIELD.sub(lambda match: f"[[H200: {match.group(1)}]]", template)


def fill(results: list[Path], reference: Path = REFERENCE, root: Path = ROOT) -> list[str]:
    """Stores `results` in the reference file and writes the quotes' numbers into their files; returns what changed."""
    data = json.loads(reference.read_text())
    for path in results:
        result = json.loads(path.read_text())
        name = result.get("program")
        if name not in data["measurements"]:
            raise SystemExit(f"quoted_numbers: {path}: 'program' {name!r} is not a measurement of {reference.name}")
        data["measurements"][name] = result
    changed = []
    for quote in data["quotes"]:
        text = measured_text(quote["text"], data["measurements"])
        target = root / quote["file"]
        if text is None:
            continue
        content = target.read_text()
        if pending_text(quote["text"]) in content:
            target.write_text(content.replace(pending_text(quote["text"]), text))
            changed.append(quote["file"])
    reference.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return sorted(set(changed))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    fill_parser = sub.add_parser("fill", help="store measurement results and write their numbers into the quotes")
    fill_parser.add_argument("results", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.results:
        if not path.is_file():
            print(f"quoted_numbers: {path} does not exist")
            return 1
    for name in fill(args.results):
        print(f"quoted_numbers: filled in {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
