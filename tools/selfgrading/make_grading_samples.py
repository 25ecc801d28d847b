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
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from coursecli.shell import ROOT

from .isolation_samples import make_isolation_samples
from .lab09_samples import (
    catalogue_lab09_allocate_before_the_loop,
    catalogue_lab09_chooses_blocking_sync,
    catalogue_lab09_chooses_spin,
    catalogue_lab09_memset_in_null_stream,
    catalogue_lab09_pinned_in_the_loop,
    catalogue_lab09_polls_an_event,
    catalogue_lab09_waits_per_chunk,
)
from .rewriting import plant, replace_once, rewrite_function
from .sample_files import student_files, write_folder, write_tar_gz, write_zip

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
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    lab01 = "labs/01-null-stream/null_stream.cu"
    lab02 = "labs/02-streams/streams.cu"

    write_folder(out / "solutions", student_files("solution"))

    nested = {f"cuda-streams-lab/{name}": text for name, text in student_files("starter").items()}
    nested["cuda-streams-lab/README.md"] = "my notes\n"
    write_zip(out / "starters.zip", nested)

    broken = student_files("solution")
    broken[lab01] += SYNTAX_ERROR
    write_tar_gz(out / "does-not-compile.tar.gz", broken)

    write_folder(out / "kernel-never-ends", hanging_submission())

    crash = student_files("solution")
    plant(crash, lab02, NULL_STREAM_LOOP, NULL_WRITE, before=False)
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
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
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


# ---------------------------------------------------------------- the catalogue
#
#   python3 -m selfgrading.make_grading_samples --catalogue /tmp/cat
#
# Samples that check the tests grade the concept. A known-wrong sample breaks one
# requirement and must fail exactly the tests catalogue-expected.json names for
# its lab, and no other; a correct alternative solves a lab another right way and
# must score full points. selfgrading/selfgrade.py grades each sample's lab and compares.
# Each sample is the solutions with one function of one lab rewritten.

LAB01, LAB04 = "labs/01-null-stream/null_stream.cu", "labs/04-async-copies/async_copies.cu"
LAB01_PREDICTION, LAB05_PREDICTION = "labs/01-null-stream/prediction.txt", "labs/05-three-chunks/prediction.txt"
LAB04_PREDICTION = "labs/04-async-copies/prediction.txt"

RUN_PIPELINE_STREAM_PER_STAGE = """float run_pipeline(const PipelineJob& job, int chunks) {
    // One stream per stage, not per chunk: copies in, kernels, copies out. Events
    // carry each chunk from one stage's stream to the next.
    streamlab::Stream copies_in(cudaStreamNonBlocking), kernels(cudaStreamNonBlocking),
        copies_out(cudaStreamNonBlocking);
    std::vector<streamlab::Event> copied_in, computed;
    for (int i = 0; i < chunks; ++i) {
        copied_in.emplace_back(cudaEventDisableTiming);
        computed.emplace_back(cudaEventDisableTiming);
    }
    streamlab::Event start(cudaEventDefault), stop(cudaEventDefault);
    start.record(copies_in.get());
    SL_CHECK(cudaStreamWaitEvent(kernels.get(), start.get(), 0));
    SL_CHECK(cudaStreamWaitEvent(copies_out.get(), start.get(), 0));
    for (int i = 0; i < chunks; ++i) {
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, i);
        const std::size_t bytes = chunk.count * sizeof(float);
        SL_CHECK(cudaMemcpyAsync(job.device_input + chunk.offset, job.input + chunk.offset, bytes,
                                 cudaMemcpyHostToDevice, copies_in.get()));
        copied_in[i].record(copies_in.get());
        SL_CHECK(cudaStreamWaitEvent(kernels.get(), copied_in[i].get(), 0));
        streamlab::launch_workload(job.device_input + chunk.offset, job.device_output + chunk.offset, chunk.count,
                                   job.iterations, kernels.get());
        computed[i].record(kernels.get());
        SL_CHECK(cudaStreamWaitEvent(copies_out.get(), computed[i].get(), 0));
        SL_CHECK(cudaMemcpyAsync(job.output + chunk.offset, job.device_output + chunk.offset, bytes,
                                 cudaMemcpyDeviceToHost, copies_out.get()));
    }
    stop.record(copies_out.get());  // the last stage's stream ends after every chunk's copy back
    stop.synchronize();
    return streamlab::elapsed_ms(start, stop);
}

"""

