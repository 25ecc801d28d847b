"""Makes sample submissions that exercise the grader, from this repository.

    python3 -m selfgrading.make_grading_samples /tmp/subs && ./course grade /tmp/subs -o /tmp/grades

  solutions/               every lab's solution, as a labs/ copy            full points
  starters.zip             the starters, as a nested copy of the repository  starter points
  does-not-compile.tar.gz  solutions, lab 01 with a syntax error             lab 01: 0, compile error
  kernel-never-ends/       solutions, lab 01's barrier demo launches a kernel that never ends:
                           those tests time out, every other test passes
  segfault/                solutions, lab 02's run_in_null_stream writes through a null pointer:
                           that test crashes, every other test passes
  edits-a-test/            the starters, and a lab 01 test file whose tests all pass:
                           the edit is ignored and reported; starter points
  and the samples that attack the grader itself (selfgrading/isolation_samples.py):
  kills-the-grader/, writes-another-grade/, plants-a-student/,
  aa-rewrites-staged-sources/, leaves-a-process/, prints-200mb/,
  many-members.tar.gz, non-utf8-name.tar.gz

and, with --cheats, the catalogue of cheating submissions (CHEATS below): every
lab's solution with lab 01 changed to forge a pass, replace the course's code,
turn a failure into a skip, or call what graded code may not. Each must score
0 in lab 01 with a reason that names what it did (selfgrading/selfgrade.py checks it
on a GPU, tools/tests/test_grade_cheats.py without one).

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from coursecli.shell import ROOT

from .catalogue import make_catalogue
from .isolation_samples import make_isolation_samples
from .sample_files import fresh_folder, plant, replace_once, student_files, write_folder, write_tar_gz, write_zip

SYNTAX_ERROR = "\nthis line is not C++ at all\n"
NEVER_ENDING_KERNEL = """
namespace {
/// Never set, read through volatile: the kernel below must load it from memory
/// again on every turn. (A volatile local is not enough: the compiler keeps it in
/// a register, sees a loop that can never end, and drops it; the kernel returns at once.)
__device__ volatile int never_set = 0;

/// Spins forever, waiting for never_set.
__global__ void never_ends() {
    while (never_set == 0) {
    }
}
}  // namespace
"""
BARRIER_SYNC = "    SL_CHECK(cudaDeviceSynchronize());\n    SL_CHECK(cudaStreamDestroy(first));"
# A volatile pointer: the compiler cannot see it is null, so the write really happens (and crashes).
# A write through a null pointer can be optimised into something else; the
# signal a segfault raises cannot.
NULL_WRITE = "    volatile int* volatile null = nullptr;  // a crash, on purpose\n    *null = 1;\n"
NULL_STREAM_LOOP = "void run_in_null_stream(const std::vector<KernelJob>& jobs) {\n"
ALWAYS_PASSING_TEST = """#include <gtest/gtest.h>
// Every test passes, whatever the code does: the grader must ignore this file.
TEST(SerialRun, ResultMatchesCpuReference) { SUCCEED(); }
TEST(SerialRun, EveryOpInTheNullStream) { SUCCEED(); }
TEST(SerialRun, OpsRunOneAfterAnother) { SUCCEED(); }
TEST(SerialRun, EventTimeMatchesTimeline) { SUCCEED(); }
TEST(BarrierDemo, BlockingStreamsAreSerializedByTheNullStream) { SUCCEED(); }
TEST(BarrierDemo, NonBlockingStreamsAreNotSeparated) { SUCCEED(); }
"""


LAB01 = "labs/01-null-stream/null_stream.cu"
RUN_SERIAL = "float run_serial(const float* input, float* output, std::size_t n, int iterations) {\n"
LAB01_INCLUDE = '#include "streamlab/workload.hpp"\n'


@dataclass
class Cheat:
    """A cheating submission: lab 01 of the solutions with `top` added after its includes and `call`
    at the start of run_serial. Lab 01 must score 0, with `says` in its problem or a test's reason."""

    name: str
    says: str
    top: str = ""
    call: str = ""
    replace_lab01: str | None = None  # the whole lab 01 source instead


