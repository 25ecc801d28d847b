"""The demo's picture without a GPU: the model's timelines from committed stage times."""

import json
from pathlib import Path

import pytest
from streamlab_tools import demo_model, library

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "common" / "reference" / "h200_stage_times.json"


def write_stage_times(path, **changes):
    times = json.loads(H200.read_text())
    times.update(changes)
    path.write_text(json.dumps({key: value for key, value in times.items() if value is not None}))
    return path


def test_committed_h200_stage_times_load():
    times = demo_model.load_stage_times(H200)
    assert times.device == "NVIDIA H200"
    assert times.chunks == 3
    assert times.copy_engines >= 2
    assert min(times.h2d_ms, times.kernel_ms, times.d2h_ms) > 0


def test_draws_the_modelled_picture_and_prints_the_model(tmp_path, capsys):
    image = tmp_path / "demo.png"
    assert demo_model.main([str(H200), "-o", str(image)]) == 0
    assert image.read_bytes().startswith(b"\x89PNG")
    assert image.stat().st_size > 10_000
    out = capsys.readouterr().out
    times = demo_model.load_stage_times(H200)
    model = library.load().pipeline_model(times.h2d_ms, times.kernel_ms, times.d2h_ms, times.chunks, times.copy_engines)
    assert "Modelled, not measured" in out
    assert f"{model['ideal']:.2f} ms" in out  # with two or more engines the simulation is the ideal
    assert f"serial {model['serial']:.2f} ms" in out
    assert f"bound {model['bound']:.2f} ms (the busiest engine's total: no chunk count goes faster)" in out


def test_one_copy_engine_changes_the_prediction(tmp_path, capsys):
    one_engine = write_stage_times(tmp_path / "one.json", copy_engines=1, h2d_ms=3.0, kernel_ms=3.0, d2h_ms=3.0)
    assert demo_model.main([str(one_engine), "-o", str(tmp_path / "one.png")]) == 0
    out = capsys.readouterr().out
    # H2D_2 waits behind D2H_1 on the single engine: nothing overlaps, 9 ms as the serial run.
    assert "3 chunks in 3 streams 9.00 ms (speedup 1.00x)" in out
    assert "bound 6.00 ms (the busiest engine's total" in out


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"h2d_ms": None}, "has no 'h2d_ms'"),
        ({"kernel_ms": 0}, "must be positive"),
        ({"chunks": "3"}, "'chunks' has the wrong type"),
        ({"copy_engines": 0}, "at least 1"),
    ],
)
def test_unusable_stage_times_give_one_line(tmp_path, capsys, changes, message):
    bad = write_stage_times(tmp_path / "bad.json", **changes)
    image = tmp_path / "bad.png"
    assert demo_model.main([str(bad), "-o", str(image)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("demo_model: ") and message in err and err.count("\n") == 1
    assert not image.exists()


def test_missing_file_and_wrong_output_suffix(tmp_path, capsys):
    assert demo_model.main([str(tmp_path / "none.json"), "-o", str(tmp_path / "x.png")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert demo_model.main([str(H200), "-o", str(tmp_path / "x.jpg")]) == 2
    assert "must end in" in capsys.readouterr().err


def drawn_texts(monkeypatch, tmp_path, times: Path) -> str:
    """Every text of the demo's figure, as it is saved."""
    import matplotlib.figure
    import matplotlib.text

    texts = []
    save = matplotlib.figure.Figure.savefig

    def save_and_read(fig, *args, **kwargs):
        texts.extend(text.get_text() for text in fig.findobj(matplotlib.text.Text))
        return save(fig, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", save_and_read)
    assert demo_model.main([str(times), "-o", str(tmp_path / "demo.png")]) == 0
    return " ".join(texts).replace("\n", " ")


def test_the_picture_says_why_h2d_copies_never_overlap_and_what_chunk_order_is(tmp_path, monkeypatch):
    texts = drawn_texts(monkeypatch, tmp_path, H200)
    assert "H2D copies never overlap: copies in one direction queue on one copy engine" in texts
    assert "(3 here)" in texts  # the H200's three copy engines, named where the picture shows none of them busy
    assert "Chunk order: the host issues chunk 1's H2D, kernel and D2H, then chunk 2's" in texts
    one_engine = write_stage_times(tmp_path / "one.json", copy_engines=1)
    assert "One copy engine: every copy, H2D or D2H, queues behind" in drawn_texts(monkeypatch, tmp_path, one_engine)
