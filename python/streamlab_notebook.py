"""What the labs' notebooks call (labs/NN-topic/python/notebook.py and its Korean twin notebook.ko.py).

A notebook shows the student's function as it stands in their file (the file `course check NN
--python` grades: the notebook never writes it), runs it on the GPU while CUPTI records the timeline,
draws that timeline and the course's model of it with `course plot`'s code, and shows `course check`'s
verdict. Where there is no GPU, every GPU cell says so and shows, instead of a run, the solution's
timelines recorded on an H200 (the pictures `course check` points at) and the model's schedule for
stage times measured there (the picture `course demo` draws without a GPU).

    from streamlab_notebook import LabNotebook
    lab = LabNotebook("05")          # in the notebook's first cell
    lab.show_function("three_chunks", "run_pipeline")
    timeline = lab.record(run)       # None without a GPU, or when your code failed (said why)
    lab.show_timeline(timeline)
    lab.show_model(timeline)
    lab.check()

It is imported by name: `course setup` installs the course's Python (this folder and tools/) into .venv,
and `course notebook` gives its kernel the lab's import path. The lab's own files and the student's are
found the way the lab's program finds them: from the lab's python/ folder, where Jupyter starts the
notebook (`course notebook NN --solution` puts the solution's folder before it).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib
from IPython.display import Code, Image, display
from streamlab_tools import library, plot
from streamlab_tools.demo_model import describe, load_stage_times
from streamlab_tools.timelines import plot_model_schedule

ROOT = Path(__file__).resolve().parents[1]  # this file is python/streamlab_notebook.py of the course
# Stage times measured on an H200: what the model is drawn from where there is no GPU (as in `course demo`).
STAGE_TIMES = ROOT / "common" / "reference" / "h200_stage_times.json"
# Each lab's pictures of the solution recorded on an H200, the ones `course check` points at (its list too).
REFERENCE_PICTURES = ROOT / "common" / "reference" / "reference_pictures.json"
# `course notebook NN --solution` sets it to 1: the notebook then runs and checks the reference solution.
SOLUTION_VARIABLE = "STREAMLAB_NOTEBOOK_SOLUTION"
# The line every GPU cell prints without a GPU, after the reason; the notebooks' tests look for it.
MODELLED_INSTEAD = "the pictures below are not your run: they are modelled, or recorded from the solution on an H200"
# What `course check` says by its exit status, the one every verb of `course` exits with (README, `course --help`).
VERDICTS = {
    0: "every graded test passed",
    1: "a check or a graded test failed (above)",
    2: "the course could not check the lab (above)",
    77: "not graded here for want of a GPU: not a failing grade",
}


def gpu_presence() -> tuple[bool, str]:
    """(True, the first GPU's name), or (False, why not, in the grader's words: SKIP_NO_GPU first), as the
    module streamlab finds it."""
    streamlab = library.load()
    present, why = streamlab.gpu_presence()
    return (True, streamlab.device_facts(0).name) if present else (False, streamlab.words.SKIP_NO_GPU + why)


def lab_folder(number: str) -> Path:
    """labs/NN-topic, for lab `number` ("5" or "05")."""
    found = sorted(ROOT.glob(f"labs/{number.zfill(2)}-*/lab.json"))
    if not found:
        raise ValueError(f"no lab {number} in {ROOT / 'labs'}")
    return found[0].parent


class LabNotebook:
    """One lab's notebook: where its files are, whether a GPU is here, and the cells' work."""

    def __init__(self, number: str) -> None:
        self.lab = lab_folder(number)
        self.number = self.lab.name[:2]
        self.solution = os.environ.get(SOLUTION_VARIABLE) == "1"
        self.student_folder = ROOT / ("solutions" if self.solution else "labs") / self.lab.name / "python"
        # The module streamlab of the newest build, loaded once: the cells' `import streamlab` is that module.
        self.build = Path(library.load().__file__).parent.parent
        self.gpu, self.gpu_words = gpu_presence()
        # Pictures are drawn here, never into the course; removed with the notebook's kernel (Image keeps a copy).
        self._pictures = tempfile.TemporaryDirectory(prefix=f"lab{self.number}-notebook-")
        self.pictures = Path(self._pictures.name)
        sys.dont_write_bytecode = True  # no __pycache__ in the lab's folders
        matplotlib.use("Agg")  # pictures drawn into files and shown as such, never a second time inline
        whose = "the reference solution" if self.solution else "your code"
        where = f"GPU: {self.gpu_words}" if self.gpu else f"{self.gpu_words}; {MODELLED_INSTEAD}"
        print(f"Lab {self.number}, {whose} ({self.student_folder.relative_to(ROOT)}). {where}.")

    def show_function(self, module: str, *functions: str) -> None:
        """The student's `functions` as they stand in `module`.py, the file `course check` grades."""
        path = self.student_folder / f"{module}.py"
        text = path.read_text()
        print(f"From {path.relative_to(ROOT)}: edit it there, then run the notebook again.")
        try:
            tree = ast.parse(text)
        except SyntaxError as error:
            print(f"It does not parse (line {error.lineno}: {error.msg}); the whole file:")
            display(Code(text, language="python"))
            return
        found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in functions]
        shown = "\n\n".join(ast.get_source_segment(text, n) or "" for n in found)
        display(Code(shown or text, language="python"))  # the whole file where the functions are not found

    def record(self, run: Callable[[], Any]) -> Any:
        """The timeline `run` records (the graded test's own set-up, around the student's function);
        None without a GPU, or when the run failed, after saying so."""
        if not self.gpu:
            print(f"{self.gpu_words}: nothing runs here; {MODELLED_INSTEAD}.")
            return None
        try:
            return run()
        except BaseException as error:  # SystemExit too: show where the run stopped, go on to the verdict
            if isinstance(error, KeyboardInterrupt):
                raise
            traceback.print_exc(limit=-3)
            print("The run failed (above): no timeline of it; the solution's recorded on an H200 is drawn instead.")
            return None

    def show_timeline(self, timeline: Any) -> None:
        """The recorded timeline, drawn by `course plot`; without one, the solution's pictures from an H200."""
        if timeline is None:
            print("Not your run: the solution's timelines, recorded on an H200.")
            for picture in json.loads(REFERENCE_PICTURES.read_text()).get(self.number, []):
                path = self.lab / picture["name"]
                if path.is_file():
                    print(f"{picture['shows']} ({path.relative_to(ROOT)}):")
                    display(Image(filename=str(path)))
            return
        self._draw(timeline, "timeline.png")

    def show_model(self, timeline: Any) -> None:
        """The course's model (the module streamlab's) beneath the recorded timeline, from the same run's
        stage times; without one, the model's schedule for stage times measured on an H200."""
        if timeline is None:
            times = load_stage_times(STAGE_TIMES)
            print(f"No run recorded here: the model's schedule for stage times measured on an H200.\n{describe(times)}")
            image = self.pictures / "model.png"
            title = f"What the model predicts on {times.device}"
            args = (times.h2d_ms, times.kernel_ms, times.d2h_ms, times.chunks, times.copy_engines, image)
            plot_model_schedule(*args, title=title)
            display(Image(filename=str(image)))
            return
        print("Above: what the GPU recorded. Beneath: the model's schedule for the same work (hatched).")
        self._draw(timeline, "model.png", "--model")

    def _draw(self, timeline: Any, name: str, *options: str) -> None:
        trace, image = self.pictures / "run.json", self.pictures / name
        library.load().write_trace(str(trace), timeline)
        if plot.main([str(trace), "-o", str(image), *options]) == 0:
            display(Image(filename=str(image)))

    def check(self) -> None:
        """Runs `course check NN --python` (with the build the notebook's module comes from) and shows it."""
        preset = library.preset_of(self.build)  # None for a module of no preset's build: `course check`'s default
        options = (["--preset", preset] if preset else []) + ["--solution"] * self.solution
        command = ["./course", "check", self.number, "--python", *options]
        print("$ " + " ".join(command))
        if not self.gpu:
            print(
                "(No GPU here: the check then previews your code on the simulated GPU. The first preview builds "
                "it, which takes a few minutes; what the check says shows once it is done.)"
            )
        done = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, check=False)
        print(done.stdout + done.stderr)
        print(f"exit status {done.returncode}: {VERDICTS.get(done.returncode, 'see above')}")
