"""A sample submission's files: the course's student files (every lab's starter or solution) as a dict
of path -> text, changed by the samples (rewriting.py), then written out as a folder, a zip or a tar.gz."""

from __future__ import annotations

import io
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


def write_folder(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def write_zip(path: Path, files: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)


def write_tar_gz(path: Path, files: dict[str, str]) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
