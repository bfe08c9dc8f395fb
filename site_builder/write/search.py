"""The search index: Pagefind over the built pages, its extended build (Chinese and Japanese words segmented).

The index is in shards (write/searchshards.py: a year of posts each), each a Pagefind bundle of its own in
`output/pagefind/NAME/`, listed with their languages in `output/pagefind/shards.json` (written last: an index
without it is not whole); the search script merges them (Pagefind's `mergeIndex`). A shard whose pages' indexed
text is what it was is taken from the last index (hard links); the others are indexed again, each by one Pagefind
run, two at a time on two cores (Pagefind writes its index on one thread). Pagefind indexes what a page marks with
`data-pagefind-body` (a post's text); each language (`<html lang>`) gets an index of its own. A build indexes its
complete staged tree before it takes the output's place (the pages and their index change in one step); where the
output is updated in place, the index is written beside the output and then put in place of the old one.

Pagefind reads each page's search document (write/searchdocs.py: its language, title and article, without the
code's token spans, formulas as their TeX), written for the run in a folder of its own, not the page: the
fragments and word index it writes are the same, in 0.6 of its time (4,000 posts; bench/README.md, "Search"). The
document holds nothing but the article, so Pagefind is not given a root selector (`[data-pagefind-body]`, which
saved a fifth of its time on whole pages, cost it a seventh on documents). Pagefind's service was measured against
it, at 4,000 posts: the build's text given as custom records took 14 s where the command took 5.7 s over the
pages (the API's own client waits 0.1 s per answer); spoken to directly, every record sent at once, it took more
CPU (6.4 s with the Python side) than the command over the documents (4.7-5.1 s), on one thread. So Pagefind
reads files.

A site with no `data-pagefind-body` element (no post, no page) is indexed as Pagefind does by default, every
page's `<body>`. A formula is indexed as its TeX (the MathML's `<annotation>`) and not also as the MathML's
symbols, which ran together (`n2` for `n^2`) in the words and the excerpts.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from site_builder.errors import SiteWarning
from site_builder.util import scratch
from site_builder.util.files import write_new
from site_builder.write.searchdocs import search_document
from site_builder.write.searchshards import (
    MANIFEST,
    PAGES,
    ShardPlan,
    plan,
    read_entries,
    read_manifest,
    scan,
    write_entries,
    write_manifest,
)

if TYPE_CHECKING:
    import subprocess

SEARCH_DIR = "pagefind"
SCRATCH_PREFIX = "site-builder-search-"  # a shard's search documents, while Pagefind reads them (util/scratch.py)
ENTRY = "pagefind-entry.json"  # written last by Pagefind in a shard's bundle: a bundle without it is not whole
TIMEOUT = 600.0
# what a post's page shows beside its words, kept out of the index and so out of the results' excerpts
EXCLUDED = ".post-header .meta, .post-header .tags, .post-header .translations, .header-anchor, .output-badge"
MATH_SYMBOLS = "semantics > :not(annotation)"  # a formula's MathML but its TeX source (render/mathtex.py)


def index_present(output: Path) -> bool:
    return (output / SEARCH_DIR / MANIFEST).is_file()


def pagefind() -> str | None:
    """The Pagefind binary the `pagefind[extended]` package installs (None when it is not installed), found as
    `pagefind.service.get_executable` finds it: importing that module imports asyncio, ~90 ms of every `serve`'s and
    `build`'s start, for a path."""
    if os.environ.get("PAGEFIND_BINARY_PATH"):
        return os.environ["PAGEFIND_BINARY_PATH"]
    for package in ("pagefind_bin_extended", "pagefind_bin"):
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        return str(module.get_executable())
    return shutil.which("pagefind_extended") or shutil.which("pagefind")


def index_site(
    output: Path,
    started: Callable[[subprocess.Popen[str]], object] | None = None,
    previous: Path | None = None,
    low: bool = False,
) -> SiteWarning | None:
    """Index the site in `output` (a warning, and the old index kept, when Pagefind is missing or fails): each shard
    (write/searchshards.py) whose pages changed since the index in `previous` (the live output; default `output`)
    is indexed again, the others are kept. `started` is given each Pagefind process, for a caller that may have to
    stop it; `low`: one at a time, at a low priority (serve)."""
    import subprocess  # here: a build that indexes nothing does not load them (serve imports this module at start)
    from concurrent.futures import ThreadPoolExecutor

    binary = pagefind()
    if binary is None:
        return SiteWarning("search index not built: Pagefind is not installed (pip install 'pagefind[extended]')")
    scratch.remove_stale(SCRATCH_PREFIX, _scratch())  # what a killed build left, once (a shard's folder each)
    new, old = _new(output), output.parent / f".{output.name}.{SEARCH_DIR}-old"
    for leftover in (new, old):
        shutil.rmtree(leftover, ignore_errors=True)
    last = (previous or output) / SEARCH_DIR
    shards = plan(scan(output, read_entries(last), SEARCH_DIR))
    before = read_manifest(last)
    new.mkdir()
    here = output / SEARCH_DIR
    in_place = last == here and bool(before)  # serve, or a build updating its output: only changed shards move
    # a staged tree holds an index already (the output's, linked): its unchanged shards are moved, not linked again
    staged = read_manifest(here) if last != here else {}
    moved = [n for n in sorted(shards.pages) if _moved(here, new, n, shards.keys[n], staged)]
    todo = [
        n
        for n in sorted(shards.pages)
        if n not in moved
        and not (_same(last, n, shards.keys[n], before) if in_place else _kept(last, new, n, shards.keys[n], before))
    ]
    command = [binary, "--silent", "--exclude-selectors", EXCLUDED, "--exclude-selectors", MATH_SYMBOLS]
    if low and shutil.which("nice"):
        command = ["nice", "-n", "10", *command]
    try:
        with ThreadPoolExecutor(1 if low else max(1, min(len(todo), os.cpu_count() or 1))) as pool:
            failures = [f for f in pool.map(lambda n: _shard(output, new, n, shards, command, started), todo) if f]
    except (OSError, subprocess.TimeoutExpired) as exc:
        _give_back(new, here, moved)
        return SiteWarning(f"search index not updated: Pagefind did not finish ({exc})")
    if failures:
        _give_back(new, here, moved)
        return SiteWarning(f"search index not updated: Pagefind failed: {failures[0]}")
    if in_place:
        _update(here, new, old, shards, todo, before)
        return None
    write_entries(new, shards.entries)
    write_manifest(
        new, [{"name": n, "key": shards.keys[n], "languages": _languages(new / n)} for n in sorted(shards.pages)]
    )
    if here.exists():
        os.rename(here, old)
    os.rename(new, here)
    shutil.rmtree(old, ignore_errors=True)
    return None


