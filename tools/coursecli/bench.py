"""`course bench`: a lab's reference solution over many chunk counts, against the model.
Lab 05 (the default): its pipeline from 1 to 256 chunks, three kernel weights, and the
tracer's overhead. Lab 06: its streaming ring from 4 to 256 chunks over 2 and 4 streams,
the host's fills and drains included. A JSON file and a plot in build/bench/."""

from __future__ import annotations

from . import labs
from .build import build
from .shell import COURSE_ERROR, run, say

# Lab number: (the benchmark program, the stem of its files in build/bench/).
BENCHES = {"05": ("lab05_bench", "chunks"), "06": ("lab06_bench", "lab06-chunks")}


def run_bench(preset: str, repeats: int, lab: str = "05") -> int:
    """Builds and runs lab `lab`'s benchmark, then draws its chunk sweep."""
    program, stem = BENCHES[lab]
    folder = build(preset, [program])
    executable = next(folder.rglob(program), None)
    if executable is None:
        say(f"built {program} but cannot find it under {folder}")
        return COURSE_ERROR
    out = folder / "bench"
    sweep = out / f"{stem}.json"
    sweep.unlink(missing_ok=True)  # never plot an earlier run's results as this one's
    result = run([executable, "--out", sweep, "--repeats", str(repeats)], check=False)
    if result.returncode != 0 or not sweep.exists():
        return result.returncode or 1
    image = out / f"{stem}.png"
    if not labs.plot(sweep, image, folder):
        return COURSE_ERROR
    say(f"results: {sweep}; speedup against chunks: {image}")
    return 0
