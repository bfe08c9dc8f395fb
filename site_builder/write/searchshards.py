"""The search index's shards: which pages each holds, and which changed since the index was last made.

A post's page goes in the shard of its year (`2019`); years of fewer than SHARD_MIN posts share one (`2015-2017`,
so that no shard ranks its few posts apart: `year_groups`); a year of more than SHARD_MAX posts is split by months
into equal ranges (`2019-1`, `2019-2`: January-June, July-December). Adding posts moves pages only in the newest
shards, or when a year crosses a multiple of SHARD_MAX. A page that is not a post (no date: an about page) is in the
newest shard. A site of fewer than SHARD_MIN posts is one shard, indexed as a whole as before. A shard
is indexed again only when one of its pages' indexed text (what `data-pagefind-body` holds, and the page's language)
changed: each page's digest is kept in PAGES with the file's size and time, so a file that was not rewritten is not
read again.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from site_builder.util.hashing import content_key

SHARD_MAX = 1000  # posts in a shard at most (a year of more is split by months)
SHARD_MIN = 100  # posts in a shard at least, where the site has them (years of fewer share one)
PAGES = "pages.json"  # each page's stamp and digest, for the next build (read by no browser)
MANIFEST = "shards.json"  # the shards and their languages, read by the search script; written last
BODY = "data-pagefind-body"
_LANG = re.compile(r'<html[^>]*\blang="([^"]*)"')
_DATE = re.compile(r'<time datetime="(\d{4})-(\d\d)')


@dataclass
class PageEntry:
    """One HTML file as the index sees it: its stamp, and the digest of its indexed text ("" when it has none)."""

    size: int
    mtime: int
    digest: str
    year: str = ""  # "" for a page that is not a post
    month: int = 0


@dataclass
class ShardPlan:
    """Every indexed page by shard, each shard's key (its pages' digests), and every HTML file's entry."""

    pages: dict[str, list[str]] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    entries: dict[str, PageEntry] = field(default_factory=dict)
    bodies: bool = True  # some page has data-pagefind-body (else every page's <body> is indexed, as Pagefind does)


def read_entries(index_dir: Path) -> dict[str, PageEntry]:
    """The entries the last index kept (none when it has no readable file)."""
    try:
        raw = json.loads((index_dir / PAGES).read_text())
        return {rel: PageEntry(*values) for rel, values in raw.items()}
    except (OSError, ValueError, TypeError):
        return {}


def write_entries(index_dir: Path, entries: dict[str, PageEntry]) -> None:
    data = {rel: [e.size, e.mtime, e.digest, e.year, e.month] for rel, e in sorted(entries.items())}
    (index_dir / PAGES).write_text(json.dumps(data, separators=(",", ":")))


def read_manifest(index_dir: Path) -> dict[str, dict[str, object]]:
    """The last index's shards: name -> {"key", "languages"} (none when it has no readable manifest)."""
    try:
        shards = json.loads((index_dir / MANIFEST).read_text())["shards"]
        return {str(s["name"]): s for s in shards}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def write_manifest(index_dir: Path, shards: list[dict[str, object]]) -> None:
    (index_dir / MANIFEST).write_text(json.dumps({"version": 1, "shards": shards}, separators=(",", ":")))


def entry_of(path: Path, stat: os.stat_result) -> PageEntry:
    """Read one HTML file: the digest of its indexed text, its language and its date."""
    text = path.read_text(encoding="utf-8", errors="replace")
    start = text.find(BODY)
    if start < 0:
        return PageEntry(stat.st_size, stat.st_mtime_ns, "")
    end = text.rfind("</article>")
    lang = _LANG.search(text)
    body = text[start : end if end > start else len(text)]
    date = _DATE.search(body)
    year, month = (date.group(1), int(date.group(2))) if date else ("", 0)
    return PageEntry(stat.st_size, stat.st_mtime_ns, content_key(lang.group(1) if lang else "", body), year, month)


def scan(tree: Path, known: dict[str, PageEntry], skip: str) -> dict[str, PageEntry]:
    """Every HTML file of `tree` (but the index's folder `skip`), read only when its stamp is not the known one."""
    entries: dict[str, PageEntry] = {}
    for folder, dirs, files in os.walk(tree):
        base = os.path.relpath(folder, tree)
        if base == ".":
            dirs[:] = [d for d in dirs if d != skip and not d.startswith(".")]
        for name in files:
            if not name.endswith(".html"):
                continue
            rel = name if base == "." else f"{base}/{name}"
            path = Path(folder, name)
            stat = path.stat()
            old = known.get(rel)
            if old is not None and (old.size, old.mtime) == (stat.st_size, stat.st_mtime_ns):
                entries[rel] = old
            else:
                entries[rel] = entry_of(path, stat)
    return entries


def plan(entries: dict[str, PageEntry]) -> ShardPlan:
    """The shards of these pages and their keys."""
    indexed = {rel: e for rel, e in entries.items() if e.digest}
    result = ShardPlan(entries=entries, bodies=bool(indexed))
    if not indexed:  # no post, no page: every page, whole, in one shard
        result.pages["site"] = sorted(entries)
        result.keys["site"] = content_key(*(f"{rel} {e.size} {e.mtime}" for rel, e in sorted(entries.items())))
        return result
    per_year: dict[str, int] = {}
    for e in indexed.values():
        per_year[e.year] = per_year.get(e.year, 0) + 1
    groups = year_groups(per_year)
    for rel, e in sorted(indexed.items()):
        big = e.year and per_year[e.year] > SHARD_MAX
        name = shard_name(e, per_year[e.year]) if big else groups[e.year]
        result.pages.setdefault(name, []).append(rel)
    for name, rels in result.pages.items():
        result.keys[name] = content_key(*(f"{rel} {indexed[rel].digest}" for rel in rels))
    return result


def year_groups(per_year: dict[str, int]) -> dict[str, str]:
    """Each year's shard when it is not split: years of fewer than SHARD_MIN posts together with the years after
    them, oldest first, until a shard has SHARD_MIN (the newest shard takes what is left, and the pages that are
    not posts). Pagefind weighs a word by how many pages of its own index hold it, so a shard of a few posts would
    rank them apart from the rest (a word in every post counts more there); new posts change the newest shard."""
    years = sorted(y for y in per_year if y)
    runs: list[list[str]] = [[]]
    for year in years:
        if sum(per_year[y] for y in runs[-1]) >= SHARD_MIN or per_year[year] > SHARD_MAX:
            runs.append([])
        runs[-1].append(year)
        if per_year[year] > SHARD_MAX:
            runs.append([])
    runs = [run for run in runs if run]
    if len(runs) > 1 and sum(per_year[y] for y in runs[-1]) < SHARD_MIN and per_year[runs[-2][-1]] <= SHARD_MAX:
        last = runs.pop()
        runs[-1] = runs[-1] + last
    groups = {y: (run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}") for run in runs for y in run}
    newest = next((run for run in reversed(runs) if per_year[run[-1]] <= SHARD_MAX), None)
    groups[""] = groups[newest[0]] if newest else "pages"
    return groups


def shard_name(entry: PageEntry, in_year: int) -> str:
    """The shard of a post whose year has more than SHARD_MAX posts: a range of its months."""
    parts = -(-in_year // SHARD_MAX)
    if parts <= 1:
        return entry.year
    return f"{entry.year}-{(entry.month - 1) * parts // 12 + 1}"
