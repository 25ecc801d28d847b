"""One implementation for both languages: the Python twins of the pipeline model and the
timeline analysis (model.py, analysis.py) against the C++ ones, through the Python module
``streamlab`` (python/), on a grid of cases; and the plots drawn either way.

Skipped, with the reason, where the module is not built (`./course build` builds it
where nanobind and Python's headers are installed).
"""

import importlib.util
import itertools
import json
import random
from pathlib import Path

import pytest
from streamlab_tools import analysis, model, native, timelines
from streamlab_tools.model import LinkSharing
from streamlab_tools.trace import OP_KINDS, DeviceOp, load_trace

FIXTURES = Path(__file__).parent / "fixtures"
TRACE_FIXTURES = sorted(
    path.name
    for path in FIXTURES.glob("*.json")
    if json.loads(path.read_text())["otherData"]["format"] == "streamlab-trace"
)

STAGE_TIMES = [(3.0, 3.0, 3.0), (4.0, 2.0, 3.0), (1.0, 10.0, 1.0), (0.25, 0.0, 7.5), (0.0, 0.0, 0.0), (9.0, 1.0, 0.5)]
CHUNKS = [1, 2, 3, 7, 16, 64, 256]
COPY_ENGINES = [1, 2, 3]
LINKS = {"ideal link": LinkSharing(), "shared link": LinkSharing(h2d=0.55, d2h=0.8)}


def as_tuples(schedule):
    return [(op.chunk, op.stage, op.stream) for op in schedule]


def as_times(schedule):
    return [time for op in schedule for time in (op.start, op.end)]


# --- the pipeline model ----------------------------------------------------------------


@pytest.mark.parametrize("times", STAGE_TIMES)
@pytest.mark.parametrize("engines", COPY_ENGINES)
def test_formulas_agree(cpp, times, engines):
    for chunks in CHUNKS:
        assert cpp.pipeline_model(*times, chunks, engines) == pytest.approx(
            model.pipeline_model(*times, chunks, engines), rel=1e-12
        ), chunks


@pytest.mark.parametrize("times", STAGE_TIMES)
@pytest.mark.parametrize("engines", COPY_ENGINES)
@pytest.mark.parametrize("link", LINKS.values(), ids=LINKS.keys())
def test_simulations_agree_op_by_op(cpp, times, engines, link):
    for chunks, order in itertools.product(CHUNKS, ("chunk", "stage")):
        for streams in sorted({1, 3, chunks}):
            python = model.simulate_pipeline(*times, chunks, streams, engines, order, link)
            ours = cpp.simulate_pipeline(*times, chunks, streams, engines, order, cpp.LinkSharing(link.h2d, link.d2h))
            case = f"{chunks} chunks, {streams} streams, {order} order"
            # Same ops in the same order, chunks numbered from 0 by both ...
            assert as_tuples(ours) == as_tuples(python), case
            # ... at the same times.
            assert as_times(ours) == pytest.approx(as_times(python), rel=1e-9, abs=1e-12), case
            assert cpp.simulated_makespan(ours) == pytest.approx(model.makespan(python), rel=1e-9, abs=1e-12)


def test_both_refuse_the_same_arguments(cpp):
    bad = [
        ((-1.0, 1.0, 1.0, 3, 2, 2), {}),
        ((1.0, 1.0, 1.0, 0, 2, 2), {}),
        ((1.0, 1.0, 1.0, 3, 0, 2), {}),
        ((1.0, 1.0, 1.0, 3, 2, 0), {}),
        ((float("nan"), 1.0, 1.0, 3, 2, 2), {}),
        ((1.0, 1.0, 1.0, 3, 2, 2), {"order": "random"}),
    ]
    for arguments, options in bad:
        with pytest.raises(ValueError):
            model.simulate_pipeline(*arguments, **options)
        with pytest.raises(ValueError):
            cpp.simulate_pipeline(*arguments, **options)
    for link in (LinkSharing(0.0, 1.0), LinkSharing(1.0, 1.5)):
        with pytest.raises(ValueError):
            model.simulate_pipeline(1.0, 1.0, 1.0, 3, 3, 2, link=link)
        with pytest.raises(ValueError):
            cpp.simulate_pipeline(1.0, 1.0, 1.0, 3, 3, 2, link=cpp.LinkSharing(link.h2d, link.d2h))


