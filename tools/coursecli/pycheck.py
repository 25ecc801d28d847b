"""What a Python lab's student file may contain: the Python track's counterpart of objcheck.py.

The student's Python code runs in the same interpreter as the recording program
and the tracer, so anything the interpreter lets code reach (the recording
program's objects, the recorded timeline) would be within its reach. The source is
therefore read before anything runs, and refused unless it keeps to what a
student of the labs needs:

- imports only of the lab's API: cuda-bindings' runtime, `cuda_check`, the
  lab's interface module (`labNN`), `streamlab` and a few plain modules of the
  standard library (ALLOWED_MODULES);
- of `streamlab`, only the course's kernel and chunking (STREAMLAB_ALLOWED):
  never the tracer, its marks or its errors;
- only the syntax the labs need (ALLOWED_SYNTAX): functions, loops,
  conditions, `try`, lambdas, comprehensions that build a list, f-strings;
  no class, decorator, generator, coroutine, `match` or `global`, each of
  which runs code or reaches names in a way the rest of the check would not see;
- only the built-ins the labs need (ALLOWED_BUILTINS); one that builds or
  runs code, opens files or reaches the interpreter's machinery is named with
  its own reason (FORBIDDEN_BUILTINS); no name or attribute of the
  `__dunder__` kind, through which Python reaches everything else;
- only the attributes the labs need: the runtime's (`cuda...`), the lab's
  interface module's names and the fields and methods of its classes, those of
  the allowed plain modules (of typing, enum and dataclasses, only the few a
  student uses: PLAIN_MODULE_NAMES), and a list's or a dict's (ALLOWED_METHODS);
  a name imported from a module is judged as its attribute would be, and
  `from module import *` is refused;
- no module reached through an allowed one (`dataclasses.builtins`,
  `lab03.ctypes`, `from enum import sys`): an allowed module's own imports are
  not allowed with it; and no frame reached through a generator, a coroutine
  or a traceback (FRAME_ATTRIBUTES), whose globals hold everything.

A refusal is one line naming the file, the line and what it did, as the C++
labs' object check says it. Standard library only.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import types
from dataclasses import dataclass
from functools import cache
from pathlib import Path

LABS = Path(__file__).resolve().parents[2] / "labs"

# Modules a student file may import (and their submodules where listed with a dot).
ALLOWED_MODULES = {
    "__future__",
    "cuda",
    "cuda.bindings",
    "cuda.bindings.runtime",
    "cuda_check",
    "streamlab",
    "collections.abc",
    "dataclasses",
    "enum",
    "math",
    "time",  # a host clock: lab 06 times each run of its sweep
    "typing",
}
# What a student file may use of the module `streamlab`: the course's kernel and chunking.
STREAMLAB_ALLOWED = {"launch_workload", "chunk_range"}
# Of the plain modules that build and describe types, only the names a student's file would use:
# among their other public names are ways to the interpreter (typing.get_type_hints runs an
# annotation's string as code, enum.pickle_by_enum_name hands out getattr, enum.global_enum writes
# into any module's names, dataclasses.make_dataclass builds a class with any __dunder__ in it), and
# a newer Python adds more. The other plain modules' public names (math's, time's, ...) are all allowed.
PLAIN_MODULE_NAMES = {
    "dataclasses": {"FrozenInstanceError", "asdict", "astuple", "dataclass", "field", "fields", "is_dataclass", "replace"},
    "enum": {"Enum", "Flag", "IntEnum", "IntFlag", "StrEnum", "auto", "unique"},
    "typing": {
        "Annotated", "Any", "Callable", "ClassVar", "Dict", "Final", "FrozenSet", "Iterable", "Iterator", "List",
        "Literal", "Mapping", "MutableMapping", "MutableSequence", "NamedTuple", "NoReturn", "Optional", "Sequence",
        "Set", "TYPE_CHECKING", "Tuple", "Type", "TypeVar", "Union", "cast",
    },
}  # fmt: skip
# Built-ins through which code builds or runs code, opens files, or reaches objects it was not given.
FORBIDDEN_BUILTINS = {
    "__import__": "may not import by name",
    "breakpoint": "may not stop the process",
    "compile": "may not build code",
    "delattr": "may not reach attributes by name",
    "eval": "may not run code it builds",
    "exec": "may not run code it builds",
    "exit": "may not end the process",
    "getattr": "may not reach attributes by name",
    "globals": "may not reach the interpreter's tables",
    "input": "may not read input",
    "locals": "may not reach the interpreter's tables",
    "memoryview": "may not reach raw memory",
    "open": "may not open files",
    "quit": "may not end the process",
    "setattr": "may not reach attributes by name",
    "type": "may not make or inspect types",
    "vars": "may not reach the interpreter's tables",
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
    "ag_frame",
    "cr_frame",
    "f_back",
    "f_builtins",
    "f_globals",
    "f_locals",
    "gi_frame",
    "tb_frame",
    "tb_next",
}


@cache
def _is_module(name: str) -> bool:
    """Whether `name` (dotted) is a module this interpreter could import."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _bound_modules(tree: ast.AST, interface: str) -> dict[str, str]:
    """Name -> module, for every name the imports in `tree` bind to a module (a student's file, or
    the lab's interface file)."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                module = _module_inside(node.module, alias.name, interface)
                if module:
                    bound[alias.asname or alias.name] = module
    return bound


@cache
def _interface_modules(interface: str) -> dict[str, str]:
    """Name -> module, for every module the lab's interface file (labs/NN-topic/python/labNN.py) imports."""
    found: dict[str, str] = {}
    for path in LABS.glob(f"{interface[3:]}-*/python/{interface}.py"):
        found.update(_bound_modules(ast.parse(path.read_text()), interface))
    return found


