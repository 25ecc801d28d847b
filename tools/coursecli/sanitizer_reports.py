"""Reading what compute-sanitizer found, and saying it in a student's words.

compute-sanitizer writes each finding as a record: the XML file of `--xml
--save FILE` (preferred: every frame with its module and address) and the text
of `--log-file FILE` (read when the XML is missing or broken, and for details
only the text gives, such as how far past an allocation an access went). The
lab programs add a census of the streams, events and pinned-in-place memory
they left behind (common/src/resource_census.cpp), which the sanitizer's leak
check does not name.

Nothing here runs a program: sanitize.py runs the sanitizer and turns code
addresses into file:line with addr2line (the `resolve` callable below).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field

# ---------------------------------------------------------------- records as the sanitizer gives them


@dataclass
class Frame:
    """One host frame: the function (may be empty), its module and the address in it."""

    function: str = ""
    module: str = ""
    pc: str = ""
    file: str = ""  # filled in by a resolver: the source file ...
    line: int = 0  # ... and line, when the module has line information


@dataclass
class Record:
    """One finding as compute-sanitizer reported it."""

    tool: str
    kind: str  # "Api", "Precise", "Leak", "Initcheck", "Race", ... or "" from text
    text: str  # its first line, e.g. "Invalid __global__ write of size 4 bytes"
    api: str = ""  # Api records: the failing call
    error: str = ""  # Api: cudaErrorInvalidValue; Precise: "out of bounds"
    message: str = ""  # Api: "invalid argument"
    kernel: str = ""  # device records: the kernel (or device function) ...
    device_file: str = ""  # ... and where in its source, from -lineinfo
    device_line: int = 0
    size: int = 0  # bytes accessed, or leaked
    details: list[str] = field(default_factory=list)  # further lines of the text record
    frames: list[Frame] = field(default_factory=list)  # host backtrace, innermost first


_TEXT_PREFIX = "========="
_TOOL_PROBLEMS = re.compile(
    r"No attachable process|Target application|Internal Sanitizer Error|unable to|"
    r"Failed to|not supported|Could not|cannot",
    re.I,
)
_SUMMARY = re.compile(r"(LEAK|ERROR|RACECHECK) SUMMARY|^COMPUTE-SANITIZER")


def _int(text: str) -> int:
    digits = re.sub(r"[^\d]", "", text or "")
    return int(digits) if digits else 0


def parse_xml(text: str, tool: str) -> list[Record]:
    """The records of an `--xml --save` file. Raises ValueError when it is not that format."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as problem:
        raise ValueError(f"not XML: {problem}") from problem
    if root.tag != "ComputeSanitizerOutput":
        raise ValueError(f"not a compute-sanitizer XML file (root element {root.tag})")
    records = []

    def get(node, name):
        return (node.findtext(name) or "").strip() if node is not None else ""

    for element in root.iter("record"):
        what, where = element.find("what"), element.find("where")
        record = Record(
            tool=tool,
            kind=get(element, "kind"),
            text=get(what, "text"),
            api=get(what, "api"),
            error=get(what, "error"),
            message=get(what, "message"),
            size=_int(get(what, "size")),
            kernel=get(where, "func"),
            device_file=get(where, "path"),
            device_line=_int(get(where, "line")),
        )
        record.frames = [Frame(get(f, "func"), get(f, "module"), get(f, "pc")) for f in element.iter("frame")]
        records.append(record)
    return records