FORGED_PASS = r"""#include <cstdio>
#include <cstdlib>
#include <cstring>
namespace {
/// Runs before main: prints GoogleTest's lines for the test it was asked to run, then ends "successfully".
struct ForgedPass {
    ForgedPass() {
        char args[4096] = {};
        std::FILE* cmdline = std::fopen("/proc/self/cmdline", "rb");
        const std::size_t size = cmdline ? std::fread(args, 1, sizeof args - 1, cmdline) : 0;
        const char* name = "Suite.Name";
        for (std::size_t at = 0; at < size; at += std::strlen(args + at) + 1) {
            if (std::strncmp(args + at, "--gtest_filter=", 15) == 0) name = args + at + 15;
        }
        std::printf("[==========] Running 1 test from 1 test suite.\n[ RUN      ] %s\n[       OK ] %s (1 ms)\n"
                    "[==========] 1 test from 1 test suite ran. (1 ms total)\n[  PASSED  ] 1 test.\n", name, name);
        std::fflush(stdout);
        std::_Exit(0);
    }
} forged_pass;
}  // namespace
"""
WEAK_MAIN = (
    "/// Replaces GoogleTest's main when the linker meets this one first.\n"
    "__attribute__((weak)) int main() { return 0; }\n"
)
ALWAYS_OK = """/// The course's result check, always "all elements match".
streamlab::ResultCheck streamlab::check_workload_output(const float*, const float*, std::size_t, int, int) {
    return {};
}
"""
REDECLARED_TYPE = """namespace streamlab {
/// The course's Op, re-declared with a changed inline member: every op lasts 1 ns.
struct Op {
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    std::uint64_t duration_ns() const { return 1; }
};
}  // namespace streamlab
"""

TRACER = '#include "streamlab/tracer.hpp"\n'
THROW_UNAVAILABLE = '    if (n > 0) throw streamlab::TimelineUnavailable("the profiler is busy");\n'
# `asm` spelled by a macro, so that no text search for "asm" finds it.
GLUE = "#define GLUE(a, b) a##b\n"
GLUED_ASM = '    if (n == 1) GLUE(as, m) volatile("int3");\n'


def workload_copy_always_ok() -> str:
    """A copy of the course's workload.cu whose check_workload_output always says the result is right."""
    text = (ROOT / "common" / "src" / "workload.cu").read_text()
    anchor = "    ResultCheck result;\n"
    if anchor not in text:
        raise SystemExit("make_grading_samples: workload.cu changed; update workload_copy_always_ok")
    return text.replace(anchor, anchor + "    return result;  // always ok\n", 1)


CHEATS = [
    Cheat("forged-pass", "_Exit", top=FORGED_PASS),
    Cheat("weak-main", "defines main()", top=WEAK_MAIN),
    Cheat("replaces-a-course-function", "defines streamlab::check_workload_output", top=ALWAYS_OK),
    Cheat("copies-a-course-file", "namespace streamlab", replace_lab01="workload copy"),
    Cheat("redeclares-a-course-type", "namespace streamlab", top="#include <cstdint>\n" + REDECLARED_TYPE),
    Cheat("throws-timeline-unavailable", "streamlab::TimelineUnavailable", top=TRACER, call=THROW_UNAVAILABLE),
    Cheat("inline-asm", "uses inline asm", call='    if (n == 1) asm volatile("int3");\n'),
    Cheat("asm-built-by-a-macro", "uses inline asm", top=GLUE, call=GLUED_ASM),
    Cheat("includes-an-absolute-path", "includes a file by its path", top='#include "/etc/passwd"\n'),
]
# One cheat per refused call, from refused_call_cheats.json: the sample's name, what its
# reason says, the headers it includes, and the statement it plants in run_serial.
REFUSED_CALLS = json.loads((Path(__file__).parent / "refused_call_cheats.json").read_text())
CHEATS += [
    Cheat(
        refused["sample"],
        refused["says"],
        top="".join(f"#include <{header}>\n" for header in refused["headers"]),
        call=f"    if (n == 1) {refused['statement']};\n",
    )
    for refused in REFUSED_CALLS
]


