"""How the tools reach the course's C++ library (streamlab_tools/library.py): the module that `./course build`
made, the tools' ops handed to it whole, and one line saying to build it where it is not built."""

import sys

import pytest
from streamlab_tools import demo_model, library, plot
from streamlab_tools.trace import load_trace
from test_analysis import FIXTURES
from test_demo_model import H200


@pytest.fixture
def no_module(monkeypatch, tmp_path):
    """A machine where the module was never built: no build folder holds it, none is imported yet."""
    monkeypatch.delitem(sys.modules, library.MODULE_NAME, raising=False)
    monkeypatch.setattr(library, "ROOT", tmp_path)
    monkeypatch.setenv("STREAMLAB_MODULE_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not p.endswith("/python")])


def test_without_the_module_it_says_to_build_it(no_module):
    with pytest.raises(library.ModuleMissing, match=r"not built for .*: run \./course build$"):
        library.load()


def test_a_plot_without_the_module_is_one_line_and_status_2(no_module, tmp_path, capsys):
    assert plot.main([str(FIXTURES / "pipeline_3_chunks.json"), "-o", str(tmp_path / "t.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("plot: the course's Python module streamlab is not built") and err.count("\n") == 1
    assert "Traceback" not in err and not (tmp_path / "t.png").exists()


def test_the_demo_picture_without_the_module_is_one_line_and_status_2(no_module, tmp_path, capsys):
    assert demo_model.main([str(H200), "-o", str(tmp_path / "demo.png")]) == 2
    assert capsys.readouterr().err.startswith("demo_model: the course's Python module streamlab is not built")


def test_every_field_of_an_op_reaches_the_module():
    ops = load_trace(FIXTURES / "pipeline_3_chunks.json").ops
    made = library.to_module_ops(ops)
    fields = ("kind", "start_ns", "end_ns", "stream", "stream_kind", "bytes", "label", "host_memory")
    fields += ("correlation_id", "graph_id", "graph_node_id", "device", "source_device", "destination_device")
    assert [[getattr(op, f) for f in fields] for op in made] == [[getattr(op, f) for f in fields] for op in ops]
    assert [op.name for op in made] == [op.kernel_name for op in ops]


def test_the_modelled_ops_are_named_as_the_article_names_them():
    streamlab = library.load()
    schedule = streamlab.simulate_pipeline(3.0, 3.0, 3.0, chunks=3, streams=3, copy_engines=2)
    assert [op.name for op in schedule[:3]] == ["H2D_1", "K_1", "D2H_1"]
    assert {streamlab.unit_of_kind(kind) for kind in ("kernel", "memcpy_h2d", "memcpy_d2h", "memset")} == {
        "compute",
        "h2d",
        "d2h",
        "other",
    }
