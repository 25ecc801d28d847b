"""The check before linking (objcheck.py, symbols.py) on texts and symbol lists, and on objects built
here with the course's compile commands: each way of running code outside the lab's functions
(fixtures/objcheck/, each a lab 05 source) is refused, and every catalogue sample passes.
test_grade_cheats.py checks every starter and solution and grades the cheats."""

import json
import os
import shutil
from pathlib import Path

import pytest
from coursecli import environment
from coursecli.grade_settings import GradeSettings
from coursecli.grading_build import configure_course
from coursecli.objcheck import (
    CourseCompiler,
    LabRules,
    check_code,
    check_lab,
    check_source,
    check_symbols,
    declared_interface,
    lab_rules,
    own_lines,
)
from coursecli.shell import ROOT
from coursecli.submissions import course_labs, selected_labs
from coursecli.symbols import entity
from selfgrading.catalogue import CATALOGUE
from selfgrading.make_grading_samples import student_files, write_folder

HEADER = """
#pragma once
#include <vector>
namespace labxx {
/// A type with an inline member: not the student's to define.
struct Job {
    int n = 0;
    int twice() const { return 2 * n; }
    void reset();                       // declared here, defined by the student
};
inline constexpr int kChunks = 3;
using Work = std::vector<int>;
float run(const Job& job, int chunks);  // the interface
[[nodiscard]] const char* name_of(int (*pick)(int), int x);
extern int counter;
template <typename T> T twice(T x) { return 2 * x; }
inline int helper() { return 1; }
}  // namespace labxx
"""
RULES = LabRules(interface={"labxx::run", "labxx::Job::reset"}, namespaces={"labxx"}, headers=["labxx.hpp"])


def test_the_interface_is_what_the_header_declares_without_defining():
    names, namespaces = declared_interface(HEADER)
    assert names == {"labxx::Job::reset", "labxx::run", "labxx::name_of", "labxx::counter"}
    assert namespaces == {"labxx"}


@pytest.mark.parametrize("lab", course_labs(ROOT), ids=lambda lab: lab.folder)
def test_every_course_lab_has_an_interface(lab):
    rules = lab_rules(ROOT / "labs" / lab.folder, lab.files)
    assert rules.interface and all(name.startswith(f"lab{lab.number}::") for name in rules.interface)


@pytest.mark.parametrize(
    "demangled, name",
    [
        ("lab05::run_pipeline(lab05::PipelineJob const&, int)", "lab05::run_pipeline"),
        (
            "void std::vector<int, std::allocator<int> >::_M_realloc_insert<int>(int&&)",
            "std::vector<int, std::allocator<int> >::_M_realloc_insert<int>",
        ),
        ("lab02::(anonymous namespace)::stream_is_idle(CUstream_st*)", "lab02::(anonymous namespace)::stream_is_idle"),
        ("typeinfo for streamlab::TimelineUnavailable", "streamlab::TimelineUnavailable"),
        ("operator new(unsigned long)", "operator new"),
        (
            "std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)",
            "std::operator<< <std::char_traits<char> >",
        ),
        ("exit", "exit"),
    ],
)
def test_a_symbol_names_its_entity(demangled, name):
    assert entity(demangled) == name


def test_an_honest_object_passes():
    symbols = [
        ("labxx::run(labxx::Job const&, int)", "T"),
        ("labxx::Job::reset()", "T"),
        ("labxx::(anonymous namespace)::kernel(float*)", "T"),
        ("streamlab::Event::reset()", "W"),
        ("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int>(int&&)", "W"),
        ("cudaMemcpyAsync", "U"),
        ("streamlab::launch_workload(float const*, float*)", "U"),
        ("operator new(unsigned long)", "U"),
        ("__cudaRegisterFatBinary", "U"),
        ("atexit", "U"),
        ("typeinfo for streamlab::CudaError", "U"),
        ("memcpy", "U"),
        ("printf", "U"),
        ("local", "t"),
    ]
    assert check_symbols("x.cu", symbols, RULES) == []


# What graded code may not do, one symbol each (kind as `nm` shows it) with words its finding must say.
REFUSED_SYMBOLS = json.loads((Path(__file__).parent / "refused_symbols.json").read_text())


@pytest.mark.parametrize("refused", REFUSED_SYMBOLS, ids=lambda refused: f"{refused['kind']}-{refused['symbol']}")
def test_what_graded_code_may_not_do_is_named(refused):
    findings = check_symbols("x.cu", [(refused["symbol"], refused["kind"])], RULES)
    assert len(findings) == 1 and refused["says"] in findings[0]


def test_a_lab_can_allow_more():
    rules = LabRules(interface=set(), namespaces={"labxx"}, allow_symbols=["getpid"], allow_asm=True)
    assert check_symbols("x.cu", [("getpid", "U")], rules) == []
    assert check_source("x.cu", 'void f() { asm volatile("nop"); }', rules) == []


