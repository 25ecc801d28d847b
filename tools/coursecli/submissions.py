"""Taking in a student's submission: only the files a student may change, safely.

A submission is a folder, a `.zip` or a `.tar.gz` named after the student. It
holds the student's copy of the repository (`.../labs/01-null-stream/...`) or
of `labs/` (`01-null-stream/...`). From it we take each lab's student_sources
and answer_files (a prediction, read by a graded test, never compiled; optional),
the lists `coursecli/lab_declaration.py` reads from lab.json, and nothing else:

- archives are never unpacked: they are read in one pass, each member looked
  at by name and only the files we may take (or compare with the course's)
  read, so a path like `../../x`, a link or a device file cannot land anywhere;
- names may hold any bytes: those that are not UTF-8 are shown escaped (\\xff);
- every other file is ignored and reported (an edited test is named, since the
  course's own test is used instead);
- sizes and the reading time are capped, so an archive bomb costs at most the caps.
"""

from __future__ import annotations

import os
import stat
import tarfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .lab_declaration import declared_labs
from .shell import ROOT, CourseError

MAX_SOURCE_BYTES = 1 << 20  # one student source file
MAX_ARCHIVE_MEMBERS = 50_000
MAX_ARCHIVE_BYTES = 2 << 30  # all members together, uncompressed
MAX_READ_BYTES = 64 << 20  # members read into memory, together
MAX_INTAKE_S = 120  # reading one submission
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz")
# Folders of generated or private files: never the student's work, not worth reporting one by one.
SKIPPED_FOLDERS = {".git", ".venv", "__pycache__", "__MACOSX", "node_modules"}
LISTED_IGNORED = 20  # extra files named in a report; the rest are counted


class SubmissionRefused(Exception):
    """The submission cannot be read safely (a broken or oversized archive)."""


@dataclass
class LabSources:
    """The student sources one lab needs: lab folder name (e.g. 01-null-stream) and file names;
    and its answer files (a prediction a graded test reads), taken when present, never compiled."""

    folder: str
    files: list[str]
    answers: list[str] = field(default_factory=list)
    subfolder: str = ""  # "python" for a lab's Python version: its files are in labs/NN-topic/python
    gpus: int = 1  # GPUs its graded tests need at once (`gpus` in its lab.json): the grader holds that many

    @property
    def number(self) -> str:
        return self.folder[:2]

    def source_path(self, name: str) -> tuple[str, ...]:
        """Where the file `name` sits under labs/: ("01-null-stream", "null_stream.cu"), or with "python" between."""
        return (self.folder, self.subfolder, name) if self.subfolder else (self.folder, name)


def course_labs(root: Path, python: bool = False) -> list[LabSources]:
    """Every lab of the course at `root` (labs/NN-topic with a lab.json), in order; with `python`, every one
    that has a Python version (labs/NN-topic/python). Judged by the C++ judges, the Python track reads the
    lab's answer files too, kept in its own folder."""
    if python:
        return [
            LabSources(folder.name, list(declared.python.student_sources), list(declared.answer_files), "python")
            for folder, declared in declared_labs(root)
            if declared.python and (folder / "python").is_dir()
        ]
    return [
        LabSources(folder.name, list(declared.cpp.student_sources), list(declared.answer_files), gpus=declared.gpus)
        for folder, declared in declared_labs(root)
    ]


def selected_labs(numbers: list[str] | None, root: Path = ROOT, python: bool = False) -> list[LabSources]:
    """The labs asked for (all when None), checked against labs/*/lab.json; their Python versions with `python`."""
    labs = course_labs(root, python)
    if not numbers:
        return labs
    by_number = {lab.number: lab for lab in labs}
    wanted = [n.zfill(2) for n in numbers]
    unknown = [n for n in wanted if n not in by_number]
    if unknown:
        which = "labs with a Python version" if python else "labs"
        raise CourseError(f"no lab {', '.join(unknown)} ({which}: {', '.join(by_number) or 'none'})")
    return [by_number[n] for n in wanted]


@dataclass
class Member:
    """One file in a submission, by its path inside the submission."""

    path: str
    size: int
    read: object  # () -> bytes, reading at most MAX_SOURCE_BYTES + 1


