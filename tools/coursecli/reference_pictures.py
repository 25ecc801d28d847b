"""The committed pictures of each lab's solution recorded on an H200: one per task that has a timeline.

`course run` and `course check` show them where there is no GPU;
tools/record_reference_pictures.py records them all again on a GPU machine.
Each picture is drawn by `course plot` from the traces the lab's program writes
(`labNN_solution_run --trace labNN-solution.json` writes labNN-solution.json and,
for a task of its own, labNN-solution-VARIANT.json); the plot tool stores the
device and the date of recording in the PNG's Description.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


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


PICTURES: dict[str, list[ReferencePicture]] = {
    "01": [
        ReferencePicture("timeline-h200.png", "Task 1: run_serial, the whole job in the NULL stream"),
        ReferencePicture(
            "barrier-h200.png",
            "Task 2: the barrier demo, blocking streams above non-blocking ones",
            ("blocking", "nonblocking"),
            ("--labels", "blocking", "non-blocking"),
        ),
    ],
    "02": [
        ReferencePicture("timeline-h200.png", "Task 1: run_in_streams, one stream per kernel"),
        ReferencePicture("null-stream-h200.png", "Task 2: run_in_null_stream, the same kernels in turn", ("null",)),
    ],
    "03": [
        ReferencePicture("timeline-h200.png", "Tasks 1 and 2: one copy each way, pageable then pinned"),
        ReferencePicture("bandwidth-h200.png", "Task 3: the bandwidth sweep, pageable against pinned", ("bandwidth",)),
    ],
    "04": [
        ReferencePicture(
            "timeline-h200.png",
            "Tasks 2 and 3: the batches from pinned memory above those from pageable memory",
            ("", "pageable"),
            ("--labels", "pinned", "pageable"),
        ),
    ],
    "05": [
        ReferencePicture(
            "timeline-h200.png",
            "Tasks 1 to 3: the serial reference above your three-chunk pipeline",
            ("serial", ""),
            ("--labels", "serial", "three chunks"),
        ),
        ReferencePicture("model-vs-measured-h200.png", "Task 4: the pipeline above the model's", options=("--model",)),
    ],
    "06": [ReferencePicture("timeline-h200.png", "Tasks 1 to 3: run_stream, 16 chunks through the ring")],
    "07": [
        ReferencePicture("timeline-h200.png", "Task 1: one stream per stage, joined by events"),
        ReferencePicture(
            "host-consumer-h200.png",
            "Task 2: the host consumes each chunk in the copy-out stream, above a hand-off to a consumer thread",
            ("host-consumer", "host-consumer-hand-off"),
            ("--labels", "in the stream", "handed off"),
        ),
        ReferencePicture("graph-h200.png", "Task 3: the pipeline as a CUDA graph, launched 4 times", ("graph",)),
        ReferencePicture(
            "priority-h200.png",
            "Task 4: the urgent kernel in a stream of default priority above one of greater priority",
            ("urgent-default", "urgent-high"),
            ("--labels", "default priority", "high priority"),
        ),
    ],
    "08": [
        ReferencePicture("timeline-h200x2.png", "Task 2: the pipeline split over two GPUs"),
        ReferencePicture("handoff-h200x2.png", "Task 3: a hand-off from GPU 0 to GPU 1", ("handoff",)),
    ],
    "09": [
        ReferencePicture(
            "timeline-h200.png",
            "Task 1: the serial reference above the four-chunk pipeline freed of its hidden waits",
            ("serial", ""),
            ("--labels", "serial", "four chunks"),
        ),
    ],
}


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
