"""`--sanitize`: compute-sanitizer's records (real ones, recorded on an H200) read and explained."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from coursecli import sanitize
from coursecli import sanitizer_reports as reports
from coursecli.scoring import FAILED, NOT_GRADED, PASSED

FIXTURES = Path(__file__).parent / "fixtures" / "sanitizer"
# The probe's own source, as the lab sources are recognised: by a path suffix.
PROBE = reports.Sources({".probe/san_probe.cu": "probe/san_probe.cu"})


def records(name: str, tool: str = "memcheck", form: str = "xml"):
    text = (FIXTURES / f"{name}.{'xml' if form == 'xml' else 'txt'}").read_text()
    return reports.parse_xml(text, tool) if form == "xml" else reports.parse_text(text, tool)


def findings(name: str, tool: str = "memcheck", form: str = "xml"):
    found = records(name, tool, form)
    if form == "xml":
        reports.merge_text_details(found, records(name, tool, "text"))
    return reports.findings_from(found, PROBE)


@pytest.mark.parametrize("form", ["xml", "text"])
def test_clean_runs_have_no_findings(form):
    for name, tool in [
        ("memcheck_clean", "memcheck"),
        ("initcheck_clean", "initcheck"),
        ("memcheck_uninit", "memcheck"),
    ]:
        assert findings(name, tool, form) == [], name
    for name in ["memcheck_clean", "initcheck_clean", "racecheck_clean", "synccheck_clean"]:
        assert reports.error_total((FIXTURES / f"{name}.txt").read_text()) == 0, name


@pytest.mark.parametrize("form", ["xml", "text"])
def test_out_of_bounds_copy_is_named_with_its_call(form):
    [finding] = findings("memcheck_oob_copy", form=form)
    assert finding.kind == "out-of-bounds copy"
    assert finding.what == "cudaMemcpyAsync failed: cudaErrorInvalidValue (invalid argument)"
    assert finding.function == "main"  # no line information for host code without a resolver
    assert "last chunk" in finding.usual_cause


@pytest.mark.parametrize("form", ["xml", "text"])
def test_out_of_bounds_kernel_write_names_kernel_file_and_line(form):
    found = findings("memcheck_oob_kernel", form=form)
    kernel = [f for f in found if f.kind == "out-of-bounds kernel access"]
    assert len(kernel) == 1
    assert kernel[0].where == "probe/san_probe.cu:8"
    assert kernel[0].function.startswith("scale")
    assert "nearest allocation" in kernel[0].detail
    # The "unspecified launch failure" of every later call only echoes the fault: left out.
    assert not [f for f in found if f.kind == "failed CUDA call"]
    # The fault ended the context, so the probe's three frees failed: those leaks follow from it too.
    assert [f.kind for f in found] == ["out-of-bounds kernel access"]
    leaks = [r for r in records("memcheck_oob_kernel", form=form) if r.text.startswith("Leaked")]
    assert len(leaks) == 3


@pytest.mark.parametrize("form", ["xml", "text"])
def test_leaks_merge_by_allocating_call_and_place(form):
    # The probe's three leaks without its kernel fault: one pinned, two alike from cudaMalloc (merged).
    found = reports.findings_from(
        [r for r in records("memcheck_oob_kernel", form=form) if r.text.startswith("Leaked")], PROBE
    )
    assert sorted((f.kind, f.count) for f in found) == [("leaked device memory", 2), ("leaked pinned buffer", 1)]


@pytest.mark.parametrize("form", ["xml", "text"])
def test_leaked_pinned_buffer_names_the_allocating_call(form):
    [finding] = findings("memcheck_leak_pinned", form=form)
    assert finding.kind == "leaked pinned buffer"
    assert finding.what == "4004 bytes from cudaMallocHost, never freed"
    assert "cudaFreeHost" in finding.usual_cause


@pytest.mark.parametrize("form", ["xml", "text"])
def test_leaked_device_buffer_is_told_from_a_pinned_one(form):
    [finding] = findings("memcheck_leak_device", form=form)
    assert finding.kind == "leaked device memory"
    assert finding.what == "4000 bytes from cudaMalloc, never freed"


def test_a_leaked_stream_comes_from_the_census_not_from_memcheck():
    assert findings("memcheck_leak_stream") == []  # memcheck does not see it
    census = (
        '{"kind": "stream", "api": "cudaStreamCreateWithFlags", "frames": [["/x/lab05_yours_run", "0x1f"]]}\n'
        '{"kind": "event", "api": "cudaEventCreate", "frames": []}\n'
        '{"kind": "stre'
    )  # cut short at exit: ignored
    found = reports.findings_from(reports.parse_census(census), PROBE)
    assert [(f.kind, f.what) for f in found] == [
        ("leaked stream", "a stream from cudaStreamCreateWithFlags, never released"),
        ("leaked event", "an event from cudaEventCreate, never released"),
    ]


def test_the_simulated_gpus_census_names_leaked_memory_as_memcheck_would():
    census = (
        '{"kind": "device allocation", "api": "cudaMalloc", "frames": []}\n'
        '{"kind": "pinned buffer", "api": "cudaHostAlloc", "frames": []}\n'
    )
    found = reports.findings_from(reports.parse_census(census), PROBE)
    assert [(f.kind, f.what) for f in found] == [
        ("leaked device memory", "a device allocation from cudaMalloc, never released"),
        ("leaked pinned buffer", "a pinned buffer from cudaHostAlloc, never released"),
    ]


def test_a_python_programs_census_names_the_students_line_from_its_own_frames():
    """The simulated build's Python census (python/simulated_cuda_runtime.py) writes Python frames, innermost
    first, as [file, line, function]: no resolver is needed, and the innermost frame in the student's files
    is the place."""
    census = (
        '{"kind": "stream", "api": "cudaStreamCreate", "frames": [["/c/labs/05-x/python/lab05.py", 9, "helper"], '
        '["/s/labs/05-x/python/mine.py", 17, "run_pipeline"], ["/c/run_lab05.py", 30, "main"]]}\n'
    )
    sources = sanitize.lab_sources("05-x/python", ["mine.py"])
    [found] = reports.findings_from(reports.parse_census(census), sources)
    assert (found.kind, found.where, found.function) == ("leaked stream", "labs/05-x/python/mine.py:17", "run_pipeline")


@pytest.mark.parametrize("form", ["xml", "text"])
def test_uninitialised_reads_are_one_finding_counted(form):
    [finding] = findings("initcheck_uninit", "initcheck", form)
    assert finding.kind == "uninitialised device read"
    assert finding.where == "probe/san_probe.cu:12"
    assert finding.count == 100  # the records written (--print-limit); the summary counts them all
    assert reports.error_total((FIXTURES / "initcheck_uninit.txt").read_text()) == 1000


def test_text_and_xml_agree_on_every_recorded_run():
    for path in sorted(FIXTURES.glob("*.xml")):
        tool = path.stem.split("_")[0]
        from_xml = sorted((f.kind, f.where, f.count) for f in findings(path.stem, tool, "xml"))
        from_text = sorted((f.kind, f.where, f.count) for f in findings(path.stem, tool, "text"))
        assert from_xml == from_text, path.name


def test_what_stops_the_sanitizer_is_told_apart_from_findings():
    assert (
        reports.tool_problem(
            "========= COMPUTE-SANITIZER\n========= Error: No attachable process found. compute-sanitizer timed-out.\n"
        )
        != ""
    )
    for path in FIXTURES.glob("*.txt"):
        assert reports.tool_problem(path.read_text()) == "", path.name
    assert reports.error_total("the program printed this and nothing else\n") is None


def test_a_broken_xml_file_is_refused():
    with pytest.raises(ValueError):
        reports.parse_xml("<ComputeSanitizerOutput><record>", "memcheck")
    with pytest.raises(ValueError):
        reports.parse_xml("<other/>", "memcheck")


def test_addr2line_output_picks_the_students_line_of_an_inlined_chain():
    output = (
        "0x0000000000001234\n"
        "streamlab::Stream::Stream(unsigned int)\n/course/common/include/streamlab/handles.hpp:40\n"
        "lab05::run_pipeline(lab05::PipelineJob const&, int)\n/sub/labs/05-three-chunks/three_chunks.cu:23\n"
        "0x0000000000005678\n??\n??:0\n"
    )
    sources = sanitize.lab_sources("05-three-chunks", ["three_chunks.cu"])
    places = sanitize._read_addr2line(output, sources)
    assert places["0x1234"] == (
        "/sub/labs/05-three-chunks/three_chunks.cu",
        23,
        "lab05::run_pipeline(lab05::PipelineJob const&, int)",
    )
    assert "0x5678" not in places


@pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("addr2line")), reason="needs gcc and addr2line")
def test_addr2line_resolver_finds_file_and_line_in_a_real_program(tmp_path):
    folder = tmp_path / "05-three-chunks"
    folder.mkdir()
    source = folder / "three_chunks.cu"
    source.write_text("int helper(int x) {\n  return x * 3;\n}\nint main(void) { return helper(1) - 3; }\n")
    program = tmp_path / "lab05_yours_run"
    subprocess.run(["gcc", "-g", "-O0", "-x", "c", str(source), "-o", str(program)], check=True)
    symbols = subprocess.run(["nm", str(program)], capture_output=True, text=True, check=True).stdout
    address = next(line.split()[0] for line in symbols.splitlines() if line.endswith(" helper"))
    # Frames carry return addresses; the resolver looks one byte before: here, helper's first byte.
    frame = reports.Frame(function="", module=str(program), pc=hex(int(address, 16) + 1))
    sources = sanitize.lab_sources("05-three-chunks", ["three_chunks.cu"])
    resolve = sanitize.addr2line_resolver(program, sources)
    resolve([frame])
    assert (Path(frame.file).name, frame.line, frame.function) == ("three_chunks.cu", 1, "helper")
    assert sources.name_of(frame.file) == "labs/05-three-chunks/three_chunks.cu"


def fake_runner(fixture: str, census: str = "", status: int = 0):
    """Stands in for compute-sanitizer: writes a recorded run's files where the command asks for them."""

    def run(command, env, timeout_s):
        options = dict(zip(command, command[1:]))
        Path(options["--save"]).write_text((FIXTURES / f"{fixture}.xml").read_text())
        Path(options["--log-file"]).write_text((FIXTURES / f"{fixture}.txt").read_text())
        if "STREAMLAB_LEAK_REPORT" in env:
            Path(env["STREAMLAB_LEAK_REPORT"]).write_text(census)
        assert command[-1] == "--no-trace" and "--xml" in command
        return status, "the program's output\n"

    return run


