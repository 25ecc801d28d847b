"""The labs' notebooks: labs/NN-topic/python/notebook.py (English) and notebook.ko.py (Korean), Jupytext's
percent format, so that git shows their changes line by line and they never hold outputs.

`course notebook NN` runs one top to bottom (a kernel of the tools' Python, started in the lab's python/
folder, as Jupyter would) and writes it with its outputs as a .ipynb under BUILD/notebooks/, to open
in Jupyter or an editor that reads notebooks, its pictures beside it. The module form is what the verb
runs with the tools' Python (which has Jupytext, nbclient and ipykernel, from `course setup`):

    python -m coursecli.notebooks labs/05-three-chunks/python/notebook.py -o build/notebooks/lab05.ipynb
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from . import environment, labs
from .shell import COURSE_ERROR, FAILING, CommandFailed, run, say

CELL_TIMEOUT_S = 600  # a cell that runs the lab on a GPU, or `course check` building the module


def notebook_path(number: str, korean: bool = False) -> Path:
    """Lab `number`'s notebook, English or Korean."""
    return labs.lab_folder(number) / "python" / ("notebook.ko.py" if korean else "notebook.py")


def execute(notebook: Any, folder: Path, timeout_s: float = CELL_TIMEOUT_S, env: dict[str, str] | None = None) -> None:
    """Runs `notebook` (jupytext.read's) top to bottom in a fresh kernel started in `folder`, with `env` added to
    this process's environment (by default the course's Python on its import path), filling in its outputs in
    place; nothing is written. A failing cell raises nbclient's CellExecutionError."""
    import nbclient
    from jupyter_client.manager import KernelManager

    # The kernel talks over files in a folder of its own, not TCP ports: ports are picked free and bound
    # later, so two notebooks started at once (the tests run in parallel) could pick the same one.
    with tempfile.TemporaryDirectory(prefix="streamlab-kernel-") as sockets:
        kernel = KernelManager(kernel_name="python3", transport="ipc", ip=f"{sockets}/kernel")
        client = nbclient.NotebookClient(
            notebook, km=kernel, timeout=timeout_s, resources={"metadata": {"path": str(folder)}}
        )
        client.execute(env={**os.environ, **(env or environment.TOOLS_ENV)})


def pictures(notebook: Any) -> list[bytes]:
    """The PNG pictures its cells drew, in order."""
    return [
        base64.b64decode(output["data"]["image/png"])
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    ]


def kernel_environment(notebook: Path, build: Path, solution: bool) -> dict[str, str]:
    """What the kernel of a lab's `notebook` runs with: it imports as the lab's program does (the student's files,
    or with `solution` the solution's, first; the module of the `build` folder), then the course's Python (the
    notebook's helper, streamlab_notebook, and the tools it draws with)."""
    from streamlab_notebook import SOLUTION_VARIABLE

    number = notebook.resolve().parent.parent.name[:2]
    lab = labs.python_lab_environment(number, "solution" if solution else "yours", build)
    return {**environment.notebook_environment(lab), SOLUTION_VARIABLE: str(int(solution))}


def main(argv: list[str]) -> int:
    """Runs a notebook and writes it with its outputs (and its pictures beside it); the exit status."""
    import jupytext
    import nbclient
    import nbformat

    parser = argparse.ArgumentParser(prog="notebooks", description=__doc__.split("\n")[0])
    parser.add_argument("notebook", type=Path, help="a lab's notebook.py or notebook.ko.py")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the .ipynb to write, with outputs")
    parser.add_argument("--build", type=Path, required=True, help="the build folder of the module it imports")
    parser.add_argument("--solution", action="store_true", help="run it on the reference solution")
    args = parser.parse_args(argv)
    notebook, status = jupytext.read(args.notebook), 0
    try:
        execute(notebook, args.notebook.parent, env=kernel_environment(args.notebook, args.build, args.solution))
    except nbclient.exceptions.CellExecutionError as error:  # written all the same, up to the failing cell
        status = FAILING
        print(f"notebooks: a cell failed: {error.ename}: {error.evalue}", file=sys.stderr)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, args.output)
    for stale in args.output.parent.glob(f"{args.output.stem}-[0-9]*.png"):  # an earlier run's pictures
        stale.unlink()
    for index, png in enumerate(pictures(notebook), 1):
        args.output.with_name(f"{args.output.stem}-{index}.png").write_bytes(png)
    print(f"notebooks: wrote {args.output} and its {len(pictures(notebook))} picture(s) beside it")
    return status


def run_notebook(number: str, preset: str, solution: bool, korean: bool) -> int:
    """`course notebook NN`: builds the module the notebook imports, runs the notebook, writes it with outputs."""
    source = notebook_path(number, korean)
    if not source.is_file():
        say(f"lab {number} has no notebook ({source})")
        return COURSE_ERROR
    if not environment.install_notebook_tools():
        say("the notebooks need Jupytext, nbclient and ipykernel in .venv: run ./course setup where pip can run")
        return COURSE_ERROR
    try:
        folder = labs.build_python_side(preset)
    except CommandFailed as failure:
        say(f"the course's Python module does not build ({failure})")
        return COURSE_ERROR
    output = folder / "notebooks" / f"lab{number.zfill(2)}{'-solution' * solution}{'.ko' * korean}.ipynb"
    output.unlink(missing_ok=True)  # an earlier run's must not pass for this one's
    env = {**environment.TOOLS_ENV, "STREAMLAB_MODULE_DIR": str(folder / "python")}
    command = [environment.tools_python(), "-m", "coursecli.notebooks", source, "-o", output, "--build", folder]
    command += ["--solution"] * solution
    status = run(command, check=False, env=env).returncode
    if output.exists():
        say(f"the notebook with its outputs: {output} (open it in Jupyter); its pictures beside it")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
