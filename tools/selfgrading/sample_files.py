"""A sample submission's files: the course's student files (every lab's starter or solution) as a dict
of path -> text, changed by the samples with one fault planted, then written out as a folder, a zip or a
tar.gz. A planting that no longer finds its place fails loudly; it never plants nothing."""

from __future__ import annotations

import io
import shutil
import tarfile
import zipfile
from pathlib import Path

from coursecli.shell import ROOT
from coursecli.submissions import course_labs


def student_files(variant: str) -> dict[str, str]:
    """labs/NN-topic/file -> text, for every lab's student sources and answer files (a prediction),
    from the starters or the solutions."""
    source_root = ROOT / ("labs" if variant == "starter" else "solutions")
    return {
        f"labs/{lab.folder}/{name}": (source_root / lab.folder / name).read_text()
        for lab in course_labs(ROOT)
        for name in lab.files + lab.answers
    }


def fresh_folder(out: Path) -> None:
    """`out`, emptied first: samples never mix with what an earlier run left there."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)


def write_folder(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def write_zip(path: Path, files: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)


def write_tar_gz(path: Path, files: dict[str, str] | dict[str, bytes]) -> None:
    """GNU's tar format, where a name that is not UTF-8 (a member the intake must show escaped) can be written."""
    with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape") as archive:
        for name, text in files.items():
            data = text.encode() if isinstance(text, str) else text
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def replace_once(files: dict[str, str], path: str, old: str, new: str) -> None:
    """Replaces the one occurrence of `old` in files[path]; fails loudly when the code moved."""
    if files[path].count(old) != 1:
        raise SystemExit(f"make_grading_samples: cannot find where to plant the fault in {path}")
    files[path] = files[path].replace(old, new)


def rewrite_function(files: dict[str, str], path: str, signature: str, new_function: str) -> None:
    """Replaces the function that starts with `signature` (up to the next top-level '}') by `new_function`."""
    text = files[path]
    start = text.find(signature)
    end = text.find("\n}\n", start)
    if start < 0 or end < 0 or text.count(signature) != 1:
        raise SystemExit(f"make_grading_samples: cannot find {signature!r} in {path}")
    files[path] = text[:start] + new_function.rstrip("\n") + text[end + 2 :]


def plant(files: dict[str, str], path: str, anchor: str, insert: str, before: bool = True) -> None:
    """Inserts `insert` before (or after) `anchor` in files[path]; fails loudly when the anchor moved."""
    replace_once(files, path, anchor, insert + anchor if before else anchor + insert)