def test_sanitize_program_reports_each_tool_and_explains_each_finding(tmp_path, monkeypatch):
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: "/opt/cuda/bin/compute-sanitizer")
    census = '{"kind": "stream", "api": "cudaStreamCreate", "frames": []}\n'
    result = sanitize.sanitize_program(
        tmp_path / "lab05_yours_run",
        PROBE,
        ["memcheck"],
        tmp_path / "work",
        60,
        runner=fake_runner("memcheck_leak_pinned", census),
        gpu=(True, "H200"),
    )
    kinds = [f.kind for f in result.findings]
    assert kinds == ["leaked pinned buffer", "leaked stream"]
    assert not result.clean
    text = "\n".join(result.lines())
    assert "memcheck --leak-check full: 2 finding(s)" in text
    assert "what it means:" in text and "usual cause:" in text


def test_a_clean_run_is_clean(tmp_path, monkeypatch):
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: "/opt/cuda/bin/compute-sanitizer")
    result = sanitize.sanitize_program(
        tmp_path / "prog",
        PROBE,
        ["memcheck", "memcheck-padded", "initcheck"],
        tmp_path / "work",
        60,
        runner=fake_runner("memcheck_clean"),
        gpu=(True, "H200"),
    )
    assert result.clean and result.findings == []
    assert result.lines() == [
        "memcheck --leak-check full: clean",
        "memcheck --padding 512 --leak-check no: clean",
        "initcheck: clean",
    ]


