"""`--sanitize`: a lab's program under compute-sanitizer, its findings in the student's words.

The lab's program runs with `--no-trace` (CUPTI, which the timeline tracer
uses, allows one tool at a time) once per tool: memcheck with `--leak-check
full`, initcheck, and, when the student's sources define kernels of their own,
racecheck and synccheck. sanitizer_reports.py reads what each run leaves (its
docstring says which files); addr2line turns each host frame into the file and
line of the student's source (the labs are built with -g and -lineinfo for this).

Used by `course check NN --sanitize`, `course run NN --sanitize` and
`course grade --sanitize`. Without compute-sanitizer or a GPU, one line says so
and nothing else happens.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .environment import find_cuda_program
from .sanitizer_reports import (
    AFTER_A_KERNEL_FAULT,
    KERNEL_FAULTS,
    Finding,
    Frame,
    Sources,
    error_total,
    findings_from,
    merge_text_details,
    parse_census,
    parse_text,
    parse_xml,
    tool_problem,
)

# Check -> the tool and its options. memcheck runs twice. The first run names leaked memory (the census
# names the rest) and copies the runtime refused. The second pads every allocation with unowned bytes:
# cudaMalloc places buffers back to back, so without padding an index one past the end of one buffer lands
# in the next and looks valid. Padding hides the refused copy instead (measured on an H200), hence two runs.
TOOL_OPTIONS = {
    "memcheck": ["--leak-check", "full"],
    "memcheck-padded": ["--padding", "512", "--leak-check", "no"],
    "initcheck": [],
    "racecheck": [],
    "synccheck": [],
}
TOOL_OF_CHECK = {"memcheck-padded": "memcheck"}
BASIC_TOOLS = ["memcheck", "memcheck-padded", "initcheck"]
KERNEL_TOOLS = ["racecheck", "synccheck"]  # only where the student writes kernels
PRINT_LIMIT = 1000  # records kept per run; the summary still counts them all
TIMED_OUT = 124

# (command, environment additions, timeout in s) -> (exit status, output)
Runner = Callable[[list[str], dict[str, str], float], tuple[int, str]]


def find_sanitizer() -> str | None:
    """compute-sanitizer (also in the toolkit's own folder of it)."""
    return find_cuda_program("compute-sanitizer", "/usr/local/cuda/compute-sanitizer/compute-sanitizer")


def missing_sanitizer_line() -> str:
    return (
        "compute-sanitizer is not installed (it comes with the CUDA Toolkit, in its bin/ folder): "
        "the code was not checked"
    )


def tools_for(source_texts: list[str]) -> list[str]:
    """memcheck and initcheck always; racecheck and synccheck where the student wrote a kernel."""
    own_kernels = any(re.search(r"__global__", text) for text in source_texts)
    return BASIC_TOOLS + (KERNEL_TOOLS if own_kernels else [])


def lab_sources(lab_folder: str, files: list[str], shown_root: str = "labs") -> Sources:
    """The student's files of one lab, recognised by 'NN-topic/file' and shown as 'labs/NN-topic/file'."""
    return Sources({f"{lab_folder}/{name}": f"{shown_root}/{lab_folder}/{name}" for name in files})


# ---------------------------------------------------------------- addr2line


def addr2line_resolver(program: Path, sources: Sources) -> Callable[[list[Frame]], None] | None:
    """A resolver that fills in file and line of the program's own frames, or None without addr2line."""
    tool = shutil.which("addr2line")
    if tool is None:
        return None
    cache: dict[str, tuple[str, int, str]] = {}

    def own(frame: Frame) -> bool:
        return bool(frame.pc) and (frame.module == str(program) or Path(frame.module).name == program.name)

    def call_site(pc: str) -> str:
        # Every frame of the program is a return address: the call is the byte before it.
        return f"0x{max(0, int(pc, 16) - 1):x}"

    def resolve(frames: list[Frame]) -> None:
        wanted = sorted({call_site(f.pc) for f in frames if own(f)} - set(cache))
        if wanted:
            result = subprocess.run(
                [tool, "-a", "-f", "-C", "-i", "-e", str(program), *wanted], capture_output=True, text=True, check=False
            )
            cache.update(_read_addr2line(result.stdout, sources))
        for frame in frames:
            if own(frame) and call_site(frame.pc) in cache:
                frame.file, frame.line, function = cache[call_site(frame.pc)]
                frame.function = frame.function or function

    return resolve


def _read_addr2line(output: str, sources: Sources) -> dict[str, tuple[str, int, str]]:
    """addr2line -a -f -i output -> {address: (file, line, function)}: of the inlined chain at each
    address, the innermost place in the student's files, else the innermost place."""
    places: dict[str, tuple[str, int, str]] = {}
    address, chain = "", []
    lines = iter(output.splitlines() + ["0x"])  # a sentinel closes the last group
    for line in lines:
        if re.fullmatch(r"0x[0-9a-fA-F]*", line.strip()):
            if address and chain:
                mine = [place for place in chain if sources.name_of(place[0])]
                places[address] = (mine or chain)[0]
            address, chain = (f"0x{int(line, 16):x}" if len(line.strip()) > 2 else ""), []
            continue
        function, location = line.strip(), next(lines, "??:0").strip()  # each function is followed by its place
        file, _, number = location.split(" (")[0].rpartition(":")
        if file and file != "??" and number.isdigit() and int(number) > 0:
            chain.append((file, int(number), function))
    return places


# ---------------------------------------------------------------- running


@dataclass
class ToolRun:
    """One tool's run of the program."""

    tool: str
    status: int  # the program's exit status (the sanitizer passes it on)
    findings: list[Finding] = field(default_factory=list)
    errors_counted: int | None = None  # the sanitizer's own total (repeats included)
    records_read: int = 0  # of them, those it wrote out (at most PRINT_LIMIT)
    problem: str = ""  # the sanitizer could not watch the program: why
    program_output: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class SanitizeResult:
    """What `--sanitize` found in one lab, or why it could not look."""

    problem: str = ""  # one line when nothing could be checked
    runs: list[ToolRun] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        """Each finding once, though both memcheck runs may see it."""
        unique: dict[tuple[str, str, str], Finding] = {}
        for run in self.runs:
            for finding in run.findings:
                unique.setdefault((finding.kind, finding.where, finding.function), finding)
        return list(unique.values())

    @property
    def clean(self) -> bool:
        return not self.problem and not self.findings and all(not run.problem for run in self.runs)

    def lines(self) -> list[str]:
        """What a student reads: one line per tool, then each finding explained."""
        if self.problem:
            return [self.problem]
        lines = []
        for run in self.runs:
            if run.problem:
                lines.append(f"{run.tool}: compute-sanitizer could not watch the program: {run.problem}")
                continue
            count = len(run.findings)
            summary = "clean" if count == 0 else f"{count} finding(s)"
            if run.errors_counted and run.errors_counted > run.records_read:
                summary += f" (from the first {run.records_read} of the {run.errors_counted} errors it counted)"
            status = "" if run.status == 0 else f"; the program ended with exit status {run.status}"
            lines.append(
                f"{' '.join([TOOL_OF_CHECK.get(run.tool, run.tool), *TOOL_OPTIONS[run.tool]])}: {summary}{status}"
            )
            lines += [f"  ({note})" for note in run.notes]
        for number, finding in enumerate(self.findings, 1):
            described = finding.describe()
            lines.append(f"{number}. {described[0]}")
            lines += [f"   {line}" for line in described[1:]]
        return lines + self.notes


def run_tool(
    sanitizer: str, tool: str, program: Path, sources: Sources, work: Path, timeout_s: float, runner: Runner
) -> ToolRun:
    """Runs `program --no-trace` under one tool and reads its findings."""
    work.mkdir(parents=True, exist_ok=True)
    xml, log, census = work / f"{tool}.xml", work / f"{tool}.log", work / f"{tool}-census.jsonl"
    for old in (xml, log, census):
        old.unlink(missing_ok=True)
    tool_name = TOOL_OF_CHECK.get(tool, tool)
    command = [sanitizer, "--tool", tool_name, *TOOL_OPTIONS[tool], "--xml", "--save", str(xml), "--log-file", str(log)]
    command += ["--print-limit", str(PRINT_LIMIT), "--strip-paths", "no", "--check-exit-code", "no"]
    command += [str(program), "--no-trace"]
    env = {"STREAMLAB_LEAK_REPORT": str(census)} if tool == "memcheck" else {}
    status, output = runner(command, env, timeout_s)
    text = log.read_text(errors="replace") if log.exists() else ""
    result = ToolRun(tool, status, program_output=output)
    if status == TIMED_OUT:
        result.problem = f"the program did not finish within {timeout_s:.0f} s under {tool}"
        return result
    result.errors_counted = error_total(text)
    problem = tool_problem(text)
    if problem or (result.errors_counted is None and not xml.exists()):
        result.problem = problem or _last_line(text or output) or f"exit status {status}, no report"
        return result
    text_records = parse_text(text, tool_name)
    try:
        records = parse_xml(xml.read_text(errors="replace"), tool_name)
        merge_text_details(records, text_records)
    except (OSError, ValueError):
        records = text_records  # no XML, or a broken one: the text says the same
    result.records_read = len(records)
    if census.exists():
        records += parse_census(census.read_text(errors="replace"))
    result.findings = findings_from(records, sources, addr2line_resolver(program, sources))
    if any(finding.kind in KERNEL_FAULTS for finding in result.findings):
        result.notes.append(AFTER_A_KERNEL_FAULT)
    return result


def census_findings(
    program: Path,
    sources: Sources,
    work: Path,
    timeout_s: float,
    runner: Runner,
    python: str | None = None,
    env: dict[str, str] | None = None,
) -> tuple[list[Finding], str]:
    """What `program --no-trace` left behind, from the lab program's census alone (no compute-sanitizer):
    on the simulated GPU, where the census counts memory too (common/support/src/resource_census.cpp). With
    `python`, the Python program `program` run by that interpreter in `env`, whose census the simulated
    build's module takes (python/simulated_cuda_runtime.py). (findings, "") or ([], why the census could not
    be taken)."""
    work.mkdir(parents=True, exist_ok=True)
    census = work / "census.jsonl"
    census.unlink(missing_ok=True)
    command = [python, str(program)] if python else [str(program), "--no-trace"]
    status, _ = runner(command, {**(env or {}), "STREAMLAB_LEAK_REPORT": str(census)}, timeout_s)
    if status == TIMED_OUT:
        return [], f"the program did not finish within {timeout_s:.0f} s"
    if not census.exists():
        return [], f"the program ended (exit status {status}) before it could say what it left behind"
    records = parse_census(census.read_text(errors="replace"))
    return findings_from(records, sources, None if python else addr2line_resolver(program, sources)), ""


def _last_line(text: str) -> str:
    lines = [line.strip().lstrip("=").strip() for line in text.splitlines() if line.strip().lstrip("=").strip()]
    return lines[-1] if lines else ""


def sanitize_program(
    program: Path,
    sources: Sources,
    tools: list[str],
    work: Path,
    timeout_s: float,
    runner: Runner,
    gpu: tuple[bool, str],
) -> SanitizeResult:
    """Every tool in `tools` over `program --no-trace`, or the one line that says why it cannot run."""
    sanitizer = find_sanitizer()
    if sanitizer is None:
        return SanitizeResult(problem=missing_sanitizer_line())
    if not gpu[0]:
        return SanitizeResult(problem=f"compute-sanitizer needs a GPU ({gpu[1]}): the code was not checked")
    result = SanitizeResult()
    for tool in tools:
        result.runs.append(run_tool(sanitizer, tool, program, sources, work, timeout_s, runner))
    if shutil.which("addr2line") is None:
        result.notes.append("note: addr2line (binutils) is not installed, so host code is named by function only")
    return result


# ---------------------------------------------------------------- batch grading


GRADE_TIMEOUT_FACTOR = 10  # a program under a sanitizer may take this many times a test's timeout
TEST_NAME = "compute-sanitizer"


def points_test(result: SanitizeResult, points: int):
    """The sanitizer as a graded test worth `points`: passed when clean, failed with the findings,
    not graded (counting neither way) when compute-sanitizer could not run."""
    from .scoring import FAILED, NOT_GRADED, PASSED, TestGrade  # noqa: PLC0415  (only batch grading needs it)

    if result.problem or any(run.problem for run in result.runs):
        reason = result.problem or next(run.problem for run in result.runs if run.problem)
        return TestGrade(TEST_NAME, points, NOT_GRADED, reason=f"not graded: {reason}")
    if result.clean:
        return TestGrade(TEST_NAME, points, PASSED)
    kinds = sorted({finding.kind for finding in result.findings})
    return TestGrade(TEST_NAME, points, FAILED, reason="compute-sanitizer found: " + ", ".join(kinds))


def sanitize_submission_lab(
    program: Path,
    lab_folder: str,
    files: list[str],
    staging: Path,
    work: Path,
    timeout_s: float,
    runner: Runner,
    gpu: tuple[bool, str],
) -> SanitizeResult:
    """`course grade --sanitize` for one lab of one submission (its files staged in staging/NN-topic)."""
    texts = [
        (staging / lab_folder / name).read_text(errors="replace")
        for name in files
        if (staging / lab_folder / name).exists()
    ]
    sources, timeout_s = lab_sources(lab_folder, files), timeout_s * GRADE_TIMEOUT_FACTOR
    return sanitize_program(program, sources, tools_for(texts), work, timeout_s, runner, gpu)