# "Host Frame: cudaMallocHost(void**, unsigned long, unsigned int) [0x8cac] in san_probe"
# (older releases: "Host Frame:/path/module (function + 0x1a4) [0x9e34]")
_HOST_FRAME = re.compile(r"Host Frame:\s*(?P<func>.*?)\s*\[(?P<pc>0x[0-9a-fA-F]+)\]\s+in\s+(?P<module>\S+)\s*$")
_OLD_HOST_FRAME = re.compile(
    r"Host Frame:\s*(?P<module>\S+)\s+\((?P<func>.*?)\s*\+\s*0x[0-9a-fA-F]+\)\s*"
    r"\[(?P<pc>0x[0-9a-fA-F]+)\]"
)
# "at scale(float *, const float *, int)+0x110 in san_probe.cu:8"
_DEVICE_AT = re.compile(r"^at (?P<func>.+?)\+0x[0-9a-fA-F]+ in (?P<file>.+?):(?P<line>\d+)\s*$")
_API_HIT = re.compile(
    r'Program hit (?P<error>\w+) \(error \d+\) due to "(?P<message>[^"]*)" on CUDA API call to '
    r"(?P<api>\w+)"
)
_SIZE = re.compile(r"(?:of size|Leaked) (?P<size>[\d,]+) bytes")


def parse_text(text: str, tool: str) -> list[Record]:
    """The records of a text log (`--log-file`), one per block of prefixed lines."""
    records: list[Record] = []
    current: Record | None = None
    for raw in text.splitlines():
        if not raw.startswith(_TEXT_PREFIX):
            continue  # the program's own output, when it shares the stream
        body = raw[len(_TEXT_PREFIX) :]
        stripped = body.strip()
        if not stripped:
            current = None
            continue
        if not body.startswith("  "):  # a record's first line is indented by one space only
            current = None
            if _SUMMARY.search(stripped):
                continue
            current = Record(tool=tool, kind="", text=stripped)
            api = _API_HIT.search(stripped)
            if api:
                current.kind, current.api = "Api", api.group("api")
                current.error, current.message = api.group("error"), api.group("message")
            elif stripped.startswith("Leaked "):
                current.kind = "Leak"
            size = _SIZE.search(stripped)
            current.size = _int(size.group("size")) if size else 0
            records.append(current)
            continue
        if current is None:
            continue
        frame = _HOST_FRAME.search(stripped) or _OLD_HOST_FRAME.search(stripped)
        device = _DEVICE_AT.match(stripped)
        if frame:
            current.frames.append(
                Frame(function=frame.group("func").strip(), module=frame.group("module"), pc=frame.group("pc"))
            )
        elif device and not current.kernel:
            current.kernel = device.group("func")
            current.device_file, current.device_line = device.group("file"), int(device.group("line"))
        elif not stripped.startswith("Saved host backtrace"):
            current.details.append(stripped)
    return records


def error_total(text: str) -> int | None:
    """The errors the sanitizer counted (its summary line), or None when it printed no summary."""
    counts = [_int(m.group(1)) for m in re.finditer(r"ERROR SUMMARY: ([\d,]+) error", text)]
    race = re.search(r"RACECHECK SUMMARY: \d+ hazards displayed \(([\d,]+) errors, ([\d,]+) warnings\)", text)
    if race:
        counts.append(_int(race.group(1)) + _int(race.group(2)))
    return max(counts) if counts else None


def tool_problem(text: str) -> str:
    """The sanitizer's own complaint (it could not attach, say), or "" when it ran."""
    for record in parse_text(text, ""):
        if _TOOL_PROBLEMS.search(record.text) and not record.api and "Race" not in record.text:
            return record.text
    return ""


def merge_text_details(xml_records: list[Record], text_records: list[Record]) -> None:
    """Adds what only the text says (how far past an allocation, which thread) to the XML records."""
    by_text = {}
    for record in text_records:
        by_text.setdefault(record.text.split(" is out of bounds")[0], []).append(record)
    for record in xml_records:
        matches = by_text.get(record.text.split(" is out of bounds")[0])
        if matches:
            record.details = matches.pop(0).details


def _census_frame(frame: list) -> Frame:
    """A census frame: [module, address] from a C++ program's census, [file, line, function] from a Python
    program's (python/simulated_cuda_runtime.py), whose frames need no resolver."""
    if len(frame) == 3:
        return Frame(function=str(frame[2]), file=str(frame[0]), line=int(frame[1]))
    module, pc = frame
    return Frame(module=str(module), pc=str(pc))


