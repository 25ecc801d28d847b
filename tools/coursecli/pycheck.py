"""What a Python lab's student file may contain: the Python track's counterpart of objcheck.py.

The student's Python code runs in the same interpreter as the recording program
and the tracer, so anything the interpreter lets code reach (the recording
program's objects, the recorded timeline, the record's pipe) would be within its
reach. The source is therefore read before anything runs, and refused unless it
keeps to what a student of the labs needs:

- imports only of the lab's API (ALLOWED_NAMES: cuda-bindings' runtime, `cuda_check`,
  `streamlab`, a few plain modules of the standard library) and of the lab's
  interface module (`labNN`); `from module import *` is refused;
- of every one of those modules, only the names the labs need, whether imported
  (`from cuda.bindings.runtime import cudaMemcpy`) or reached as an attribute
  (`cudart.cudaMemcpy`): ALLOWED_NAMES lists them, the interface's are those its file
  defines. A module's own imports are never among them (`lab03.ctypes`,
  `cuda.bindings.runtime.ctypes`), nor is the course's recording (`streamlab.recording`);
  a member of one of the runtime's enums (RUNTIME_ENUMS) goes by its `cuda` prefix;
- nothing of the `__dunder__` kind, through which Python reaches everything else: no
  such name imported, defined, used or looked up as an attribute, and no string or
  bytes constant with `__` in it, the stuff such a name is looked up by (the one
  exception: `from __future__ import annotations`);
- a module used only as `module.name`, never kept or passed on; no imported name
  rebound, and nothing of an imported object assigned to (the recording program
  reads the same modules);
- only the syntax the labs need (ALLOWED_SYNTAX): functions, loops,
  conditions, `try`, lambdas, comprehensions that build a list, f-strings;
  no class, decorator, generator, coroutine, `match` or `global`, each of
  which runs code or reaches names in a way the rest of the check would not see;
- only the built-ins the labs need (ALLOWED_BUILTINS); one that builds or
  runs code, opens files or reaches the interpreter's machinery is named with
  its own reason (FORBIDDEN_BUILTINS);
- of any other value, only a list's or a dict's methods (ALLOWED_METHODS) and the
  fields and methods of the interface's classes; no frame reached through a
  generator, a coroutine or a traceback (FRAME_ATTRIBUTES), whose globals hold everything.

The check imports nothing: every list is read from this file or from the lab's
interface file. A refusal is one line naming the file, the line and what it did,
as the C++ labs' object check says it. Standard library only.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

LABS = Path(__file__).resolve().parents[2] / "labs"

# The runtime's calls the labs' solutions, starters and catalogue samples make, and the few more a careful
# student writing them reaches for (a stream's priority, a capture's status, the last error). A call that
# changes the whole device or process (cudaDeviceReset, cudaSetDeviceFlags) or hands the GPU a host function
# of the student's making (cudaHostFn_t) is not among them.
RUNTIME_CALLS = {
    "cudaDeviceGetStreamPriorityRange", "cudaDeviceSynchronize", "cudaGetDevice",
    "cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventDestroy", "cudaEventElapsedTime", "cudaEventQuery",
    "cudaEventRecord", "cudaEventSynchronize",
    "cudaFree", "cudaFreeAsync", "cudaFreeHost", "cudaHostAlloc", "cudaHostRegister", "cudaHostUnregister",
    "cudaMalloc", "cudaMallocAsync", "cudaMallocHost",
    "cudaMemcpy", "cudaMemcpyAsync", "cudaMemset", "cudaMemsetAsync",
    "cudaGetErrorName", "cudaGetErrorString", "cudaGetLastError", "cudaPeekAtLastError",
    "cudaGraphDestroy", "cudaGraphExecDestroy", "cudaGraphInstantiate", "cudaGraphLaunch",
    "cudaLaunchHostFunc",
    "cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaStreamIsCapturing",
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cudaStreamDestroy",
    "cudaStreamGetFlags", "cudaStreamGetPriority", "cudaStreamQuery", "cudaStreamSynchronize",
    "cudaStreamWaitEvent",
}  # fmt: skip
# The runtime's flags those calls take, and its handle types (for annotations).
RUNTIME_CONSTANTS = {
    "cudaEventBlockingSync", "cudaEventDefault", "cudaEventDisableTiming",
    "cudaHostAllocDefault", "cudaHostAllocPortable", "cudaHostRegisterDefault", "cudaHostRegisterPortable",
    "cudaStreamDefault", "cudaStreamNonBlocking",
    "cudaEvent_t", "cudaGraphExec_t", "cudaGraph_t", "cudaStream_t",
}  # fmt: skip
# The runtime's enums those calls take or return. Each of their members is named `cuda...`
# (`cudart.cudaError_t.cudaErrorNotReady`), and a member goes by that prefix.
RUNTIME_ENUMS = {"cudaError_t", "cudaMemcpyKind", "cudaStreamCaptureMode", "cudaStreamCaptureStatus"}
# Every module a student file may import, with the names it may use of it (imported, or as
# `module.name`); the lab's interface module (labNN) allows the names its file defines.
# Of typing, enum and dataclasses, only the names a student's file would use: among their other
# public names are ways to the interpreter (typing.get_type_hints runs an annotation's string as code,
# enum.pickle_by_enum_name hands out getattr, enum.global_enum writes into any module's names,
# dataclasses.make_dataclass builds a class with any __dunder__ in it).
ALLOWED_NAMES: dict[str, frozenset[str]] = {
    module: frozenset(names)
    for module, names in {
        "__future__": {"annotations"},
        "cuda": {"bindings"},
        "cuda.bindings": {"runtime"},
        "cuda.bindings.runtime": RUNTIME_CALLS | RUNTIME_CONSTANTS | RUNTIME_ENUMS,
        "cuda_check": {"CudaError", "check"},
        # the course's kernel and chunking: never the recording, the tracer, its marks or its errors
        "streamlab": {"chunk_range", "launch_workload"},
        "collections": {"abc"},
        "collections.abc": {
            "Callable", "Collection", "Iterable", "Iterator", "Mapping", "MutableMapping", "MutableSequence",
            "Sequence", "Sized",
        },
        "dataclasses": {"FrozenInstanceError", "asdict", "astuple", "dataclass", "field", "fields", "is_dataclass", "replace"},
        "enum": {"Enum", "Flag", "IntEnum", "IntFlag", "StrEnum", "auto", "unique"},
        "math": {
            "ceil", "comb", "copysign", "e", "exp", "fabs", "floor", "fsum", "gcd", "hypot", "inf", "isclose",
            "isfinite", "isinf", "isnan", "lcm", "log", "log10", "log2", "nan", "pi", "pow", "prod", "sqrt", "trunc",
        },
        # a host clock (lab 06 times each run of its sweep), and a pause between polls
        "time": {
            "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "process_time", "process_time_ns",
            "sleep", "thread_time", "thread_time_ns", "time", "time_ns",
        },
        "typing": {
            "Annotated", "Any", "Callable", "ClassVar", "Dict", "Final", "FrozenSet", "Iterable", "Iterator", "List",
            "Literal", "Mapping", "MutableMapping", "MutableSequence", "NamedTuple", "NoReturn", "Optional",
            "Sequence", "Set", "TYPE_CHECKING", "Tuple", "Type", "TypeVar", "Union", "cast",
        },
    }.items()
}  # fmt: skip
ALLOWED_MODULES = frozenset(ALLOWED_NAMES)
RUNTIME_ENUM_PATHS = frozenset(f"cuda.bindings.runtime.{name}" for name in RUNTIME_ENUMS)
# A name listed here in full when refused; a longer list is pointed to.
LISTED_IN_FULL = 8

# Built-ins through which code builds or runs code, opens files, or reaches objects it was not given.
FORBIDDEN_BUILTINS = {
    **dict.fromkeys(("getattr", "setattr", "delattr"), "may not reach attributes by name"),
    **dict.fromkeys(("globals", "locals", "vars"), "may not reach the interpreter's tables"),
    **dict.fromkeys(("eval", "exec"), "may not run code it builds"),
    **dict.fromkeys(("exit", "quit"), "may not end the process"),
    "__import__": "may not import by name",
    "breakpoint": "may not stop the process",
    "compile": "may not build code",
    "input": "may not read input",
    "memoryview": "may not reach raw memory",
    "open": "may not open files",
    "type": "may not make or inspect types",
}


# The syntax a student file may use: what the labs' starters and solutions use, and what a careful
# student writing them would reach for. Anything else is refused by its name (ast's class name).
ALLOWED_SYNTAX = {
    # statements
    "Module", "FunctionDef", "Return", "Assign", "AugAssign", "AnnAssign", "For", "While", "If", "Try",
    "ExceptHandler", "Raise", "Assert", "Expr", "Pass", "Break", "Continue", "Import", "ImportFrom",
    "alias", "Nonlocal",
    # expressions
    "Call", "keyword", "Name", "Attribute", "Subscript", "Slice", "Starred", "Constant", "Lambda",
    "arguments", "arg", "BinOp", "UnaryOp", "BoolOp", "Compare", "IfExp", "List", "Tuple", "Dict",
    "ListComp", "DictComp", "comprehension", "JoinedStr", "FormattedValue", "Load", "Store",
    # operators
    "Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow", "BitOr", "BitAnd", "BitXor", "LShift", "RShift",
    "USub", "UAdd", "Not", "Invert", "And", "Or", "Eq", "NotEq", "Lt", "LtE", "Gt", "GtE", "Is", "IsNot",
    "In", "NotIn",
}  # fmt: skip
# Why a few constructs that a student might try are refused, beyond "not needed".
SYNTAX_REASONS = {
    "ClassDef": "a class runs code of its own when it is defined",
    "GeneratorExp": "a generator carries a running frame",
    "Yield": "a generator carries a running frame",
    "YieldFrom": "a generator carries a running frame",
    "AsyncFunctionDef": "a coroutine carries a running frame",
    "Await": "a coroutine carries a running frame",
    "Global": "graded code may not rebind the module's names from a function",
    "Match": "a pattern reaches attributes by name",
    "NamedExpr": "the labs do not need it",
    "With": "a context manager runs code of its own",
}
BUILTIN_NAMES = frozenset(dir(builtins))
# The built-in names a student file may use.
ALLOWED_BUILTINS = {
    "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "float", "int", "isinstance", "len", "list",
    "map", "max", "min", "print", "range", "reversed", "round", "sorted", "str", "sum", "tuple", "zip",
    "ArithmeticError", "Exception", "NotImplementedError", "RuntimeError", "ValueError",
    "False", "None", "True",
}  # fmt: skip
# Methods of the plain values a student file builds (lists, dicts), and an enum member's value and name.
ALLOWED_METHODS = {
    "append", "extend", "insert", "pop", "index", "count", "reverse", "sort", "copy", "clear",
    "get", "items", "keys", "values", "setdefault", "update", "value", "name",
}  # fmt: skip
# Attributes that lead to a running frame, and from it to any global of the program.
FRAME_ATTRIBUTES = {
    "ag_frame", "cr_frame", "f_back", "f_builtins", "f_globals", "f_locals", "gi_frame", "tb_frame", "tb_next",
}  # fmt: skip


@cache
def _interface_names(interface: str) -> frozenset[str]:
    """The names the lab's interface file (labs/NN-topic/python/labNN.py, read, never imported)
    defines: its functions, classes and constants, and each class's fields, methods and properties,
    which are the attributes of the objects a student's function is handed. What it imports is not
    among them (lab03.py's ctypes)."""
    names: set[str] = set()

    def assigned(statement: ast.stmt) -> list[str]:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            return [statement.target.id]
        if isinstance(statement, ast.Assign):
            return [target.id for target in statement.targets if isinstance(target, ast.Name)]
        if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
            return [statement.name]
        return []

    for path in LABS.glob(f"{interface[3:]}-*/python/{interface}.py"):
        for statement in ast.parse(path.read_text()).body:
            names.update(assigned(statement))
            if isinstance(statement, ast.ClassDef):
                for member in statement.body:
                    names.update(assigned(member))
    return frozenset(name for name in names if not name.startswith("_"))


@dataclass(frozen=True)
class PythonRules:
    """What one Python lab allows: its interface module's name (lab05 for lab 05)."""

    interface: str

    def is_module(self, path: str) -> bool:
        """Whether `path` (dotted) is a module a student file may import."""
        return path in ALLOWED_MODULES or path == self.interface

    def names_of(self, module: str) -> frozenset[str]:
        """The names a student file may use of the allowed module `module`."""
        return _interface_names(module) if module == self.interface else ALLOWED_NAMES[module]

    def which_names(self, module: str) -> str:
        """The names a student file may use of `module`, in words for a refusal."""
        if module == self.interface:
            return f"the names {module}.py defines"
        names = sorted(ALLOWED_NAMES[module])
        if len(names) <= LISTED_IN_FULL:
            return ", ".join(names)
        return "the names the labs need (ALLOWED_NAMES in tools/coursecli/pycheck.py)"


def lab_rules(number: str) -> PythonRules:
    return PythonRules(interface=f"lab{number}")


def attribute_allowed(attribute: str, owner: str | None, rules: PythonRules) -> bool:
    """Whether `.attribute` is one the labs need, on what `owner` is: the dotted path an import gives it
    (a module, one of the runtime's enums, or a name of a module), or None for any other value."""
    if owner is not None and rules.is_module(owner):
        return attribute in rules.names_of(owner)
    if owner in RUNTIME_ENUM_PATHS:
        return attribute.startswith("cuda")  # one of the enum's members
    return attribute in ALLOWED_METHODS or attribute in _interface_names(rules.interface)


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


@dataclass(frozen=True)
class Binding:
    """A name an allowed import binds, and the dotted path of what it binds it to
    (`cudart`: cuda.bindings.runtime; `check`: cuda_check.check)."""

    node: ast.stmt
    name: str
    path: str


def _bindings(tree: ast.AST, rules: PythonRules) -> list[Binding]:
    """Every name the file's allowed imports bind (a refused import binds nothing the check follows)."""
    found: list[Binding] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if rules.is_module(alias.name):
                    top = alias.name.split(".")[0]  # `import cuda.bindings.runtime` binds cuda
                    found.append(Binding(node, alias.asname or top, alias.name if alias.asname else top))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module and rules.is_module(node.module):
            for alias in node.names:
                if alias.name in rules.names_of(node.module):
                    found.append(Binding(node, alias.asname or alias.name, f"{node.module}.{alias.name}"))
    return found


def _path_of(node: ast.AST, paths: dict[str, str]) -> str | None:
    """The dotted path of what the expression `node` is, where it is an imported name or an attribute
    chain from one (`cudart.cudaError_t`: cuda.bindings.runtime.cudaError_t); None for any other value."""
    if isinstance(node, ast.Name):
        return paths.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _path_of(node.value, paths)
        return f"{base}.{node.attr}" if base else None
    return None


def _identifiers(node: ast.AST) -> list[tuple[str, str]]:
    """(identifier, what the node does with it, in a refusal's words) for each identifier `node` holds."""
    if isinstance(node, ast.Name):
        return [(node.id, f"uses {node.id}")]
    if isinstance(node, ast.Attribute):
        return [(node.attr, f"uses .{node.attr}")]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        module = (node.module or "") if isinstance(node, ast.ImportFrom) else ""
        prefix = f"{module}." if module else ""
        # `from __future__ import annotations`: the one dunder a student file may name (its names are checked)
        found = [(part, f"imports from {module}") for part in module.split(".") if module != "__future__"]
        for alias in node.names:
            words = f"imports {prefix}{alias.name}" + (f" as {alias.asname}" if alias.asname else "")
            found += [(part, words) for part in (*alias.name.split("."), alias.asname or "")]
        return found
    if isinstance(node, ast.FunctionDef):
        return [(node.name, f"defines {node.name}")]
    if isinstance(node, ast.arg):
        return [(node.arg, f"names an argument {node.arg}")]
    if isinstance(node, ast.keyword) and node.arg:
        return [(node.arg, f"passes the keyword {node.arg}")]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [(node.name, f"names the exception {node.name}")]
    if isinstance(node, ast.Nonlocal):
        return [(name, f"names {name} nonlocal") for name in node.names]
    return []


Refusals = Iterator[tuple[ast.AST, str]]  # (node, what it does, in a refusal's words)


def _dunder_refusals(tree: ast.AST) -> Refusals:
    """Each __dunder__ name the file holds, and each string or bytes constant with `__` in it.

    A string is refused for `__` alone, not only for a whole dunder: a student's file never needs one, and
    pieces ("__impo" + "rt__") make a dunder as well as the whole. No string the file builds can be looked
    up by name, though: getattr, vars, format and the modules that would are refused on their own."""
    for node in ast.walk(tree):
        for name, words in _identifiers(node):
            if _is_dunder(name):
                yield node, f"{words}: graded code may not name a __dunder__ (Python's way to its machinery)"
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            text = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
            if "__" in text:
                shown = repr(node.value) if len(repr(node.value)) <= 40 else repr(node.value)[:37] + "..."
                what = (
                    f"has a string with __ in it ({shown}): graded code needs none, and a __dunder__ name "
                    "looked up by a string reaches the interpreter's machinery; write it without __"
                )
                yield node, what


def _import_refusals(tree: ast.AST, rules: PythonRules) -> Refusals:
    """Each import of a module, or of a name of one, that the labs do not need."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not rules.is_module(alias.name) and not _is_dunder(alias.name):
                    yield node, f"imports {alias.name}: graded code may import only the lab's API"
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if node.level or not rules.is_module(module):
                yield node, f"imports from {module}: graded code may import only the lab's API"
            elif any(alias.name == "*" for alias in node.names):
                # `from lab09 import *` binds lab09's ctypes, `from enum import *` enum's getattr-giver,
                # under names the rest of the check never sees come from a module.
                yield node, f"imports every name of {module} (*): graded code names what it imports"
            else:
                for alias in node.names:
                    if alias.name not in rules.names_of(module) and not _is_dunder(alias.name):
                        what = (
                            f"imports {module}.{alias.name}: of {module}, graded code may use only "
                            f"{rules.which_names(module)}"
                        )
                        yield node, what


def _name_refusals(tree: ast.AST) -> Refusals:
    """Each built-in the labs do not need (a dunder is refused as one)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Name) or _is_dunder(node.id):
            continue
        if node.id in FORBIDDEN_BUILTINS:
            yield node, f"uses {node.id}: graded code {FORBIDDEN_BUILTINS[node.id]}"
        elif node.id in BUILTIN_NAMES and node.id not in ALLOWED_BUILTINS:
            yield node, f"uses {node.id}, a built-in the labs do not need: graded code may use only theirs"