@cache
def _module_inside(module: str, name: str, interface: str) -> str | None:
    """The module that `module.name` is, if it is one (the lab's interface is read, never imported).

    Only allowed modules are looked inside: finding out would import the module into the
    grader, and a module the student named may do anything when imported (those imports
    are refused on their own)."""
    if module != interface and module not in ALLOWED_MODULES:
        return None
    if module == interface:
        return _interface_modules(interface).get(name)
    if _is_module(f"{module}.{name}"):
        return f"{module}.{name}"
    try:
        value = getattr(importlib.import_module(module), name, None)
    except Exception:  # noqa: BLE001  a module the grader's Python lacks: judged by name alone
        return name if _is_module(name) else None
    return value.__name__ if isinstance(value, types.ModuleType) else None


@cache
def _interface_names(interface: str) -> frozenset[str]:
    """The names the lab's interface file (labs/NN-topic/python/labNN.py, read, never imported)
    defines: its functions, classes and constants, and each class's fields, methods and properties,
    which are the attributes of the objects a student's function is handed."""
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


@cache
def _module_names(module: str) -> frozenset[str]:
    """The public names of the allowed module `module` that are not modules themselves (of typing, enum
    and dataclasses, those in PLAIN_MODULE_NAMES)."""
    if module in PLAIN_MODULE_NAMES:
        return frozenset(PLAIN_MODULE_NAMES[module])
    if module not in ALLOWED_MODULES or module == "cuda.bindings.runtime":
        # Never import a module the student named (it may do anything when imported); the
        # runtime's names are judged by their prefix, `cuda` (attribute_allowed).
        return frozenset()
    try:
        found = importlib.import_module(module)
    except Exception:  # noqa: BLE001  a module the grader's Python lacks: none of its names is known
        return frozenset()
    return frozenset(
        name
        for name in dir(found)
        if not name.startswith("_") and not isinstance(getattr(found, name), types.ModuleType)
    )


def attribute_allowed(attribute: str, module: str | None, interface: str) -> bool:
    """Whether `.attribute` is one the labs need, on a module (`module`, dotted) or on a value (None)."""
    if module == "streamlab":
        return attribute in STREAMLAB_ALLOWED
    if module == interface:
        return attribute in _interface_names(interface)
    if attribute.startswith("cuda"):  # the runtime's functions, types, enum members and constants
        return True
    if module is not None:
        return attribute in _module_names(module) or f"{module}.{attribute}" in ALLOWED_MODULES
    return attribute in ALLOWED_METHODS or attribute in _interface_names(interface)


@dataclass(frozen=True)
class PythonRules:
    """What one Python lab allows: its interface module's name (lab05 for lab 05)."""

    interface: str


def lab_rules(number: str) -> PythonRules:
    return PythonRules(interface=f"lab{number}")


def _module_allowed(module: str, rules: PythonRules) -> bool:
    return module in ALLOWED_MODULES or module == rules.interface


def _module_of(node: ast.AST, bound: dict[str, str], interface: str) -> str | None:
    """The module that the expression `node` is (a name an import bound, or an attribute chain
    through allowed modules), or None for any other value."""
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _module_of(node.value, bound, interface)
        return _module_inside(base, node.attr, interface) if base else None
    return None


def _syntax_refusals(tree: ast.AST) -> list[tuple[ast.AST, str]]:
    """(node, what) for each construct outside ALLOWED_SYNTAX, and each decorator."""
    found: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        kind = type(node).__name__
        if kind not in ALLOWED_SYNTAX:
            reason = SYNTAX_REASONS.get(kind, "the labs do not need it")
            found.append(
                (node, f"uses the construct {kind} ({reason}): graded code may use only the syntax the labs need")
            )
        elif isinstance(node, ast.FunctionDef) and node.decorator_list:
            found.append((node, "decorates a function (a decorator runs code of its own when the function is defined)"))
    return found


