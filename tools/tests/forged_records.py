"""Forged records, made from the committed H200 records (records.committed_record: h200-*.record.jsonl) by the
edits a dishonest run could make to the record it writes: each function takes the lines of a committed
record (JSON objects, as test_lab_records reads them) and returns them edited, or None where the edit does
not apply to that record. test_forged_records.py judges each with the real judges; every one must be refused.

A forged output is recomputed from the record's seed as a judge recomputes it (record.hpp's sample_indices,
workload.hpp's input_element and workload_reference), so that the output check alone would pass it.

    .venv/bin/python tools/tests/forged_records.py OUT    writes every forgery of lab 05's records into OUT
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import numpy as np
from coursecli.records import committed_record
from coursecli.shell import ROOT
from test_lab_records import device_ops, recorded_lines, text_of

# Lab 05's scenarios that run the student's pipeline, and the chunks each runs (record_lab05.cpp).
PIPELINE_CHUNKS = {"warm_up": 3, "pipeline": 3, "behind_null_stream": 3, "chunks_1": 1, "chunks_5": 5}
# The elements a sample spreads over the array besides the chunks' edges (record.cpp's kSpreadSamples).
SPREAD_SAMPLES = 2048
# The most kernel iterations a record may name (record.cpp's kMaxIterations).
MOST_ITERATIONS = 1 << 20
# How much longer than its trace the harness saw each scenario run, in an honest record's observations:
# the course's own work around the student's (filling the input, sampling the output).
WALL_MARGIN_MS = 5.0


def lab05_record(whose: str) -> Path:
    """Lab 05's committed H200 record of `whose` run: "solution", "starter" or a catalogue sample."""
    return committed_record(ROOT, "05-three-chunks", "h200", whose)


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def scenario(lines: list[dict], name: str) -> dict:
    return next(line for line in lines if line.get("scenario") == name)


def setup_values(lines: list[dict]) -> dict:
    return next(line for line in lines if "setup" in line)["setup"]["values"]


def header(lines: list[dict]) -> dict:
    return lines[0]


def end_line(lines: list[dict]) -> dict:
    return lines[-1]


# ---------------------------------------------------------------- outputs, recomputed as a judge does


def chunk_range(n: int, chunks: int, index: int) -> tuple[int, int]:
    per_chunk = (n + chunks - 1) // chunks
    offset = min(n, per_chunk * index)
    return offset, min(per_chunk, n - offset)


