"""A lab's Python bindings live in its folder and are registered from its lab.json (bindings):
nothing under python/ or common/ names a lab, and the module's registration is generated."""

import re
from pathlib import Path

import pytest
from coursecli.lab_declaration import read_lab

ROOT = Path(__file__).resolve().parents[2]
NAMES_A_LAB = re.compile(r"\b[Ll]ab ?\d\d\b|labs/\d\d-")
TEXT = {".cpp", ".hpp", ".cu", ".py", ".txt", ".cmake", ".md"}
LABS_WITH_BINDINGS = sorted(
    path.parent for path in ROOT.glob("labs/*/lab.json") if read_lab(path.parent).python_bindings
)


def test_nothing_under_python_or_common_names_a_lab():
    found = []
    for top in ("python", "common"):
        for path in sorted((ROOT / top).rglob("*")):
            relative = path.relative_to(ROOT).as_posix()
            if path.suffix not in TEXT:
                continue
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if NAMES_A_LAB.search(line):
                    found.append(f"{relative}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_labs_declare_their_bindings():
    assert [lab.name[:2] for lab in LABS_WITH_BINDINGS] == ["04", "06", "07", "09"]


@pytest.mark.parametrize("lab", LABS_WITH_BINDINGS, ids=lambda lab: lab.name)
def test_each_labs_first_binding_file_defines_its_register_function(lab):
    files = read_lab(lab).python_bindings
    assert all((lab / name).is_file() for name in files), files
    number = lab.name[:2]
    assert f"void register_lab{number}(nb::module_& module) {{" in (lab / files[0]).read_text()


def test_the_modules_registration_is_generated_from_the_labs(course_build):
    generated = course_build / "python" / "lab_bindings.cpp"
    if not generated.exists():
        pytest.skip(f"the course's Python module is not configured in {course_build}")
    calls = re.findall(r"^    register_lab(\d\d)\(module\);$", generated.read_text(), re.M)
    assert calls == [lab.name[:2] for lab in LABS_WITH_BINDINGS]
