"""The Python labs' source check: what a student's Python file may contain (coursecli/pycheck.py)."""

import ast
from pathlib import Path

import pytest
from coursecli.lab_declaration import read_lab
from coursecli.pycheck import ALLOWED_NAMES, RUNTIME_ENUMS, check_python_source, lab_rules
from selfgrading.python_selfgrade import PYTHON_CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
PYTHON_LABS = sorted(path.parent for path in (ROOT / "labs").glob("*/python"))


def student_sources(lab: Path) -> tuple[str, ...]:
    """The Python files a student edits in `lab` (its lab.json's student sources)."""
    return read_lab(lab).python.student_sources


def honest_files() -> list[tuple[str, str, str]]:
    """(lab number, id, text) of every starter, solution and catalogue sample of the Python track."""
    found = [
        (lab.name[:2], f"{tree}/{lab.name}/{name}", (ROOT / tree / lab.name / "python" / name).read_text())
        for lab in PYTHON_LABS
        for tree in ("labs", "solutions")
        for name in student_sources(lab)
        if (ROOT / tree / lab.name / "python" / name).is_file()
    ]
    for sample, mistake in sorted(PYTHON_CATALOGUE.items()):
        solution = (ROOT / "solutions" / mistake.lab / "python" / mistake.file).read_text()
        found.append((mistake.lab[:2], sample, solution.replace(mistake.old, mistake.new, 1)))
    return found


HONEST_FILES = honest_files()


def test_every_python_lab_has_starters_and_solutions_to_check():
    ids = {file_id for _, file_id, _ in HONEST_FILES}
    for lab in PYTHON_LABS:
        for name in student_sources(lab):
            assert {f"labs/{lab.name}/{name}", f"solutions/{lab.name}/{name}"} <= ids


@pytest.mark.parametrize("number, file_id, text", HONEST_FILES, ids=[file_id for _, file_id, _ in HONEST_FILES])
def test_every_starter_solution_and_catalogue_sample_may_run(number, file_id, text):
    assert check_python_source(Path(file_id).name, text, lab_rules(number)) == []


HONEST = "from cuda.bindings import runtime as cudart\nfrom cuda_check import check\nimport streamlab\n"


def refusals_of(code: str) -> list[str]:
    refusals = check_python_source("three_chunks.py", HONEST + code, lab_rules("05"))
    assert refusals and all(line.startswith("three_chunks.py:") for line in refusals)
    return refusals


def assert_refused(code: str, says: str) -> None:
    refusals = refusals_of(code)
    assert any(says in line for line in refusals), refusals


# The forgery that scored 18/18 on a GPU: __import__ and getattr reached through a name imported from a
# cuda module, the record written into the harness's pipe when the module is imported, and a clean exit.
FORGERY = """\
from cuda.bindings.runtime import __builtins__ as machinery

os = machinery["__import__"]("os")
write = machinery["getattr"](os, "write")
write(3, b'{"kind": "scenario", "name": "pipeline"}\\n')
os._exit(0)
"""


def test_the_forgery_through_a_cuda_module_is_refused():
    refusals = refusals_of(FORGERY)
    expected = [
        "three_chunks.py:4 imports cuda.bindings.runtime.__builtins__ as machinery: graded code may not name a "
        "__dunder__",
        "three_chunks.py:6 has a string with __ in it ('__import__'): graded code needs none",
        "three_chunks.py:9 uses ._exit: graded code may use only the attributes the labs need",
    ]
    for says in expected:
        assert any(line.startswith(says) for line in refusals), (says, refusals)


@pytest.mark.parametrize(
    "code",
    [
        "from cuda_check import __builtins__\n",
        "from cuda.bindings import __builtins__\n",
        "from cuda import __loader__\n",
        "from lab05 import __builtins__\n",
        "from math import __spec__\n",
        "from streamlab import __dict__\n",
        "import __main__\n",
        "import __future__\n",
        "import lab05 as __builtins__\n",
        "from lab05 import CHUNKS as __name__\n",
    ],
)
def test_a_dunder_import_is_refused(code):
    assert_refused(code, "graded code may not name a __dunder__")