RUN_PIPELINE_STAGE_BY_STAGE = """float run_pipeline(const PipelineJob& job, int chunks) {
    // One stream per chunk, issued stage by stage: every copy in, then every
    // kernel, then every copy out. Each stream waits for `start` (the fork) and
    // `stop` waits for every stream (the join).
    std::vector<streamlab::Stream> streams;
    for (int i = 0; i < chunks; ++i) {
        streams.emplace_back(cudaStreamNonBlocking);
    }
    streamlab::Event start(cudaEventDefault), stop(cudaEventDefault), done(cudaEventDisableTiming);
    start.record(streams[0].get());
    for (int i = 1; i < chunks; ++i) {
        SL_CHECK(cudaStreamWaitEvent(streams[i].get(), start.get(), 0));
    }
    const auto range = [&](int i) { return streamlab::chunk_range(job.n, chunks, i); };
    for (int i = 0; i < chunks; ++i) {
        SL_CHECK(cudaMemcpyAsync(job.device_input + range(i).offset, job.input + range(i).offset,
                                 range(i).count * sizeof(float), cudaMemcpyHostToDevice, streams[i].get()));
    }
    for (int i = 0; i < chunks; ++i) {
        streamlab::launch_workload(job.device_input + range(i).offset, job.device_output + range(i).offset,
                                   range(i).count, job.iterations, streams[i].get());
    }
    for (int i = 0; i < chunks; ++i) {
        SL_CHECK(cudaMemcpyAsync(job.output + range(i).offset, job.device_output + range(i).offset,
                                 range(i).count * sizeof(float), cudaMemcpyDeviceToHost, streams[i].get()));
    }
    for (int i = 1; i < chunks; ++i) {
        done.record(streams[i].get());
        SL_CHECK(cudaStreamWaitEvent(streams[0].get(), done.get(), 0));
    }
    stop.record(streams[0].get());
    stop.synchronize();
    return streamlab::elapsed_ms(start, stop);
}

"""

HOST_CLOCK_RUN_SERIAL = """float run_serial(const float* input, float* output, std::size_t n, int iterations) {
    // Timed with the host's clock, not with CUDA events.
    const std::size_t bytes = n * sizeof(float);
    streamlab::DeviceBuffer<float> d_input(n);
    streamlab::DeviceBuffer<float> d_output(n);
    const auto began = std::chrono::steady_clock::now();
    SL_CHECK(cudaMemcpy(d_input.data(), input, bytes, cudaMemcpyHostToDevice));
    streamlab::launch_workload(d_input.data(), d_output.data(), n, iterations, /*stream=*/nullptr);
    SL_CHECK(cudaMemcpy(output, d_output.data(), bytes, cudaMemcpyDeviceToHost));
    const std::chrono::duration<float, std::milli> took = std::chrono::steady_clock::now() - began;
    return took.count();
}

"""

ONE_MALLOC_ASYNC = """    SL_CHECK(cudaMallocAsync(&d_input, 2 * bytes, stream));  // one allocation for both buffers
    d_output = d_input + n;
"""


def catalogue_lab05_ignores_chunks(files: dict[str, str]) -> None:
    """Known wrong: always makes lab05::kChunks chunks, whatever the caller asks for."""
    replace_once(
        files,
        LAB05,
        "float run_pipeline(const PipelineJob& job, int chunks) {\n",
        "float run_pipeline(const PipelineJob& job, int chunks) {\n    chunks = kChunks;  // ignores the count\n",
    )


def catalogue_lab05_stop_without_join(files: dict[str, str]) -> None:
    """Known wrong: records `stop` in the last chunk's stream, which joins nothing (D2H_3 ends last anyway)."""
    replace_once(
        files,
        LAB05,
        "    for (int i = 1; i < chunks; ++i) {\n        chunk_done.record(streams[i].get());\n"
        "        SL_CHECK(cudaStreamWaitEvent(first, chunk_done.get(), 0));\n    }\n    stop.record(first);\n",
        "    stop.record(streams.back().get());  // no join\n",
    )


def catalogue_lab05_stream_per_stage(files: dict[str, str]) -> None:
    """Overlaps as well as the solution, but lays the streams out one per stage, not one per chunk."""
    rewrite_function(files, LAB05, "float run_pipeline(", RUN_PIPELINE_STREAM_PER_STAGE)


def catalogue_lab05_stage_by_stage(files: dict[str, str]) -> None:
    """Correct: one stream per chunk, issued stage by stage, with the fork and the join."""
    rewrite_function(files, LAB05, "float run_pipeline(", RUN_PIPELINE_STAGE_BY_STAGE)


def catalogue_lab01_host_clock(files: dict[str, str]) -> None:
    """Known wrong: times the serial run with the host's clock instead of CUDA events."""
    rewrite_function(files, LAB01, "float run_serial(", HOST_CLOCK_RUN_SERIAL)
    files[LAB01] = "#include <chrono>\n" + files[LAB01]