def test_memcheck_runs_twice_and_a_finding_both_runs_see_is_named_once(tmp_path, monkeypatch):
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: "/opt/cuda/bin/compute-sanitizer")
    commands = []
    runner = fake_runner("memcheck_leak_pinned")

    def recording_runner(command, env, timeout_s):
        commands.append(command)
        return runner(command, env, timeout_s)

    result = sanitize.sanitize_program(
        tmp_path / "prog",
        PROBE,
        ["memcheck", "memcheck-padded"],
        tmp_path / "work",
        60,
        recording_runner,
        (True, "H200"),
    )
    tools = [command[command.index("--tool") + 1 : command.index("--xml")] for command in commands]
    assert tools == [["memcheck", "--leak-check", "full"], ["memcheck", "--padding", "512", "--leak-check", "no"]]
    assert len(result.runs) == 2 and len(result.runs[1].findings) == len(result.runs[0].findings) > 0
    assert len(result.findings) == len(result.runs[0].findings)


def test_without_the_sanitizer_or_a_gpu_one_line_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: None)
    result = sanitize.sanitize_program(
        tmp_path / "prog", PROBE, ["memcheck"], tmp_path, 60, fake_runner("x"), gpu=(True, "H200")
    )
    assert len(result.lines()) == 1 and "not installed" in result.lines()[0]
    assert not result.findings and not result.runs
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: "/opt/cuda/bin/compute-sanitizer")
    result = sanitize.sanitize_program(
        tmp_path / "prog",
        PROBE,
        ["memcheck"],
        tmp_path,
        60,
        fake_runner("x"),
        gpu=(False, "no GPU: the driver sees no CUDA device"),
    )
    assert len(result.lines()) == 1 and "needs a GPU" in result.lines()[0]


