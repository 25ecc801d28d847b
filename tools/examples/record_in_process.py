#!/usr/bin/env python3
"""Records the copies of article_section3.py (next to this file) from inside this
process, with the Python module streamlab: no preloaded library, no injection, just

    with streamlab.record("section 3") as timeline:
        section3.run()

then writes the trace file and prints what the GPU recorded:

    .venv/bin/python tools/examples/record_in_process.py -o section3.json
    ./course plot section3.json

The module is found where `./course build` puts it (build/python, build-ci/python),
or on the import path; the course's tools (streamlab_tools) as `course setup` installs them. Exit status:
0 with the trace written; 1 when the copies failed; 2 when the module is not built
(./course build makes it); 77 when cuda-python or a GPU is missing (nothing to record).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from streamlab_tools import library

HERE = Path(__file__).resolve().parent

SKIPPED = 77
COURSE_ERROR = 2


def load_section3():
    spec = importlib.util.spec_from_file_location("article_section3", HERE / "article_section3.py")
    section3 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(section3)
    return section3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-o", "--output", default="section3-in-process.json", help="the trace file to write")
    args = parser.parse_args(argv)
    try:
        streamlab = library.load()
    except library.ModuleMissing as missing:
        print(f"record_in_process: {missing}", file=sys.stderr)
        return COURSE_ERROR
    section3 = load_section3()
    if section3.cudart is None:
        print("skipped: cuda-python is not installed (pip install cuda-python)", file=sys.stderr)
        return SKIPPED
    try:
        with streamlab.record("article section 3, recorded in-process") as timeline:
            status = section3.run()
    except streamlab.TimelineUnavailable as error:
        print(f"skipped: {error}", file=sys.stderr)
        return SKIPPED
    if status != 0:
        return 1
    for op in timeline.ops:
        print(
            f"  {op.display_name:<6} {op.kind:<11} stream {op.stream}  {op.bytes >> 20} MiB  "
            f"{op.duration_ns / 1e6:.3f} ms  {op.host_memory}"
        )
    streamlab.write_trace(args.output, timeline)
    print(f"wrote {args.output}: {len(timeline.ops)} ops on {timeline.device.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