@dataclass
class Intake:
    """What was taken from a submission and what was left, for the report."""

    taken: dict[str, dict[str, bytes]] = field(default_factory=dict)  # lab number -> file name -> content
    answers: dict[str, dict[str, bytes]] = field(default_factory=dict)  # lab number -> answer file -> content
    missing: dict[str, list[str]] = field(default_factory=dict)  # lab number -> files not found
    edited_course_files: list[str] = field(default_factory=list)  # course files that differ: ignored
    refused: list[str] = field(default_factory=list)  # unsafe or oversized entries
    extra_files: list[str] = field(default_factory=list)  # anything else, ignored
    unchanged_course_files: int = 0

    def ignored_summary(self) -> list[str]:
        """Lines for the report: every ignored or refused file that matters."""
        lines = [
            f"{printable(path)}: edited course file, ignored (the course's own copy is used)"
            for path in self.edited_course_files
        ]
        lines += [f"{printable(entry)}: refused" for entry in self.refused[:LISTED_IGNORED]]
        lines += [
            f"{printable(path)}: not a file the grader takes, ignored" for path in self.extra_files[:LISTED_IGNORED]
        ]
        if len(self.extra_files) > LISTED_IGNORED:
            lines.append(f"... and {len(self.extra_files) - LISTED_IGNORED} more files that the grader does not take")
        return lines


def printable(name: str) -> str:
    """A name read from a submission, with bytes that are not UTF-8 shown as \\xNN (never a crash)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class _Budget:
    """Time and bytes one submission may cost to read."""

    def __init__(self, archive: Path):
        self.archive, self.deadline, self.read = archive, time.monotonic() + MAX_INTAKE_S, 0

    def check(self, count: int, total: int) -> None:
        """Refuses an archive with too many entries or too many bytes once unpacked, or too slow to read."""
        if count > MAX_ARCHIVE_MEMBERS:
            raise SubmissionRefused(f"{self.archive.name}: more than {MAX_ARCHIVE_MEMBERS} entries")
        if total > MAX_ARCHIVE_BYTES:
            raise SubmissionRefused(f"{self.archive.name}: more than {MAX_ARCHIVE_BYTES >> 20} MiB unpacked")
        if time.monotonic() > self.deadline:
            raise SubmissionRefused(f"{self.archive.name}: reading it took more than {MAX_INTAKE_S} s")

    def keep(self, content: bytes) -> bytes:
        self.read += len(content)
        if self.read > MAX_READ_BYTES:
            raise SubmissionRefused(
                f"{self.archive.name}: more than {MAX_READ_BYTES >> 20} MiB of course and student files"
            )
        return content


def _safe_parts(name: str) -> tuple[str, ...] | None:
    """The path's parts, or None when it is absolute or climbs out with '..'."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        return None
    return tuple(part for part in path.parts if part not in ("", "."))


def _read_capped(opener) -> bytes:
    with opener() as stream:
        return stream.read(MAX_SOURCE_BYTES + 1)


def _folder_members(folder: Path, refused: list[str]) -> list[Member]:
    members = []
    for directory, subfolders, files in os.walk(folder, followlinks=False):
        subfolders[:] = [d for d in subfolders if d not in SKIPPED_FOLDERS and not (Path(directory) / d).is_symlink()]
        for name in files:
            path = Path(directory) / name
            relative = path.relative_to(folder).as_posix()
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode):
                refused.append(f"{relative} (a link or special file)")
                continue
            members.append(Member(relative, info.st_size, lambda p=path: _read_capped(lambda: p.open("rb"))))
    return members


@dataclass
class _Entry:
    """An archive member as both archive formats describe it."""

    name: str
    size: int
    is_dir: bool
    refused_as: str  # "" for a regular file, else why it is refused ("a link", ...)
    open: Callable


def _archive_members(archive: Path, entries, refused: list[str], worth_reading: Callable[[str], bool]) -> list[Member]:
    """Members of an archive from its entries, in the one pass over them; content read when worth_reading."""
    members, total, budget = [], 0, _Budget(archive)
    for count, entry in enumerate(entries, start=1):
        total += entry.size
        budget.check(count, total)
        if entry.is_dir:
            continue
        if entry.refused_as:
            refused.append(f"{entry.name} ({entry.refused_as})")
            continue
        content = b""
        if entry.size <= MAX_SOURCE_BYTES and worth_reading(entry.name):
            content = budget.keep(_read_capped(entry.open))
        members.append(Member(entry.name, entry.size, lambda c=content: c))
    return members