def parse_census(text: str) -> list[Record]:
    """The lab program's census: one JSON line per stream, event or pinned range left behind (and, on the
    simulated GPU, per device allocation and pinned buffer)."""
    records = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            frames = [_census_frame(frame) for frame in item.get("frames", [])]
            records.append(
                Record(
                    tool="census",
                    kind="Census",
                    text=f"{item['kind']} never released",
                    api=str(item["api"]),
                    message=str(item["kind"]),
                    frames=frames,
                )
            )
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short when the program ended: the rest still counts
    return records


# ---------------------------------------------------------------- findings, in the student's words


@dataclass
class Finding:
    """One kind of problem at one place, as a student reads it. Repeats are counted, not listed."""

    kind: str  # one of KINDS
    tool: str  # memcheck, initcheck, racecheck, synccheck, census
    what: str  # "cudaMemcpyAsync failed: cudaErrorInvalidValue (invalid argument)"
    where: str  # "labs/05-three-chunks/three_chunks.cu:37" or "" when no line is known
    function: str = ""  # the function at `where`
    detail: str = ""  # e.g. "4 bytes after the end of an allocation of 4000 bytes"
    count: int = 1

    @property
    def meaning(self) -> str:
        return KINDS[self.kind][0]

    @property
    def usual_cause(self) -> str:
        return KINDS[self.kind][1]

    def describe(self) -> list[str]:
        """A few lines for `course check` and the reports."""
        head = f"{self.kind}: {self.what}" + (f" ({self.count} times)" if self.count > 1 else "")
        lines = [head]
        if self.where:
            lines.append(f"  at {self.where}" + (f" in {self.function}" if self.function else ""))
        elif self.function:
            lines.append(f"  in {self.function} (no line information)")
        if self.detail:
            lines.append(f"  {self.detail}")
        lines.append(f"  what it means: {self.meaning}")
        lines.append(f"  usual cause: {self.usual_cause}")
        return lines


# kind -> (what it means, the usual cause)
KINDS = {
    "out-of-bounds copy": (
        "the CUDA runtime refused a copy whose range is not inside the buffers it names, so nothing was copied",
        "a count or an offset one chunk too far: is the last chunk's count right, and is every offset "
        "counted in elements of the right buffer?",
    ),
    "out-of-bounds kernel access": (
        "a kernel read or wrote memory outside every buffer it was given; the kernel was stopped",
        "an element count or a pointer offset past the end of the buffer: does the count passed with each "
        "chunk match the chunk, and does the kernel check i < n?",
    ),
    "misaligned access": (
        "a kernel accessed memory at an address that is not a multiple of the value's size",
        "a pointer offset in bytes where elements were meant (or the other way round)",
    ),
    "failed CUDA call": (
        "a CUDA runtime call returned an error; the work it should have done did not happen",
        "an invalid argument (a null or freed pointer, a destroyed stream) or an earlier error that the "
        "program did not check",
    ),
    "leaked device memory": (
        "device memory allocated with cudaMalloc (or cudaMallocAsync) was never freed",
        "a missing cudaFree (cudaFreeAsync) on some path, often an early return or an exception",
    ),
    "leaked pinned buffer": (
        "pinned host memory from cudaMallocHost or cudaHostAlloc was never freed; pinned memory is scarce "
        "and stays locked until the process ends",
        "a missing cudaFreeHost, or cudaFree/free called on pinned memory instead",
    ),
    "leaked stream": (
        "a stream was created and never destroyed",
        "a cudaStreamCreate... without its cudaStreamDestroy (a streamlab::Stream destroys itself)",
    ),
    "leaked event": (
        "an event was created and never destroyed",
        "a cudaEventCreate... without its cudaEventDestroy (a streamlab::Event destroys itself)",
    ),
    "host memory left pinned": (
        "host memory pinned in place with cudaHostRegister was never unpinned",
        "a missing cudaHostUnregister before the memory is freed",
    ),
    "uninitialised device read": (
        "a kernel read device memory that nothing had written: its result depends on leftover bytes",
        "a copy into the device buffer that is missing, too short or into the wrong place, or one that "
        "had not finished (another stream) when the kernel read it",
    ),
    "uninitialised copy": (
        "a copy read device memory that nothing had written",
        "copying results back from a buffer (or part of one) that no kernel or copy filled",
    ),
    "shared-memory race": (
        "threads of one block wrote and read the same shared memory without a barrier between them",
        "a missing __syncthreads() between writing shared memory and reading it",
    ),
    "barrier misuse": (
        "a barrier (__syncthreads, __syncwarp) was not reached by all the threads that must reach it",
        "a barrier inside a branch that only some threads take",
    ),
    "other finding": (
        "compute-sanitizer reported a problem of a kind this course does not explain",
        "read the sanitizer's own words above and its manual",
    ),
}