def _module_uses(tree: ast.AST, parents: dict, rules: PythonRules) -> list[tuple[ast.AST, str]]:
    """(node, what) for each module reached through an allowed one, and each module used other than as
    `module.attribute` (kept in a variable or passed on, it would reach everything it holds)."""
    bound = _bound_modules(tree, rules.interface)
    found: list[tuple[ast.AST, str]] = []

    def module_of(node: ast.AST) -> str | None:
        return _module_of(node, bound, rules.interface)

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                module = _module_inside(node.module, alias.name, rules.interface)
                if module and not _module_allowed(module, rules):
                    found.append((node, f"imports the module {module} from {node.module}"))
        if not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        module = module_of(node)
        if module is None:
            continue
        if not _module_allowed(module, rules):
            found.append((node, f"reaches the module {module} through an allowed one"))
        parent = parents.get(node)
        if not (isinstance(parent, ast.Attribute) and parent.value is node) and module != "streamlab":
            found.append((node, f"uses the module {module} itself, not one of its names"))
    return found


def check_python_source(name: str, text: str, rules: PythonRules) -> list[str]:
    """Every refusal of `text` (the student file `name`), each a line for the report; empty when it may run."""
    try:
        tree = ast.parse(text, filename=name)
    except SyntaxError as error:
        return [f"{name}:{error.lineno or 0}: does not parse: {error.msg}"]
    refusals: list[str] = []

    def refuse(node: ast.AST, what: str) -> None:
        refusals.append(f"{name}:{getattr(node, 'lineno', 0)} {what}")

    # Every name the module streamlab goes by here, and each node's parent, before judging any use.
    streamlab_names = {"streamlab"} | {
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "streamlab" and alias.asname
    }
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    bound = _bound_modules(tree, rules.interface)
    allowed = ", ".join(sorted(STREAMLAB_ALLOWED))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _module_allowed(alias.name, rules):
                    refuse(node, f"imports {alias.name}: graded code may import only the lab's API")
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if node.level or not _module_allowed(module, rules):
                refuse(node, f"imports from {module}: graded code may import only the lab's API")
            elif any(alias.name == "*" for alias in node.names):
                # `from lab09 import *` binds lab09's ctypes, `from enum import *` enum's getattr-giver,
                # under names the rest of the check never sees come from a module.
                refuse(node, f"imports every name of {module} (*): graded code names what it imports")
            elif module == "cuda.bindings" and any(alias.name != "runtime" for alias in node.names):
                refuse(node, "imports from cuda.bindings other than runtime: the labs use the runtime API")
            elif module == "streamlab":
                for alias in node.names:
                    if alias.name not in STREAMLAB_ALLOWED:
                        refuse(
                            node, f"imports streamlab.{alias.name}: of streamlab, graded code may use only {allowed}"
                        )
            elif not module.startswith("cuda"):  # the runtime's names go by their prefix, cuda_check's are the course's
                # A name imported from the lab's interface or a plain module is judged as its attribute would be
                # (`from typing import get_type_hints` is typing.get_type_hints); a module, below.
                for alias in node.names:
                    if not _module_inside(module, alias.name, rules.interface) and not attribute_allowed(
                        alias.name, module, rules.interface
                    ):
                        refuse(node, f"imports {module}.{alias.name}: graded code may use only the names the labs need")
        elif isinstance(node, ast.Name):
            parent = parents.get(node)
            if node.id in FORBIDDEN_BUILTINS:
                refuse(node, f"uses {node.id}: graded code {FORBIDDEN_BUILTINS[node.id]}")
            elif node.id.startswith("__") and node.id.endswith("__"):
                refuse(node, f"uses {node.id}: graded code may not reach the interpreter's machinery")
            elif node.id in BUILTIN_NAMES and node.id not in ALLOWED_BUILTINS:
                refuse(node, f"uses {node.id}, a built-in the labs do not need: graded code may use only theirs")
            elif node.id in streamlab_names and not (
                isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in STREAMLAB_ALLOWED
            ):
                # Only streamlab.<allowed>(...): the module itself, passed or kept, would reach the rest.
                what = f"streamlab.{parent.attr}" if isinstance(parent, ast.Attribute) else "streamlab itself"
                refuse(node, f"uses {what}: of streamlab, graded code may use only {allowed}")
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("__") and node.attr.endswith("__"):
                refuse(node, f"uses .{node.attr}: graded code may not reach the interpreter's machinery")
            elif node.attr in FRAME_ATTRIBUTES:
                refuse(node, f"uses .{node.attr}: graded code may not reach a running frame")
            elif not attribute_allowed(node.attr, _module_of(node.value, bound, rules.interface), rules.interface):
                refuse(
                    node,
                    f"uses .{node.attr}: graded code may use only the attributes the labs need (the runtime's "
                    f"cuda..., the lab's interface {rules.interface}, a list's or a dict's methods)",
                )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and ".__" in node.value:
            # "{0.__class__}".format(x) reaches the machinery through a format string.
            refuse(node, "has a string naming the interpreter's machinery (.__): graded code may not use one")
    for node, what in _module_uses(tree, parents, rules):
        refuse(node, f"{what}: graded code may import only the lab's API")
    for node, what in _syntax_refusals(tree):
        refuse(node, what)
    return sorted(set(refusals), key=lambda line: (int(line.split(":")[1].split()[0]), line))
