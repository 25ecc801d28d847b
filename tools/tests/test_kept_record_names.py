"""A record kept by `selfgrade --keep-records` or `python_selfgrade --keep-records` is named for the GPU it
was made on (copy_kept_record), as the harness read that GPU itself where the record says, else as its
set-up names it: an H100's record is not committed as an H200's. Kept under a folder laid out as the
repository is, it lands where the course commits it (records.committed_record), so that unpacking the kept
folder in the repository's root (tools/gpu_suite.sh) puts it in place."""

from __future__ import annotations

import json

import pytest
from coursecli.records import committed_record
from coursecli.shell import ROOT
from selfgrading.selfgrade import copy_kept_record, gpu_slug, recorded_gpu

SOLUTION = committed_record(ROOT, "05-three-chunks", "h200", "solution")


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("NVIDIA H100 80GB HBM3", "h100"),
        ("NVIDIA H200", "h200"),
        ("NVIDIA A100-SXM4-80GB", "a100"),
        ("NVIDIA GeForce RTX 4090", "geforce_rtx_4090"),
        ("", "unknown_gpu"),
    ],
)
def test_a_gpu_name_becomes_a_prefix_without_a_hyphen(name, slug):
    assert gpu_slug(name) == slug


def test_the_setup_names_the_gpu_of_a_record_made_before_the_harness_read_it():
    assert recorded_gpu(SOLUTION) == "NVIDIA H200"


def test_the_harness_reading_names_the_gpu_where_the_record_has_one(tmp_path):
    """The set-up is written by the recording program; the end line's observed gpus by the harness."""
    lines = [json.loads(text) for text in SOLUTION.read_text().splitlines()]
    lines[-1] = {
        "end": "complete",
        "observed": {"starts": [], "scenario_wall_ms": {}, "gpus": ["NVIDIA H100 80GB HBM3"]},
    }
    record = tmp_path / "lab05.yours.record.jsonl"
    record.write_text("".join(json.dumps(line) + "\n" for line in lines))
    kept = copy_kept_record(record, "05-three-chunks", "wrong-py-lab05-stop-without-join", tmp_path / "kept")
    assert (
        kept
        == tmp_path / "kept/common/tests/records/05-three-chunks/h100-wrong-py-lab05-stop-without-join.record.jsonl"
    )
    assert kept.read_text() == record.read_text()