def test_only_future_annotations_is_imported_from_future():
    assert check_python_source("three_chunks.py", "from __future__ import annotations\n", lab_rules("05")) == []
    assert_refused("from __future__ import barry_as_FLUFL\n", "imports __future__.barry_as_FLUFL")


@pytest.mark.parametrize(
    "code, says",
    [
        ("b = cudart.__builtins__\n", "uses .__builtins__"),
        ("g = check.__globals__\n", "uses .__globals__"),
        ("t = (1).__class__\n", "uses .__class__"),
        ("s = streamlab.__loader__\n", "uses .__loader__"),
        ("m = cudart.cudaError_t.__members__\n", "uses .__members__"),
    ],
)
def test_a_dunder_attribute_is_refused(code, says):
    assert_refused(code, f"{says}: graded code may not name a __dunder__")


@pytest.mark.parametrize(
    "code, says",
    [
        ("b = __builtins__\n", "uses __builtins__"),
        ("m = __import__('os')\n", "uses __import__"),
        ("n = __name__\n", "uses __name__"),
        ("def __getattr__(name):\n    return name\n", "defines __getattr__"),
        ("def f(__x__):\n    return 1\n", "names an argument __x__"),
        ("x = dict(__builtins__=1)\n", "passes the keyword __builtins__"),
        ("try:\n    pass\nexcept RuntimeError as __e__:\n    pass\n", "names the exception __e__"),
    ],
)
def test_a_dunder_name_is_refused(code, says):
    assert_refused(code, f"{says}: graded code may not name a __dunder__")


@pytest.mark.parametrize(
    "code",
    [
        "k = {'__builtins__': 1}\n",
        "k = b'__import__'\n",
        "k = '__impo' 'rt__'\n",  # one constant to Python
        "k = '__impo' + 'rt__'\n",  # pieces of one
        "k = '%simport__' % '_'\n",
        "k = f'{1}__class__'\n",
        "k = f'{1:__>4}'\n",  # a format spec is a string too
        "s = '{0.__class__.__mro__}'\n",
        "def f():\n    '''Like __init__.'''\n",
    ],
)
def test_a_string_with_a_dunder_or_its_pieces_is_refused(code):
    assert_refused(code, "has a string with __ in it")


@pytest.mark.parametrize(
    "code, says",
    [
        ("from cuda.bindings.runtime import cudaDeviceReset\n", "imports cuda.bindings.runtime.cudaDeviceReset"),
        ("from cuda.bindings.runtime import ctypes\n", "imports cuda.bindings.runtime.ctypes"),
        ("from cuda.bindings.runtime import getLocalRuntimeVersion\n", "imports cuda.bindings.runtime.getLocal"),
        ("from cuda.bindings.runtime import cudaHostFn_t\n", "imports cuda.bindings.runtime.cudaHostFn_t"),
        ("c = cudart.cudaSetDeviceFlags(0)\n", "uses cuda.bindings.runtime.cudaSetDeviceFlags"),
        ("c = cudart.ctypes\n", "uses cuda.bindings.runtime.ctypes"),
        (
            "import cuda.bindings.runtime\nc = cuda.bindings.runtime.cudaDeviceReset\n",
            "uses cuda.bindings.runtime.cuda",
        ),
        ("from cuda.bindings import cyruntime\n", "imports cuda.bindings.cyruntime: of cuda.bindings, graded code"),
        ("from cuda.bindings import driver\n", "imports cuda.bindings.driver: of cuda.bindings, graded code"),
        ("from cuda_check import cudart as r\n", "imports cuda_check.cudart: of cuda_check, graded code may use only"),
        ("from cuda_check import Any\n", "imports cuda_check.Any"),
    ],
)
def test_a_name_of_a_cuda_module_the_labs_do_not_need_is_refused(code, says):
    assert_refused(code, says)


