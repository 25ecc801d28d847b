"""Checking a student's code before anything of it is linked or run.

Each student source is read, then compiled alone with the course build's own
command line (compile_commands.json of a course build configured once per
batch), and the object's symbols are read with `nm`:

- the source may include headers only by name (no absolute path, no `..`, no
  macro), may not open the course's namespaces (`namespace streamlab`), and may
  not use inline `asm` unless the lab allows it (ALLOW_ASM in lab.cmake);
- its strong global definitions must be the lab's interface, the functions
  its header (labs/NN-topic/*.hpp) declares; `main` is never allowed, weak or
  strong; weak (COMDAT) definitions of inline and template code are normal and
  allowed: the link puts the course's own definitions first (cmake/StreamLab.cmake);
- what it calls must be on the allowlist in symbols.py, which a lab widens with
  ALLOW_SYMBOLS in lab.cmake.

A refusal is one line naming the file and what it did; the lab scores 0 and
nothing of it runs.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .sandbox import at_build_priority
from .symbols import ANONYMOUS, allowed, entity, forbidden_reason

STRONG_DEFINITIONS = set("TDBRCGSi")
WEAK_DEFINITIONS = set("VWu")
UNDEFINED = set("Uvw")
COURSE_NAMESPACES = ("streamlab", "testing")
DEVICE_STUB = "__device_stub__"
COMPILE_TIMEOUT_S = 300
COMPILE_STOPPED = "stopped after"  # how a compile's output starts when it timed out
_KEYWORDS = r"(?:NUMBER|TOPIC|STUDENT_SOURCES|ANSWER_FILES|PROGRAM|TEST_SOURCE|TIMEOUT|SANITIZE_POINTS|TESTS|ALLOW_SYMBOLS|ALLOW_ASM|GPUS|BINDINGS)\b"


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


def _lab_cmake_values(text: str, keyword: str) -> list[str] | None:
    """The words after `keyword` in a lab.cmake (up to the next keyword or ')'), or None when absent."""
    match = re.search(rf"\b{keyword}\b(.*?)(?={_KEYWORDS}|\))", text, re.S)
    return match.group(1).split() if match else None


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
    """A lab's rules, from its headers (every .hpp/.h in the lab folder) and its lab.cmake."""
    rules = LabRules()
    for header in sorted(lab_dir.glob("*.h*")):
        if header.suffix in (".h", ".hpp") and header.name not in student_files:
            names, namespaces = declared_interface(header.read_text(errors="replace"))
            rules.interface |= names
            rules.namespaces |= namespaces
            rules.headers.append(header.name)
    lab_cmake = re.sub(r"#[^\n]*", "", (lab_dir / "lab.cmake").read_text())
    rules.allow_symbols = _lab_cmake_values(lab_cmake, "ALLOW_SYMBOLS") or []
    rules.allow_asm = _lab_cmake_values(lab_cmake, "ALLOW_ASM") is not None
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
        if target is None:
            findings.append(
                f"{name}:{number} includes a file named by a macro: graded code may include headers only by name"
            )
            continue
        path = (target.group(1) or target.group(2) or "").replace("\\", "/")
        if path.startswith("/") or re.match(r"[A-Za-z]:", path) or ".." in path.split("/"):
            findings.append(
                f"{name}:{number} includes a file by its path: graded code may include headers only by name"
            )
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


def _demangle(names: list[str]) -> list[str]:
    demangled = subprocess.run(
        ["c++filt"], input="\n".join(names), capture_output=True, text=True, errors="replace", check=True
    ).stdout.splitlines()
    return demangled if len(demangled) == len(names) else names  # never expected; then check the raw names


def read_symbols(obj: Path) -> list[tuple[str, str]]:
    """(demangled name, nm type letter) of every symbol in an object file.

    nvcc's host stub of a kernel, `__device_stub__<kernel's mangled name>`, is
    given the kernel's own name: it is checked as the kernel is.
    """
    listing = subprocess.run(["nm", "-P", str(obj)], capture_output=True, text=True, errors="replace", check=True)
    rows = [line.split() for line in listing.stdout.splitlines() if len(line.split()) >= 2]
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
            grave.append(f"{name} defines main(): graded code may not replace the test program's main")
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
                "allows more with ALLOW_SYMBOLS)"
            )
    return list(dict.fromkeys(grave + other))


class CourseCompiler:
    """Compiles a student source exactly as the course build compiles that lab's starter."""

    def __init__(self, build: Path, course_root: Path):
        entries = json.loads((build / "compile_commands.json").read_text())
        self.entries = {Path(e["file"]).resolve(): e for e in entries}
        self.course_root = course_root.resolve()

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
        out, skip = [], 0
        for arg in argv:
            if skip:
                skip -= 1
                continue
            if arg in ("-o", "-MT", "-MF"):
                skip = 1
                continue
            if arg in ("-MD", "-MMD"):
                continue
            if arg == "-c":
                arg = step
            out.append(str(source) if Path(entry["directory"], arg).resolve() == starter else arg)
        return Path(entry["directory"]), [*out, "-o", str(obj)]

    def compile(self, lab_folder: str, file_name: str, source: Path, obj: Path, step: str = "-c") -> tuple[int, str]:
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
    """Where check_lab compiles a student source: the grader links this same object (batch.py)."""
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
        findings += check_symbols(name, read_symbols(obj), rules)
    if not findings:
        return None, ""
    return Refusal(findings[0], "\n".join(findings)), ""
