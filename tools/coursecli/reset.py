"""`course reset NN`: a lab's files back to their starter, a copy of yours kept first.

The starter is the committed version in git (HEAD unless `--from` names
another commit: if you committed your own work, HEAD holds it, and the course's
commit before yours holds the starter). Only files that differ from it are
touched; each is copied to reset-copies/NN-topic-DATE-TIME/ (ignored by git)
before it is replaced, and the command prints where.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from .shell import COURSE_ERROR, ROOT, say
from .student_files import commit_name, committed_text, lab_files

COPIES = ROOT / "reset-copies"


def reset_lab(lab: Path, python: bool, ref: str) -> int:
    """Puts the student's files of `lab` (one track) back as committed in `ref`. 0, or 1 with the reason."""
    commit = commit_name(ref)
    if commit is None:
        say(f"git knows no commit {ref!r} here: give --from a commit of this repository (git log shows them)")
        return COURSE_ERROR
    files = lab_files(lab, python)
    starters = {f.path: committed_text(f.path, ref) for f in files}
    absent = [f.relative for f in files if starters[f.path] is None]
    if absent:
        say(f"{', '.join(absent)} is not in commit {commit}: nothing was changed")
        return COURSE_ERROR
    changed = [f for f in files if not f.path.is_file() or f.path.read_text(errors="replace") != starters[f.path]]
    track = "Python " if python else ""
    if not changed:
        say(f"lab {lab.name[:2]}'s {track}files are already as committed in {commit}: nothing to reset")
        return 0
    copies = COPIES / f"{lab.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    for f in changed:
        if f.path.is_file():
            copy = copies / f.path.relative_to(lab)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f.path, copy)
            say(f"your {f.relative} is kept in {copy.relative_to(ROOT)}")
    for f in changed:
        f.path.write_text(starters[f.path])
        say(f"{f.relative} is the starter again (as committed in {commit})")
    return 0