def _attribute_refusals(tree: ast.AST, paths: dict[str, str], rules: PythonRules) -> Refusals:
    """Each attribute the labs do not need, judged by what it is an attribute of."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or _is_dunder(node.attr):
            continue
        owner = _path_of(node.value, paths)
        if node.attr in FRAME_ATTRIBUTES:
            yield node, f"uses .{node.attr}: graded code may not reach a running frame"
        elif attribute_allowed(node.attr, owner, rules):
            continue
        elif owner is not None and rules.is_module(owner):
            yield node, f"uses {owner}.{node.attr}: of {owner}, graded code may use only {rules.which_names(owner)}"
        elif owner in RUNTIME_ENUM_PATHS:
            yield node, f"uses {owner}.{node.attr}: of the runtime's enum, graded code may use only a member"
        else:
            what = (
                f"uses .{node.attr}: graded code may use only the attributes the labs need (a list's or a "
                f"dict's methods, the fields and methods of {rules.interface}'s classes, a module's allowed names)"
            )
            yield node, what


def _bound_name(node: ast.AST) -> str | None:
    """The name `node` binds where it assigns one (a target, an argument, a function, an exception)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return node.id
    if isinstance(node, ast.arg):
        return node.arg
    if isinstance(node, (ast.FunctionDef, ast.ExceptHandler)):
        return node.name
    return None