# Allocation calls, as a leak's backtrace shows them (runtime and driver names).
_PINNED_ALLOCATORS = {"cudaMallocHost", "cudaHostAlloc", "cuMemHostAlloc", "cuMemAllocHost"}
_DEVICE_ALLOCATORS = {
    "cudaMalloc",
    "cudaMallocAsync",
    "cudaMallocPitch",
    "cudaMalloc3D",
    "cudaMallocFromPoolAsync",
    "cuMemAlloc",
    "cuMemAllocAsync",
    "cuMemAllocPitch",
    "cudaMallocManaged",
    "cuMemAllocManaged",
}
_CENSUS_KINDS = {
    "stream": "leaked stream",
    "event": "leaked event",
    "registered host memory": "host memory left pinned",
    # Counted by the census on the simulated GPU only; on a GPU, compute-sanitizer's leak check names them.
    "device allocation": "leaked device memory",
    "pinned buffer": "leaked pinned buffer",
}
# API errors that only repeat an earlier kernel fault (the context is gone after it).
_AFTERMATH = {
    "cudaErrorLaunchFailure",
    "cudaErrorIllegalAddress",
    "cudaErrorMisalignedAddress",
    "cudaErrorContextIsDestroyed",
}


def _cuda_name(function: str) -> str:
    """The CUDA call a frame's function is: "cudaError cudaMallocHost<float>" -> "cudaMallocHost"."""
    match = re.search(r"\b(cu(?:da)?[A-Z]\w*?)(?:<|\(|$|_v\d+$)", function.strip())
    return match.group(1) if match else ""


def _called_api(record: Record) -> str:
    """The outermost CUDA call in the backtrace: the one the program itself made."""
    name = ""
    for frame in record.frames:
        called = _cuda_name(frame.function)
        if called:
            name = called
        elif name and frame.function and not frame.function.startswith("libcudart"):
            break  # the first frame of the program's own code: the call before it was the program's
    return name or record.api


def classify(record: Record) -> str:
    """The KINDS entry of one sanitizer record."""
    text = record.text.lower()
    if record.kind == "Census":
        return _CENSUS_KINDS.get(record.message, "other finding")
    if record.kind == "Leak" or text.startswith("leaked"):
        names = {_cuda_name(frame.function) for frame in record.frames}
        if names & _PINNED_ALLOCATORS:
            return "leaked pinned buffer"
        return "leaked device memory" if names & _DEVICE_ALLOCATORS or not names - {""} else "other finding"
    if record.kind == "Api" or record.api:
        if record.api.startswith("cudaMemcpy") and record.error == "cudaErrorInvalidValue":
            return "out-of-bounds copy"
        return "failed CUDA call"
    if "uninitialized" in text:
        return "uninitialised device read" if record.kernel or "__global__" in text else "uninitialised copy"
    if "race" in text or "hazard" in text or record.tool == "racecheck":
        return "shared-memory race"
    if record.tool == "synccheck" or "barrier" in text:
        return "barrier misuse"
    if "misaligned" in text:
        return "misaligned access"
    if "out of bounds" in text or text.startswith("invalid __"):
        return "out-of-bounds kernel access"
    return "other finding"


