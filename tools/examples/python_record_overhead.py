#!/usr/bin/env python3
"""What recording in-process from Python costs: lab 05's Python pipeline timed by its own
CUDA events, alone and inside `streamlab.record`, alternating, on the same data.

    PYTHONPATH=solutions/05-three-chunks/python:labs/05-three-chunks/python:build/python:python \\
        python3 tools/examples/python_record_overhead.py [--runs 15] [--chunks 3 64]

For each chunk count prints the median makespan (the events' time) of each way and
the cost of recording as a share of the unrecorded makespan (goal: under 3%).
"""

from __future__ import annotations

import argparse
import statistics
import sys

import streamlab
import three_chunks
from lab05 import FLOAT_BYTES, job_over
from lab_program import first_gpu_or_say


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each way, per chunk count")
    parser.add_argument("--chunks", type=int, nargs="+", default=[3, 64])
    args = parser.parse_args(argv)
    facts = first_gpu_or_say("python_record_overhead")
    if facts is None:
        return 1
    prepared = streamlab.prepare_pipeline(facts)
    job = job_over(prepared.memory, prepared.iterations)
    n = prepared.memory.n
    print(f"python_record_overhead: {facts.name}, {n * FLOAT_BYTES >> 20} MiB, {args.runs} runs each way")
    worst = 0.0
    for chunks in args.chunks:
        three_chunks.run_pipeline(job, chunks)  # warm-up
        alone, recorded = [], []
        for _ in range(args.runs):
            alone.append(three_chunks.run_pipeline(job, chunks))
            with streamlab.record(f"python overhead, {chunks} chunks"):
                recorded.append(three_chunks.run_pipeline(job, chunks))
        plain, traced = statistics.median(alone), statistics.median(recorded)
        cost = 100 * (traced - plain) / plain
        worst = max(worst, cost)
        print(
            f"python_record_overhead: {chunks} chunks: {plain:.3f} ms alone, {traced:.3f} ms recorded: "
            f"{cost:+.1f}% (goal: under 3%)"
        )
    return 0 if worst < 3 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
