"""Reading trace and sweep files, and refusing every malformed one with a one-line TraceError."""

import json
from pathlib import Path

import pytest
from streamlab_tools.trace import (
    BANDWIDTH_FORMAT,
    CHUNKS_FORMAT,
    DeviceOp,
    TraceError,
    load_trace,
    parse_json_file,
    parse_trace,
    read_json_object,
)

FIXTURES = Path(__file__).parent / "fixtures"
PIPELINE = FIXTURES / "pipeline_3_chunks.json"
SERIAL = FIXTURES / "serial_null_stream.json"


def read_fixture(name):
    return json.loads((FIXTURES / name).read_text())


def first_op_event(obj):
    return next(event for event in obj["traceEvents"] if event["ph"] == "X")


def test_fixtures_say_they_are_synthetic():
    for path in FIXTURES.glob("*.json"):
        other = json.loads(path.read_text())["otherData"]
        assert other["program"].startswith("synthetic: "), path.name
        assert other["device"]["name"] == "synthetic device", path.name


def test_serial_fixture_reads_as_three_ops_in_the_null_stream():
    trace = load_trace(SERIAL)
    assert [op.kind for op in trace.ops] == ["memcpy_h2d", "kernel", "memcpy_d2h"]
    assert {op.stream_kind for op in trace.ops} == {"legacy_null"}
    assert trace.ops[1].kernel_name == "iterate"
    assert trace.ops[0].host_memory == "pageable"
    assert trace.ops[1].host_memory == "not_applicable"
    assert trace.ops[0].bytes == 12 * 2**20
    assert [mark.name for mark in trace.marks] == ["synchronized"]
    assert trace.program.startswith("synthetic")
    assert trace.device_name == "synthetic device"
    assert trace.copy_engines == 2


def test_pipeline_fixture_reads_labels_streams_and_sorted_ops():
    trace = load_trace(PIPELINE)
    assert len(trace.ops) == 9
    starts = [op.start_ns for op in trace.ops]
    assert starts == sorted(starts)
    assert {op.stream for op in trace.ops} == {13, 14, 15}
    assert {op.label for op in trace.ops} == {"1", "2", "3"}
    assert {op.name for op in trace.ops if op.label == "2"} == {"H2D_2", "K_2", "D2H_2"}
    assert all(op.host_memory == "pinned" for op in trace.ops if op.kind != "kernel")
    assert [mark.name for mark in trace.marks] == ["launches returned", "synchronized"]
    assert all(isinstance(op, DeviceOp) and op.duration_ns == op.end_ns - op.start_ns for op in trace.ops)


def test_parse_trace_takes_an_already_parsed_object():
    assert len(parse_trace(read_fixture("pipeline_3_chunks.json")).ops) == 9


def test_each_op_is_on_the_gpu_its_pid_names():
    obj = read_fixture("pipeline_3_chunks.json")
    first_op_event(obj)["pid"] = 2  # GPU 1
    ops = parse_trace(obj).ops
    assert sorted(op.device for op in ops) == [0] * (len(ops) - 1) + [1]


def test_graph_ids_are_read_where_present_and_zero_elsewhere():
    obj = read_fixture("pipeline_3_chunks.json")
    first_op_event(obj)["args"].update(graph_id=4, graph_node_id=2**60 + 1)
    ops = parse_trace(obj).ops
    graphed = [op for op in ops if op.graph_id]
    assert [(op.graph_id, op.graph_node_id) for op in graphed] == [(4, 2**60 + 1)]
    assert all(op.graph_node_id == 0 for op in ops if not op.graph_id)


def test_sweep_files_load_with_their_points():
    assert len(parse_json_file(read_json_object(FIXTURES / "bandwidth_sweep.json"), BANDWIDTH_FORMAT)["points"]) > 0
    assert len(parse_json_file(read_json_object(FIXTURES / "chunk_sweep.json"), CHUNKS_FORMAT)["points"]) > 0


# Each case turns the valid pipeline trace into a broken one, and names words the
# message must contain.
def drop_arg(key):
    def mutate(obj):
        del first_op_event(obj)["args"][key]

    return mutate


def set_arg(key, value):
    def mutate(obj):
        first_op_event(obj)["args"][key] = value

    return mutate


def set_other(key, value):
    def mutate(obj):
        obj["otherData"][key] = value

    return mutate


def set_event(key, value):
    def mutate(obj):
        first_op_event(obj)[key] = value

    return mutate


def swap_start_and_end(obj):
    args = first_op_event(obj)["args"]
    args["start_ns"], args["end_ns"] = args["end_ns"], args["start_ns"]