@dataclass
class Sources:
    """The student's source files: how to recognise them in debug information, and how to name them."""

    display: dict[str, str]  # a path suffix such as "05-three-chunks/three_chunks.cu" -> "labs/05-.../x.cu"

    def name_of(self, path: str) -> str:
        """The student's name for `path`, or "" when it is not one of their files."""
        normal = path.replace("\\", "/")
        for suffix, shown in self.display.items():
            if (
                normal == suffix
                or normal.endswith("/" + suffix)
                or ("/" not in normal and suffix.endswith("/" + normal))
            ):
                return shown
        return ""


Resolver = Callable[[list[Frame]], None]  # fills in Frame.file and Frame.line where it can


def _place(record: Record, sources: Sources) -> tuple[str, str]:
    """(file:line in the student's code, function) for a record: the kernel's line when the kernel is
    the student's, else the innermost host frame in the student's files, else the best clue there is."""
    if record.device_file and sources.name_of(record.device_file):
        return f"{sources.name_of(record.device_file)}:{record.device_line}", record.kernel
    for frame in record.frames:
        if frame.file and sources.name_of(frame.file):
            return f"{sources.name_of(frame.file)}:{frame.line}", frame.function
    if record.device_file:  # a course kernel (the workload), launched from somewhere we cannot see
        return "", f"{record.kernel} ({record.device_file.rsplit('/', 1)[-1]}:{record.device_line})"
    for frame in record.frames:
        if frame.function and not _cuda_name(frame.function) and not frame.function.startswith("libcudart"):
            return "", frame.function
    return "", ""


def _what(record: Record, kind: str) -> str:
    if record.kind == "Census":
        article = "an" if record.message[:1] in "aeiou" else "a"
        return f"{article} {record.message} from {record.api}, never released"
    if kind.startswith("leaked"):
        return f"{record.size} bytes from {_called_api(record)}, never freed"
    if record.api:
        return f"{record.api} failed: {record.error} ({record.message})"
    if record.kernel:
        return f"{record.text.removesuffix(' is out of bounds')} in kernel {record.kernel}"
    return record.text


def _detail(record: Record) -> str:
    """How far from a buffer an access went, as the text log says ("and is 4 bytes after ...")."""
    for line in record.details:
        if "nearest allocation" in line:
            return "the address " + line.removeprefix("and ").replace("is 1 bytes", "is 1 byte")
    return ""


KERNEL_FAULTS = ("out-of-bounds kernel access", "misaligned access")
AFTER_A_KERNEL_FAULT = (
    "a kernel fault ends the program's CUDA context: nothing could be freed after it, "
    "so leaks are not reported for this run"
)


def findings_from(records: list[Record], sources: Sources, resolve: Resolver | None = None) -> list[Finding]:
    """Findings from records: classified, placed in the student's code, repeats merged. After a kernel
    fault, the API errors and leaks that only follow from it (AFTER_A_KERNEL_FAULT) are left out."""
    findings: dict[tuple[str, str, str, str], Finding] = {}
    kernel_fault = any(classify(r) in KERNEL_FAULTS for r in records)
    for record in records:
        kind = classify(record)
        if record.error == "cudaErrorNotReady" and record.api in ("cudaStreamQuery", "cudaEventQuery"):
            continue  # "still working" is the answer a query exists for, not an error
        if kernel_fault and (
            (kind == "failed CUDA call" and record.error in _AFTERMATH)
            or kind.startswith("leaked")
            or kind == "host memory left pinned"
        ):
            continue  # "unspecified launch failure" on every later call, frees that failed: the fault says it all
        if resolve is not None:
            resolve(record.frames)
        where, function = _place(record, sources)
        what = _what(record, kind)
        key = (kind, what if not kind.startswith("leaked") else _called_api(record), where, function)
        if key in findings:
            findings[key].count += 1
            continue
        findings[key] = Finding(kind, record.tool, what, where, function, _detail(record))
    return list(findings.values())
