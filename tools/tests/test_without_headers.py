"""python/without_headers: the package that stands in for the module `streamlab` where it cannot
be built (no Python headers, or no nanobind), over the course's C library libstreamlab_c.so.

Every name the Python labs, their tests and the course's helpers use must be there, and the
values must be the module's, on the same inputs (recorded traces, the model on a grid).
Skipped, with the reason, where the module or the C library is not built in build-ci.
"""

from __future__ import annotations

import fractions
import importlib.util
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "without_headers" / "streamlab"
LIBRARY = ROOT / "build-ci" / "python" / "libstreamlab_c.so"
FIXTURES = Path(__file__).parent / "fixtures"
TRACES = ["pipeline_3_chunks.json", "serial_null_stream.json", "two_gpus_peer_copy.json"]


@pytest.fixture(scope="module")
def stand_in():
    """python/without_headers/streamlab, imported as streamlab_without_headers over build-ci's library."""
    if not LIBRARY.is_file():
        pytest.skip(f"{LIBRARY.relative_to(ROOT)} is not built (./course build --preset ci)")
    os.environ["STREAMLAB_C_LIBRARY"] = str(LIBRARY)
    spec = importlib.util.spec_from_file_location(
        "streamlab_without_headers", PACKAGE / "__init__.py", submodule_search_locations=[str(PACKAGE)]
    )
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package
    spec.loader.exec_module(package)
    return package


def names_the_course_uses() -> set[str]:
    """Every streamlab.NAME and streamlab.labNN.NAME in the Python labs, their solutions and the course's helpers."""
    files = [*ROOT.glob("labs/*/python/*.py"), *ROOT.glob("solutions/*/python/*.py"), *ROOT.glob("python/*.py")]
    found = set()
    for path in files:
        found |= set(re.findall(r"\bstreamlab\.((?:lab\d\d\.)?[A-Za-z_]\w*)", path.read_text()))
    return found


def test_the_labs_use_names_this_test_can_see():
    assert {
        "launch_workload",
        "chunk_range",
        "record",
        "lab06.CourseJob",
        "lab07.HostConsumer",
    } <= names_the_course_uses()


@pytest.mark.parametrize("name", sorted(names_the_course_uses()))
def test_every_name_the_course_uses_is_in_both(cpp, stand_in, name):
    for streamlab in (cpp, stand_in):
        owner = streamlab
        for part in name.split("."):
            assert hasattr(owner, part), f"{streamlab.__name__} has no {name}"
            owner = getattr(owner, part)


# --- the same values ---------------------------------------------------------------------


def op_fields(op) -> tuple:
    names = ("kind", "name", "display_name", "label", "stream", "stream_kind", "start_ns", "end_ns", "duration_ns")
    return tuple(getattr(op, field) for field in (*names, "bytes", "host_memory", "device", "source_device"))


@pytest.mark.parametrize("trace", TRACES)
def test_a_trace_reads_the_same(cpp, stand_in, trace):
    ours, theirs = cpp.read_trace(str(FIXTURES / trace)), stand_in.read_trace(str(FIXTURES / trace))
    assert [op_fields(op) for op in ours.ops] == [op_fields(op) for op in theirs.ops]
    assert [(m.name, m.time_ns) for m in ours.marks] == [(m.name, m.time_ns) for m in theirs.marks]
    assert (ours.program, ours.date, ours.origin_ns, ours.api_calls) == (
        theirs.program,
        theirs.date,
        theirs.origin_ns,
        theirs.api_calls,
    )
    assert ours.device.compute_capability == theirs.device.compute_capability
    assert cpp.trace_to_json(ours) == stand_in.trace_to_json(theirs)


MEASURES = ["makespan_ns", "copy_compute_overlap_ns", "h2d_d2h_overlap_ns", "kernel_overlap_ns"]
MEASURES += ["hidden_copy_fraction", "distinct_streams", "null_stream_ops"]


@pytest.mark.parametrize("trace", TRACES)
def test_the_analysis_measures_the_same(cpp, stand_in, trace):
    ours, theirs = cpp.read_trace(str(FIXTURES / trace)), stand_in.read_trace(str(FIXTURES / trace))
    for measure in MEASURES:
        assert getattr(cpp, measure)(ours.ops) == getattr(stand_in, measure)(theirs.ops), measure
    assert cpp.event_record_span_ns(ours) == stand_in.event_record_span_ns(theirs)
    assert cpp.last_event_waits_for_all(ours) == stand_in.last_event_waits_for_all(theirs)
    assert cpp.issue_order(ours.ops) == stand_in.issue_order(theirs.ops)
    a, b = cpp.find_chunks(ours.ops), stand_in.find_chunks(theirs.ops)
    assert a.problem == b.problem
    assert [[op_fields(c.h2d), op_fields(c.kernel), op_fields(c.d2h)] for c in a.chunks] == [
        [op_fields(c.h2d), op_fields(c.kernel), op_fields(c.d2h)] for c in b.chunks
    ]
    for chunks in (1, 3, 5):
        assert (
            cpp.chunks_by_issue_order(ours.ops, chunks).problem
            == stand_in.chunks_by_issue_order(theirs.ops, chunks).problem
        )