def _import_use_refusals(tree: ast.AST, bindings: list[Binding], paths: dict[str, str], rules: PythonRules) -> Refusals:
    """Each use of an import that would hide from the check what a name is: a module used other than as
    `module.name` (kept in a variable or passed on, it would reach everything it holds), a name two imports
    bind, an imported name bound again, and anything of an import assigned to (the recording program reads
    the same modules: `cudart.cudaEventElapsedTime = ...` would change its calls too)."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    imported = {binding.name: binding.path for binding in bindings}
    for binding in bindings:
        if paths.get(binding.name) != binding.path:
            named = "" if binding.path.endswith(f".{binding.name}") else f" as {binding.name}"
            what = (
                f"imports {binding.path}{named}, a name another import binds: graded code gives each import its "
                "own name"
            )
            yield binding.node, what
    for node in ast.walk(tree):
        name = _bound_name(node)
        if name in imported:
            what = (
                f"binds {name} again, which its import binds to {imported[name]}: graded code keeps an imported "
                "name for what it imports"
            )
            yield node, what
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
            owner = _path_of(node.value, paths)
            if owner is not None:
                what = (
                    f"assigns to something of {owner}: graded code may not change what it imports (the recording "
                    "program uses it too)"
                )
                yield node, what
        if not isinstance(node, (ast.Name, ast.Attribute)) or isinstance(node.ctx, ast.Store):
            continue
        path = _path_of(node, paths)
        parent = parents.get(node)
        if path and rules.is_module(path) and not (isinstance(parent, ast.Attribute) and parent.value is node):
            what = f"uses the module {path} itself, not one of its names: graded code may import only the lab's API"
            yield node, what


def _syntax_refusals(tree: ast.AST) -> Refusals:
    """Each construct outside ALLOWED_SYNTAX, and each decorator."""
    for node in ast.walk(tree):
        kind = type(node).__name__
        if kind not in ALLOWED_SYNTAX:
            reason = SYNTAX_REASONS.get(kind, "the labs do not need it")
            yield node, f"uses the construct {kind} ({reason}): graded code may use only the syntax the labs need"
        elif isinstance(node, ast.FunctionDef) and node.decorator_list:
            yield node, "decorates a function (a decorator runs code of its own when the function is defined)"


def check_python_source(name: str, text: str, rules: PythonRules) -> list[str]:
    """Every refusal of `text` (the student file `name`), each a line for the report; empty when it may run."""
    try:
        tree = ast.parse(text, filename=name)
    except SyntaxError as error:
        return [f"{name}:{error.lineno or 0}: does not parse: {error.msg}"]
    bindings = _bindings(tree, rules)
    paths_by_name: dict[str, set[str]] = {}
    for binding in bindings:
        paths_by_name.setdefault(binding.name, set()).add(binding.path)
    # A name two imports bind is refused, and followed as neither.
    paths = {name: next(iter(found)) for name, found in paths_by_name.items() if len(found) == 1}
    refusals = [
        *_dunder_refusals(tree),
        *_import_refusals(tree, rules),
        *_name_refusals(tree),
        *_attribute_refusals(tree, paths, rules),
        *_import_use_refusals(tree, bindings, paths, rules),
        *_syntax_refusals(tree),
    ]
    lines = {(getattr(node, "lineno", 0), f"{name}:{getattr(node, 'lineno', 0)} {what}") for node, what in refusals}
    return [line for _, line in sorted(lines)]