@pytest.mark.parametrize(
    "text, says",
    [
        ('#include "/etc/passwd"\n', "x.cu:1 includes a file by its path"),
        ("#include <../../secret.h>\n", "x.cu:1 includes a file by its path"),
        ('\n  #  include "a/../../b"\n', "x.cu:2 includes a file by its path"),
        ('#define F "/etc/passwd"\n#include F\n', "x.cu:2 includes a file named by a macro"),
        ('#inc\\\nlude "/etc/passwd"\n', "x.cu:1 includes a file by its path"),
        ('%:include "/etc/passwd"\n', "x.cu:1 includes a file by its path"),
        ("namespace streamlab {\nstruct Stream { int get() const { return 0; } };\n}\n", "namespace streamlab"),
        ("namespace streamlab::detail { int x; }\n", "namespace streamlab"),
        ('void f() { asm("int3"); }\n', "inline asm"),
        ('void f() { __asm__ __volatile__("nop"); }\n', "inline asm"),
    ],
)
def test_a_source_that_reaches_outside_is_refused_before_compiling(text, says):
    findings = check_source("x.cu", text, RULES)
    assert findings and says in findings[0]


def test_macros_cannot_hide_asm_or_the_course_namespace():
    expanded = (
        '# 1 "/s/x.cu"\n# 1 "/cuda/include/h.h" 1\nasm("from a header");\n# 3 "/s/x.cu" 2\nvoid f() { asm("nop"); }\n'
    )
    own = own_lines(expanded, Path("/s/x.cu"))
    assert "header" not in own and "nop" in own
    assert "inline asm" in check_code("x.cu", own, RULES)[0]


def test_honest_text_is_not_refused():
    text = (
        '#include <vector>\n#include "lab05.hpp"\n#include "streamlab/handles.hpp"\n'
        '// asm in a comment, "namespace streamlab" in a string:\n'
        'const char* s = "asm namespace streamlab /etc/passwd";\nnamespace sl = streamlab;\n'
    )
    assert check_source("x.cu", text, RULES) == []


needs_compilers = pytest.mark.skipif(
    shutil.which("cmake") is None or environment.find_nvcc() is None or shutil.which("readelf") is None,
    reason="needs cmake, nvcc and readelf to build objects",
)
FORGED = Path(__file__).parent / "fixtures" / "objcheck"
LAB05 = "05-three-chunks"


@pytest.fixture(scope="module")
def course_compiler(tmp_path_factory) -> CourseCompiler:
    """The course's compile commands, from a course build configured once for this file."""
    out = tmp_path_factory.mktemp("objcheck-course")
    labs = selected_labs(None, ROOT)
    settings = GradeSettings(out=out, labs=labs, all_labs=labs, cuda_arch="90")
    problem = configure_course(settings)
    assert problem == "", problem
    return settings.compiler


def check_lab05(door: Path, work: Path, compiler: CourseCompiler) -> list[str]:
    """Every finding on lab 05's starter (whose run_pipeline does nothing) with `door` at its top."""
    (work / "staged" / LAB05).mkdir(parents=True)
    starter = (ROOT / "labs" / LAB05 / "three_chunks.cu").read_text()
    (work / "staged" / LAB05 / "three_chunks.cu").write_text(door.read_text() + "\n" + starter)
    files = ["three_chunks.cu"]
    rules = lab_rules(ROOT / "labs" / LAB05, files)
    refusal, output = check_lab(LAB05, files, work / "staged", work / "objects", rules, compiler)
    assert output == "", output
    return refusal.details.splitlines() if refusal else []


# Each way past the functions the course calls (all accepted before this check, but the last two)
# and words its first finding must say.
DOORS = {
    "constructor.cu": "runs code before main (a constructor: (anonymous namespace)::lab05_init)",
    "global_object.cu": "runs code before main (a global object with a constructor or destructor)",
    "global_object_and_iostream.cu": "runs code before main (a global object with a constructor or destructor)",
    "global_destructor.cu": "runs code before main (a global object with a constructor or destructor)",
    "destructor.cu": "runs code after main (a destructor: (anonymous namespace)::lab05_done)",
    "local_static.cu": "runs code after main (the destructor of a static object, in (anonymous namespace)::length)",
    "atexit.cu": "runs code after main (a function registered with atexit, in (anonymous namespace)::plan_later)",
    "thread_local.cu": "(the dynamic initialiser of thread_local (anonymous namespace)::seed)",
    "ifunc.cu": "runs code while the program loads (the resolver of ifunc (anonymous namespace)::chosen)",
    "init_array_by_hand.cu": "runs code before main (a constructor: (anonymous namespace)::early)",
    "forged_record.cu": "runs code before main (a constructor: (anonymous namespace)::write_the_record)",
    "abort.cu": "calls abort(): graded code may not end the process",
    "stdio_filebuf.cu": "stdio_filebuf<char, std::char_traits<char> >::~stdio_filebuf(): graded code may not use file "
    "descriptors",
    "write.cu": "calls write(): graded code may not use file descriptors",
}


