"""Sample submissions that attack the grader itself, for `make_grading_samples.py`.

Each is lab 01's solution with something hostile at the start of run_serial
(which every lab 01 test calls), or an archive that is hard to read:

  aa-rewrites-staged-sources/  rewrites every other student's staged lab 01 source with a syntax error
  kills-the-grader/            kill(getppid(), SIGKILL): in a sandbox that kills only the sandbox's own processes
  leaves-a-process/            a setsid'd child that keeps sabotaging other students' staged sources for minutes
  plants-a-student/            writes students/zz-planted/grade.json with full points for a student who never submitted
  prints-200mb/                prints 200 MB per call
  writes-another-grade/        overwrites the grade.json of the student "solutions"
  many-members.tar.gz          the solutions among 2,000 members (read in one pass, in well under a second)
  non-utf8-name.tar.gz         the solutions and a member whose name is not UTF-8 (shown escaped in the report)

What each must do: score what the solution scores, or 0 on lab 01 with the
reason (the grader may refuse such code before it runs); never change another
student's files or grade; leave no process behind; let the batch finish.
"""

from __future__ import annotations

from pathlib import Path

from .sample_files import plant, student_files, write_folder, write_tar_gz

LAB01 = "labs/01-null-stream/null_stream.cu"
ANCHOR = "float run_serial(const float* input, float* output, std::size_t n, int iterations) {\n"
VICTIM = "solutions"  # a student of make_grading_samples.py, graded after the "aa-" sample

# Where the grader keeps its output: the recording program runs from OUTDIR/.work/<student>/build/...
HELPERS = r"""#include <dirent.h>
#include <signal.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <string>
namespace {
std::string grader_output() {
    char exe[4096] = {};
    if (readlink("/proc/self/exe", exe, sizeof exe - 1) <= 0) return "";
    const char* work = std::strstr(exe, "/.work/");
    return work ? std::string(exe, static_cast<std::size_t>(work - exe)) : std::string();
}
void write_file(const std::string& path, const std::string& text) {
    if (FILE* file = std::fopen(path.c_str(), "w")) {
        std::fputs(text.c_str(), file);
        std::fclose(file);
    }
}
void sabotage_staged_sources() {
    const std::string work = grader_output() + "/.work";
    if (DIR* folder = opendir(work.c_str())) {
        while (dirent* entry = readdir(folder)) {
            write_file(work + "/" + entry->d_name + "/labs/01-null-stream/null_stream.cu", "sabotaged\n");
        }
        closedir(folder);
    }
}
}  // namespace
"""
FULL_POINTS = (
    '{"student": "%s", "labs": [{"number": "01", "folder": "01-null-stream", "tests": '
    '[{"name": "SerialRun.ResultMatchesCpuReference", "points": 100, "status": "passed"}]}]}'
)
ATTACKS = {
    "kills-the-grader": "    kill(getppid(), SIGKILL);\n",
    "writes-another-grade": (
        f'    write_file(grader_output() + "/students/{VICTIM}/grade.json", R"({FULL_POINTS % VICTIM})");\n'
    ),
    "plants-a-student": (
        '    std::system(("mkdir -p " + grader_output() + "/students/zz-planted").c_str());\n'
        f'    write_file(grader_output() + "/students/zz-planted/grade.json", '
        f'R"({FULL_POINTS % "zz-planted"})");\n'
    ),
    "aa-rewrites-staged-sources": "    sabotage_staged_sources();\n",
    "leaves-a-process": (
        "    if (fork() == 0) {\n        setsid();\n"
        "        for (int i = 0; i < 6000; ++i) { sabotage_staged_sources(); usleep(100000); }\n"
        "        _exit(0);\n    }\n"
    ),
    "prints-200mb": (
        "    static char line[(1 << 20) + 1];\n    std::memset(line, 'x', sizeof line - 1);\n"
        '    for (int i = 0; i < 200; ++i) std::printf("%s", line);\n'
    ),
}
MANY_MEMBERS = 2000


def make_isolation_samples(out: Path) -> None:
    """Writes the samples above into `out`."""
    for name, attack in ATTACKS.items():
        files = student_files("solution")
        files[LAB01] = "#include <cstdlib>\n" + files[LAB01]
        plant(files, LAB01, "namespace lab01 {\n", HELPERS)
        plant(files, LAB01, ANCHOR, attack, before=False)
        write_folder(out / name, files)

    solutions = {name: text.encode() for name, text in student_files("solution").items()}
    many = dict(solutions)
    for i in range(MANY_MEMBERS - len(solutions)):
        many[f"notes/{i:04d}.txt"] = b"a note\n"
    write_tar_gz(out / "many-members.tar.gz", many)
    write_tar_gz(out / "non-utf8-name.tar.gz", {**solutions, "labs/01-null-stream/caf\udce9-notes.txt": b"not UTF-8\n"})


def isolation_problems(out: Path, students: list[str], log_limit: int) -> list[str]:
    """What a graded batch of these samples (and the student "solutions") shows that should not be.

    The scores of the hostile samples are not checked here (the grader may refuse their code, or their
    tests fail): only that each has a row, that nobody else was harmed, and that nothing outlived the batch.
    """
    from coursecli.gradebook import load_grade, student_folder

    problems = []
    for student in students:
        grade = load_grade(student_folder(out, student))
        if grade is None:
            problems.append(f"{student}: no verified grade (a row is owed to every student)")
        elif student in (VICTIM, "many-members", "non-utf8-name") and (
            not grade.labs or any(lab.earned != lab.possible or not lab.graded for lab in grade.labs)
        ):
            problems.append(
                f"{student}: not full points: "
                + "; ".join(f"{t.name} ({t.reason})" for lab in grade.labs for t in lab.tests if t.status != "passed")
            )
    if (out / "students" / "zz-planted").exists():
        problems.append("a student who never submitted was planted in students/zz-planted")
    log = student_folder(out, "prints-200mb") / "grade.log"
    if log.exists() and log.stat().st_size > log_limit + (1 << 20):
        problems.append(f"prints-200mb: grade.log holds {log.stat().st_size} bytes")
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(out / ".work").encode() in cmdline.read_bytes():
                problems.append(f"a process outlived its step: {cmdline.read_bytes()[:200]!r}")
        except OSError:
            continue
    return problems
