"""Checking a student's code before anything of it is linked or run.

Each student source is read, then compiled alone with the course build's own
command line (compile_commands.json of a course build configured once per
batch), and the object's symbols are read with `nm`:

- the source may include headers only by name (no absolute path, no `..`, no
  macro), may not open the course's namespaces (`namespace streamlab`), and may
  not use inline `asm` unless the lab allows it (allow_asm in lab.json);
- its strong global definitions must be the lab's interface, the functions
  its header (labs/NN-topic/*.hpp) declares; `main` is never allowed, weak or
  strong; weak (COMDAT) definitions of inline and template code are normal and
  allowed: the link puts the course's own definitions first (cmake/StreamLab.cmake);
- what it calls must be on the allowlist in symbols.py, which a lab widens with
  allow_symbols in lab.json;
- it runs no code outside the functions the course calls, as its sections,
  symbols and relocations show (`readelf`): no entry in the arrays the C
  library runs before or after main (constructors, global objects that need
  one, destructors), no code in .init or .fini, no function registered with
  atexit or its kin (static objects' destructors are), no thread_local with a
  dynamic initialiser, no ifunc, no weak definition that would replace a
  library's function. Two constructors are the compilers' own and allowed
  once each: nvcc's registration of a .cu object's kernels, and (GCC before
  13) the set-up of std::cout in a file that includes <iostream>; each only
  when what it calls shows it is that constructor.

A refusal is one line naming the file and what it did; the lab scores 0 and
nothing of it runs.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from .lab_declaration import read_lab
from .sandbox import at_build_priority
from .symbols import ANONYMOUS, allowed, entity, forbidden_reason

STRONG_DEFINITIONS = set("TDBRCGSi")
WEAK_DEFINITIONS = set("VWu")
UNDEFINED = set("Uvw")
COURSE_NAMESPACES = ("streamlab", "testing")
DEVICE_STUB = "__device_stub__"
COMPILE_TIMEOUT_S = 300
COMPILE_STOPPED = "stopped after"  # how a compile's output starts when it timed out


@dataclass
class LabRules:
    """What one lab's graded code may define and use."""

    interface: set[str] = field(default_factory=set)  # "lab05::run_pipeline"
    namespaces: set[str] = field(default_factory=set)  # "lab05"
    headers: list[str] = field(default_factory=list)  # "lab05.hpp"
    allow_symbols: list[str] = field(default_factory=list)
    allow_asm: bool = False


@dataclass
class Refusal:
    """Why a lab's code is refused: the first finding as the report's line, all of them as details."""

    problem: str
    details: str = ""


def strip_comments_and_literals(text: str) -> str:
    """C++ text without comments and with string and character literals emptied (line count kept)."""
    pattern = re.compile(
        r'//[^\n]*|/\*.*?\*/|R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)"|"(?:\\.|[^"\\\n])*"'
        r"|'(?:\\.|[^'\\\n])*'",
        re.S,
    )

    def blank(match: re.Match) -> str:
        token = match.group(0)
        if token.startswith(("//", "/*")):
            return " " + "\n" * token.count("\n")
        return '""' if token.endswith('"') else "' '"

    return pattern.sub(blank, text)


def declared_interface(header_text: str) -> tuple[set[str], set[str]]:
    """(qualified function and variable names a header declares without defining, its namespaces)."""
    text = "\n".join(
        line for line in strip_comments_and_literals(header_text).splitlines() if not line.lstrip().startswith("#")
    )
    scopes: list[str | None] = []  # a namespace or type name, or None for any other block
    statement, names, namespaces = "", set(), set()
    for token in re.finditer(r"[{};]|[^{};]+", text):
        piece = token.group(0)
        if piece == "{":
            head = statement.strip()
            opened = re.fullmatch(r"(?:inline\s+)?namespace\s+([\w:]+)", head)
            typed = re.match(r"(?:struct|class|union)\s+(?:\[\[[^\]]*\]\]\s*)?(\w+)", head)
            if opened:
                scopes.extend(opened.group(1).split("::"))
                namespaces.add(opened.group(1).split("::")[0])
            else:
                scopes.append(typed.group(1) if typed and "(" not in head else None)
            statement = ""
        elif piece == "}":
            if scopes:
                scopes.pop()
            statement = ""
        elif piece == ";":
            if all(scope is not None for scope in scopes):
                name = _declared_name(statement.strip())
                if name:
                    names.add("::".join([*scopes, name]))
            statement = ""
        else:
            statement += piece
    return names, namespaces


