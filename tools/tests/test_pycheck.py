"""The Python labs' source check: what a student's Python file may contain (coursecli/pycheck.py)."""

from pathlib import Path

import pytest
from coursecli.pycheck import check_python_source, lab_rules

ROOT = Path(__file__).resolve().parents[2]
STUDENT_FILES = sorted(
    path
    for tree in ("labs", "solutions")
    for path in (ROOT / tree).glob("*/python/*.py")
    # notebook: the lab's, not graded; record_lab: the course's recording program, which runs the student's
    if not path.name.startswith(("test_", "run_lab", "record_lab", "lab0", "notebook"))
)


@pytest.mark.parametrize("path", STUDENT_FILES, ids=lambda p: f"{p.parts[-4]}/{p.parts[-3]}/{p.name}")
def test_every_starter_and_solution_may_run(path):
    number = path.parts[-3][:2]
    assert check_python_source(path.name, path.read_text(), lab_rules(number)) == []


HONEST = "from cuda.bindings import runtime as cudart\nfrom cuda_check import check\nimport streamlab\n"


@pytest.mark.parametrize(
    "code, says",
    [
        ("import os\n", "imports os: graded code may import only the lab's API"),
        ("import ctypes\n", "imports ctypes"),
        ("from cuda.bindings import driver\n", "other than runtime"),
        ("from . import lab05\n", "imports from ."),
        ("import lab_program\n", "imports lab_program"),
        ("import streamlab\nstreamlab.record('x')\n", "uses streamlab.record"),
        ("import streamlab as s\ns.mark('x')\n", "uses streamlab.mark"),
        ("from streamlab import TimelineUnavailable\n", "imports streamlab.TimelineUnavailable"),
        ("x = eval('1')\n", "uses eval: graded code may not run code it builds"),
        ("exec('pass')\n", "uses exec"),
        ("f = open('grade.json', 'w')\n", "uses open: graded code may not open files"),
        ("g = getattr(object, 'x')\n", "uses getattr"),
        ("m = __import__('os')\n", "uses __import__"),
        ("t = (1).__class__\n", "uses .__class__: graded code may not reach the interpreter's machinery"),
        ("b = __builtins__\n", "uses __builtins__"),
        ("def f(:\n", "does not parse"),
        ("sl = streamlab\nsl.record('x')\n", "uses streamlab itself"),
        ("def f(m=streamlab):\n    return m\n", "uses streamlab itself"),
        ("s = '{0.__class__.__mro__}'.format(1)\n", "string naming the interpreter's machinery"),
        ("import lab05\nimport dataclasses\nb = dataclasses.builtins.open\n", "reaches the module builtins"),
        ("import enum\nm = enum.sys.modules\n", "reaches the module sys"),
        ("from dataclasses import sys\n", "imports the module sys from dataclasses"),
        ("import cuda\nd = cuda.bindings.driver\n", "reaches the module cuda.bindings.driver"),
        ("m = cudart\n", "uses the module cuda.bindings.runtime itself"),
        ("import math\ndef f(m=math):\n    return m\n", "uses the module math itself"),
        ("g = (i for i in [1]).gi_frame.f_back\n", "uses .gi_frame: graded code may not reach a running frame"),
        # what is not on the allowlists: syntax, built-ins, attributes
        ("class C:\n    pass\n", "uses the construct ClassDef (a class runs code of its own when it is defined)"),
        ("g = (i for i in [1])\n", "uses the construct GeneratorExp (a generator carries a running frame)"),
        ("def f():\n    yield 1\n", "uses the construct Yield"),
        ("async def f():\n    pass\n", "uses the construct AsyncFunctionDef"),
        ("match 1:\n    case int(real=r):\n        pass\n", "uses the construct Match (a pattern reaches"),
        ("def f():\n    global x\n", "uses the construct Global"),
        ("with x:\n    pass\n", "uses the construct With"),
        ("if (y := 1):\n    pass\n", "uses the construct NamedExpr"),
        ("del x\n", "uses the construct Delete"),
        ("def g(f):\n    return f\n@g\ndef f():\n    pass\n", "decorates a function"),
        ("h = hasattr(1, 'x')\n", "uses hasattr, a built-in the labs do not need"),
        ("o = object\n", "uses object, a built-in the labs do not need"),
        ("s = 'a'.join(['b'])\n", "uses .join: graded code may use only the attributes the labs need"),
        ("s = '{0.real}'.format(1)\n", "uses .format"),
        ("e = RuntimeError().with_traceback(None)\n", "uses .with_traceback"),
        ("import math\ne = math.no_such_name\n", "uses .no_such_name"),
        ("import lab05\nx = lab05.nothing_of_the_lab\n", "uses .nothing_of_the_lab"),
        ("x = streamlab.cuda_stream\n", "uses streamlab.cuda_stream"),
        # public names of the plain modules that reach the interpreter, and the imports that would bind them
        (
            "import typing\ndef f(x: \"[exec('import sys'), int][1]\"):\n    pass\nh = typing.get_type_hints(f)\n",
            "uses .get_type_hints",
        ),
        (
            "import enum\nget = enum.pickle_by_enum_name(list(enum.Enum('E', 'a'))[0], 0)[0]\n",
            "uses .pickle_by_enum_name",
        ),
        ("import enum\nenum.global_enum(enum.Enum('E', {'len': 1}, module='builtins'))\n", "uses .global_enum"),
        ("import dataclasses\nC = dataclasses.make_dataclass('C', ['n'], slots=True)\n", "uses .make_dataclass"),
        ("from typing import get_type_hints\n", "imports typing.get_type_hints: graded code may use only the names"),
        ("from enum import pickle_by_enum_name as p\n", "imports enum.pickle_by_enum_name"),
        ("from lab05 import dataclass\n", "imports lab05.dataclass"),
        ("from enum import *\n", "imports every name of enum (*): graded code names what it imports"),
        ("from lab05 import *\n", "imports every name of lab05 (*)"),
    ],
)
def test_what_graded_code_may_not_do_is_refused_with_its_line(code, says):
    refusals = check_python_source("three_chunks.py", HONEST + code, lab_rules("05"))
    assert refusals and all(line.startswith("three_chunks.py:") for line in refusals)
    assert any(says in line for line in refusals), refusals