@pytest.mark.parametrize(("times", "engines"), list(itertools.product([(3.0, 3.0, 3.0), (1.0, 10.0, 1.0)], [1, 2])))
def test_the_model_gives_the_same(cpp, stand_in, times, engines):
    for chunks, order in itertools.product([1, 3, 7, 64], ["chunk", "stage"]):
        assert cpp.pipeline_model(*times, chunks, engines) == stand_in.pipeline_model(*times, chunks, engines)
        link = (cpp.LinkSharing(0.55, 0.8), stand_in.LinkSharing(0.55, 0.8))
        ours = cpp.simulate_pipeline(*times, chunks, 3, engines, order, link[0])
        theirs = stand_in.simulate_pipeline(*times, chunks, 3, engines, order, link[1])
        assert [(o.chunk, o.stage, o.stream, o.start, o.end) for o in ours] == [
            (o.chunk, o.stage, o.stream, o.start, o.end) for o in theirs
        ]
        assert cpp.simulated_makespan(ours) == stand_in.simulated_makespan(theirs)
        modelled = (cpp.modelled_ops(ours), stand_in.modelled_ops(theirs))
        assert [op_fields(op) for op in modelled[0]] == [op_fields(op) for op in modelled[1]]
    # The recorded runs against the model: once per copy-engine count (chunks and order are the traces').
    serial, pipelined = (str(FIXTURES / name) for name in ("serial_null_stream.json", "pipeline_3_chunks.json"))
    a = cpp.compare_with_model(cpp.read_trace(serial), cpp.read_trace(pipelined), 3, engines)
    b = stand_in.compare_with_model(stand_in.read_trace(serial), stand_in.read_trace(pipelined), 3, engines)
    assert (a.model_ms, a.efficiency(), a.speedup(), str(a)) == (b.model_ms, b.efficiency(), b.speedup(), str(b))


def test_numbers_of_other_types_go_as_numbers(stand_in):
    class Handle:  # as cuda-bindings' streams and pointers: int() is the handle
        def __int__(self):
            return 3

    class Fraction(float):  # a float that json.dumps would write, of another type (numpy's float64 is one)
        pass

    assert stand_in._library._to_json(Handle()) == 3
    assert stand_in._library._to_json(fractions.Fraction(1, 2)) == 0.5  # a real number: its value, not int() of it
    assert stand_in.pipeline_model(Fraction(1.0), 1.0, 1.0, 3, 2) == stand_in.pipeline_model(1.0, 1.0, 1.0, 3, 2)
    with pytest.raises(TypeError, match="cannot pass"):
        stand_in.chunk_range(object(), 3, 1)


def test_chunk_ranges_are_the_same(cpp, stand_in):
    for n, chunks in itertools.product([1, 7, 1000, 2**20 + 3], [1, 2, 3, 5, 64]):
        for index in range(chunks):
            assert cpp.chunk_range(n, chunks, index) == stand_in.chunk_range(n, chunks, index)


# --- errors, as the module raises them ------------------------------------------------------


def test_bad_input_raises_what_the_module_raises(cpp, stand_in):
    for streamlab in (cpp, stand_in):
        with pytest.raises(streamlab.TraceFormatError, match="otherData"):
            streamlab.parse_trace("{}")
        with pytest.raises(ValueError, match='"chunk" or "stage"'):
            streamlab.simulate_pipeline(1.0, 1.0, 1.0, 3, 3, 2, "sideways")
        with pytest.raises(streamlab.TraceFormatError):
            streamlab.read_trace(str(FIXTURES / "no-such-trace.json"))
    assert issubclass(stand_in.TraceFormatError, ValueError) and issubclass(stand_in.TimelineUnavailable, RuntimeError)


def test_a_missing_library_is_an_import_error_that_says_where(tmp_path):
    env = {**os.environ, "STREAMLAB_C_LIBRARY": str(tmp_path / "libstreamlab_c.so")}
    env["PYTHONPATH"] = str(PACKAGE.parent)
    result = subprocess.run(
        [sys.executable, "-c", "import streamlab"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert result.returncode != 0
    assert "ImportError: cannot load" in result.stderr and str(tmp_path) in result.stderr


# A process of its own: CUPTI takes one recorder per process, and the module may hold it here.
RECORDING = """
import json, streamlab
present, why = streamlab.gpu_presence()
if not present:
    print(json.dumps({"no GPU": why}))
    raise SystemExit
memory = streamlab.PipelineMemory(1 << 20)
streamlab.fill_input(memory.input, memory.n)
with streamlab.record("through the C library") as timeline:
    streamlab.mark("queued")
serial = streamlab.run_serial_reference(memory, 4)
check = streamlab.check_workload_output(memory.input, memory.output, memory.n, 4)
print(json.dumps({
    "kinds": [op.kind for op in serial.timeline.ops], "ok": check.ok, "event_ms": serial.event_ms,
    "empty": [len(timeline.ops), [m.name for m in timeline.marks]], "stages": serial.stages,
}))
"""


def test_a_recording_through_the_library_sees_the_gpus_work(stand_in, tmp_path):
    env = {**os.environ, "STREAMLAB_C_LIBRARY": str(LIBRARY), "PYTHONPATH": str(PACKAGE.parent)}
    result = subprocess.run([sys.executable, "-c", RECORDING], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.splitlines()[-1])
    if "no GPU" in seen:
        pytest.skip(f"no GPU: {seen['no GPU']}")
    assert seen["kinds"] == ["memcpy_h2d", "kernel", "memcpy_d2h"] and seen["ok"], seen
    assert seen["empty"] == [0, ["queued"]], seen  # nothing queued inside the block; its mark recorded
    assert seen["event_ms"] > 0 and all(stage > 0 for stage in seen["stages"]), seen


def test_a_recording_without_a_gpu_is_unavailable_or_says_why(stand_in):
    present, why = stand_in.gpu_presence()
    if present:
        pytest.skip("a GPU is here")
    assert why
    with pytest.raises(stand_in.TimelineUnavailable):
        with stand_in.record("no GPU"):
            pass