def test_a_sanitizer_that_cannot_attach_is_one_line_not_a_finding(tmp_path, monkeypatch):
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: "/opt/cuda/bin/compute-sanitizer")

    def cannot_attach(command, env, timeout_s):
        options = dict(zip(command, command[1:]))
        Path(options["--log-file"]).write_text(
            "========= COMPUTE-SANITIZER\n========= Error: No attachable process found. compute-sanitizer timed-out.\n"
        )
        return 1, ""

    result = sanitize.sanitize_program(
        tmp_path / "prog", PROBE, ["memcheck"], tmp_path, 60, runner=cannot_attach, gpu=(True, "H200")
    )
    assert result.findings == []
    assert result.lines() == [
        "memcheck: compute-sanitizer could not watch the program: "
        "Error: No attachable process found. compute-sanitizer timed-out."
    ]
    assert sanitize.points_test(result, 2).status == NOT_GRADED


def test_points_only_where_asked_and_by_the_outcome(tmp_path, monkeypatch):
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: "/opt/cuda/bin/compute-sanitizer")
    dirty, clean = (
        sanitize.sanitize_program(
            tmp_path / "p", PROBE, ["memcheck"], tmp_path / out, 60, runner=fake_runner(fixture), gpu=(True, "H200")
        )
        for out, fixture in (("a", "memcheck_oob_copy"), ("b", "memcheck_clean"))
    )
    failed, passed = sanitize.points_test(dirty, 3), sanitize.points_test(clean, 3)
    assert (failed.status, failed.earned) == (FAILED, 0) and "out-of-bounds copy" in failed.reason
    assert (passed.status, passed.earned) == (PASSED, 3)


def test_racecheck_and_synccheck_only_for_kernels_of_the_students_own():
    assert sanitize.tools_for(["void run() { launch_workload(...); }"]) == ["memcheck", "memcheck-padded", "initcheck"]
    assert sanitize.tools_for(["__global__ void mine(float* x) {}"]) == [
        "memcheck",
        "memcheck-padded",
        "initcheck",
        "racecheck",
        "synccheck",
    ]