def _declared_name(statement: str) -> str | None:
    """The name a declaration without a body declares (a function, or an extern variable)."""
    if re.match(r"(?:template|using|typedef|friend|static_assert|inline|constexpr|enum)\b", statement):
        return None
    function = re.search(r"([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)\s*(?:const\s*)?(?:noexcept\s*)?$", statement)
    if function and "=" not in statement[: function.start()]:
        return function.group(1)
    variable = re.fullmatch(r"extern\s+[^=]*?\b([A-Za-z_]\w*)", statement)
    return variable.group(1) if variable else None


def lab_rules(lab_dir: Path, student_files: list[str]) -> LabRules:
    """A lab's rules, from its headers (every .hpp/.h in the lab folder) and its lab.json."""
    rules = LabRules()
    for header in sorted(lab_dir.glob("*.h*")):
        if header.suffix in (".h", ".hpp") and header.name not in student_files:
            names, namespaces = declared_interface(header.read_text(errors="replace"))
            rules.interface |= names
            rules.namespaces |= namespaces
            rules.headers.append(header.name)
    declared = read_lab(lab_dir)
    rules.allow_symbols = list(declared.allow_symbols)
    rules.allow_asm = declared.allow_asm
    return rules


def check_source(name: str, text: str, rules: LabRules) -> list[str]:
    """What the source text does that graded code may not, one line each (before it is compiled)."""
    findings = []
    spliced = re.sub(r"\\\r?\n", "", text)  # a backslash-newline joins lines before directives are read
    for number, line in enumerate(spliced.splitlines(), start=1):
        directive = re.match(r"\s*(?:#|%:)\s*(include|include_next|import|embed)\b\s*(.*)", line)
        if not directive:
            continue
        target = re.match(r'"([^"]*)"|<([^>]*)>', directive.group(2).strip())
        path = (target.group(1) or target.group(2) or "").replace("\\", "/") if target else ""
        if target is None:
            how = "named by a macro"
        elif path.startswith("/") or re.match(r"[A-Za-z]:", path) or ".." in path.split("/"):
            how = "by its path"
        else:
            continue
        findings.append(f"{name}:{number} includes a file {how}: graded code may include headers only by name")
    return findings + check_code(name, strip_comments_and_literals(text), rules)


def check_code(name: str, code: str, rules: LabRules) -> list[str]:
    """What code (without comments and literals) does that graded code may not: the course's namespaces, asm."""
    findings = []
    for namespace in COURSE_NAMESPACES:
        if re.search(rf"\bnamespace\s+{namespace}\b(?!\s*=)", code):
            findings.append(
                f"{name} declares things in namespace {namespace}, the course's: graded code may not "
                "re-declare or add to the course's code"
            )
    if not rules.allow_asm and re.search(r"\b(?:asm|__asm|__asm__)\b", code):
        findings.append(f"{name} uses inline asm: this lab does not allow it")
    return findings


def own_lines(preprocessed: str, source: Path) -> str:
    """The lines of preprocessor output that come from `source` itself (macros expanded), not its headers."""
    lines, mine = [], False
    for line in preprocessed.splitlines():
        marker = re.match(r'#\s*\d+\s+"([^"]*)"', line)
        if marker:
            mine = Path(marker.group(1)) == source
        elif mine:
            lines.append(line)
    return "\n".join(lines)


def _output_lines(argv: list[str], given: str | None = None) -> list[str]:
    """The lines a binutils program (nm, readelf, c++filt) prints, `given` on its input."""
    done = subprocess.run(argv, input=given, capture_output=True, text=True, errors="replace", check=True)
    return done.stdout.splitlines()


def _demangle(names: list[str]) -> list[str]:
    demangled = _output_lines(["c++filt"], "\n".join(names))
    return demangled if len(demangled) == len(names) else names  # never expected; then check the raw names


