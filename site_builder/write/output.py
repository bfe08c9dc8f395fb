"""The output folder: files staged beside it, then moved in (or the whole folder swapped) when the build succeeded;
files left for later (`keep`) written after, each in one step."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from site_builder.config import CONFIG_NAME
from site_builder.errors import SiteError
from site_builder.util.files import atomic_write, write_new

MARKER = ".site-builder"


def check_output_dir(root: Path, output: Path) -> None:
    """Refuse output directories whose replacement would lose an author's files."""
    root, output = root.resolve(), output.resolve()
    if output == root or output in root.parents:
        raise SiteError(f"refusing to build into {output}: it is (or contains) the source tree")
    if (output / "content").exists() or (output / CONFIG_NAME).exists():
        raise SiteError(f"refusing to build into {output}: it holds content/ or site.yml")
    if output.exists() and (not output.is_dir() or (any(output.iterdir()) and not (output / MARKER).exists())):
        raise SiteError(
            f"refusing to build into {output}: it exists and was not made by site-builder "
            "(remove it or pick another --output)"
        )


class OutputWriter:
    """Stages every new or changed file in a sibling directory; `commit` moves them into the output.

    Nothing in the output changes until `commit`, so a failed build leaves it as it was. When the output
    still holds what the previous build wrote (its marker matches), only changed files are staged and moved
    and files no longer produced are removed; otherwise the staged tree replaces the output in one rename.
    """

    def __init__(
        self, output: Path, previous: dict[str, str], build_id: str, previous_id: str, trust_output: bool = False
    ):
        """`trust_output`: the output directory is private to this process (the dev server's), so a file the
        previous build wrote is known to be there without looking."""
        self.output = output.resolve()
        self.staging = self.output.parent / f".{self.output.name}.tmp-{os.getpid()}"
        if self.staging.exists():
            shutil.rmtree(self.staging)
        self.staging.mkdir(parents=True)
        self.build_id = build_id
        self.incremental = bool(previous) and _marker(self.output) == previous_id
        self.previous = previous if self.incremental else {}
        if self.incremental:  # the output stays the same tree: keep its id
            self.build_id = previous_id
        self.keys: dict[str, str] = {}
        self.staged: list[str] = []
        self.changed: list[str] = []  # files written or removed by `commit`
        self.early: list[str] = []  # files moved in by `commit_early`
        self.trust_output = trust_output
        self._dirs: set[str] = set()
        self._made: set[str] = set()
        self.static: set[str] = set()

    def needs(self, rel: str, key: str) -> bool:
        """Record that this build produces `rel`; True when it must be (re)written."""
        previous = self._claim(rel, key)
        if previous == key and (self.trust_output or os.path.exists(os.path.join(self.output, rel))):
            return False
        self.staged.append(rel)
        return True

    def _staged(self, rel: str) -> str:
        """Where `rel` is staged, its folder made."""
        path = os.path.join(self.staging, rel)
        parent = os.path.dirname(path)
        if parent not in self._dirs:
            try:  # most pages have a folder of their own, whose parent is there: one system call
                os.mkdir(parent)
            except FileNotFoundError:
                os.makedirs(parent, exist_ok=True)
            except FileExistsError:
                pass
            self._dirs.add(parent)
        return path

    def write(self, rel: str, data: str | bytes) -> None:
        write_new(self._staged(rel), data.encode("utf-8") if isinstance(data, str) else data)

    def copy_file(self, rel: str, src: Path) -> None:
        """Stage a copy of a file that is already on disk (an image or its variant)."""
        shutil.copyfile(src, self._staged(rel))

    def put(self, rel: str, key: str, produce: Callable[[], str | bytes]) -> None:
        """Write `produce()` to `rel` unless the previous build wrote the same key there."""
        if self.needs(rel, key):
            self.write(rel, produce())

    def keep(self, rel: str) -> None:
        """Record that this build produces `rel` but leaves it as the previous build wrote it, for `write_late`."""
        self._claim(rel, self.previous.get(rel, ""))

    def drop(self, rel: str) -> None:
        """This build does not produce `rel` after all (an image that could not be processed)."""
        self.keys.pop(rel, None)
        if rel in self.staged:
            self.staged.remove(rel)

    def _claim(self, rel: str, key: str) -> str | None:
        """Record `rel` as this build's with `key`; returns the previous build's key for it."""
        previous = self.previous.get(rel)
        if previous is None:  # a path the previous build wrote was checked then
            _check_rel(rel)
        if rel in self.keys:
            raise SiteError(
                f"two outputs would be written to {rel} (check permalinks against feed, sitemap and theme files)"
            )
        self.keys[rel] = key
        return previous

    def copy_tree(self, src: Path, dest: str = "") -> None:
        """Copy a folder of static files; the first copy of a path wins (site theme over default)."""
        for path in sorted(src.rglob("*")):
            if path.is_file() and not any(part.startswith(".") for part in path.relative_to(src).parts):
                rel = os.path.join(dest, str(path.relative_to(src)))
                if rel in self.static:
                    continue
                self.static.add(rel)
                st = path.stat()
                if self.needs(rel, f"file:{path}:{st.st_size}:{st.st_mtime_ns}"):
                    self.write(rel, path.read_bytes())

    def commit(self) -> int:
        """Make the staged files the output; returns how many files changed."""
        marker = os.path.join(self.staging, MARKER)
        write_new(
            marker, f"{self.build_id}\nbuilt by site-builder; this directory is replaced on every build\n".encode()
        )
        if not self.incremental:
            old = self.output.parent / f".{self.output.name}.old-{os.getpid()}"
            if self.output.exists():
                os.rename(self.output, old)
            os.rename(self.staging, self.output)
            if old.exists():
                _remove_later(old)
            self.changed = list(self.staged)
            return len(self.staged)
        self._move(self.staged)
        removed = sorted(self.previous.keys() - self.keys.keys())
        for rel in removed:
            _unlink_and_prune(self.output, rel)
        self.changed = self.early + self.staged + removed
        os.replace(marker, os.path.join(self.output, MARKER))
        shutil.rmtree(self.staging, ignore_errors=True)
        return len(self.changed)

    def commit_early(self) -> list[str]:
        """Move the files staged so far into the output now, before the rest of the build is written; returns them.

        Only when the output is updated in place (incremental); each file is moved in whole (`os.replace`). The
        output's marker, removals and the other files wait for `commit`. A build that fails after this leaves
        these files in place: its caller must then record them with a key no build makes (""), so that the next
        build writes them again, or removes them.
        """
        if not self.incremental or not self.staged:
            return []
        moved, self.staged = self.staged, []
        self._move(moved)
        self.early += moved
        return moved

    def _move(self, rels: list[str]) -> None:
        for rel in rels:
            target = os.path.join(self.output, rel)
            parent = os.path.dirname(target)
            if parent not in self._made:
                os.makedirs(parent, exist_ok=True)
                self._made.add(parent)
            os.replace(os.path.join(self.staging, rel), target)

    def abort(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


@dataclass
class LateFile:
    """An output a build left for later (`OutputWriter.keep`): its path, its key (computed when its turn comes) and
    what makes its content."""

    rel: str
    key: Callable[[], str]
    produce: Callable[[], str | bytes]


def write_late(
    output: Path, keys: dict[str, str], files: list[LateFile], cancelled: Callable[[], bool] = lambda: False
) -> list[str]:
    """Write `files` into the output, each whose key differs from `keys` (the build's, updated here), each in one
    step. Stops before the next file once `cancelled()`: the files not written keep their old content and key, and
    the next build writes them. Returns the paths written."""
    written = []
    for late in files:
        if cancelled():
            break
        key = late.key()
        if keys.get(late.rel) == key or cancelled():
            continue
        target = output / late.rel
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, late.produce())
        keys[late.rel] = key
        written.append(late.rel)
    return written


def _check_rel(rel: str) -> None:
    norm = os.path.normpath(rel)
    if os.path.isabs(rel) or norm == ".." or norm.startswith("../") or "\0" in rel:
        raise SiteError(f"refusing to write {rel!r}: outside the output directory")


def _marker(output: Path) -> str:
    try:
        return (output / MARKER).read_text().split("\n", 1)[0]
    except OSError:
        return ""


def _unlink_and_prune(root: Path, rel: str) -> None:
    path = os.path.join(root, rel)
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    parent = os.path.dirname(path)
    while parent != str(root):
        try:
            os.rmdir(parent)
        except OSError:
            break
        parent = os.path.dirname(parent)


def _remove_later(path: Path) -> None:
    """Delete a replaced output tree without making the user wait for it."""
    if hasattr(os, "fork"):
        pid = os.fork()
        if pid == 0:  # child: detach, delete, exit without running the parent's cleanup
            try:
                os.setsid()
                if os.fork() == 0:
                    shutil.rmtree(path, ignore_errors=True)
                os._exit(0)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        return
    shutil.rmtree(path, ignore_errors=True)