def test_each_sanitizer_sample_plants_one_bug_where_its_expected_finding_points(tmp_path):
    import json

    from selfgrading import make_grading_samples as samples

    names = samples.make_sanitizer_samples(tmp_path)
    expected = json.loads((tmp_path / "sanitizer-expected.json").read_text())
    assert sorted(expected) == names
    assert expected.pop("solutions-clean") == {"clean": True}
    assert {entry["kind"] for entry in expected.values()} >= {
        "out-of-bounds copy",
        "out-of-bounds kernel access",
        "leaked pinned buffer",
        "leaked stream",
        "uninitialised device read",
    }
    solutions = samples.student_files("solution")
    calls = {
        "out-of-bounds copy": "cudaMemcpyAsync",
        "out-of-bounds kernel access": "launch_workload",
        "leaked pinned buffer": "cudaMallocHost",
        "leaked stream": "cudaStreamCreate",
        "uninitialised device read": "launch_workload",
    }
    for name, entry in expected.items():
        text = (tmp_path / name / entry["file"]).read_text()
        handed_in = sorted(
            path.relative_to(tmp_path / name).as_posix() for path in (tmp_path / name).rglob("*") if path.is_file()
        )
        assert entry["file"] in handed_in and all(
            path.startswith(entry["file"].rsplit("/", 1)[0]) for path in handed_in
        )
        assert text != solutions[entry["file"]], name  # only its lab is handed in, with the bug planted
        first_line = text.splitlines()[entry["lines"][0] - 1]
        assert calls[entry["kind"]] in first_line, (name, first_line)


def test_course_check_says_in_one_line_that_the_sanitizer_is_missing(tmp_path, monkeypatch, capsys):
    from coursecli import labs

    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: None)
    result = labs.sanitize_lab("05", "yours", tmp_path, tmp_path / "lab05_yours_run")
    printed = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert result.problem and not result.runs
    assert printed[-1].strip() == sanitize.missing_sanitizer_line()
    assert len(printed) == 2  # the heading and that line


def test_the_report_shows_the_findings_of_each_lab():
    from coursecli.gradebook import report_markdown
    from coursecli.scoring import LabGrade, SubmissionGrade

    lab = LabGrade(
        "05",
        "05-three-chunks",
        sanitizer=["memcheck --leak-check full: 1 finding(s)", "1. leaked stream: a stream from cudaStreamCreate"],
    )
    report = report_markdown(SubmissionGrade("ada", labs=[lab]))
    assert "1. leaked stream: a stream from cudaStreamCreate" in report
    assert "./course check 05 --sanitize" in report
    assert "compute-sanitizer" not in report_markdown(SubmissionGrade("bob", labs=[LabGrade("05", "05-x")]))


def test_the_sample_checker_reads_the_reports(tmp_path):
    from coursecli.gradebook import save_grade, student_folder
    from coursecli.scoring import LabGrade, SubmissionGrade
    from selfgrading.check_sanitizer_samples import check

    save_grade(
        student_folder(tmp_path, "leaked-stream"),
        SubmissionGrade(
            "leaked-stream",
            labs=[
                LabGrade(
                    "02",
                    "02-streams",
                    sanitizer=[
                        "memcheck --leak-check full: 1 finding(s)",
                        "1. leaked stream: a stream from cudaStreamCreateWithFlags, never released",
                        "     at labs/02-streams/streams.cu:26 in lab02::run_in_streams",
                    ],
                )
            ],
        ),
    )
    save_grade(
        student_folder(tmp_path, "solutions-clean"),
        SubmissionGrade(
            "solutions-clean",
            labs=[LabGrade("02", "02-streams", sanitizer=["memcheck --leak-check full: clean", "initcheck: clean"])],
        ),
    )
    expected = {
        "leaked-stream": {"lab": "02", "kind": "leaked stream", "file": "labs/02-streams/streams.cu", "lines": [26]},
        "solutions-clean": {"clean": True},
    }
    assert [ok for *_, ok in check(expected, tmp_path)] == [True, True]
    expected["leaked-stream"]["lines"] = [30]
    assert [ok for *_, ok in check(expected, tmp_path)] == [False, True]
    save_grade(
        student_folder(tmp_path, "solutions-clean"),
        SubmissionGrade(
            "solutions-clean", labs=[LabGrade("02", "02-streams", sanitizer=[sanitize.missing_sanitizer_line()])]
        ),
    )
    assert [ok for *_, ok in check(expected, tmp_path)] == [False, False]  # not checked is not clean