@pytest.mark.parametrize(
    "code, says",
    [
        ("from streamlab import recording\n", "imports streamlab.recording: of streamlab, graded code may use only"),
        ("import streamlab.recording\n", "imports streamlab.recording: graded code may import only the lab's API"),
        ("r = streamlab.recording.record_scenarios\n", "uses streamlab.recording"),
        ("from streamlab import TimelineUnavailable\n", "imports streamlab.TimelineUnavailable"),
        ("import streamlab as s\ns.mark('x')\n", "uses streamlab.mark"),
        ("x = streamlab.cuda_stream\n", "uses streamlab.cuda_stream"),
    ],
)
def test_a_name_of_streamlab_the_labs_do_not_need_is_refused(code, says):
    assert_refused(code, says)


@pytest.mark.parametrize(
    "code, says",
    [
        ("from time import get_clock_info\n", "imports time.get_clock_info: of time, graded code may use only"),
        ("from math import no_such_name\n", "imports math.no_such_name"),
        ("from typing import get_type_hints\n", "imports typing.get_type_hints"),
        ("from enum import pickle_by_enum_name as p\n", "imports enum.pickle_by_enum_name"),
        ("from dataclasses import sys\n", "imports dataclasses.sys"),
        ("from collections import namedtuple\n", "imports collections.namedtuple"),
        ("from lab05 import dataclass\n", "imports lab05.dataclass: of lab05, graded code may use only the names"),
        ("import math\ne = math.no_such_name\n", "uses math.no_such_name"),
        ("import enum\nm = enum.sys.modules\n", "uses enum.sys"),
        ("import dataclasses\nb = dataclasses.builtins.open\n", "uses dataclasses.builtins"),
        ("import lab05\nx = lab05.nothing_of_the_lab\n", "uses lab05.nothing_of_the_lab"),
        ("import typing\nh = typing.get_type_hints\n", "uses typing.get_type_hints"),
        ("import enum\nenum.global_enum(enum.Enum('E', {'len': 1}, module='builtins'))\n", "uses enum.global_enum"),
        ("import dataclasses\nC = dataclasses.make_dataclass('C', ['n'], slots=True)\n", "uses dataclasses.make"),
    ],
)
def test_a_name_of_an_ordinary_module_the_labs_do_not_need_is_refused(code, says):
    assert_refused(code, says)


@pytest.mark.parametrize(
    "code, says",
    [
        ("m = cudart\n", "uses the module cuda.bindings.runtime itself"),
        ("sl = streamlab\nsl.record('x')\n", "uses the module streamlab itself"),
        ("def f(m=streamlab):\n    return m\n", "uses the module streamlab itself"),
        ("import math\ndef f(m=math):\n    return m\n", "uses the module math itself"),
        ("import lab05\ndef f(m=lab05):\n    return m\n", "uses the module lab05 itself"),
        # a name bound again would no longer be what the check judges it to be
        ("import lab05\ncudart = lab05\n", "binds cudart again, which its import binds to cuda.bindings.runtime"),
        ("def f(cudart):\n    return cudart.cudaMalloc\n", "binds cudart again"),
        ("for check in [1]:\n    pass\n", "binds check again"),
        ("from math import floor as check\n", "imports math.floor as check, a name another import binds"),
        # the recording program calls the same modules: graded code may not change them
        (
            "def f():\n    return 0.0\ncudart.cudaEventElapsedTime = f\n",
            "assigns to something of cuda.bindings.runtime",
        ),
        ("streamlab.launch_workload = print\n", "assigns to something of streamlab"),
        ("import lab05\nlab05.CHUNKS = 1\n", "assigns to something of lab05"),
        ("from lab05 import PipelineJob\nPipelineJob.n = 1\n", "assigns to something of lab05.PipelineJob"),
    ],
)
def test_an_import_is_used_only_as_what_it_is(code, says):
    assert_refused(code, says)


