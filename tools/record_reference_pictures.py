#!/usr/bin/env python3
"""Records every lab's reference pictures on a GPU machine: one per task that has a timeline.

    python3 tools/record_reference_pictures.py [--preset default] [--labs 01 07] [--into DIR]

Builds each lab's solution program, runs it once with `--trace` (the traces go to
BUILD/reference-traces/), and draws each picture that common/reference/reference_pictures.json
lists with `course plot` into labs/NN-topic/ (or DIR/NN-topic/ with --into, to look
before committing). The plot tool stores the device and the time of recording in
each PNG's Description; this prints it for each picture written. A lab whose
pictures need two GPUs (`*-h200x2.png`) is skipped, with the reason, on one.

Exits 77 where there is no GPU, 1 when a program or a drawing failed, 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from coursecli import environment, labs, python_module
from coursecli.build import DEFAULT_PRESET, build
from coursecli.gpu import NO_GPU_EXIT, gpu_devices, gpu_presence
from coursecli.reference_pictures import PICTURES
from coursecli.shell import ROOT, run


def description(image: Path) -> str:
    """The PNG's Description (device and date of recording, written by the plot tool), or why there is none."""
    try:
        from PIL import Image  # matplotlib's own dependency: there wherever the tools can draw
    except ImportError:
        return "(Pillow is not installed here to read it back)"
    with Image.open(image) as picture:
        return str(picture.info.get("Description", "(no Description: not drawn by the course's plot tool)"))


def record_lab(number: str, folder: Path, into: Path) -> list[str]:
    """Runs lab `number`'s solution once and draws its pictures into `into`/NN-topic; the problems met."""
    lab = labs.lab_folder(number)
    pictures = PICTURES[number]
    needed = max(picture.gpus for picture in pictures)
    if len(gpu_devices()) < needed:
        print(f"lab {number}: skipped: its pictures need {needed} GPUs (this machine has {len(gpu_devices())})")
        return []
    executable = next(folder.rglob(f"lab{number}_solution_run"), None)
    if executable is None:
        return [f"lab {number}: lab{number}_solution_run was not built"]
    traces = folder / "reference-traces"
    traces.mkdir(parents=True, exist_ok=True)
    if run([executable, "--trace", traces / f"lab{number}-solution.json"], check=False).returncode != 0:
        return [f"lab {number}: the solution's program failed (its output is above)"]
    problems = []
    for picture in pictures:
        image = into / lab.name / picture.name
        missing = [str(t) for t in picture.trace_files(traces, number) if not t.is_file()]
        if missing:
            problems.append(f"lab {number}: {picture.name}: the program wrote no {', '.join(missing)}")
        elif not environment.draw("plot", picture.plot_arguments(traces, number, image), image, picture.name, folder):
            problems.append(f"lab {number}: {picture.name} could not be drawn (see above)")
        else:
            print(f"lab {number}: {image}: {picture.shows}\n    {description(image)}")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default=DEFAULT_PRESET, help="CMake preset to build with (default: %(default)s)")
    parser.add_argument("--labs", nargs="+", metavar="NN", help="labs to record (default: all)")
    parser.add_argument("--into", type=Path, default=ROOT / "labs", help="folder of the lab folders (default: labs/)")
    args = parser.parse_args(argv)
    numbers = [n.zfill(2) for n in args.labs] if args.labs else sorted(PICTURES)
    unknown = [n for n in numbers if n not in PICTURES]
    if unknown:
        print(
            f"record_reference_pictures: no pictures listed for lab {', '.join(unknown)} (labs: {', '.join(PICTURES)})"
        )
        return 2
    present, why = gpu_presence()
    if not present:
        print(f"record_reference_pictures: {why}: the pictures are recorded on a GPU")
        return NO_GPU_EXIT
    folder = build(args.preset, [f"lab{n}_solution_run" for n in numbers] + [python_module.TARGET])
    problems = [problem for number in numbers for problem in record_lab(number, folder, args.into)]
    for problem in problems:
        print(f"record_reference_pictures: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
