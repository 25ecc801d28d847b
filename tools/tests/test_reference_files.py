"""The reference results recorded on the H200 and committed: they load as what they
claim to be, name their device and date, and their summary agrees with their points."""

from pathlib import Path

import pytest
from streamlab_tools.trace import CHUNKS_FORMAT, parse_json_file, read_json_object

REFERENCE = Path(__file__).resolve().parents[2] / "common" / "reference"


def test_h200_chunk_sweep_names_device_and_date_and_its_summary_matches_its_points():
    sweep = parse_json_file(read_json_object(REFERENCE / "h200_chunks.json"), CHUNKS_FORMAT)
    assert sweep["otherData"]["device"]["name"] == "NVIDIA H200"
    assert sweep["otherData"]["date"].startswith("20")
    points = sweep["points"]
    assert {point["intensity"] for point in points} == {"copy-bound", "balanced", "compute-bound"}
    assert all("link_model_ms" in point for point in points)
    # A copy that shares the link is never faster than one that does not.
    assert all(point["link_model_ms"] >= point["model_ms"] * (1 - 1e-9) for point in points)
    (three,) = [p for p in points if p["chunks"] == 3 and p["intensity"] == "balanced"]
    summary = sweep["summary"]
    assert summary["efficiency_3_chunks_balanced"] == pytest.approx(three["model_ms"] / three["makespan_ms"])
    assert summary["efficiency_3_chunks_balanced_shared_link"] == pytest.approx(
        three["link_model_ms"] / three["makespan_ms"]
    )
    for key in ("link_h2d_speed_kept", "link_d2h_speed_kept"):
        assert 0 < summary[key] <= 1