def catalogue_lab04_one_malloc_async(files: dict[str, str]) -> None:
    """Correct: one cudaMallocAsync holds both device buffers (and one cudaFreeAsync releases it)."""
    replace_once(
        files,
        LAB04,
        "    SL_CHECK(cudaMallocAsync(&d_input, bytes, stream));\n"
        "    SL_CHECK(cudaMallocAsync(&d_output, bytes, stream));\n",
        ONE_MALLOC_ASYNC,
    )
    replace_once(files, LAB04, "    SL_CHECK(cudaFreeAsync(d_output, stream));\n", "")


def catalogue_lab05_prediction_no_speedup(files: dict[str, str]) -> None:
    """Known wrong: predicts that three chunks are no faster than the serial run."""
    replace_once(files, LAB05_PREDICTION, "speedup: 1.8\n", "speedup: 1.0\n")


def catalogue_lab01_prediction_missing(files: dict[str, str]) -> None:
    """Known wrong: no prediction.txt in the submission (the grader stages the unanswered template)."""
    del files[LAB01_PREDICTION]


def catalogue_lab04_prediction_swapped(files: dict[str, str]) -> None:
    """Known wrong: predicts the host waits with pinned buffers and not with pageable ones."""
    replace_once(files, LAB04_PREDICTION, "pinned: busy\n", "pinned: done\n")
    replace_once(files, LAB04_PREDICTION, "pageable: done\n", "pageable: busy\n")


LAB02_PREDICTION = "labs/02-streams/prediction.txt"


def catalogue_lab02_prediction_swapped(files: dict[str, str]) -> None:
    """Known wrong: predicts the last stream idle at once and the first still busy after waiting for it."""
    replace_once(files, LAB02_PREDICTION, "last_stream_idle_when_polled: no\n", "last_stream_idle_when_polled: yes\n")
    replace_once(files, LAB02_PREDICTION, "first_stream_idle_after_sync: yes\n", "first_stream_idle_after_sync: no\n")


LAB06 = "labs/06-many-chunks/many_chunks.cu"
LAB06_STAGING_WAIT = "        if (c >= staging_slots) {\n            copied_in[s].synchronize();\n        }\n"


def catalogue_lab06_staging_reused_early(files: dict[str, str]) -> None:
    """Known wrong: the host refills a staging buffer without waiting for the H2D copy that last read it.
    The results come out right while the GPU keeps up; the hazard test, with a slow GPU, sees the early reuse."""
    replace_once(files, LAB06, LAB06_STAGING_WAIT, "")


def catalogue_lab06_waits_for_the_device(files: dict[str, str]) -> None:
    """Known wrong: safe but serial, the host waits for the whole device before every chunk."""
    replace_once(files, LAB06, LAB06_STAGING_WAIT, "        SL_CHECK(cudaDeviceSynchronize());\n")


LAB07 = "labs/07-dependencies-and-graphs/dependencies.cu"


def catalogue_lab07_host_function_calls_cuda(files: dict[str, str]) -> None:
    """Known wrong: the host function makes a CUDA call before it consumes (its result ignored, so
    nothing else changes). The consumer's thread then shows a runtime call on the recorded timeline."""
    replace_once(
        files,
        LAB07,
        "                const auto* delivery = static_cast<const Delivery*>(data);\n",
        "                const auto* delivery = static_cast<const Delivery*>(data);\n"
        "                (void)cudaGetLastError();  // a CUDA call where CUDA forbids one\n",
    )


def catalogue_lab07_graph_without_join(files: dict[str, str]) -> None:
    """Known wrong: the stage streams are forked into the capture and never joined back, so ending
    the capture fails (cudaErrorStreamCaptureUnjoined) and run_graph throws."""
    replace_once(
        files,
        LAB07,
        "    for (cudaStream_t stage : {copy_in.get(), compute.get(), copy_out.get()}) {\n"
        "        joined.record(stage);\n"
        "        SL_CHECK(cudaStreamWaitEvent(origin.get(), joined.get(), 0));\n"
        "    }\n",
        "",
    )


LAB08 = "labs/08-two-gpus/two_gpus.cu"


def catalogue_lab08_everything_on_one_gpu(files: dict[str, str]) -> None:
    """Known wrong: run_split streams all the data through the first GPU of the job and leaves the other
    idle. The results are right and every stream and copy is as it should be, on one GPU."""
    replace_once(
        files,
        LAB08,
        "    const int gpus = static_cast<int>(job.gpus.size());\n",
        "    const int gpus = job.gpus.empty() ? 0 : 1;  // everything on the first GPU\n",
    )


def catalogue_lab01_prediction_other_notation(files: dict[str, str]) -> None:
    """Correct: the same prediction written another way (lower case, groups in another order, no comments)."""
    files[LAB01_PREDICTION] = "blocking:a<b<c\n  nonblocking :  C + A+B   # all three together\n"


