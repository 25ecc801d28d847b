"""`course bench`: lab 05's pipeline from 1 to 64 chunks, three kernel weights, against
the model; the tracer's overhead; a JSON file and a plot in build/bench/."""

from __future__ import annotations

from . import labs
from .build import build
from .shell import run, say


def run_bench(preset: str, repeats: int) -> int:
    """Builds and runs lab05_bench, then draws its chunk sweep."""
    folder = build(preset, ["lab05_bench"])
    executable = next(folder.rglob("lab05_bench"), None)
    if executable is None:
        say(f"built lab05_bench but cannot find it under {folder}")
        return 1
    out = folder / "bench"
    sweep = out / "chunks.json"
    sweep.unlink(missing_ok=True)  # never plot an earlier run's results as this one's
    result = run([executable, "--out", sweep, "--repeats", str(repeats)], check=False)
    if result.returncode != 0 or not sweep.exists():
        return result.returncode or 1
    image = out / "chunks.png"
    if not labs.plot(sweep, image):
        return 1
    say(f"results: {sweep}; speedup against chunks: {image}")
    return 0