def test_a_query_that_answers_not_ready_is_not_a_finding():
    text = (
        '========= Program hit cudaErrorNotReady (error 600) due to "device not ready" on CUDA API call to '
        "cudaStreamQuery.\n=========     Saved host backtrace up to driver entry point at error\n"
        "=========         Host reports.Frame: lab02::run_in_streams [0x1234] in lab02_yours_run\n=========\n"
        '========= Program hit cudaErrorInvalidResourceHandle (error 400) due to "invalid resource handle" on '
        "CUDA API call to cudaStreamSynchronize.\n"
    )
    found = reports.findings_from(reports.parse_text(text, "memcheck"), PROBE)
    assert [(f.kind, f.what) for f in found] == [
        ("failed CUDA call", "cudaStreamSynchronize failed: cudaErrorInvalidResourceHandle (invalid resource handle)")
    ]


def test_grade_puts_the_findings_in_the_lab_and_points_only_when_asked(tmp_path, monkeypatch):
    from coursecli import batch as grade_module
    from coursecli.scoring import LabGrade, SubmissionGrade
    from coursecli.submissions import LabSources

    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: "/opt/cuda/bin/compute-sanitizer")
    monkeypatch.setattr(
        sanitize,
        "run_tool",
        lambda sanitizer, tool, program, sources, work, timeout_s, runner: sanitize.ToolRun(tool, 0),
    )  # every tool clean
    lab = LabSources("05-three-chunks", ["three_chunks.cu"])
    for points, expected_tests in [(None, []), (0, []), (2, [("compute-sanitizer", 2, PASSED)])]:
        settings = grade_module.GradeSettings(
            out=tmp_path / "out", labs=[lab], all_labs=[lab], sanitize=True, sanitize_points=points
        )
        grader = grade_module.SubmissionGrader(tmp_path / "ada", settings, (True, "H200"), None)
        (grader.build / "labs").mkdir(parents=True, exist_ok=True)
        (grader.build / "labs" / "lab05_yours_run").write_text("")
        (grader.staging / lab.folder).mkdir(parents=True, exist_ok=True)
        (grader.staging / lab.folder / "three_chunks.cu").write_text("void run_pipeline() {}\n")
        graded = SubmissionGrade("ada", labs=[LabGrade("05", lab.folder)])
        grader._score_sanitizer(grader._sanitize([lab]), graded)  # found on the GPU slot, scored after it
        assert graded.labs[0].sanitizer == [
            "memcheck --leak-check full: clean",
            "memcheck --padding 512 --leak-check no: clean",
            "initcheck: clean",
        ]
        assert [(t.name, t.points, t.status) for t in graded.labs[0].tests] == expected_tests


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can hand a folder to uid 65534")
def test_in_the_fallback_the_steps_user_may_write_the_reports(tmp_path, monkeypatch):
    from coursecli import batch as grade_module
    from coursecli.sandbox import NOBODY
    from coursecli.submissions import LabSources

    owners = []

    def record_owner(sanitizer, tool, program, sources, work, timeout_s, runner):
        owners.append(work.stat().st_uid)
        return sanitize.ToolRun(tool, 0)

    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: "/opt/cuda/bin/compute-sanitizer")
    monkeypatch.setattr(sanitize, "run_tool", record_owner)
    lab = LabSources("05-three-chunks", ["three_chunks.cu"])
    settings = grade_module.GradeSettings(out=tmp_path / "out", labs=[lab], all_labs=[lab], sanitize=True)
    grader = grade_module.SubmissionGrader(tmp_path / "ada", settings, (True, "H200"), None)
    grader.box.drop_user = True  # the fallback run as root: steps run as uid 65534
    (grader.build / "labs").mkdir(parents=True, exist_ok=True)
    (grader.build / "labs" / "lab05_yours_run").write_text("")
    grader._sanitize([lab])
    assert owners and set(owners) == {NOBODY}
