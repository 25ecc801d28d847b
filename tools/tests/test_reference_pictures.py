"""The reference pictures: one per task that has a timeline, shown without a GPU, recorded by one script."""

import re
from pathlib import Path

import pytest
import record_reference_pictures as recorder
from coursecli import labs, reference_pictures
from coursecli.reference_pictures import PICTURES, ReferencePicture
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]


def trace_variants(number: str) -> set[str]:
    """The traces lab `number`'s program writes, read from its source: "" (the main one) and each VARIANT of
    report_timeline(..., "VARIANT"), of lab 01's Variant{flags, "VARIANT"} and of lab 08's variants[] table."""
    source = next((ROOT / "labs").glob(f"{number}-*/run_lab{number}.cpp")).read_text()
    calls = re.findall(r"report_timeline\((.*?)\);", source, re.S)
    variants = {""} if any(call.rsplit(",", 1)[-1].strip() == "options" for call in calls) else set()
    for call in calls:
        last = call.rsplit(",", 1)[-1].strip()
        variants |= set(re.findall(r'"([a-z0-9-]*)"', last))
    variants |= set(re.findall(r'Variant\{\w+,\s*"([a-z-]+)"\}', source))  # lab 01's {flags, "blocking"}
    variants |= {
        v for table in re.findall(r"variants\[\d\] = \{(.*?)\}", source) for v in re.findall(r'"(.*?)"', table)
    }
    return variants


@pytest.mark.parametrize("number", sorted(labs.lab_folders()))
def test_every_trace_a_lab_program_writes_is_in_a_reference_picture(number):
    drawn = {variant for picture in PICTURES[number] for variant in picture.traces}
    # Baselines, not tasks: the serial reference a pipeline is measured against (lab 05 draws it above
    # the pipeline anyway) and lab 08's one-GPU runs, against which its speedup is measured.
    written = trace_variants(number) - {"serial", "gpu0", "gpu1"}
    assert written and written <= drawn, f"lab {number}: no picture draws {sorted(written - drawn)}"


def test_every_committed_picture_of_a_solution_is_shown_and_says_where_and_when_it_was_recorded():
    listed = {(number, picture.name) for number, pictures in PICTURES.items() for picture in pictures}
    for path in sorted((ROOT / "labs").glob("*/*-h200*.png")):
        if (path.parent.name[:2], path.name) in listed:
            with Image.open(path) as image:
                described = image.info.get("Description", "")
            assert " on NVIDIA " in described and re.search(r"recorded \d{4}-\d\d-\d\d", described), path


def test_describe_names_each_task_and_says_which_picture_is_missing(tmp_path):
    lab = tmp_path / "labs" / "01-null-stream"
    lab.mkdir(parents=True)
    (lab / "timeline-h200.png").write_bytes(b"")
    lines = reference_pictures.describe("01", lab, tmp_path)
    assert lines == [
        "Task 1: run_serial, the whole job in the NULL stream, the solution on an H200: "
        "labs/01-null-stream/timeline-h200.png",
        "Task 2: the barrier demo, blocking streams above non-blocking ones: no picture yet "
        "(labs/01-null-stream/barrier-h200.png is missing; tools/record_reference_pictures.py records it "
        "on a GPU machine)",
    ]
    assert reference_pictures.describe("99", lab, tmp_path) == []


def test_two_gpu_pictures_say_so():
    lab = ROOT / "labs" / "08-two-gpus"
    assert [p.gpus for p in PICTURES["08"]] == [2, 2]
    assert all(
        "on two H200s" in line or "no picture yet" in line for line in reference_pictures.describe("08", lab, ROOT)
    )


def test_a_picture_is_drawn_from_the_solutions_traces_the_second_beneath_the_first(tmp_path):
    picture = ReferencePicture("barrier-h200.png", "Task 2", ("blocking", "nonblocking"), ("--labels", "a", "b"))
    assert picture.plot_arguments(tmp_path, "01", tmp_path / "x.png") == [
        tmp_path / "lab01-solution-blocking.json",
        "--compare",
        tmp_path / "lab01-solution-nonblocking.json",
        "--labels",
        "a",
        "b",
        "-o",
        tmp_path / "x.png",
    ]
    assert ReferencePicture("t.png", "Task 1").trace_files(tmp_path, "06") == [tmp_path / "lab06-solution.json"]


def test_the_recorder_without_a_gpu_records_nothing_and_exits_77(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(recorder, "gpu_presence", lambda: (False, "no GPU: hidden by the test"))
    monkeypatch.setattr(recorder, "build", lambda *a: pytest.fail("built without a GPU"))
    assert recorder.main(["--into", str(tmp_path)]) == 77
    assert "no GPU: hidden by the test: the pictures are recorded on a GPU" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []
    assert recorder.main(["--labs", "42"]) == 2


def test_the_recorder_runs_the_solution_once_and_draws_each_picture_of_the_lab(tmp_path, monkeypatch, capsys):
    build = tmp_path / "build"
    (build / "labs").mkdir(parents=True)
    (build / "labs" / "lab01_solution_run").write_text("")
    ran, drawn = [], []

    def program(command, check=False):
        ran.append(command)
        trace = Path(command[2])
        for variant in ("", "-blocking", "-nonblocking"):
            trace.with_name(trace.stem + variant + ".json").write_text("{}")
        return type("Done", (), {"returncode": 0})()

    def draw(module, arguments, image, what, folder):
        assert folder == build  # with the module of the build that ran the program
        drawn.append((module, arguments))
        image.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (4, 4)).save(image, pnginfo=described("lab01 on NVIDIA H200, recorded 2026-12-03T10:00:00Z"))
        return True

    monkeypatch.setattr(recorder, "gpu_presence", lambda: (True, "NVIDIA H200"))
    monkeypatch.setattr(recorder, "gpu_devices", lambda: ["0"])
    monkeypatch.setattr(recorder, "build", lambda preset, targets: build)
    monkeypatch.setattr(recorder, "run", program)
    monkeypatch.setattr(recorder.environment, "draw", draw)
    assert recorder.main(["--labs", "01", "08", "--into", str(tmp_path / "out")]) == 0
    traces = build / "reference-traces"
    assert ran == [[build / "labs" / "lab01_solution_run", "--trace", traces / "lab01-solution.json"]]
    assert [arguments[-1] for _, arguments in drawn] == [
        tmp_path / "out" / "01-null-stream" / "timeline-h200.png",
        tmp_path / "out" / "01-null-stream" / "barrier-h200.png",
    ]
    out = capsys.readouterr().out
    assert "lab 08: skipped: its pictures need 2 GPUs (this machine has 1)" in out
    assert out.count("lab01 on NVIDIA H200, recorded 2026-12-03T10:00:00Z") == 2


def described(text: str):
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_text("Description", text)
    return info
