"""The output folder: files staged beside it, then the whole folder swapped in one step when the build succeeded (the
dev server's moves files in); files left for later (`keep`) written after, each in one step.

The tree a swap replaces is kept beside the output as the next build's spare (`.output.spare`, with a note of where
it differs from the output): that build stages into it, so that it writes only what changes and makes no folders."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from site_builder.config import CONFIG_NAME
from site_builder.errors import SiteError
from site_builder.util.files import (
    atomic_write,
    exchange,
    left_by_the_dead,
    prune,
    remove_later,
    unlink_and_prune,
    unlink_if_there,
    write_new,
)

MARKER = ".site-builder"
NOTE = ".gitignore"  # in a spare tree: what it is, that git is to leave it out, where it differs from the output
_NOTE_HEAD = "# site-builder: the output before the last build, kept to stage the next one in (git: ignore it)\n*\n"


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
    """Stages every new or changed file in a sibling directory; `commit` makes them the output.

    Nothing in the output changes until `commit`, and then in one step (the staged tree swapped with the output),
    so a failed or killed build leaves it as it was. When the output still holds what the previous build wrote (its
    marker matches), only changed files are written, into the spare tree made the same as the output first (its
    files hard links to the output's); without a spare, the output's other files are hard-linked into a new staged
    tree at `commit`. A writer of the dev server (`trust_output`) moves the staged files into the output instead,
    one by one (`commit_early` first): its output is its own.
    """

    def __init__(
        self, output: Path, previous: dict[str, str], build_id: str, previous_id: str, trust_output: bool = False
    ):
        """`trust_output`: the output directory is private to this process (the dev server's), so a file the
        previous build wrote is known to be there without looking."""
        self.output = output.resolve()
        self.staging = self.output.parent / f".{self.output.name}.tmp-{os.getpid()}"
        _clear_stale(self.output)
        if self.staging.exists():
            shutil.rmtree(self.staging)
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
        self._touched: set[str] = set()  # paths `needs` said to write
        self.reused = self.incremental and not trust_output and self._take_spare()  # staging into the spare tree
        self.completed = False  # commit gave `complete` the staged tree
        if not self.reused:
            if trust_output:  # the output changes in place: a spare would no longer match it
                self._discard(_spare(self.output))
            self.staging.mkdir(parents=True)

    def needs(self, rel: str, key: str) -> bool:
        """Record that this build produces `rel`; True when it must be (re)written."""
        previous = self._claim(rel, key)
        if previous == key and (self.trust_output or os.path.exists(os.path.join(self.output, rel))):
            return False
        self.staged.append(rel)
        self._touched.add(rel)
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

    def _target(self, rel: str) -> str:
        """Where to write `rel`: its staged path, free (in the spare tree it may be a link to the output's file)."""
        path = self._staged(rel)
        if self.reused:
            unlink_if_there(path)
        return path

    def write(self, rel: str, data: str | bytes) -> None:
        write_new(self._target(rel), data.encode("utf-8") if isinstance(data, str) else data)

    def copy_file(self, rel: str, src: Path) -> None:
        """Stage a copy of a file that is already on disk (an image or its variant)."""
        shutil.copyfile(src, self._target(rel))

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

    def commit(self, complete: Callable[[Path], object] | None = None) -> int:
        """Make the staged files the output; returns how many files changed. `complete` is given the staged tree
        when it is the whole new output, before it takes the output's place (the search index is made there, so it
        changes with the pages in one step); `self.completed` says whether it was."""
        marker = self._target(MARKER)
        write_new(
            marker, f"{self.build_id}\nbuilt by site-builder; this directory is replaced on every build\n".encode()
        )
        removed = sorted(self.previous.keys() - self.keys.keys())
        if self.incremental and (self.trust_output or not (self.reused or self._link_output(removed))):
            self._discard(_spare(self.output))  # the output changes in place: a spare would no longer match it
            self._move(self.staged)
            for rel in removed:
                unlink_and_prune(self.output, rel)
            self.changed = self.early + self.staged + removed
            os.replace(marker, os.path.join(self.output, MARKER))
            shutil.rmtree(self.staging, ignore_errors=True)
            return len(self.changed)
        if self.reused:
            for rel in removed:
                unlink_and_prune(self.staging, rel)
        if complete is not None and (self.staged or removed or not self.incremental):
            complete(self.staging)
            self.completed = True
        self._swap({*self.staged, *removed, MARKER} if self.incremental else None)
        self.changed = self.staged + removed
        return len(self.changed)

    def _swap(self, differs: set[str] | None) -> None:
        """Put the staged tree in the output's place in one step. The tree it replaces is kept as the next build's
        spare when `differs` says where the two differ; else it is removed, and so is the spare (of an output gone)."""
        if self.output.exists():
            identity = _identity(self.staging)  # the output's, from the swap on
            exchange(self.staging, self.output)  # the staging path now holds the previous output
            if differs is None or not _keep_spare(self.staging, _spare(self.output), identity, differs):
                self._discard(self.staging)
        else:
            os.rename(self.staging, self.output)
        if differs is None:
            self._discard(_spare(self.output))

    def _link_output(self, removed: list[str]) -> bool:
        """Hard-link into the staged tree every file of the output this build leaves as it is (all but those it
        writes or removes): the staged tree is then the whole new output. False where the file system cannot."""
        skip = {*self.staged, *removed, MARKER}
        for folder, _dirs, files in os.walk(self.output):
            base = os.path.relpath(folder, self.output)
            for name in files:
                rel = name if base == "." else os.path.join(base, name)
                if rel not in skip:
                    try:
                        os.link(os.path.join(folder, name), self._staged(rel))
                    except (FileNotFoundError, FileExistsError):  # gone since; staged under another spelling
                        continue
                    except OSError:
                        return False
        return True

    def _take_spare(self) -> bool:
        """Stage into the spare tree (the output before the last build, which that build kept), made the same as the
        output first where its note says they differ: then only what this build changes is written. False when
        there is none, or none that is the spare of this output (it is removed)."""
        try:
            os.rename(_spare(self.output), self.staging)  # this build's alone from now on
        except OSError:
            return False
        try:
            differs = _read_note(self.staging, self.output)
            if differs is not None:
                for rel in differs:
                    path = self._staged(rel)
                    unlink_if_there(path)
                    try:
                        os.link(os.path.join(self.output, rel), path)
                    except FileNotFoundError:  # not in the output
                        prune(self.staging, os.path.dirname(path))
                return True
        except OSError:
            pass
        finally:
            self._dirs.clear()  # some may be gone
        self._discard(self.staging)
        return False

    def _discard(self, path: Path) -> None:
        """Remove a tree in the background, renamed at once (so that its name is free); nothing when there is none."""
        aside = self.output.parent / f".{self.output.name}.old-{os.getpid()}-{os.urandom(4).hex()}"
        try:
            os.rename(path, aside)
        except OSError:
            return
        remove_later(aside)

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
        """Remove what this build staged; the spare tree, when it staged there, is kept with a note of what it wrote."""
        if self.reused:
            differs = {*self._touched, *(self.previous.keys() - self.keys.keys()), MARKER}
            try:
                if _keep_spare(self.staging, _spare(self.output), _identity(self.output), differs):
                    return
            except OSError:
                pass
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


def _spare(output: Path) -> Path:
    return output.parent / f".{output.name}.spare"


def _identity(output: Path) -> str:
    """What tells the output tree from any other, and from itself once something beside the builds has added,
    removed or replaced a file or folder at its top (the search index): its folder, when that changed, its marker
    file (OSError when either is missing)."""
    folder, marker = os.stat(output), os.stat(output / MARKER)
    return f"{folder.st_dev} {folder.st_ino} {folder.st_mtime_ns} {marker.st_ino}"


def _keep_spare(tree: Path, spare: Path, identity: str, differs: set[str]) -> bool:
    """Keep `tree` as the spare of the output `identity` names, with a note of the paths where they differ; False
    when it cannot be (it is then to be removed)."""
    if any("\n" in rel or "\r" in rel for rel in differs):
        return False
    note = os.path.join(tree, NOTE)
    try:
        unlink_if_there(note)  # the old output's own, were there one: a link to the new output's
        write_new(note, (_NOTE_HEAD + f"# of {identity}\n" + "".join(f"# {r}\n" for r in sorted(differs))).encode())
        os.rename(tree, spare)  # not over another build's
    except OSError:
        return False
    return True


def _read_note(tree: Path, output: Path) -> list[str] | None:
    """The paths where `tree` differs from `output`, from its note (then removed); None when it is not the spare
    of this output as it is now."""
    note = tree / NOTE
    try:
        lines = note.read_bytes().decode("utf-8").split("\n")
        note.unlink()
        identity = _identity(output)
    except (OSError, UnicodeDecodeError):
        return None
    differs = [line[2:] for line in lines[3:] if line.startswith("# ")]
    if (
        len(lines) < 3
        or lines[2] != f"# of {identity}"
        or any(os.path.isabs(r) or ".." in Path(r).parts for r in differs)
    ):
        return None
    return differs


def _clear_stale(output: Path) -> None:
    """Remove what builds killed before they finished left beside `output`: their staging folders, the output trees
    they replaced (each named after the build's process)."""
    for path in left_by_the_dead(output.parent, rf"\.{re.escape(output.name)}\.(?:tmp|old)-(\d+)(?:-[0-9a-f]+)?"):
        remove_later(path)