def sample_indices(n: int, chunks: int, seed: int) -> list[int]:
    stride = max(1, (n + SPREAD_SAMPLES - 1) // SPREAD_SAMPLES)
    indices = set(range(seed % stride, n, stride))
    for c in range(max(chunks, 1)):
        offset, count = chunk_range(n, max(chunks, 1), c)
        if count > 0:
            indices |= {offset, offset + count - 1}
    indices.add(n - 1)
    return sorted(indices)


def input_elements(indices: list[int], seed: int) -> np.ndarray:
    """input_element(i, seed) for each i, in float32."""
    mask = 0xFFFFFFFF
    h = (np.array(indices, dtype=np.uint64) & mask) * 2654435761 & mask
    h ^= (seed * 0x9E3779B9) & mask
    h ^= h >> 16
    h = h * 0x85EBCA6B & mask
    h ^= h >> 13
    magnitude = np.float32(0.25) + np.float32(0.75) * (h & 0xFFFF).astype(np.float32) / np.float32(65535.0)
    return np.where(h & 0x10000, magnitude, -magnitude).astype(np.float32)


def workload_reference(x: np.ndarray, iterations: int) -> np.ndarray:
    cos, sin = np.float32(0.99500417), np.float32(0.09983342)
    a, b = x.copy(), np.zeros_like(x)
    for _ in range(iterations):
        a, b = a * cos - b * sin, a * sin + b * cos
    return a + b


def correct_output(n: int, iterations: int, chunks: int, seed: int) -> dict:
    """The output sample a correct run of `n` elements, `iterations` and `chunks` leaves for `seed`."""
    index = sample_indices(n, chunks, seed)
    value = workload_reference(input_elements(index, seed), iterations)
    return {"n": n, "iterations": iterations, "chunks": chunks, "seed": seed, "index": index, "value": value.tolist()}


# ---------------------------------------------------------------- the forgeries of lab 05


def pasted_solution_pipelines(starter: list[dict], solution: list[dict]) -> list[dict]:
    """The solution's pipeline scenarios pasted into the starter's record, their outputs recomputed for
    the starter's seed (the solution's run: its elements, iterations and chunks)."""
    lines = copy.deepcopy(starter)
    seed = header(lines)["seed"]
    for i, line in enumerate(lines):
        if line.get("scenario") in PIPELINE_CHUNKS:
            pasted = copy.deepcopy(scenario(solution, line["scenario"]))
            output = pasted["output"]
            pasted["output"] = correct_output(output["n"], output["iterations"], output["chunks"], seed)
            lines[i] = pasted
    return lines


def chunked(serial: dict, chunks: int, n: int) -> tuple[list[dict], list[dict]]:
    """The serial run's three ops cut into `chunks` chunks, each in a stream of its own and overlapped as
    a pipeline would be; and the stream calls a pipeline makes for them, each made before its op."""
    h2d, kernel, d2h = (op["args"] for op in device_ops(serial))
    t0 = h2d["start_ns"]
    copy_in, compute, copy_out = ((op["end_ns"] - op["start_ns"]) // chunks for op in (h2d, kernel, d2h))
    events, calls = [], []
    kernel_free = out_free = t0
    for i in range(chunks):
        _, count = chunk_range(n, chunks, i)
        stream, handle = 100 + i, 5000 + i
        h2d_start = t0 + i * copy_in
        k_start = max(h2d_start + copy_in, kernel_free)
        d_start = max(k_start + compute, out_free)
        kernel_free, out_free = k_start + compute, d_start + copy_out
        for j, (op, start, length) in enumerate(
            [("memcpy_h2d", h2d_start, copy_in), ("kernel", k_start, compute), ("memcpy_d2h", d_start, copy_out)]
        ):
            args = {"op": op, "label": str(i + 1), "stream": stream, "stream_kind": "created"}
            args |= {"start_ns": start, "end_ns": start + length, "correlation_id": 1000 + 3 * i + j}
            if op != "kernel":
                args |= {"bytes": count * 4, "host_memory": "pinned"}
            else:
                args["kernel_name"] = kernel["kernel_name"]
            name = {"memcpy_h2d": "H2D", "kernel": "K", "memcpy_d2h": "D2H"}[op] + f"_{i + 1}"
            events.append({"ph": "X", "pid": 1, "tid": stream, "name": name, "cat": op, "ts": start / 1000})
            events[-1] |= {"dur": length / 1000, "args": args}
            function = "cudaLaunchKernel" if op == "kernel" else "cudaMemcpyAsync"
            calls.append({"call": "work", "function": function, "stream": handle, "event": 0, "time_ns": 3 * i + j})
    last = max(event["args"]["end_ns"] for event in events)
    stop = 7000
    for i in range(1, chunks):  # the first stream waits for every other before `stop` is recorded in it
        calls.append({"call": "event_record", "function": "cudaEventRecord", "stream": 5000 + i, "event": 6000 + i})
        calls.append(
            {"call": "stream_wait_event", "function": "cudaStreamWaitEvent", "stream": 5000, "event": 6000 + i}
        )
    calls.append({"call": "event_record", "function": "cudaEventRecord", "stream": 5000, "event": stop})
    calls.append({"call": "event_synchronize", "function": "cudaEventSynchronize", "stream": 0, "event": stop})
    for k, call in enumerate(calls):
        call["time_ns"] = (k + 1) * 10 if k < 3 * chunks else last + k * 10
    events.sort(key=lambda event: event["args"]["start_ns"])
    return events, calls


def synthesized_pipelines(starter: list[dict], with_outputs: bool = True) -> list[dict]:
    """Every pipeline scenario but the one behind the NULL stream made up from the starter's own serial run,
    no donor record: its ops cut into chunks, the stream calls a pipeline makes, the reported time the
    timeline's, and (`with_outputs`) the output recomputed from the seed."""
    lines = copy.deepcopy(starter)
    values, seed = setup_values(lines), header(lines)["seed"]
    n, iterations = int(values["n"]), int(values["iterations"])
    serial = scenario(lines, "serial")
    for line in lines:
        chunks = PIPELINE_CHUNKS.get(line.get("scenario"))
        if line.get("outcome") != "recorded" or chunks is None or line["scenario"] == "behind_null_stream":
            continue
        events, calls = chunked(serial, chunks, n)
        last = max(event["args"]["end_ns"] for event in events)
        marks = [event for event in line["trace"]["traceEvents"] if event.get("ph") == "i"]
        for mark in marks:
            mark["args"]["time_ns"], mark["ts"] = last + 50_000, (last + 50_000) / 1000
        line["trace"]["traceEvents"] = events + marks
        line["stream_calls"] = calls
        line["values"]["returned_ms"] = (last - events[0]["args"]["start_ns"]) / 1e6
        if with_outputs:
            line["output"] = correct_output(n, iterations, chunks, seed)
        else:
            line.pop("output", None)
    return lines


def zero_outputs_at_most_iterations(lines: list[dict]) -> list[dict]:
    """Every pipeline scenario's output set to 0, its iterations raised to 2^20: a tolerance that grows with
    the sample's iterations matched any value."""
    lines = copy.deepcopy(lines)
    for line in recorded_lines(lines):
        if line["scenario"] in PIPELINE_CHUNKS and "output" in line:
            line["output"]["iterations"] = MOST_ITERATIONS
            line["output"]["value"] = [0.0] * len(line["output"]["value"])
    return lines


def joined_by_four_more_calls(lines: list[dict]) -> list[dict]:
    """Four stream calls added to a pipeline whose `stop` did not wait for its other streams: each other
    stream records an event that the stream of `stop` waits for, just before `stop` is recorded."""
    lines = copy.deepcopy(lines)
    line = scenario(lines, "pipeline")
    calls = line["stream_calls"]
    stop = max(i for i, call in enumerate(calls) if call["call"] == "event_record")
    stop_stream = calls[stop]["stream"]
    others = sorted({call["stream"] for call in calls if call["call"] == "work"} - {stop_stream})
    added = []
    for k, stream in enumerate(others):
        added.append({"call": "event_record", "function": "cudaEventRecord", "stream": stream, "event": 4242 + k})
        added.append({"call": "stream_wait_event", "function": "cudaStreamWaitEvent", "stream": stop_stream})
        added[-1]["event"] = 4242 + k
    for k, call in enumerate(added):
        call["time_ns"] = calls[stop]["time_ns"] - (len(added) - k)
    line["stream_calls"] = calls[:stop] + added + calls[stop:]
    return lines


# ---------------------------------------------------------------- one forgery for each cross-check


def sample_of_other_chunks(lines: list[dict]) -> list[dict] | None:
    """A correct output sample of the run, but of one chunk where the run had several."""
    lines = copy.deepcopy(lines)
    for line in recorded_lines(lines):
        output = line.get("output")
        if output and output["chunks"] > 1:
            line["output"] = correct_output(output["n"], output["iterations"], 1, output["seed"])
            return lines
    return None


def a_kernel_no_call_made(lines: list[dict]) -> list[dict] | None:
    """A kernel op more than the program launched (a copy of one, on the timeline after it)."""
    lines = copy.deepcopy(lines)
    for line in recorded_lines(lines):
        kernels = [op for op in device_ops(line) if op["args"]["op"] == "kernel" and not op["args"].get("graph_id")]
        if kernels and not line["trace"]["otherData"]["api_calls"].get("cudaGraphLaunch"):
            extra = copy.deepcopy(kernels[-1])
            extra["args"]["correlation_id"] += 100_000
            events = line["trace"]["traceEvents"]
            events.insert(events.index(kernels[-1]) + 1, extra)
            return lines
    return None


def copies_ten_times_faster(lines: list[dict]) -> list[dict] | None:
    """Every large copy from or to the host ten times shorter: faster than the host link can go."""
    lines = copy.deepcopy(lines)
    shortened = False
    for line in recorded_lines(lines):
        for op in device_ops(line):
            args = op["args"]
            if args["op"] in ("memcpy_h2d", "memcpy_d2h") and args.get("bytes", 0) >= 1 << 20:
                args["end_ns"] = args["start_ns"] + (args["end_ns"] - args["start_ns"]) // 10
                op["dur"] = (args["end_ns"] - args["start_ns"]) / 1000
                shortened = True
    return lines if shortened else None


def kernels_ten_times_faster(lines: list[dict]) -> list[dict] | None:
    """Every kernel of a scenario whose output matches the reference ten times shorter."""
    lines = copy.deepcopy(lines)
    shortened = False
    for line in recorded_lines(lines):
        if "output" not in line:
            continue
        for op in device_ops(line):
            args = op["args"]
            if args["op"] == "kernel":
                args["end_ns"] = args["start_ns"] + (args["end_ns"] - args["start_ns"]) // 10
                op["dur"] = (args["end_ns"] - args["start_ns"]) / 1000
                shortened = True
    return lines if shortened else None


def observed_honestly(lines: list[dict]) -> dict:
    """What a harness would have observed of the run that wrote `lines` (one start that ended as planned,
    each scenario's wall time a little longer than its trace, the set-up's GPU)."""
    walls = {}
    for line in recorded_lines(lines):
        times = [event["args"].get("time_ns", event["args"].get("end_ns", 0)) for event in line["trace"]["traceEvents"]]
        times += [event["args"]["start_ns"] for event in device_ops(line)]
        times += [call["time_ns"] for call in line["stream_calls"]]
        walls[line["scenario"]] = (max(times) - min(times)) / 1e6 + WALL_MARGIN_MS
    gpu = next(line for line in lines if "setup" in line)["setup"]["trace"]["otherData"]["device"]["name"]
    starts = [{"ended": "exit status 75", "finished": False}] * (sum(1 for line in lines if "setup" in line) - 1)
    return {
        "starts": starts + [{"ended": "exit status 0", "finished": True}],
        "scenario_wall_ms": walls,
        "gpus": [gpu],
        "gpu_reading": "",
    }


def with_observations(lines: list[dict]) -> list[dict]:
    """The record as a harness of today ends it: with what it observed of the run (the control case)."""
    lines = copy.deepcopy(lines)
    end_line(lines)["observed"] = observed_honestly(lines)
    return lines


def ended_by_a_signal(lines: list[dict]) -> list[dict]:
    """The program killed by a signal after writing its record, and no scenario that crashed."""
    lines = with_observations(lines)
    end_line(lines)["observed"]["starts"][-1] = {"ended": "killed by signal 9 (Killed)", "finished": False}
    return lines


def ran_longer_than_the_harness_saw(lines: list[dict]) -> list[dict] | None:
    """The harness saw every scenario run for 1 ms, and some scenario's trace spans more than 10 ms."""
    lines = with_observations(lines)
    walls = end_line(lines)["observed"]["scenario_wall_ms"]
    if max(walls.values()) < 10.0 + WALL_MARGIN_MS:
        return None
    for name in walls:
        walls[name] = 1.0
    return lines


def another_gpu_than_the_harness_read(lines: list[dict]) -> list[dict]:
    """The harness read an H100 on the machine; the record names another GPU."""
    lines = with_observations(lines)
    end_line(lines)["observed"]["gpus"] = ["NVIDIA H100 80GB HBM3 (not this record's)"]
    return lines


def found_no_gpu_where_the_harness_read_one(lines: list[dict]) -> list[dict]:
    """A recording that says it found no GPU (which the judges would skip as "not graded" rather than fail)
    on a machine where the harness read one: the set-up of a run without a GPU, the observations kept."""
    lines = with_observations(lines)
    no_gpu = {"setup": {"no_gpu": "no GPU: no CUDA-capable device is detected"}}
    return [header(lines), no_gpu, end_line(lines)]


def another_runs_job_salt(lines: list[dict]) -> list[dict] | None:
    """A job salt in the header that the run's element counts do not follow: the record of another run
    (where the run samples an output, whose elements follow the salt)."""
    if not any("output" in line for line in recorded_lines(lines)):
        return None
    lines = copy.deepcopy(lines)
    n = int(setup_values(lines).get("n", 0))
    header(lines)["job_salt"] = (n + 1) % 4096 or 1
    return lines


def lab05_forgeries() -> dict[str, str]:
    """Every forgery of lab 05's committed records, by name, as the text of a record."""
    starter, solution = read(lab05_record("starter")), read(lab05_record("solution"))
    stop_without_join = read(lab05_record("wrong-lab05-stop-without-join"))
    return {
        "pasted-solution-pipelines": text_of(pasted_solution_pipelines(starter, solution)),
        "synthesized-pipelines": text_of(synthesized_pipelines(starter)),
        "synthesized-pipelines-without-outputs": text_of(synthesized_pipelines(starter, with_outputs=False)),
        "zero-outputs-at-most-iterations": text_of(zero_outputs_at_most_iterations(starter)),
        "joined-by-four-more-calls": text_of(joined_by_four_more_calls(stop_without_join)),
    }


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in lab05_forgeries().items():
        (folder / f"forged-{name}.record.jsonl").write_text(text)