def read_symbols(obj: Path) -> list[tuple[str, str]]:
    """(demangled name, nm type letter) of every symbol in an object file.

    nvcc's host stub of a kernel, `__device_stub__<kernel's mangled name>`, is
    given the kernel's own name: it is checked as the kernel is.
    """
    rows = [line.split() for line in _output_lines(["nm", "-P", str(obj)]) if len(line.split()) >= 2]
    names = _demangle([row[0] for row in rows])
    stubs = [i for i, name in enumerate(names) if name.startswith(DEVICE_STUB)]
    kernels = _demangle(["_" + names[i][len(DEVICE_STUB) :].split("(")[0] for i in stubs])
    for i, kernel in zip(stubs, kernels):
        names[i] = kernel
    return [(name, row[1]) for name, row in zip(names, rows)]


def check_symbols(name: str, symbols: list[tuple[str, str]], rules: LabRules) -> list[str]:
    """What the object defines or calls that graded code may not, one line each, the gravest first."""
    grave: list[str] = []  # what FORBIDDEN names, and main: said first, as the report's line
    other: list[str] = []
    header = " or ".join(rules.headers) or "the lab header"
    for symbol, kind in symbols:
        what = entity(symbol)
        defined = kind in STRONG_DEFINITIONS | WEAK_DEFINITIONS
        if not defined and kind not in UNDEFINED:
            continue  # a local symbol: nothing outside the object can see it
        reason = forbidden_reason(what)
        if defined and what == "main":
            grave.append(f"{name} defines main(): graded code may not replace the course program's main")
        elif reason:  # a call, or inline code of the forbidden kind compiled into the object (weak)
            grave.append(f"{name} {'uses' if defined else 'calls'} {what}(): {reason}")
        elif kind in STRONG_DEFINITIONS:
            if what in rules.interface or ANONYMOUS in what:
                continue
            owner = "the course's own" if what.startswith(COURSE_NAMESPACES) else f"which {header} does not declare"
            other.append(
                f"{name} defines {what}, {owner}: graded code may define only the lab's interface "
                "(put helpers in an anonymous namespace)"
            )
        elif kind in UNDEFINED and not allowed(what, rules.namespaces, rules.allow_symbols):
            other.append(
                f"{name} calls {what}, which graded code may not use (the CUDA runtime, streamlab "
                "and the C and C++ standard libraries' ordinary functions are allowed; a lab "
                "allows more with allow_symbols in its lab.json)"
            )
    return list(dict.fromkeys(grave + other))


# What an object runs outside the functions the course calls, read from its sections,
# symbols and relocations (`readelf`), never from the source.


@dataclass(frozen=True)
class Section:
    """One section of an object file, as `readelf -SW` lists it."""

    index: int
    name: str
    kind: str  # PROGBITS, INIT_ARRAY, RELA, ...
    offset: int  # where it starts in the file: how `readelf -r` names a relocation section
    size: int
    info: int  # for a relocation section: the index of the section it patches


@dataclass(frozen=True)
class Symbol:
    """One entry of an object's symbol table, as `readelf -sW` lists it (the name mangled)."""

    index: int
    name: str
    value: int  # its offset in its section
    size: int
    kind: str  # FUNC, OBJECT, SECTION, IFUNC, NOTYPE, TLS
    bind: str  # LOCAL, GLOBAL, WEAK
    section: str  # the index of its section, or UND, ABS, COM

    def defined(self) -> bool:
        return self.section.isdigit()


@dataclass(frozen=True)
class Relocation:
    """A place in a section that the linker fills with a symbol's address."""

    offset: int
    kind: str  # R_X86_64_64, R_X86_64_PLT32 (a call), ...
    symbol: Symbol
    addend: int