# --- the timeline analysis ----------------------------------------------------------


def random_ops(seed):
    rng = random.Random(seed)
    ops = []
    for index in range(rng.randint(0, 14)):
        kind = rng.choice(OP_KINDS)
        start = rng.randint(0, 80)
        ops.append(
            DeviceOp(
                kind=kind,
                name=kind,
                label="",
                stream=rng.choice([0, 7, 13, 14]),
                stream_kind=rng.choice(["created", "legacy_null", "per_thread_default"]),
                start_ns=start,
                end_ns=start + rng.randint(0, 30),
                correlation_id=index,
            )
        )
    return ops


@pytest.mark.parametrize("seed", range(40))
def test_summaries_agree_on_random_timelines(cpp, seed):
    ops = random_ops(seed)
    assert cpp.summarize(native.to_native_ops(cpp, ops)) == pytest.approx(analysis.summarize(ops), abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_intervals_agree(cpp, seed):
    rng = random.Random(seed)
    a, b = (
        [(start, start + rng.randint(0, 20)) for start in (rng.randint(0, 60) for _ in range(rng.randint(0, 8)))]
        for _ in range(2)
    )
    assert cpp.merge_intervals(a) == analysis.merge_intervals(a)
    assert cpp.total_length(a) == analysis.total_length(a)
    assert cpp.intersection_length(a, b) == analysis.intersection_length(a, b)


def facts(op, kernel_name):
    """What both readers must agree on (the display name of a hand-made fixture's event may
    differ from the one C++ derives, so kernels are compared by their own name)."""
    return (
        op.kind,
        op.stream,
        op.stream_kind,
        op.start_ns,
        op.end_ns,
        op.bytes,
        op.label,
        op.host_memory,
        op.correlation_id,
        op.graph_id,
        op.graph_node_id,
        op.device,
        op.source_device,
        op.destination_device,
        kernel_name if op.kind == "kernel" else "",
    )


@pytest.mark.parametrize("name", TRACE_FIXTURES)
def test_trace_files_read_alike(cpp, name, tmp_path):
    python = load_trace(FIXTURES / name)
    timeline = cpp.read_trace(str(FIXTURES / name))
    # Both sort ops by start; ops that start together may come in either order.
    assert sorted(facts(op, op.name) for op in timeline.ops) == sorted(facts(op, op.kernel_name) for op in python.ops)
    assert sorted((op.start_ns, op.end_ns, cpp.unit_of(op)) for op in timeline.ops) == sorted(
        (op.start_ns, op.end_ns, analysis.unit_of(op)) for op in python.ops
    )
    assert cpp.summarize(timeline.ops) == pytest.approx(analysis.summarize(python.ops), abs=1e-12)
    # Written by C++, read by Python: the same ops.
    cpp.write_trace(str(tmp_path / "again.json"), timeline)
    again = load_trace(tmp_path / "again.json")
    assert sorted(facts(op, op.kernel_name) for op in again.ops) == sorted(
        facts(op, op.kernel_name) for op in python.ops
    )


def test_graph_ids_cross_between_the_languages(cpp, tmp_path):
    obj = json.loads((FIXTURES / "pipeline_3_chunks.json").read_text())
    kernel = next(event for event in obj["traceEvents"] if event.get("cat") == "kernel")
    kernel["args"].update(graph_id=7, graph_node_id=2**60 + 5)
    (tmp_path / "graphed.json").write_text(json.dumps(obj))
    timeline = cpp.read_trace(str(tmp_path / "graphed.json"))
    assert [(op.graph_id, op.graph_node_id) for op in timeline.ops if op.graph_id] == [(7, 2**60 + 5)]
    cpp.write_trace(str(tmp_path / "again.json"), timeline)
    again = load_trace(tmp_path / "again.json")
    assert [(op.graph_id, op.graph_node_id) for op in again.ops if op.graph_id] == [(7, 2**60 + 5)]
    made = native.to_native_ops(cpp, again.ops)
    assert sorted(op.graph_id for op in made) == sorted(op.graph_id for op in again.ops)


def test_a_malformed_trace_is_a_value_error(cpp, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"traceEvents": []}')
    with pytest.raises(ValueError, match="broken.json"):
        cpp.read_trace(str(path))
    with pytest.raises(ValueError):
        cpp.DeviceOp(kind="teleport", start_ns=0, end_ns=1)


# --- the tracer -------------------------------------------------------------------------


def test_recording_without_a_gpu_says_why(cpp):
    try:
        with cpp.record("no GPU") as timeline:
            pass
    except cpp.TimelineUnavailable as error:
        assert str(error).startswith("timeline unavailable: ")
    else:  # a GPU is here: nothing ran, nothing was recorded, the facts are the device's
        assert timeline.recorded and timeline.program == "no GPU" and timeline.device.name


def load_section3():
    """tools/examples/article_section3.py: a stream, pinned memory and two copies, with cuda-python."""
    path = Path(__file__).resolve().parents[1] / "examples" / "article_section3.py"
    spec = importlib.util.spec_from_file_location("article_section3", path)
    section3 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(section3)
    return section3


def test_recording_this_process_on_a_gpu(cpp):
    section3 = load_section3()
    if section3.cudart is None:
        pytest.skip("cuda-python is not installed (pip install cuda-python): nothing to record")
    error, count = section3.cudart.cudaGetDeviceCount()
    if error != section3.cudart.cudaError_t.cudaSuccess or count == 0:
        pytest.skip("no usable CUDA device: nothing to record")
    # The copies are queued by cuda-python in this very process: nothing preloaded.
    with cpp.record("section 3, in-process") as timeline:
        assert section3.run() == 0
        cpp.mark("copies checked")
    assert timeline.recorded and timeline.program == "section 3, in-process"
    copies = [op for op in timeline.ops if op.kind.startswith("memcpy")]
    assert [op.kind for op in copies] == ["memcpy_h2d", "memcpy_d2h"]
    assert all(op.bytes == section3.NBYTES and op.host_memory == "pinned" for op in copies)
    assert copies[0].stream == copies[1].stream and copies[0].stream_kind == "created"
    assert copies[0].end_ns <= copies[1].start_ns  # one stream runs its copies in order
    assert [mark.name for mark in timeline.marks] == ["copies checked"]
    summary = cpp.summarize(timeline.ops)
    assert summary["busy_h2d_ns"] == copies[0].duration_ns and summary["h2d_d2h_overlap_ns"] == 0


# --- the tools use it -------------------------------------------------------------------


@pytest.mark.parametrize("name", TRACE_FIXTURES)
@pytest.mark.parametrize("by", ["stream", "engine"])
def test_the_model_under_a_timeline_is_drawn_alike_either_way(cpp, monkeypatch, name, by):
    trace = load_trace(FIXTURES / name)
    assert native.implementation().startswith("C++")
    bars_cpp, title_cpp = timelines.trace_model_bars(trace, by)
    monkeypatch.setenv("STREAMLAB_PURE_PYTHON", "1")
    assert native.implementation().startswith("Python")
    bars_python, title_python = timelines.trace_model_bars(trace, by)
    assert title_cpp == title_python
    assert [(bar.row, bar.kind, bar.text) for bar in bars_cpp] == [(bar.row, bar.kind, bar.text) for bar in bars_python]
    assert [t for bar in bars_cpp for t in (bar.start, bar.end)] == pytest.approx(
        [t for bar in bars_python for t in (bar.start, bar.end)], rel=1e-9, abs=1e-12
    )


def test_the_summary_the_plots_print_is_the_same_either_way(cpp, monkeypatch):
    for name in TRACE_FIXTURES:
        ops = load_trace(FIXTURES / name).ops
        by_cpp = native.summarize(ops)
        monkeypatch.setenv("STREAMLAB_PURE_PYTHON", "1")
        assert native.summarize(ops) == pytest.approx(by_cpp, abs=1e-12)
        monkeypatch.delenv("STREAMLAB_PURE_PYTHON")


def test_the_tools_say_which_implementation_they_use(monkeypatch, capsys):
    monkeypatch.setenv("STREAMLAB_PURE_PYTHON", "1")
    assert native.main([]) == 0
    assert (
        capsys.readouterr().out == "the model and the analysis: Python (model.py, analysis.py: "
        "STREAMLAB_PURE_PYTHON is set)\n"
    )


# --- the labs' course sides, as the Python labs' tests use them ---------------------------


def test_lab06s_streaming_model_is_the_gpus_when_the_host_costs_nothing(cpp):
    for chunks, sets, engines in [(3, 3, 2), (16, 3, 3), (7, 2, 1)]:
        gpu = cpp.simulated_makespan(cpp.simulate_pipeline(4.0, 2.0, 3.0, chunks, sets, engines, "chunk"))
        assert cpp.lab06.streaming_model_ms((4.0, 2.0, 3.0), 0.0, 0.0, chunks, sets, engines, "chunk") == (
            pytest.approx(gpu)
        )
        # A host slower than the GPU: all its fills and drains, one after another, at the least.
        assert cpp.lab06.streaming_model_ms((4.0, 2.0, 3.0), 50.0, 60.0, chunks, sets, engines, "chunk") >= 110.0


def test_lab06s_host_and_records_without_a_gpu(cpp):
    assert cpp.lab06.capacity_for(1000, [3, 7]) == 334
    shape = cpp.lab06.RingShape(16, 2, 4, 2)
    assert (shape.chunks, shape.staging, shape.results, shape.device_sets) == (16, 2, 4, 2)
    host = cpp.lab06.HostStream(1000)
    assert host.n == 1000 and host.fills(0) == [] and host.drains(0) == []
    assert not host.check_output(1, 4).ok  # nothing consumed yet: the output is still poisoned
    assert cpp.lab06.run_spans([], []) == []
    assert cpp.lab06.pair_chunks([], [], [], 1000, 4).problem


def test_lab06s_hazards_are_told_in_ms(cpp):
    # Two chunks, one staging buffer: the host writes chunk 2 into it at 0.3 ms, while
    # H2D_1 still reads chunk 1 from it (until 1.2 ms). Nothing else overlaps wrongly.
    lab06 = cpp.lab06
    fills = [lab06.HostUse(0, 500, 0, 0, 100_000), lab06.HostUse(500, 500, 0, 300_000, 400_000)]
    drains = [lab06.HostUse(0, 500, 0, 3_500_000, 3_600_000), lab06.HostUse(500, 500, 1, 4_600_000, 4_700_000)]
    starts_us = [(200, 1300, 2400), (1300, 2400, 3500)]  # each chunk's H2D, kernel, D2H; each takes 1 ms
    ops = [
        cpp.DeviceOp(kind, 1000 * start, 1000 * (start + 1000), stream=1 + chunk, correlation_id=1 + 3 * chunk + step)
        for chunk, starts in enumerate(starts_us)
        for step, (kind, start) in enumerate(zip(("memcpy_h2d", "kernel", "memcpy_d2h"), starts))
    ]
    run = lab06.pair_chunks(fills, drains, ops, 1000, 2)
    assert run.problem == ""
    assert lab06.reuse_hazards(run.chunks, 2) == [
        "the host began writing chunk 2 into staging buffer 0 at 0.300 ms, before H2D_1 had read chunk 1 from it "
        "(ended at 1.200 ms)"
    ]


def test_the_issue_order_and_the_models_ops_for_python(cpp):
    assert cpp.issue_order([]) == "chunk"
    simulated = cpp.simulate_pipeline(3.0, 3.0, 3.0, 4, 4, 2, "stage")
    ops = cpp.modelled_ops(simulated)
    assert len(ops) == 12 and {op.kind for op in ops} == {"memcpy_h2d", "kernel", "memcpy_d2h"}
    assert hasattr(cpp.lab07, "HostConsumer") and cpp.host_thread_id() > 0