@pytest.mark.parametrize(
    "code, says",
    [
        ("import os\n", "imports os: graded code may import only the lab's API"),
        ("import ctypes\n", "imports ctypes"),
        ("from . import lab05\n", "imports from ."),
        ("import lab_program\n", "imports lab_program"),
        ("import record_lab05\n", "imports record_lab05"),
        ("import lab04\n", "imports lab04"),  # another lab's interface
        ("x = eval('1')\n", "uses eval: graded code may not run code it builds"),
        ("exec('pass')\n", "uses exec"),
        ("f = open('grade.json', 'w')\n", "uses open: graded code may not open files"),
        ("g = getattr(object, 'x')\n", "uses getattr"),
        ("def f(:\n", "does not parse"),
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
        ("x = [1].cudaSuccess\n", "uses .cudaSuccess"),  # a runtime enum's member only on its enum
        ("x = cudart.cudaError_t.mro\n", "uses cuda.bindings.runtime.cudaError_t.mro: of the runtime's enum"),
        ("from enum import *\n", "imports every name of enum (*): graded code names what it imports"),
        ("from lab05 import *\n", "imports every name of lab05 (*)"),
    ],
)
def test_what_graded_code_may_not_do_is_refused_with_its_line(code, says):
    assert_refused(code, says)


def test_the_labs_own_interface_and_plain_modules_are_fine():
    code = (
        HONEST + "from lab05 import CHUNKS, FLOAT_BYTES, PipelineJob\nimport math\nfrom dataclasses import dataclass\n"
    )
    code += "from typing import Any, Callable\nfrom enum import Enum\nimport dataclasses\nr = dataclasses.replace\n"
    code += "import collections.abc\nc = collections.abc.Callable\nfrom cuda.bindings.runtime import cudaError_t\n"
    code += "ok = cudaError_t.cudaSuccess\nk = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice\n"
    code += "streamlab.launch_workload(0, 0, 1, 1)\noffset, count = streamlab.chunk_range(10, 3, 0)\n"
    assert check_python_source("three_chunks.py", code, lab_rules("05")) == []


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
        assert any("lab03.ctypes: of lab03" in line for line in refusals), refusals
    assert check_python_source("pinned_memory.py", "import lab03\nk = lab03.HostBuffer\n", lab_rules("03")) == []


def test_every_runtime_name_allowed_is_the_runtimes():
    runtime = pytest.importorskip("cuda.bindings.runtime")
    missing = {name for name in ALLOWED_NAMES["cuda.bindings.runtime"] if not hasattr(runtime, name)}
    assert not missing
    for enum in RUNTIME_ENUMS:  # each member goes by the `cuda` prefix
        members = [name for name in dir(getattr(runtime, enum)) if name.startswith("cuda")]
        assert members and all(name in getattr(runtime, enum).__members__ for name in members)


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


def scenarios_function(recorder: ast.Module) -> ast.FunctionDef:
    """The function a recording program hands recording.record_scenarios (which calls it with the Session)."""
    for node in ast.walk(recorder):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "record_scenarios":
            name = node.args[1].id
            return next(s for s in recorder.body if isinstance(s, ast.FunctionDef) and s.name == name)
    raise AssertionError("no recording.record_scenarios(sys.argv, scenarios)")


def imported_modules(tree: ast.AST) -> list[tuple[ast.AST, str]]:
    """(import statement, the top-level module it imports) for each import in `tree`."""
    return [
        (node, name.split(".")[0])
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for name in ([node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names])
    ]


@pytest.mark.parametrize("lab", PYTHON_LABS, ids=lambda lab: lab.name)
def test_a_recorder_imports_the_students_modules_only_once_its_session_exists(lab):
    """A student module's top-level code runs when it is imported: only inside the scenarios function, which
    record_scenarios calls once the Session is set up, and never through the course modules it imports first."""
    declared = read_lab(lab)
    students = {Path(name).stem for name in declared.python.student_sources}
    recorder = ast.parse((lab / "python" / declared.python_recorder).read_text())
    inside = set(ast.walk(scenarios_function(recorder)))
    imports = imported_modules(recorder)
    assert students <= {module for node, module in imports if node in inside}
    assert not students & {module for node, module in imports if node not in inside}
    for course_module in (lab / "python" / f"lab{lab.name[:2]}.py", ROOT / "python" / "cuda_check.py"):
        assert not students & {module for _, module in imported_modules(ast.parse(course_module.read_text()))}