def cheat_files(cheat: Cheat) -> dict[str, str]:
    """Every lab's solution, lab 01 changed as `cheat` says."""
    files = student_files("solution")
    if cheat.replace_lab01:
        files[LAB01] += "\n" + workload_copy_always_ok()
    if cheat.top:
        plant(files, LAB01, LAB01_INCLUDE, cheat.top, before=False)
    if cheat.call:
        plant(files, LAB01, RUN_SERIAL, cheat.call, before=False)
    return files


def make_cheats(out: Path) -> list[str]:
    """Writes the catalogue of cheating submissions into `out`; returns their names."""
    out.mkdir(parents=True, exist_ok=True)
    for cheat in CHEATS:
        write_folder(out / cheat.name, cheat_files(cheat))
    return [cheat.name for cheat in CHEATS]


def hanging_submission() -> dict[str, str]:
    """Every lab's solution, lab 01's barrier demo launching a kernel that never ends before it waits."""
    hang = student_files("solution")
    plant(hang, LAB01, "namespace lab01 {\n", NEVER_ENDING_KERNEL)
    plant(hang, LAB01, BARRIER_SYNC, "    never_ends<<<1, 1>>>();\n")
    return hang


def make_samples(out: Path) -> list[str]:
    """Writes the samples into `out` (emptied first); returns their names."""
    fresh_folder(out)
    write_folder(out / "solutions", student_files("solution"))

    nested = {f"cuda-streams-lab/{name}": text for name, text in student_files("starter").items()}
    nested["cuda-streams-lab/README.md"] = "my notes\n"
    write_zip(out / "starters.zip", nested)

    broken = student_files("solution")
    broken[LAB01] += SYNTAX_ERROR
    write_tar_gz(out / "does-not-compile.tar.gz", broken)

    write_folder(out / "kernel-never-ends", hanging_submission())

    crash = student_files("solution")
    plant(crash, LAB02, NULL_STREAM_LOOP, NULL_WRITE, before=False)
    write_folder(out / "segfault", crash)

    edited = student_files("starter")
    edited["labs/01-null-stream/test_lab01.cpp"] = ALWAYS_PASSING_TEST
    write_folder(out / "edits-a-test", edited)

    make_isolation_samples(out)
    return sorted(p.name for p in out.iterdir())


# ---------------------------------------------------------------- compute-sanitizer samples
#
#   python3 -m selfgrading.make_grading_samples --sanitizer /tmp/san
#   ./course grade /tmp/san -o /tmp/san-grades --sanitize
#
# Each sample is one lab's solution with one bug that compute-sanitizer (or the lab
# program's census) must report, of the kind, in the file and at the lines
# that /tmp/san/sanitizer-expected.json lists (a statement may span two lines);
# solutions-clean, the solutions themselves, must report nothing.
# selfgrading/check_sanitizer_samples.py compares the reports with that file.