def _zip_members(archive: Path, refused: list[str], worth_reading: Callable[[str], bool]) -> list[Member]:
    with zipfile.ZipFile(archive) as opened:
        entries = (
            _Entry(
                info.filename,
                info.file_size,
                info.is_dir(),
                "a link" if stat.S_ISLNK(info.external_attr >> 16) else "",
                lambda info=info: opened.open(info),
            )
            for info in opened.infolist()
        )
        return _archive_members(archive, entries, refused, worth_reading)


def _tar_members(archive: Path, refused: list[str], worth_reading: Callable[[str], bool]) -> list[Member]:
    """One pass over the stream ("r|*"): seeking back in a .tar.gz would decompress it again, per member."""
    with tarfile.open(archive, "r|*") as opened:
        entries = (
            _Entry(
                info.name,
                info.size,
                info.isdir(),
                "" if info.isfile() else "a link or special file",
                lambda info=info: opened.extractfile(info),
            )
            for info in opened
        )
        return _archive_members(archive, entries, refused, worth_reading)


def list_members(
    submission: Path, refused: list[str], worth_reading: Callable[[str], bool] = lambda path: True
) -> list[Member]:
    """Every regular file of a folder, zip or tar.gz submission (links and special files refused).

    An archive member's content is read in the same pass when worth_reading(path); others read as b"".
    """
    try:
        if submission.is_dir():
            return _folder_members(submission, refused)
        if submission.name.endswith(".zip"):
            return _zip_members(submission, refused, worth_reading)
        if submission.name.endswith((".tar.gz", ".tgz")):
            return _tar_members(submission, refused, worth_reading)
    except (
        zipfile.BadZipFile,
        tarfile.TarError,
        EOFError,
        OSError,
        ValueError,
        RuntimeError,
        NotImplementedError,
    ) as problem:  # encrypted or unknown compression: RuntimeError, NotImplementedError
        raise SubmissionRefused(f"{submission.name}: cannot be read ({problem})") from None
    raise SubmissionRefused(f"{submission.name}: not a folder, .zip or .tar.gz")


def _rank(parts: tuple[str, ...], key: tuple[str, ...]) -> tuple[int, int]:
    """Which copy of a student source to prefer: labs/NN-topic/file (`key` under labs/) first, then the shallowest."""
    under_labs = len(parts) > len(key) and parts[-len(key) - 1] == "labs"
    return (0 if under_labs else 1, len(parts))


def _wanted_key(parts: tuple[str, ...], wanted) -> tuple[str, ...] | None:
    """The lab file (a key of `wanted`) that the path `parts` ends with, if any."""
    for length in (3, 2):
        if len(parts) >= length and parts[-length:] in wanted:
            return parts[-length:]
    return None


def take_student_sources(submission: Path, labs: list[LabSources], course_root: Path) -> Intake:
    """Reads the student sources of every lab in `labs` from `submission`; reports the rest."""
    intake = Intake()
    wanted = {lab.source_path(name): lab for lab in labs for name in lab.files + lab.answers}

    def worth_reading(path: str) -> bool:
        parts = _safe_parts(path)
        if not parts or set(parts) & SKIPPED_FOLDERS:
            return False
        return _wanted_key(parts, wanted) is not None or _matching_course_file(parts, course_root) is not None

    members = list_members(submission, intake.refused, worth_reading)
    candidates: dict[tuple[str, ...], list[tuple[tuple[int, int], Member]]] = {}
    for member in members:
        parts = _safe_parts(member.path)
        if parts is None:
            intake.refused.append(f"{member.path} (a path outside the submission)")
            continue
        if not parts or set(parts) & SKIPPED_FOLDERS:
            continue
        key = _wanted_key(parts, wanted) if len(parts) >= 2 else _lone_file_lab(parts[0], labs)
        # A student's work lives in labs/, never in a solutions/ folder.
        if key in wanted and "solutions" not in parts[: -len(key)]:
            candidates.setdefault(key, []).append((_rank(parts, key), member))
            continue
        _classify_ignored(member, parts, course_root, intake, labs)

    for key, lab in wanted.items():
        name = key[-1]
        found = sorted(candidates.get(key, []), key=lambda pair: (pair[0], pair[1].path))
        is_answer = name in lab.answers
        if not found:
            if not is_answer:  # a missing answer file only scores 0 on the test that reads it
                intake.missing.setdefault(lab.number, []).append(name)
            continue
        chosen = found[0][1]
        for _, other in found[1:]:
            intake.extra_files.append(f"{other.path} (another copy; {chosen.path} is graded)")
        content = chosen.read() if chosen.size <= MAX_SOURCE_BYTES else b""
        if chosen.size > MAX_SOURCE_BYTES or len(content) > MAX_SOURCE_BYTES:
            intake.refused.append(f"{chosen.path} (larger than {MAX_SOURCE_BYTES >> 10} KiB)")
            if not is_answer:
                intake.missing.setdefault(lab.number, []).append(name)
            continue
        (intake.answers if is_answer else intake.taken).setdefault(lab.number, {})[name] = content
    return intake


