"""The committed pictures of each lab's solution recorded on an H200: one per task that has a timeline.

`course run` and `course check` show them where there is no GPU;
tools/record_reference_pictures.py records them all again on a GPU machine.
Each picture is drawn by `course plot` from the traces the lab's program writes
(`labNN_solution_run --trace labNN-solution.json` writes labNN-solution.json and,
for a task of its own, labNN-solution-VARIANT.json); the plot tool stores the
device and the date of recording in the PNG's Description. Which pictures a lab has is listed in
common/reference/reference_pictures.json.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .shell import ROOT


@dataclass(frozen=True)
class ReferencePicture:
    """One reference picture: the file in the lab's folder, the task it shows, and how it is drawn."""

    name: str  # in labs/NN-topic/: "timeline-h200.png" (one GPU) or "...-h200x2.png" (two)
    shows: str  # what a student sees in it: "Task 1: run_serial in the NULL stream"
    traces: tuple[str, ...] = ("",)  # the variants drawn: "" the program's main trace; a second one beneath it
    options: tuple[str, ...] = ()  # more `course plot` options (--labels, --model)

    @property
    def gpus(self) -> int:
        return 2 if self.name.endswith("-h200x2.png") else 1

    def trace_files(self, folder: Path, number: str) -> list[Path]:
        """The traces it is drawn from, as the solution's program writes them into `folder`."""
        return [folder / f"lab{number}-solution{'-' + v if v else ''}.json" for v in self.traces]

    def plot_arguments(self, folder: Path, number: str, image: Path) -> list:
        """`course plot`'s arguments drawing it into `image` from the traces in `folder`."""
        first, *compare = self.trace_files(folder, number)
        return [first, *(["--compare", compare[0]] if compare else []), *self.options, "-o", image]


# Lab -> its pictures, in the order they are shown. A data file rather than code: the notebooks' helper
# (python/streamlab_notebook.py), which never imports the course command, reads the same list.
LISTED = ROOT / "common" / "reference" / "reference_pictures.json"


def _picture(fields: dict) -> ReferencePicture:
    """A picture as LISTED gives its fields (traces and options as lists)."""
    return ReferencePicture(
        **{key: tuple(value) if isinstance(value, list) else value for key, value in fields.items()}
    )


PICTURES = {number: list(map(_picture, listed)) for number, listed in json.loads(LISTED.read_text()).items()}


def describe(number: str, lab: Path, root: Path) -> list[str]:
    """What `course run/check` says of lab `number`'s reference pictures where there is no GPU: a line each,
    its path where it is committed, and which picture is missing where it is not (yet)."""
    lines = []
    for picture in PICTURES.get(number, []):
        path = lab / picture.name
        where = "on two H200s" if picture.gpus == 2 else "on an H200"
        if path.is_file():
            lines.append(f"{picture.shows}, the solution {where}: {path.relative_to(root)}")
        else:
            lines.append(
                f"{picture.shows}: no picture yet ({path.relative_to(root)} is missing; "
                "tools/record_reference_pictures.py records it on a GPU machine)"
            )
    return lines
