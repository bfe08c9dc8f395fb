"""A path relative to a folder, as written when it lies under it (no file system calls: a build names thousands of
posts this way), else after resolving both."""

from __future__ import annotations

import os
from pathlib import Path

_SEP = os.sep
_UP = f"{_SEP}..{_SEP}"


def under(path: Path, folder: Path) -> str | None:
    """`path` relative to `folder` as text ("" for the folder itself), when `path` as written lies under `folder`
    as written and nothing in it is `..`; else None. String work only: pathlib's parts cost ~5 us a call."""
    text, base = str(path), str(folder)
    if _UP in f"{_SEP}{text}{_SEP}":
        return None
    if text == base:
        return ""
    if base.endswith(_SEP):  # the root, `/`
        return text[len(base) :] if text.startswith(base) else None
    if text.startswith(base) and text[len(base) : len(base) + 1] == _SEP:
        return text[len(base) + 1 :]
    return None


def relative(path: Path, folder: Path) -> Path | None:
    """`path` relative to `folder`: as written when it lies under it, else after resolving both (symlinks, `..`);
    None when it is outside."""
    try:
        rel = path.relative_to(folder)
        if ".." not in rel.parts:
            return rel
    except ValueError:
        pass
    if not folder.is_dir():  # nothing that exists is in it (most sites have no pages folder): no need to resolve
        return None
    try:
        return path.resolve().relative_to(folder.resolve())
    except ValueError:
        return None


def relative_text(path: Path, root: Path) -> str:
    """`path` relative to `root` as text, for messages (`content/posts/a.md`); the path as given when outside."""
    text = under(path, root)
    if text:
        return text
    rel = relative(path, root)
    return str(rel if rel is not None else path)
