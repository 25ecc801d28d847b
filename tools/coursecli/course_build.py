"""The course built once per batch, and each submission's labs linked against it.

A batch configures and builds the course once (its libraries, each graded
lab's judges, and its recording program and lab program against the course's
own starter). A
submission's lab is then only its student objects, compiled alone by the check
before linking (objcheck.py), put in an archive that stands where the
starter's library stood in the course's own link commands: the link order of
cmake/StreamLab.cmake's `streamlab_link_graded_code` (course code first) is
kept as CMake wrote it. Its tests are the course's ctest tests (labels,
timeouts, skip and fail rules, output cap, GoogleTest XML report), pointed at
the submission's programs and report folder.
"""

from __future__ import annotations

import shlex
from pathlib import Path

# The course build's tests write their GoogleTest reports here; each submission's copy of the
# test list points this folder at its own.
XML_PLACEHOLDER = "student-gtest-xml"
# The course build's tests of the student's code (labNN.yours.*) read the answer files (answer_files) from here; each
# submission's copy of the test list points it at the submission's staged labs.
ANSWERS_PLACEHOLDER = "student-answers"


def starter_targets(number: str) -> list[str]:
    """The course targets that link a lab's student library (the `yours` variant, which the course build
    makes from the starter): its recording program (recorder) and its lab program."""
    return [f"lab{number}_yours_record", f"lab{number}_yours_run"]


def course_targets(number: str) -> list[str]:
    """What the course build makes for a lab: its starter targets, its judges and the recording harness,
    which never link a student's code and serve every submission."""
    return [*starter_targets(number), f"lab{number}_judge", "streamlab_record"]


def starter_library(number: str) -> str:
    """The student library of the course build (the starter's objects), which a submission's replaces."""
    return f"liblab{number}_yours.a"


class CourseBuild:
    """A configured and built course folder (Unix Makefiles: each target's link command is in link.txt)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def xml_placeholder(self) -> Path:
        return self.folder / XML_PLACEHOLDER

    def answers_placeholder(self) -> Path:
        return self.folder / ANSWERS_PLACEHOLDER

    def _link_file(self, target: str) -> Path:
        found = sorted(self.folder.rglob(f"CMakeFiles/{target}.dir/link.txt"))
        if not found:
            raise RuntimeError(f"the course build has no link command for {target}")
        return found[0]

    def link_command(self, target: str, number: str, library: Path, output: Path) -> tuple[Path, list[str]]:
        """(working folder, argv) linking `target` with the student's `library` in place of the starter's,
        written to `output`. Everything else (course objects first, whole archives) is the course's."""
        link_file = self._link_file(target)
        folder = link_file.parent.parent.parent  # <folder>/CMakeFiles/<target>.dir/link.txt
        lines = [line for line in link_file.read_text().splitlines() if line.strip()]
        if len(lines) != 1:  # a device-link step or a generator that splits the link: not what this course makes
            raise RuntimeError(f"{link_file}: expected one link command, found {len(lines)}")
        # Newer linkers write a dependency file next to the course's objects (-Wl,--dependency-file=…),
        # which a submission's link, in the read-only course build, may not; make never reads it here.
        argv = [arg for arg in shlex.split(lines[0]) if not arg.startswith("-Wl,--dependency-file=")]
        replaced = [str(library) if Path(arg).name == starter_library(number) else arg for arg in argv]
        if replaced == argv or "-o" not in argv:
            raise RuntimeError(f"{link_file}: no {starter_library(number)} or no -o in the link command")
        index = replaced.index("-o")
        replaced[index + 1] = str(output)
        return folder, replaced

    def test_list(self, labs_folder: Path, xml_folder: Path, answers_folder: Path) -> str:
        """The course's labs/CTestTestfile.cmake, its programs, report folder and answer files' folder
        replaced by the submission's."""
        course_labs = self.folder / "labs"
        text = (course_labs / "CTestTestfile.cmake").read_text()
        text = text.replace(str(self.xml_placeholder()), str(xml_folder))
        text = text.replace(f"{self.answers_placeholder()}/", f"{answers_folder}/")
        return text.replace(f"{course_labs}/", f"{labs_folder}/")

    def write_test_lists(self, build: Path, xml_folder: Path, answers_folder: Path) -> None:
        """A ctest folder in `build` holding the course's lab tests, run against `build/labs`' programs
        and the answer files staged in `answers_folder` (NN-topic folders)."""
        (build / "labs").mkdir(parents=True, exist_ok=True)
        (build / "CTestTestfile.cmake").write_text('subdirs("labs")\n')
        (build / "labs" / "CTestTestfile.cmake").write_text(self.test_list(build / "labs", xml_folder, answers_folder))