def test_the_labs_own_interface_and_plain_modules_are_fine():
    code = (
        HONEST + "from lab05 import CHUNKS, FLOAT_BYTES, PipelineJob\nimport math\nfrom dataclasses import dataclass\n"
    )
    code += "from typing import Any, Callable\nfrom enum import Enum\nimport dataclasses\nr = dataclasses.replace\n"
    code += "streamlab.launch_workload(0, 0, 1, 1)\noffset, count = streamlab.chunk_range(10, 3, 0)\n"
    assert check_python_source("three_chunks.py", code, lab_rules("05")) == []
    assert check_python_source("three_chunks.py", "import lab04\n", lab_rules("05"))  # another lab's interface


def test_what_a_careful_student_writes_is_allowed():
    code = HONEST + (
        "import math\nimport time\nfrom lab05 import CHUNKS, PipelineJob\n\n\n"
        "def run(job: PipelineJob, chunks: int) -> float:\n"
        "    start = time.perf_counter()\n"
        "    streams = [check(cudart.cudaStreamCreate()) for _ in range(chunks)]\n"
        "    sizes = {i: streamlab.chunk_range(job.n, chunks, i) for i in range(chunks)}\n"
        "    done = 0\n\n"
        "    def count() -> None:\n        nonlocal done\n        done += 1\n\n"
        "    try:\n"
        "        for i, stream in enumerate(streams):\n"
        "            offset, n = sizes.get(i, (0, 0))\n"
        "            assert n >= 0, f'chunk {i}: {n!r}'\n"
        "            (error,) = cudart.cudaStreamQuery(stream)\n"
        "            if error not in (cudart.cudaError_t.cudaSuccess, cudart.cudaError_t.cudaErrorNotReady):\n"
        "                raise RuntimeError(f'{error.name} ({error.value})')\n"
        "            count()\n"
        "    except RuntimeError:\n        raise\n"
        "    finally:\n"
        "        for stream in reversed(streams):\n            check(cudart.cudaStreamDestroy(stream))\n"
        "        streams.clear()\n"
        "    return math.ceil((time.perf_counter() - start) * 1e3) / max(1, len(sizes.keys()))\n"
    )
    assert check_python_source("three_chunks.py", code, lab_rules("05")) == []


def test_a_module_the_labs_interface_imports_is_not_allowed_with_it():
    # lab03.py imports ctypes for its own use; a student may not reach it through lab03.
    for code in ("import lab03\nc = lab03.ctypes.CDLL(None)\n", "from lab03 import ctypes\n"):
        refusals = check_python_source("pinned_memory.py", code, lab_rules("03"))
        assert any("module ctypes" in line for line in refusals), refusals
    assert check_python_source("pinned_memory.py", "import lab03\nk = lab03.HostBuffer\n", lab_rules("03")) == []


def test_the_check_imports_no_module_the_student_names(monkeypatch):
    import importlib

    imported = []
    real_import = importlib.import_module
    monkeypatch.setattr(importlib, "import_module", lambda name, *a: imported.append(name) or real_import(name, *a))
    code = "from antigravity import fly\nimport this\nx = this.s\n"
    refusals = check_python_source("three_chunks.py", HONEST + code, lab_rules("05"))
    assert any("imports from antigravity" in line for line in refusals) and any(
        "imports this" in line for line in refusals
    )
    assert not {"antigravity", "this"} & set(imported)