@dataclass
class ObjectCode:
    """An object file's sections, symbols and relocations (each list under the section it patches)."""

    sections: list[Section]
    symbols: list[Symbol]
    relocations: dict[int, list[Relocation]]

    def target(self, relocation: Relocation) -> Symbol:
        """What a relocation points to: a section's own symbol is resolved to the function or object
        at the place it names (x86-64's PC-relative kinds count from 4 bytes before the place)."""
        symbol = relocation.symbol
        if symbol.kind != "SECTION":
            return symbol
        pc_relative = relocation.kind.startswith("R_X86_64_") and ("PC" in relocation.kind or "PLT" in relocation.kind)
        place = symbol.value + relocation.addend + (4 if pc_relative else 0)
        return self.symbol_at(int(symbol.section), place, ("FUNC", "OBJECT")) or symbol

    def symbol_at(self, section: int, offset: int, kinds: tuple[str, ...]) -> Symbol | None:
        """The function (or object) of `kinds` that covers `offset` in section `section`."""
        for symbol in self.symbols:
            if symbol.kind in kinds and symbol.section == str(section):
                if symbol.value <= offset < symbol.value + max(symbol.size, 1):
                    return symbol
        return None

    def relocations_in(self, function: Symbol) -> list[Relocation]:
        """The relocations inside a defined function's code."""
        end = function.value + function.size
        return [r for r in self.relocations.get(int(function.section), []) if function.value <= r.offset < end]


SECTION_ROW = re.compile(
    r"\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+[A-Za-z]*\s+\d+\s+(\d+)\s+\d+"
)
SYMBOL_ROW = re.compile(r"\s*(\d+):\s+([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+\s+(\S+)(?:\s+(\S+))?")
RELOCATIONS_HEADER = re.compile(r"Relocation section '[^']*' at offset (0x[0-9a-f]+)")
RELOCATION_ROW = re.compile(r"([0-9a-f]+)\s+([0-9a-f]+)\s+(R_\S+)\s+[0-9a-f]+\s+\S+\s+([+-])\s+([0-9a-f]+)")


def read_object_code(obj: Path) -> ObjectCode:
    """An object file's sections, symbols and relocations, as `readelf -SW`, `-sW` and `-rW` list them."""
    sections = [
        Section(int(m[1]), m[2], m[3], int(m[4], 16), int(m[5], 16), int(m[6]))
        for m in map(SECTION_ROW.fullmatch, _output_lines(["readelf", "-SW", str(obj)]))
        if m
    ]
    symbols = [
        Symbol(int(m[1]), m[7] or "", int(m[2], 16), int(m[3], 0), m[4], m[5], m[6])
        for m in map(SYMBOL_ROW.fullmatch, _output_lines(["readelf", "-sW", str(obj)]))
        if m
    ]
    by_index = {symbol.index: symbol for symbol in symbols}
    by_offset = {section.offset: section for section in sections if section.kind in ("RELA", "REL")}
    relocations: dict[int, list[Relocation]] = {}
    patched: list[Relocation] = []
    for line in _output_lines(["readelf", "-rW", str(obj)]):
        header = RELOCATIONS_HEADER.match(line)
        row = RELOCATION_ROW.fullmatch(line.strip())
        if header:
            patched = relocations.setdefault(by_offset[int(header[1], 16)].info, [])
        elif row and int(row[2], 16) >> 32 in by_index:
            addend = int(row[5], 16) * (-1 if row[4] == "-" else 1)
            patched.append(Relocation(int(row[1], 16), row[3], by_index[int(row[2], 16) >> 32], addend))
    return ObjectCode(sections, symbols, relocations)


# The arrays of functions the C library runs before main and after it, and the code it runs first and
# last; the linker gathers each from the sections of these names (and `name.*`).
BEFORE_MAIN_ARRAYS = (".preinit_array", ".init_array", ".ctors")
AFTER_MAIN_ARRAYS = (".fini_array", ".dtors")
STARTUP_CODE = {".init": "before", ".fini": "after"}
POINTER_BYTES = 8
# nvcc's constructor in every .cu object, registering its kernels with the CUDA runtime, and what it calls.
NVCC_REGISTRATION = "_ZL24__sti____cudaRegisterAllv"
NVCC_REGISTRATION_CALLS = ("__cuda*", "atexit")
# GCC before 13 gives each file that includes <iostream> a constructor that sets up std::cout (the
# object _ZStL8__ioinit) and registers its destructor: all it may refer to.
GLOBAL_INITIALISER = "_GLOBAL__sub_I_"
IOSTREAM_SET_UP = {
    "_ZNSt8ios_base4InitC1Ev",
    "_ZNSt8ios_base4InitD1Ev",
    "__cxa_atexit",
    "__dso_handle",
    "_ZStL8__ioinit",
}
# What registers a function for the C library to run when the program ends, and what that is in words.
AT_EXIT = {
    "atexit": "a function registered with atexit",
    "at_quick_exit": "a function registered with at_quick_exit",
    "on_exit": "a function registered with on_exit",
    "__cxa_atexit": "the destructor of a static object",
    "__cxa_thread_atexit": "the destructor of a thread_local object",
    "__cxa_thread_atexit_impl": "the destructor of a thread_local object",
}
TLS_INIT = "_ZTH"  # the mangled prefix of "TLS init function for"
RUN_ONLY_INSIDE = "graded code runs only inside the lab's functions"


