#!/usr/bin/env python3
"""What recording in-process from Python costs: lab 05's Python pipeline on the host clock,
without and with `streamlab.record`, on the same data, as the C++ benchmark measures it.

    python3 tools/examples/python_record_overhead.py [--runs 15] [--chunks 3 64 256]

with the import path of lab 05's Python program on the solution (the solution's folder, the lab's, the
module's, python/: coursecli/environment.py's python_lab_environment), as tools/gpu_parts/tour.sh runs it.

Three ways, each in turn for every chunk count (streamlab.measure_tracer_overheads): nothing
recorded, CUPTI's activity records alone, and the course's recorder; once a process has
recorded, CUPTI stays attached to it, so no later run is one without it. For each chunk
count prints the median of each way, CUPTI's own cost (timing every op) and what the
course's recorder adds beyond it (goal: at most 3%).
"""

from __future__ import annotations

import argparse
import sys
import time

import streamlab
import three_chunks
from lab05 import FLOAT_BYTES, job_over
from lab_program import first_gpu_or_say


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each way, per chunk count")
    parser.add_argument("--chunks", type=int, nargs="+", default=[3, 64, 256])
    args = parser.parse_args(argv)
    facts = first_gpu_or_say("python_record_overhead")
    if facts is None:
        return 1
    prepared = streamlab.prepare_pipeline(facts)
    job = job_over(prepared.memory, prepared.iterations)
    n = prepared.memory.n
    print(f"python_record_overhead: {facts.name}, {n * FLOAT_BYTES >> 20} MiB, {args.runs} runs each way")

    def pipeline_ms(chunks: int) -> float:
        started = time.perf_counter()
        three_chunks.run_pipeline(job, chunks)
        return 1000 * (time.perf_counter() - started)

    runs = [lambda chunks=chunks: pipeline_ms(chunks) for chunks in args.chunks]
    overheads = streamlab.measure_tracer_overheads("python overhead", args.runs, runs)
    worst = 0.0
    for chunks, overhead in zip(args.chunks, overheads):
        cupti = 100 * (overhead.cupti_only_ms / overhead.untraced_ms - 1)
        beyond_cupti = 100 * (overhead.traced_ms / overhead.cupti_only_ms - 1)
        worst = max(worst, beyond_cupti)
        print(
            f"python_record_overhead: {chunks} chunks: {overhead.untraced_ms:.3f} ms with nothing recorded, "
            f"{overhead.cupti_only_ms:.3f} ms with CUPTI's records alone ({cupti:+.1f}%), "
            f"{overhead.traced_ms:.3f} ms recorded: {beyond_cupti:+.1f}% beyond CUPTI (goal: at most 3%)"
        )
    return 0 if worst <= 3 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