# what Pagefind is told of the build's environment: no token (GITHUB_TOKEN...), since a program the build starts
# can be read by a process a post left running, where the build runs without capabilities (any user but root)
_ENV = ("PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "TZ")


def _update(
    here: Path, new: Path, old: Path, shards: ShardPlan, todo: list[str], before: dict[str, dict[str, object]]
) -> None:
    """Put the shards indexed again in place of theirs in the live index `here`, then its lists; then remove the
    shards no longer listed (a page reading the old list finds every shard it names, but for a moment the one
    being replaced)."""
    old.mkdir()
    for name in todo:
        if (here / name).exists():
            os.rename(here / name, old / name)
        os.rename(new / name, here / name)
    write_entries(new, shards.entries)
    write_manifest(
        new, [{"name": n, "key": shards.keys[n], "languages": _languages(here / n)} for n in sorted(shards.pages)]
    )
    os.replace(new / PAGES, here / PAGES)
    os.replace(new / MANIFEST, here / MANIFEST)
    for name in before.keys() - shards.pages.keys():
        if (here / name).exists():
            os.rename(here / name, old / name)
    shutil.rmtree(new, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)


def _same(last: Path, name: str, key: str, before: dict[str, dict[str, object]]) -> bool:
    prior = before.get(name)
    return prior is not None and prior.get("key") == key and (last / name / ENTRY).is_file()


def _moved(here: Path, new: Path, name: str, key: str, staged: dict[str, dict[str, object]]) -> bool:
    """Move shard `name` of the staged tree's index into the new index when its pages are the same (False if not)."""
    prior = staged.get(name)
    if prior is None or prior.get("key") != key or not (here / name / ENTRY).is_file():
        return False
    os.rename(here / name, new / name)
    return True


def _give_back(new: Path, here: Path, moved: list[str]) -> None:
    """Pagefind failed: the shards moved out of the staged tree's index go back (that index stays whole)."""
    for name in moved:
        os.rename(new / name, here / name)
    shutil.rmtree(new, ignore_errors=True)


def _kept(last: Path, new: Path, name: str, key: str, before: dict[str, dict[str, object]]) -> bool:
    """Put the last index's bundle of shard `name` in the new index when its pages are the same (False if not)."""
    prior = before.get(name)
    if prior is None or prior.get("key") != key or not (last / name / ENTRY).is_file():
        return False
    try:
        shutil.copytree(last / name, new / name, copy_function=_link)
    except OSError:
        shutil.rmtree(new / name, ignore_errors=True)
        return False
    return True


def _link(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _shard(
    output: Path,
    new: Path,
    name: str,
    shards: ShardPlan,
    command: list[str],
    started: Callable[[subprocess.Popen[str]], object] | None,
) -> str:
    """Index one shard's pages into new/name: "" or why Pagefind failed. Pagefind reads their search documents
    (write/searchdocs.py), written under the pages' paths in a folder of their own (in memory where there is
    /dev/shm)."""
    site = scratch.make(SCRATCH_PREFIX, _scratch())
    try:
        for rel in shards.pages[name]:
            target = site / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            document = search_document((output / rel).read_bytes()) if shards.bodies else None
            if document is None:
                _link(str(output / rel), str(target))
            else:
                write_new(target, document)
        proc, out, err = _run([*command, "--site", str(site), "--output-path", str(new / name)], started)
    finally:
        shutil.rmtree(site, ignore_errors=True)
    if proc.returncode != 0 or not (new / name / ENTRY).is_file():
        return " ".join((err or out).split())[:300] or f"exit {proc.returncode}"
    return ""


def _scratch() -> str | None:
    """/dev/shm when it can be written (RAM), else the system's temporary folder."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK | os.X_OK) else None


def _languages(bundle: Path) -> list[str]:
    try:
        return sorted(json.loads((bundle / ENTRY).read_text())["languages"])
    except (OSError, ValueError, KeyError):
        return []


def _run(
    command: list[str], started: Callable[[subprocess.Popen[str]], object] | None
) -> tuple[subprocess.Popen[str], str, str]:
    """Run Pagefind to its end (killed after TIMEOUT): the process, its output and its errors."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k in _ENV or k.startswith("LC_")}
    with subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as proc:
        if started is not None:
            started(proc)
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    return proc, out, err


def _new(output: Path) -> Path:
    """Where Pagefind writes: beside the output, not in it (a stopped run leaves nothing in the site)."""
    return output.parent / f".{output.name}.{SEARCH_DIR}-new"


def interrupted(output: Path) -> bool:
    """An index run was stopped before it was put in place: the index may be older than the pages."""
    return _new(output).exists()


def remove_index(output: Path) -> None:
    """`search: false`: no index left in the output."""
    shutil.rmtree(output / SEARCH_DIR, ignore_errors=True)
