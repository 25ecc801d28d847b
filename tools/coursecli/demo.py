"""`course demo`: lab 05's solution on the GPU at hand, drawn as the article draws it;
where no timeline can be recorded, what the model predicts from committed stage times."""

from __future__ import annotations

from . import environment, labs
from .build import build
from .python_module import TARGET
from .shell import ROOT, run, say

# Stage times measured on an H200, drawn as modelled timelines where there is no GPU.
REFERENCE_STAGE_TIMES = ROOT / "common" / "reference" / "h200_stage_times.json"


def run_demo(preset: str) -> int:
    """Builds and runs streamlab_demo, then draws one picture; 0 with or without a GPU."""
    folder = build(preset, ["streamlab_demo", TARGET])  # the module: the pictures' analysis and model
    out = folder / "demo"
    serial, pipelined = out / "serial.json", out / "three-chunks.json"
    for stale in (serial, pipelined):
        stale.unlink(missing_ok=True)  # a trace left from an earlier run must not be drawn as this one's
    result = run([folder / "programs" / "streamlab_demo", "--out", out], check=False)
    if result.returncode != 0:
        return result.returncode

    image = out / "demo.png"
    if serial.exists() and pipelined.exists():
        drawn = labs.plot(
            serial,
            image,
            folder,
            ["--compare", str(pipelined), "--labels", "serial, NULL stream", "three chunks, three streams"],
        )
    else:
        say(
            "no timeline was recorded here, so the picture shows what the model predicts "
            f"from stage times measured on an H200 ({REFERENCE_STAGE_TIMES.relative_to(ROOT)})"
        )
        drawn = environment.draw("demo_model", [REFERENCE_STAGE_TIMES, "-o", image], image, "the picture", folder)
    if drawn:
        say(f"picture: {image}")
    return 0 if drawn else 1