def _lone_file_lab(name: str, labs: list[LabSources]) -> tuple[str, ...] | None:
    """A file uploaded on its own, outside any folder (Gradescope's usual upload), belongs to
    the one lab whose student source has exactly its name: its place in that lab; else None."""
    owners = [lab for lab in labs if name in lab.files]
    return owners[0].source_path(name) if len(owners) == 1 else None


def _classify_ignored(
    member: Member, parts: tuple[str, ...], course_root: Path, intake: Intake, labs: list[LabSources]
) -> None:
    """An ignored file is an edited course file, an unchanged one, or an extra one (a student
    source in the wrong place is named with the path it must have)."""
    course_file = _matching_course_file(parts, course_root)
    expected = ["labs/" + "/".join(lab.source_path(parts[-1])) for lab in labs if parts[-1] in lab.files]
    if course_file is None and expected:
        intake.extra_files.append(f"{member.path} (a lab's file must be at {' or '.join(expected)})")
    elif course_file is None:
        intake.extra_files.append(member.path)
    elif member.size == course_file.stat().st_size and member.read() == course_file.read_bytes():
        intake.unchanged_course_files += 1
    else:
        intake.edited_course_files.append(member.path)


def _matching_course_file(parts: tuple[str, ...], course_root: Path) -> Path | None:
    """The course's own file this submitted path stands for (repository copy or labs/ copy), if any."""
    for start in range(len(parts)):
        tail = parts[start:]
        for candidate in (course_root.joinpath(*tail), course_root.joinpath("labs", *tail)):
            if candidate.is_file() and not candidate.is_symlink():
                return candidate
    return None


def stage(intake: Intake, labs: list[LabSources], course_root: Path, staging: Path) -> None:
    """Writes staging/NN-topic/file for every lab: the student's file, else the course's starter.

    CMake configures every lab, so each needs its files; a lab whose files are
    missing is given the starter only so that the others build, and is not graded.
    A missing answer file is given the starter's unanswered template: the test that
    reads it scores 0 and says so; nothing else changes.
    """
    for lab in labs:
        folder = staging.joinpath(*lab.source_path(""))  # staging/NN-topic(/python)/
        folder.mkdir(parents=True, exist_ok=True)
        for name in lab.files + lab.answers:
            taken = intake.answers if name in lab.answers else intake.taken
            content = taken.get(lab.number, {}).get(name)
            if content is None:
                content = course_root.joinpath("labs", *lab.source_path(name)).read_bytes()
            (folder / name).write_bytes(content)


def student_name(submission: Path) -> str:
    """The student's name: the submission's name without .zip / .tar.gz / .tgz."""
    name = printable(submission.name)
    for suffix in ARCHIVE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def find_submissions(path: Path) -> list[Path]:
    """The submissions in a folder of submissions (folders and archives), sorted by name."""
    if path.is_file():
        return [path]
    entries = [p for p in sorted(path.iterdir()) if not p.name.startswith(".")]
    return [p for p in entries if (p.is_dir() and not p.is_symlink()) or p.name.endswith(ARCHIVE_SUFFIXES)]