LAB02, LAB03, LAB05 = (
    "labs/02-streams/streams.cu",
    "labs/03-pinned-memory/pinned_memory.cu",
    "labs/05-three-chunks/three_chunks.cu",
)
H2D_COPY = "SL_CHECK(cudaMemcpyAsync(job.device_input + chunk.offset, job.input + chunk.offset, bytes,"
LAUNCH = "streamlab::launch_workload(job.device_input + chunk.offset, job.device_output + chunk.offset, chunk.count,"
SANITIZER_SAMPLES = {
    # name: (file, text replaced, its replacement, lab, the finding's kind, the line the finding points at)
    "oob-copy": (
        LAB05,
        H2D_COPY,
        H2D_COPY.replace("bytes,", "bytes + (i + 1 == chunks ? sizeof(float) : 0),"),
        "05",
        "out-of-bounds copy",
        "SL_CHECK(cudaMemcpyAsync(job.device_input",
    ),
    "oob-kernel": (
        LAB05,
        LAUNCH,
        LAUNCH.replace("chunk.count,", "chunk.count + (i + 1 == chunks),"),
        "05",
        "out-of-bounds kernel access",
        "streamlab::launch_workload(job.device_input",
    ),
    "leaked-pinned-buffer": (
        LAB03,
        "    SL_CHECK(cudaFreeHost(pinned));",
        "    (void)pinned;  // cudaFreeHost forgotten",
        "03",
        "leaked pinned buffer",
        "SL_CHECK(cudaMallocHost(&pinned, bytes));",
    ),
    "leaked-stream": (
        LAB02,
        "        SL_CHECK(cudaStreamDestroy(stream));",
        "        (void)stream;  // never destroyed",
        "02",
        "leaked stream",
        "SL_CHECK(cudaStreamCreateWithFlags(&stream, flags));",
    ),
    "uninitialised-read": (
        LAB05,
        H2D_COPY,
        # Chunk 2's last element is never copied in: one uninitialised read, which initcheck reports
        # at once (a whole chunk left out is millions of reads, and minutes under the sanitizer).
        H2D_COPY.replace("bytes,", "bytes - (i == 1 ? sizeof(float) : 0),"),
        "05",
        "uninitialised device read",
        "streamlab::launch_workload(job.device_input",
    ),
}


def statement_lines(text: str, start: str) -> list[int]:
    """The 1-based lines of the statement whose first line holds `start` (up to its closing ';')."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if start in line)
    last = next(i for i in range(first, len(lines)) if lines[i].rstrip().endswith(";"))
    return list(range(first + 1, last + 2))


def make_sanitizer_samples(out: Path) -> list[str]:
    """Writes the compute-sanitizer samples and sanitizer-expected.json into `out` (emptied first)."""
    fresh_folder(out)
    expected = {}
    for name, (path, old, new, lab, kind, pointed_at) in SANITIZER_SAMPLES.items():
        files = student_files("solution")
        replace_once(files, path, old, new)
        # Only the faulty lab is handed in, so only that lab is graded (and sanitized).
        lab_folder = path.rsplit("/", 1)[0] + "/"
        files = {name: text for name, text in files.items() if name.startswith(lab_folder)}
        write_folder(out / name, files)
        expected[name] = {
            "lab": lab,
            "kind": kind,
            "file": path,
            "lines": statement_lines(files[path], pointed_at.strip()),
        }
    write_folder(out / "solutions-clean", student_files("solution"))  # every lab must come out clean
    expected["solutions-clean"] = {"clean": True}
    (out / "sanitizer-expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    return sorted([*SANITIZER_SAMPLES, "solutions-clean"])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path, help="where to write the samples (emptied first)")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument(
        "--sanitizer",
        action="store_true",
        help="write the compute-sanitizer samples instead (one bug each; see SANITIZER_SAMPLES)",
    )
    kind.add_argument(
        "--catalogue",
        action="store_true",
        help="write the catalogue of known-wrong and correct alternative samples instead (see CATALOGUE)",
    )
    parser.add_argument("--cheats", action="store_true", help="add the catalogue of cheating submissions")
    args = parser.parse_args(argv)
    if args.sanitizer or args.catalogue:
        names = (make_catalogue if args.catalogue else make_sanitizer_samples)(args.folder)
    else:
        names = make_samples(args.folder) + (make_cheats(args.folder) if args.cheats else [])
    for name in names:
        print(f"make_grading_samples: {args.folder / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
