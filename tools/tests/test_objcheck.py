"""The check before linking (objcheck.py, symbols.py) on texts and symbol lists; test_grade_batch.py
runs it on real objects."""

import json
from pathlib import Path

import pytest
from coursecli.objcheck import (
    LabRules,
    check_code,
    check_source,
    check_symbols,
    declared_interface,
    lab_rules,
    own_lines,
)
from coursecli.shell import ROOT
from coursecli.submissions import course_labs
from coursecli.symbols import entity

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