def _startup_kind(section: Section) -> str | None:
    """'before' or 'after' main for an array the C library runs, or None."""
    for when, names, kind in (
        ("before", BEFORE_MAIN_ARRAYS, ("INIT_ARRAY", "PREINIT_ARRAY")),
        ("after", AFTER_MAIN_ARRAYS, ("FINI_ARRAY",)),
    ):
        if section.kind in kind or any(section.name == n or section.name.startswith(n + ".") for n in names):
            return when
    return None


def _calls_only(code: ObjectCode, function: Symbol, patterns: tuple[str, ...]) -> bool:
    """True when every function of another object that `function` refers to matches `patterns`."""
    return all(
        any(fnmatchcase(r.symbol.name, pattern) for pattern in patterns)
        for r in code.relocations_in(function)
        if not r.symbol.defined()
    )


def _reachable(code: ObjectCode, function: Symbol) -> set[Symbol]:
    """`function` and the functions of this object it refers to, and theirs, in turn."""
    seen, waiting = set(), [function]
    while waiting:
        current = waiting.pop()
        if current not in seen:
            seen.add(current)
            targets = (code.target(r) for r in code.relocations_in(current))
            waiting += [t for t in targets if t.kind == "FUNC" and t.defined()]
    return seen


def compilers_constructor(name: str, code: ObjectCode, entry: Symbol) -> set[Symbol]:
    """The functions of `entry` when it is a constructor the compiler itself makes (nvcc's registration in
    a .cu object, GCC's set-up of std::cout), else an empty set."""
    if entry.bind != "LOCAL" or entry.kind != "FUNC" or not entry.defined():
        return set()
    if entry.name == NVCC_REGISTRATION and name.endswith(".cu"):
        return {entry} if _calls_only(code, entry, NVCC_REGISTRATION_CALLS) else set()
    if entry.name.startswith(GLOBAL_INITIALISER):
        functions = _reachable(code, entry)
        named = {code.target(r).name for f in functions for r in code.relocations_in(f)}
        return functions if named - {f.name for f in functions} <= IOSTREAM_SET_UP else set()
    return set()


