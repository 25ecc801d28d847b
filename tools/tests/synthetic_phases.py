"""Synthetic traces of the three overlap experiments (sequential, version 1, version 2) with idle
gaps between them, as common/examples/overlap_experiments records on a GPU: each experiment inside
an NVTX range named after it (with a shorter range nested in the two versions, around the issuing
loop). Not recorded: made up, with round numbers, for the phase tests; the program name and device
say "synthetic".

    python3 tools/tests/synthetic_phases.py tools/tests/fixtures/synthetic_overlap_experiments.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

NULL_STREAM, STREAMS = 7, (13, 14, 15, 16)
HOST_THREAD = 4242
LAUNCH_NS = 3_000  # the small wait between ops of one experiment


def overlap_experiments(
    h2d_ns: int = 300_000, kernel_ns: int = 200_000, d2h_ns: int = 300_000, gap_ns: int = 5_000_000, nvtx: bool = True
) -> dict:
    """The trace as a JSON object: three experiments separated by `gap_ns` of idle GPU, each in
    an NVTX range unless `nvtx` is false. Stage times are for the whole array; each of the four
    streams takes a quarter."""
    events, ranges, correlation = [], [], iter(range(1, 1000))

    def host_range(name: str, start: int, end: int) -> None:
        ranges.append(
            {
                "ph": "X",
                "pid": 0,
                "tid": HOST_THREAD,
                "name": name,
                "cat": "nvtx",
                "ts": start / 1e3,
                "dur": (end - start) / 1e3,
                "args": {"start_ns": start, "end_ns": end},
            }
        )

    def op(kind: str, stream: int, start: int, duration: int, label: str = "") -> int:
        stage = {"memcpy_h2d": "H2D", "kernel": "K", "memcpy_d2h": "D2H"}[kind]
        args = {
            "op": kind,
            "label": label,
            "stream": stream,
            "stream_kind": "legacy_null" if stream == NULL_STREAM else "created",
            "start_ns": start,
            "end_ns": start + duration,
            "correlation_id": next(correlation),
        }
        if kind == "kernel":
            args["kernel_name"] = "workload_kernel"
        else:
            args.update(bytes=4 << 20, host_memory="pinned")
        events.append(
            {
                "ph": "X",
                "pid": 1,
                "tid": stream,
                "name": f"{stage}_{label}" if label else stage,
                "cat": kind,
                "ts": start / 1e3,
                "dur": duration / 1e3,
                "args": args,
            }
        )
        return start + duration

    # sequential, in the NULL stream
    t = op("memcpy_h2d", NULL_STREAM, 0, h2d_ns)
    t = op("kernel", NULL_STREAM, t + LAUNCH_NS, kernel_ns)
    t = op("memcpy_d2h", NULL_STREAM, t + LAUNCH_NS, d2h_ns)
    host_range("sequential", 0, t + LAUNCH_NS)  # the range closes once the host has synchronized
    h, k, d = h2d_ns // 4, kernel_ns // 4, d2h_ns // 4
    # version 1 and version 2 run the same pipeline here (two copy engines); what differs is
    # the issue order, visible in the correlation ids.
    for version in (1, 2):
        begin = t + gap_ns
        ends = []
        for i, stream in enumerate(STREAMS):
            start = begin + i * (h + LAUNCH_NS)
            after_copy = op("memcpy_h2d", stream, start, h, str(i + 1))
            ends.append((stream, i, after_copy))
        kernel_free = 0
        for stream, i, after_copy in ends:
            kernel_start = max(after_copy, kernel_free) + LAUNCH_NS
            kernel_free = op("kernel", stream, kernel_start, k, str(i + 1))
            ends[i] = (stream, i, kernel_free)
        copy_free = 0
        for stream, i, after_kernel in ends:
            copy_free = op("memcpy_d2h", stream, max(after_kernel, copy_free) + LAUNCH_NS, d, str(i + 1))
        t = copy_free
        host_range(f"version {version}", begin - LAUNCH_NS, t + LAUNCH_NS)
        host_range("issue", begin - LAUNCH_NS, begin + 3 * LAUNCH_NS)
    names = [
        {
            "ph": "M",
            "pid": 1,
            "tid": s,
            "name": "thread_name",
            "args": {"name": "NULL stream (legacy)" if s == NULL_STREAM else f"stream {s}"},
        }
        for s in (NULL_STREAM, *STREAMS)
    ]
    host_names = [
        {
            "ph": "M",
            "pid": 0,
            "tid": HOST_THREAD,
            "name": "thread_name",
            "args": {"name": f"NVTX ranges, thread {HOST_THREAD}"},
        }
    ]
    return {
        "displayTimeUnit": "ns",
        "otherData": {
            "format": "streamlab-trace",
            "version": 1,
            "program": "synthetic: overlap_experiments (sequential, version 1, version 2), not recorded",
            "date": "2026-01-01T00:00:00Z",
            "device": {
                "name": "synthetic device",
                "compute_capability": "9.0",
                "sm_count": 132,
                "copy_engines": 2,
                "concurrent_kernels": True,
                "total_memory_bytes": 85899345920,
                "driver_version": "13.0",
                "runtime_version": "13.0",
            },
            "dropped_records": 0,
            "origin_ns": 0,
        },
        "traceEvents": names + events + (host_names + ranges if nvtx else []),
    }


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(overlap_experiments(), indent=1) + "\n")