@needs_compilers
@pytest.mark.builds
@pytest.mark.parametrize("door", sorted(DOORS))
def test_code_outside_the_labs_functions_is_refused(door, tmp_path, course_compiler):
    findings = check_lab05(FORGED / door, tmp_path, course_compiler)
    assert findings and findings[0].startswith("three_chunks.cu ") and DOORS[door] in findings[0], findings


@needs_compilers
@pytest.mark.builds
def test_the_forged_record_is_refused_for_its_constructor_and_its_file_descriptor(tmp_path, course_compiler):
    findings = check_lab05(FORGED / "forged_record.cu", tmp_path, course_compiler)
    assert any("std::__basic_file<char>::sys_open(): graded code may not use file descriptors" in f for f in findings)


@needs_compilers
@pytest.mark.builds
@pytest.mark.parametrize("suffix", [".cu", ".cpp"])
def test_the_compilers_own_constructors_are_allowed(suffix, tmp_path, course_compiler):
    """nvcc's registration of a .cu object's kernels, and GCC's set-up of std::cout (before GCC 13),
    in a lab's .cu and .cpp sources; a file of lab 09 that defines a kernel and prints with std::cout."""
    lab, name = ("09-why-streams-serialize", "serialize.cu" if suffix == ".cu" else "waiting_host.cpp")
    files = student_files("solution")
    source = files[f"labs/{lab}/{name}"].replace("#include", "#include <iostream>\n#include", 1)
    source += "\nnamespace {\nvoid say(int x) { std::cout << x << '\\n'; }\n}  // namespace\n"
    if suffix == ".cu":
        source += "namespace {\n__global__ void twice(float* x) { x[threadIdx.x] *= 2; }\n}  // namespace\n"
    write_folder(tmp_path / "staged", {f"labs/{lab}/{name}": source})
    refusal, output = check_lab(
        lab,
        [name],
        tmp_path / "staged" / "labs",
        tmp_path / "objects",
        lab_rules(ROOT / "labs" / lab, [name]),
        course_compiler,
    )
    assert output == "" and refusal is None, refusal


@needs_compilers
@pytest.mark.builds
def test_every_catalogue_sample_passes_the_check(tmp_path, course_compiler):
    """The catalogue's samples are honest code, right or wrong for other reasons: the check never refuses them."""
    solutions = student_files("solution")
    for sample, (make, _, _) in CATALOGUE.items():
        files = dict(solutions)
        make(files)
        changed = {path: text for path, text in files.items() if text != solutions[path] and not path.endswith(".txt")}
        write_folder(tmp_path / sample, changed)
        for path in changed:
            _, lab, name = path.split("/")
            refusal, output = check_lab(
                lab,
                [name],
                tmp_path / sample / "labs",
                tmp_path / "objects" / sample,
                lab_rules(ROOT / "labs" / lab, [name]),
                course_compiler,
            )
            assert output == "" and refusal is None, f"{sample}: {refusal or output}"


def test_course_check_vets_the_object_its_build_just_made_of_the_students_own_file(tmp_path):
    """`course check` builds the student's files in labs/ with the very command the vetting would run: it
    vets that object (reuse_built_objects) rather than compile the file again. Any other file (a solution, a
    submission), or an object older than its source, is compiled: here by `false`, which fails."""
    root, build = tmp_path / "course", tmp_path / "build"
    source = root / "labs" / "01-lab" / "mine.cu"
    source.parent.mkdir(parents=True)
    source.write_text("int main() {}\n")
    (build / "obj").mkdir(parents=True)
    entry = {"directory": str(build), "file": str(source), "command": f"false -c {source} -o obj/mine.cu.o"}
    (build / "compile_commands.json").write_text(json.dumps([entry]))
    built = build / "obj" / "mine.cu.o"
    built.write_bytes(b"the build's object")
    reusing = CourseCompiler(build, root, reuse_built_objects=True)
    assert reusing.compile("01-lab", "mine.cu", source, tmp_path / "vetted.o") == (0, "")
    assert (tmp_path / "vetted.o").read_bytes() == b"the build's object"
    other = tmp_path / "solution" / "mine.cu"
    other.parent.mkdir()
    other.write_text(source.read_text())
    assert reusing.compile("01-lab", "mine.cu", other, tmp_path / "other.o")[0] != 0
    assert CourseCompiler(build, root).compile("01-lab", "mine.cu", source, tmp_path / "grader.o")[0] != 0
    os.utime(built, ns=(0, 0))  # older than the source: not what the build made of it now
    assert reusing.compile("01-lab", "mine.cu", source, tmp_path / "stale.o")[0] != 0
