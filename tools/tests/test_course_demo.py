"""`course demo` and `course bench` around their programs: a stand-in program takes the
place of the GPU one, so both of the demo's pictures are drawn here, GPU or not.
(Programs write to the process's own stdout, so the tests read it with capfd.)"""

import shutil
import stat
from pathlib import Path

import pytest
from coursecli import bench, demo

FIXTURES = Path(__file__).parent / "fixtures"


def install_program(folder: Path, relative: str, script: str) -> None:
    """A shell script at folder/relative standing in for a built program."""
    program = folder / relative
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text("#!/bin/sh\n" + script)
    program.chmod(program.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def build_folder(tmp_path, monkeypatch):
    """A build folder that `build` hands out without building anything."""
    folder = tmp_path / "build"
    monkeypatch.setattr(demo, "build", lambda preset, targets: folder)
    monkeypatch.setattr(bench, "build", lambda preset, targets: folder)
    return folder


def png(path: Path) -> bool:
    return path.exists() and path.read_bytes().startswith(b"\x89PNG")


def test_demo_without_a_gpu_draws_the_model(build_folder, capfd):
    install_program(build_folder, "programs/streamlab_demo", 'echo "no GPU: test"\n')
    assert demo.run_demo("default") == 0
    out = capfd.readouterr().out
    assert "what the model predicts" in out
    assert "Modelled, not measured" in out
    assert png(build_folder / "demo" / "demo.png")


def test_demo_with_timelines_draws_them_stacked(build_folder, capfd):
    # The stand-in writes the two timelines the real program records.
    serial, pipelined = FIXTURES / "serial_null_stream.json", FIXTURES / "pipeline_3_chunks.json"
    install_program(
        build_folder,
        "programs/streamlab_demo",
        f'mkdir -p "$2" && cp "{serial}" "$2/serial.json" && cp "{pipelined}" "$2/three-chunks.json"\n',
    )
    assert demo.run_demo("default") == 0
    out = capfd.readouterr().out
    assert "--compare" in out and "what the model predicts" not in out
    assert png(build_folder / "demo" / "demo.png")


def test_demo_ignores_timelines_of_an_earlier_run(build_folder, capfd):
    (build_folder / "demo").mkdir(parents=True)
    shutil.copy(FIXTURES / "serial_null_stream.json", build_folder / "demo" / "serial.json")
    shutil.copy(FIXTURES / "pipeline_3_chunks.json", build_folder / "demo" / "three-chunks.json")
    install_program(build_folder, "programs/streamlab_demo", "exit 0\n")
    assert demo.run_demo("default") == 0
    assert "what the model predicts" in capfd.readouterr().out


def test_demo_passes_on_a_failing_program(build_folder):
    install_program(build_folder, "programs/streamlab_demo", "exit 3\n")
    assert demo.run_demo("default") == 3
    assert not (build_folder / "demo" / "demo.png").exists()


def test_bench_plots_the_sweep_its_program_wrote(build_folder, capfd):
    sweep = FIXTURES / "chunk_sweep.json"
    install_program(build_folder, "programs/lab05_bench", f'mkdir -p "$(dirname "$2")" && cp "{sweep}" "$2"\n')
    assert bench.run_bench("default", repeats=3) == 0
    assert "--repeats 3" in capfd.readouterr().out
    assert png(build_folder / "bench" / "chunks.png")


def test_bench_of_lab_06_runs_its_own_program_and_files(build_folder, capfd):
    sweep = FIXTURES / "chunk_sweep.json"
    install_program(build_folder, "labs/lab06_bench", f'mkdir -p "$(dirname "$2")" && cp "{sweep}" "$2"\n')
    assert bench.run_bench("default", repeats=2, lab="06") == 0
    assert "lab06-chunks.json --repeats 2" in capfd.readouterr().out
    assert png(build_folder / "bench" / "lab06-chunks.png")
    assert not (build_folder / "bench" / "chunks.png").exists()


def test_bench_fails_when_its_program_does(build_folder):
    install_program(build_folder, "programs/lab05_bench", "echo 'no GPU' >&2; exit 1\n")
    assert bench.run_bench("default", repeats=1) == 1
    assert not (build_folder / "bench" / "chunks.png").exists()
