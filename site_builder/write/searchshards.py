"""The search index's shards: which pages each holds, and which changed since the index was last made.

A post's page goes in the shard of its year (`2019`); a year of more than SHARD_MAX posts is split by months into
equal ranges (`2019-1`, `2019-2`: January-June, July-December), so adding posts moves a page only when its year
crosses a multiple of SHARD_MAX. A page that is not a post (no date: an about page) is in the shard `pages`. A shard
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
    for rel, e in sorted(indexed.items()):
        name = shard_name(e, per_year[e.year])
        result.pages.setdefault(name, []).append(rel)
    for name, rels in result.pages.items():
        result.keys[name] = content_key(*(f"{rel} {indexed[rel].digest}" for rel in rels))
    return result


def shard_name(entry: PageEntry, in_year: int) -> str:
    if not entry.year:
        return "pages"
    parts = -(-in_year // SHARD_MAX)
    if parts <= 1:
        return entry.year
    return f"{entry.year}-{(entry.month - 1) * parts // 12 + 1}"