MALFORMED_TRACES = {
    "wrong format": (set_other("format", "streamlab-bandwidth"), "not a streamlab trace"),
    "no format": (lambda obj: obj["otherData"].pop("format"), "no otherData.format"),
    "no otherData": (lambda obj: obj.pop("otherData"), "no otherData.format"),
    "unsupported version": (set_other("version", 2), "unsupported"),
    "version as text": (set_other("version", "1"), "otherData.version must be an integer"),
    "no traceEvents": (lambda obj: obj.pop("traceEvents"), "missing key traceEvents"),
    "traceEvents not an array": (lambda obj: obj.update(traceEvents={}), "traceEvents must be an array"),
    "event not an object": (lambda obj: obj["traceEvents"].append(3), "not an object"),
    "event without ph": (lambda obj: obj["traceEvents"].append({"name": "x"}), "missing key ph"),
    "unknown phase": (set_event("ph", "B"), "unsupported event phase"),
    "missing start_ns": (drop_arg("start_ns"), "missing key args.start_ns in event 3"),
    "missing stream": (drop_arg("stream"), "missing key args.stream"),
    "missing label": (drop_arg("label"), "missing key args.label"),
    "missing correlation id": (drop_arg("correlation_id"), "missing key args.correlation_id"),
    "graph id without its node": (set_arg("graph_id", 3), "missing key args.graph_node_id"),
    "graph id as text": (set_arg("graph_id", "3"), "args.graph_id in event 3 must be an integer"),
    "copy without host memory": (drop_arg("host_memory"), "missing key args.host_memory"),
    "copy without bytes": (drop_arg("bytes"), "missing key args.bytes"),
    "missing args": (lambda obj: first_op_event(obj).pop("args"), "missing key args"),
    "start as text": (set_arg("start_ns", "12"), "args.start_ns in event 3 must be an integer"),
    "start as float": (set_arg("start_ns", 12.5), "must be an integer"),
    "negative start": (set_arg("start_ns", -5), "must not be negative"),
    "end before start": (swap_start_and_end, "ends before it starts"),
    "unknown op kind": (set_arg("op", "memcpy_sideways"), "unknown op kind"),
    "unknown stream kind": (set_arg("stream_kind", "default"), "unknown stream kind"),
    "unknown host memory": (set_arg("host_memory", "swapped"), "unknown host memory kind"),
    "device op of the host": (set_event("pid", 0), "a device op with pid 0 in event 3"),
    "mark without time": (
        lambda obj: obj["traceEvents"].append({"ph": "i", "name": "m", "args": {}}),
        "missing key args.time_ns",
    ),
    "no device": (lambda obj: obj["otherData"].pop("device"), "missing key otherData.device"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_TRACES))
def test_malformed_trace_raises_one_line_error(tmp_path, case):
    mutate, expected = MALFORMED_TRACES[case]
    obj = read_fixture("pipeline_3_chunks.json")
    mutate(obj)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(obj))
    with pytest.raises(TraceError) as error:
        load_trace(path)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    assert expected in message


BROKEN_FILES = {
    "empty file": ("", "empty file"),
    "only whitespace": ("  \n", "empty file"),
    "not JSON": ("{ this is not json", "not JSON"),
    "not UTF-8": (b"\xff\xfe\x00", "not JSON"),
    "JSON array": ("[1, 2, 3]", "not an object"),
    "JSON number": ("42", "not an object"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_FILES))
def test_broken_file_raises_one_line_error(tmp_path, case):
    content, expected = BROKEN_FILES[case]
    path = tmp_path / "broken.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(TraceError, match=expected) as error:
        load_trace(path)
    assert "\n" not in str(error.value)


def test_missing_file_raises_trace_error(tmp_path):
    with pytest.raises(TraceError, match="no such file"):
        load_trace(tmp_path / "nowhere.json")


def test_folder_raises_trace_error(tmp_path):
    with pytest.raises(TraceError, match="folder"):
        load_trace(tmp_path)


def test_sweep_file_is_not_a_trace():
    with pytest.raises(TraceError, match="not a streamlab trace"):
        load_trace(FIXTURES / "bandwidth_sweep.json")


def test_trace_is_not_a_sweep_file():
    with pytest.raises(TraceError, match="not a streamlab bandwidth sweep"):
        parse_json_file(read_json_object(PIPELINE), BANDWIDTH_FORMAT)


def test_bandwidth_file_is_not_a_chunk_sweep():
    with pytest.raises(TraceError, match="not a streamlab chunk sweep"):
        parse_json_file(read_json_object(FIXTURES / "bandwidth_sweep.json"), CHUNKS_FORMAT)


def set_point(key, value):
    def mutate(obj):
        obj["points"][0][key] = value

    return mutate


MALFORMED_SWEEPS = {
    "bandwidth without points": ("bandwidth_sweep.json", lambda obj: obj.pop("points"), "missing key points"),
    "bandwidth with no points": ("bandwidth_sweep.json", lambda obj: obj.update(points=[]), "no points"),
    "bandwidth point missing gbps": (
        "bandwidth_sweep.json",
        lambda obj: obj["points"][0].pop("gbps"),
        "missing key gbps in point 0",
    ),
    "bandwidth gbps as text": ("bandwidth_sweep.json", set_point("gbps", "fast"), "gbps in point 0 must be a number"),
    "bandwidth unknown direction": ("bandwidth_sweep.json", set_point("direction", "D2D"), "unknown direction"),
    "bandwidth zero bytes": ("bandwidth_sweep.json", set_point("bytes", 0), "must be positive"),
    "chunks point not an object": ("chunk_sweep.json", lambda obj: obj["points"].append([]), "not an object"),
    "chunks zero chunks": ("chunk_sweep.json", set_point("chunks", 0), "at least 1"),
    "chunks zero model time": ("chunk_sweep.json", set_point("model_ms", 0), "model_ms in point 0 must be positive"),
    "chunks missing bound": ("chunk_sweep.json", lambda obj: obj["points"][0].pop("bound_ms"), "missing key bound_ms"),
    "chunks unsupported version": ("chunk_sweep.json", set_other("version", 7), "unsupported"),
    "chunks link model not a number": (
        "chunk_sweep.json",
        set_point("link_model_ms", "fast"),
        "link_model_ms in point 0 must be a positive number",
    ),
    "chunks zero link model": (
        "chunk_sweep.json",
        set_point("link_model_ms", 0),
        "link_model_ms in point 0 must be a positive number",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_SWEEPS))
def test_malformed_sweep_raises_one_line_error(tmp_path, case):
    name, mutate, expected = MALFORMED_SWEEPS[case]
    obj = read_fixture(name)
    mutate(obj)
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    expected_format = json.loads((FIXTURES / name).read_text())["otherData"]["format"]
    with pytest.raises(TraceError) as error:
        parse_json_file(read_json_object(path), expected_format)
    assert "\n" not in str(error.value)
    assert expected in str(error.value)