CATALOGUE = {
    # name: (how the sample is made, its lab, the tests it must fail: none for a correct alternative)
    "wrong-lab05-ignores-chunks": (catalogue_lab05_ignores_chunks, "05", ["ThreeChunks.AnyChunkCountWorks"]),
    "wrong-lab05-stream-per-stage": (
        catalogue_lab05_stream_per_stage,
        "05",
        ["ThreeChunks.EachChunkRunsInItsOwnStream"],
    ),
    "wrong-lab05-stop-without-join": (
        catalogue_lab05_stop_without_join,
        "05",
        ["ThreeChunks.ReportedSpeedupMatchesTimeline"],
    ),
    "wrong-lab01-host-clock": (catalogue_lab01_host_clock, "01", ["SerialRun.EventTimeMatchesTimeline"]),
    "right-lab05-stage-by-stage": (catalogue_lab05_stage_by_stage, "05", []),
    "right-lab04-one-malloc-async": (catalogue_lab04_one_malloc_async, "04", []),
    "wrong-lab05-prediction-no-speedup": (
        catalogue_lab05_prediction_no_speedup,
        "05",
        ["ThreeChunks.YourPredictionMatchesTheTimeline"],
    ),
    "wrong-lab01-prediction-missing": (
        catalogue_lab01_prediction_missing,
        "01",
        ["BarrierDemo.YourPredictionMatchesTheTimeline"],
    ),
    "right-lab01-prediction-other-notation": (catalogue_lab01_prediction_other_notation, "01", []),
    "wrong-lab02-prediction-swapped": (
        catalogue_lab02_prediction_swapped,
        "02",
        ["Streams.YourPredictionMatchesTheTimeline"],
    ),
    "wrong-lab04-prediction-swapped": (
        catalogue_lab04_prediction_swapped,
        "04",
        ["PageableMemory.YourPredictionMatchesTheTimeline"],
    ),
    "wrong-lab06-staging-reused-early": (
        catalogue_lab06_staging_reused_early,
        "06",
        ["ManyChunks.NoBufferReusedBeforeItsLastUseEnded"],
    ),
    "wrong-lab06-waits-for-the-device": (
        catalogue_lab06_waits_for_the_device,
        "06",
        ["ManyChunks.CopiesOverlapKernels", "ManyChunks.MakespanNearTheModel"],
    ),
    "wrong-lab07-host-function-calls-cuda": (
        catalogue_lab07_host_function_calls_cuda,
        "07",
        ["HostConsumer.ConsumedInHostFunctionsThatCallNoCuda"],
    ),
    "wrong-lab07-graph-without-join": (
        catalogue_lab07_graph_without_join,
        "07",
        [
            "Graph.ResultsMatchCpuReference",
            "Graph.OneInstantiationLaunchedManyTimes",
            "Graph.ChunksOverlapInsideEachLaunch",
        ],
    ),
    "wrong-lab08-everything-on-one-gpu": (
        catalogue_lab08_everything_on_one_gpu,
        "08",
        [
            "TwoGpus.BothGpusRunTheirShare",
            "TwoGpus.WorkSplitEvenly",
            "TwoGpus.BothGpusCopyInFromTheHostAtOnce",
            "TwoGpus.FasterThanOneGpu",
        ],
    ),
    "wrong-lab09-memset-in-null-stream": (
        catalogue_lab09_memset_in_null_stream,
        "09",
        ["Serialize.EachChunkRunsInItsOwnStream", "Serialize.CopiesOverlapKernels", "Serialize.MakespanNearTheModel"],
    ),
    "wrong-lab09-pinned-in-the-loop": (
        catalogue_lab09_pinned_in_the_loop,
        "09",
        ["Serialize.NoPinnedAllocationWhileBusy", "Serialize.CopiesOverlapKernels", "Serialize.MakespanNearTheModel"],
    ),
    "right-lab09-allocate-before-the-loop": (catalogue_lab09_allocate_before_the_loop, "09", []),
    "right-lab09-polls-an-event": (catalogue_lab09_polls_an_event, "09", []),
    "wrong-lab09-waits-per-chunk": (
        catalogue_lab09_waits_per_chunk,
        "09",
        ["LateError.ChecksKeepThePipelineOverlapped"],
    ),
    "wrong-lab09-chooses-spin": (catalogue_lab09_chooses_spin, "09", ["WaitChoice.SuitsAHostWithOtherWork"]),
    "right-lab09-chooses-blocking-sync": (catalogue_lab09_chooses_blocking_sync, "09", []),
}


def make_catalogue(out: Path) -> list[str]:
    """Writes the catalogue's samples and catalogue-expected.json into `out` (emptied first)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    expected = {}
    for name, (make, lab, fails) in CATALOGUE.items():
        files = student_files("solution")
        make(files)
        write_folder(out / name, files)
        expected[name] = {"lab": lab, "fails": fails}
    (out / "catalogue-expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    return sorted(CATALOGUE)


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
