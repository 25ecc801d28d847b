"""Rewriting a copy of the course's files: the sample submissions are the solutions with one
fault planted, and a planting that no longer finds its place must fail loudly, not plant nothing."""

from __future__ import annotations


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