def _array_entries(code: ObjectCode, section: Section) -> list[Symbol | None]:
    """What each pointer of an array section points to (None where no relocation names a symbol)."""
    targets: list[Symbol | None] = [code.target(r) for r in code.relocations.get(section.index, [])]
    return targets + [None] * max(0, section.size // POINTER_BYTES - len(targets))


def _entry_finding(name: str, when: str, entry: Symbol | None) -> str:
    if entry is None:
        return (
            f"{name} runs code {when} main (an entry of a constructor array that names no function): {RUN_ONLY_INSIDE}"
        )
    if entry.name.startswith(GLOBAL_INITIALISER):
        return (
            f"{name} runs code {when} main (a global object with a constructor or destructor): {RUN_ONLY_INSIDE}; "
            "create objects in them, or give globals constant values and no destructor"
        )
    what, instead = (
        ("a constructor", "set things up in them") if when == "before" else ("a destructor", "clean up in them")
    )
    return f"{name} runs code {when} main ({what}: {_shown(entry)}): {RUN_ONLY_INSIDE}; {instead}"


def startup_arrays(name: str, code: ObjectCode) -> tuple[list[str], set[Symbol]]:
    """(what the object runs before or after main, one line each; the functions of the compiler's own
    constructors, each allowed once)."""
    findings, allowed, seen = [], set(), set()
    for section in code.sections:
        when = _startup_kind(section) or (STARTUP_CODE.get(section.name) if section.size else None)
        if when is None:
            continue
        if section.name in STARTUP_CODE:
            findings.append(f"{name} runs code {when} main (code in its {section.name} section): {RUN_ONLY_INSIDE}")
            continue
        for entry in _array_entries(code, section):
            own = compilers_constructor(name, code, entry) if entry and section.name == ".init_array" else set()
            if own and entry not in seen:
                seen.add(entry)
                allowed |= own
            else:
                findings.append(_entry_finding(name, when, entry))
    return findings, allowed


def at_exit_registrations(name: str, code: ObjectCode, allowed: set[Symbol]) -> list[str]:
    """Each place outside the compiler's own constructors that registers code to run after main."""
    findings = []
    for section_index, relocations in code.relocations.items():
        for relocation in relocations:
            what = AT_EXIT.get(relocation.symbol.name)
            if what is None or relocation.symbol.defined():
                continue
            site = code.symbol_at(section_index, relocation.offset, ("FUNC",))
            if site in allowed:
                continue
            where = _shown(site) if site else "data"
            if site and site.name.startswith(GLOBAL_INITIALISER):
                where = "the set-up of its global objects"
            findings.append(
                f"{name} runs code after main ({what}, in {where}): {RUN_ONLY_INSIDE}; "
                "use an ordinary local variable, or clean up before the function returns"
            )
    return findings


def loader_code(name: str, code: ObjectCode) -> list[str]:
    """Thread-local initialisers, ifuncs, and weak definitions that would replace a library's function."""
    defined = [symbol for symbol in code.symbols if symbol.defined()]
    thread_locals = [f"thread_local {_shown(s)}" for s in defined if s.name.startswith(TLS_INIT)]
    if not thread_locals and any(s.name == "__tls_init" for s in defined):
        thread_locals = ["a thread_local"]
    findings = [
        f"{name} runs code outside the lab's functions (the dynamic initialiser of {variable}): "
        f"{RUN_ONLY_INSIDE}; give thread_locals constant initial values"
        for variable in thread_locals
    ]
    for symbol in defined:
        if symbol.kind == "IFUNC":
            findings.append(
                f"{name} runs code while the program loads (the resolver of ifunc {_shown(symbol)}): "
                f"{RUN_ONLY_INSIDE}; define it as an ordinary function"
            )
        elif symbol.bind == "WEAK" and _replaces_a_library_function(symbol.name):
            findings.append(
                f"{name} replaces {_shown(symbol)} for the whole program (a weak definition): {RUN_ONLY_INSIDE}; "
                "give your own function a name of its own"
            )
    return findings


def _shown(symbol: Symbol) -> str:
    """The entity a symbol names, as a student reads it ("TLS init function for x" -> "x")."""
    return entity(_demangle([symbol.name])[0])


def _replaces_a_library_function(mangled: str) -> bool:
    """True for a C name (inline and template code is mangled) or the global operator new or delete."""
    return not mangled.startswith(("_Z", "DW.ref.")) or mangled.startswith(("_Znw", "_Zna", "_Zdl", "_Zda"))


def code_outside_the_labs_functions(name: str, code: ObjectCode) -> list[str]:
    """What the object runs before main, after it or while the program loads, one line each."""
    findings, allowed = startup_arrays(name, code)
    return list(dict.fromkeys(findings + at_exit_registrations(name, code, allowed) + loader_code(name, code)))


class CourseCompiler:
    """Compiles a student source exactly as the course build compiles that lab's starter.

    With `reuse_built_objects` (`course check`, which has just built the student's own files in labs/), a
    source that is the very file the build compiled is not compiled again: its object is the build's, made
    by the same command. The grader compiles every source itself."""

    def __init__(self, build: Path, course_root: Path, reuse_built_objects: bool = False):
        entries = json.loads((build / "compile_commands.json").read_text())
        self.entries = {Path(e["file"]).resolve(): e for e in entries}
        self.course_root = course_root.resolve()
        self.reuse_built_objects = reuse_built_objects

    def built_object(self, lab_folder: str, file_name: str, source: Path) -> Path | None:
        """The object the course build made of `source`, where `source` is the file it compiled (labs/, the
        student's) and the object is newer than it; else None."""
        starter = self.course_root / "labs" / lab_folder / file_name
        entry = self.entries.get(starter)
        if entry is None or source.resolve() != starter:
            return None
        argv = shlex.split(entry["command"])
        if "-o" not in argv[:-1]:
            return None
        built = Path(entry["directory"], argv[argv.index("-o") + 1])
        return built if built.is_file() and built.stat().st_mtime_ns >= source.stat().st_mtime_ns else None

    def command(
        self, lab_folder: str, file_name: str, source: Path, obj: Path, step: str = "-c"
    ) -> tuple[Path, list[str]]:
        """(working folder, argv) compiling (step -c) or preprocessing (-E) `source` into `obj`
        with the starter's flags."""
        starter = self.course_root / "labs" / lab_folder / file_name
        entry = self.entries.get(starter)
        if entry is None:
            raise RuntimeError(f"the course build has no compile command for labs/{lab_folder}/{file_name}")
        argv = shlex.split(entry["command"])
        out, skip_value = [], False  # the output and dependency files are the build's, not this compile's
        for arg in argv:
            if skip_value or arg in ("-MD", "-MMD"):
                skip_value = False
            elif arg in ("-o", "-MT", "-MF"):
                skip_value = True
            else:
                arg = step if arg == "-c" else arg
                out.append(str(source) if Path(entry["directory"], arg).resolve() == starter else arg)
        return Path(entry["directory"]), [*out, "-o", str(obj)]

    def compile(self, lab_folder: str, file_name: str, source: Path, obj: Path, step: str = "-c") -> tuple[int, str]:
        built = self.built_object(lab_folder, file_name, source) if step == "-c" and self.reuse_built_objects else None
        if built is not None:
            shutil.copyfile(built, obj)
            return 0, ""
        folder, argv = self.command(lab_folder, file_name, source, obj, step)
        try:
            done = subprocess.run(
                at_build_priority(argv),
                cwd=folder,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=COMPILE_TIMEOUT_S,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            return 124, f"{COMPILE_STOPPED} {COMPILE_TIMEOUT_S} s"
        return done.returncode, done.stdout + done.stderr


def object_path(work: Path, lab_folder: str, name: str) -> Path:
    """Where check_lab compiles a student source: the grader links this same object (submission_grader.py)."""
    return work / f"{lab_folder}-{name}.o"


def check_lab(
    lab_folder: str, files: list[str], staged: Path, work: Path, rules: LabRules, compiler: CourseCompiler
) -> tuple[Refusal | None, str]:
    """Checks one lab's staged student sources. (a refusal or None, the compiler's output when it failed).

    A source that does not compile is not refused here: the build reports it,
    with its errors, as it always has.
    """
    findings: list[str] = []
    work = work.resolve()  # the compiler runs in the course build's folder
    for name in files:
        source = (staged / lab_folder / name).resolve()
        text = source.read_text(errors="replace")
        problems = check_source(name, text, rules)
        if problems:
            findings += problems
            continue
        work.mkdir(parents=True, exist_ok=True)
        expanded = work / f"{lab_folder}-{name}.ii"
        status, output = compiler.compile(lab_folder, name, source, expanded, step="-E")
        if status != 0:
            return None, output
        # Macros can build what the text does not show (`GLUE(as, m)("int3")`): check the expanded code too.
        own = own_lines(expanded.read_text(errors="replace"), source)
        problems = check_code(name, strip_comments_and_literals(own), rules)
        if problems:
            findings += problems
            continue
        obj = object_path(work, lab_folder, name)
        status, output = compiler.compile(lab_folder, name, source, obj)
        if status != 0:
            return None, output
        findings += code_outside_the_labs_functions(name, read_object_code(obj))
        findings += check_symbols(name, read_symbols(obj), rules)
    if not findings:
        return None, ""
    return Refusal(findings[0], "\n".join(findings)), ""
