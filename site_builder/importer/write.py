"""Turn feed entries into post files: front matter, file names, --force semantics, the report."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import yaml
from bs4 import BeautifulSoup

from site_builder.errors import SiteError
from site_builder.importer import wordpress
from site_builder.importer.convert import html_to_markdown
from site_builder.importer.download import ImageDownloader
from site_builder.importer.feed import Entry, Feed, read_feed
from site_builder.importer.text import guess_lang
from site_builder.importer.verify import checked_markdown
from site_builder.load import slugify
from site_builder.util.files import atomic_write

_SUMMARY_MAX = 300
_CJK_LANGS = ("zh", "ja", "ko")


@dataclass
class ImportReport:
    """What an import did: files written, files left alone, and what needs a human look."""

    written: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def plain_text(html: str) -> str:
    """Readable text of an HTML fragment (scripts and styles left out), whitespace collapsed."""
    soup = BeautifulSoup(html or "", "html.parser")
    for el in soup.find_all(["script", "style", "template"]):
        el.decompose()
    return " ".join(soup.get_text(" ").split())


def _shorten(text: str, limit: int = _SUMMARY_MAX) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:") + "…"


_DOT = {".", "%2e"}
_DOT_DOT = {"..", ".%2e", "%2e.", "%2e%2e"}


def _without_dot_segments(path: str) -> str:
    """`/a/../b/` -> `/b/`, as a browser reads the link (RFC 3986 5.2.4): a `..` never climbs above the root."""
    kept: list[str] = []
    for segment in path.split("/")[1:]:
        if segment.lower() in _DOT_DOT:
            if kept:
                kept.pop()
        elif segment.lower() not in _DOT:
            kept.append(segment)
    if path.rsplit("/", 1)[-1].lower() in _DOT | _DOT_DOT:
        kept.append("")  # `/a/..` is the folder `/`
    return "/" + "/".join(kept)


_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")  # what turns text around: spoofs an address


def _permalink(link: str) -> str | None:
    """The entry's own path, kept as its permalink: dot segments resolved (`\\` is `/` to a browser), so that the
    page stays inside the site; None when nothing is left but the home page."""
    if not link:
        return None
    path = urlsplit(link.replace("\\", "/")).path
    decoded = unquote(path)
    if decoded.count("/") != path.count("/") or any(ord(c) < 32 or c == "\x7f" for c in decoded):
        decoded = path  # keep an encoded slash (%2F) or a control character encoded
    decoded = _BIDI.sub(lambda m: quote(m.group()), decoded)  # an address that reads backwards, kept encoded
    decoded = _without_dot_segments(decoded if decoded.startswith("/") else "/" + decoded)
    if not decoded.strip("/") or decoded == "/index.html":
        return None  # a post at the site root would take the home page's place
    return decoded


def _slug(entry: Entry) -> str:
    path = urlsplit(entry.link).path if entry.link else ""
    segments = [unquote(s) for s in path.split("/") if s]
    segments = [re.sub(r"\.(?:html?|php|aspx?)$", "", s, flags=re.I) for s in segments]
    if segments and segments[-1].lower() == "index":
        segments.pop()
    segment = segments[-1] if segments else ""
    for candidate in (segment, entry.slug_hint, entry.title):
        if candidate:
            slug = slugify(unquote(candidate))
            if slug and slug != "post":
                return slug[:80].strip("-") or "post"
    return f"post-{entry.index}"


_LANG_TAG = re.compile(r"[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*")  # BCP 47's shape: en, pt-BR, zh-Hant-TW


def _lang(entry: Entry, feed: Feed, text: str) -> str:
    """Explicit entry xml:lang; else the feed's language unless the text's script disagrees. A language that is no
    language tag (`en" onmouseover=...`, `../../x`: Pagefind stops on it, and no page gets its index) is not
    taken."""
    if entry.lang and _LANG_TAG.fullmatch(entry.lang):
        return entry.lang
    detected = guess_lang(text)
    if feed.lang and _LANG_TAG.fullmatch(feed.lang):
        feed_cjk = feed.lang.lower().split("-")[0] in _CJK_LANGS
        if feed_cjk == (detected in _CJK_LANGS):
            return feed.lang
    return detected


def _existing_id(path: Path) -> str | None:
    """The `id` in an existing post's front matter, if it can be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    try:
        meta = yaml.safe_load(text[3:end]) if end > 0 else None
    except yaml.YAMLError:
        return None
    return str(meta.get("id")) if isinstance(meta, dict) and meta.get("id") is not None else None


def _choose_path(into: Path, slug: str, entry_id: str | None, taken: set[str]) -> Path:
    """`slug.md`, or `slug-2.md`... when another entry of this feed, or another post on disk, has it."""
    n = 1
    while True:
        name = slug if n == 1 else f"{slug}-{n}"
        path = into / f"{name}.md"
        n += 1
        if name in taken:
            continue
        if path.exists() and entry_id is not None:
            other = _existing_id(path)
            if other is not None and other != entry_id:
                continue
        taken.add(name)
        return path


def _front_matter(entry: Entry, body_text: str, feed: Feed, summary: str) -> dict[str, Any]:
    date = entry.published or entry.updated
    meta: dict[str, Any] = {"title": entry.title or "Untitled"}
    meta["date"] = date.isoformat() if date else None
    updated = entry.updated or date
    meta["updated"] = updated.isoformat() if updated else None
    meta["tags"] = list(dict.fromkeys(entry.tags))
    meta["lang"] = _lang(entry, feed, f"{entry.title}\n{body_text}")
    permalink = _permalink(entry.link)
    if permalink:
        meta["permalink"] = permalink
    if entry.id:
        meta["id"] = entry.id
    meta["summary"] = summary
    return meta


def _fill_date(entry: Entry, feed: Feed, today: datetime) -> list[str]:
    """An entry without a (non-zero) published date gets its updated date, else the feed's, else today's."""
    what = "no date in the entry" if entry.zero_date is None else f"date {entry.zero_date!r} is empty"
    if entry.updated is not None:
        if entry.zero_date is None:
            return []  # Atom without <published>: its <updated> is the date
        entry.published = entry.updated
        return [f"{what}; used its updated date"]
    if feed.updated is not None:
        entry.published = feed.updated
        return [f"{what}; used the feed's updated date"]
    entry.published = today
    return [f"{what}; used today's date, please correct it"]


def _entry_notes(entry: Entry, body: str, feed: Feed, today: datetime) -> list[str]:
    """What a person should look at in an imported post: a summary instead of the text, no text, title or date."""
    notes = []
    if entry.summary_only:
        notes.append("the feed has only a summary of this post; the body is that summary, not the full text")
    if not body.strip():
        notes.append("the entry has no text; wrote a post with an empty body")
    if not entry.title:
        notes.append("no title in the feed; wrote 'Untitled'")
    if not entry.published:
        notes += _fill_date(entry, feed, today)
    return notes


def _downloader(feed: Feed, report: ImportReport) -> ImageDownloader | None:
    """The downloader for the blog's own host: the feed's link, else its first absolute entry link."""
    links = [feed.link, *(e.link for e in feed.entries)]
    host = next((urlsplit(link).hostname for link in links if urlsplit(link).hostname), None)
    if host is None:
        report.warnings.append(f"{feed.path}: --download-images: the feed names no host; no image was downloaded")
        return None
    return ImageDownloader(host.lower())


def render_post_file(meta: dict[str, Any], body: str) -> str:
    head = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=10_000)
    return f"---\n{head}---\n\n{body}" if body else f"---\n{head}---\n"


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)


def import_feed(
    feed_path: Path,
    into: Path,
    force: bool = False,
    log: Callable[[str], None] = print,
    download_images: bool = False,
) -> ImportReport:
    """Write one Markdown post per feed entry into `into`; never overwrite without `force`. `download_images`:
    the images on the blog's own host are saved next to each post (`into/<post>/`) and linked from there."""
    feed_path, into = Path(feed_path), Path(into)
    feed = read_feed(feed_path)
    report = ImportReport()
    downloader = _downloader(feed, report) if download_images else None

    def warn(msg: str) -> None:
        report.warnings.append(msg)  # the caller shows these (the CLI prints them to stderr)

    for msg in feed.warnings:
        warn(msg)
    for msg in feed.notes:
        log(msg)
    if not feed.entries:
        warn(f"{feed_path}: the feed has no entries to import")
    if into.exists() and not into.is_dir():
        raise SiteError("import target is not a directory", into)

    taken: set[str] = set()
    today = datetime.now(timezone.utc).replace(microsecond=0)
    for entry in feed.entries:
        where = f"{feed_path}:{entry.line}" if entry.line else str(feed_path)
        label = f"entry {entry.index} ({entry.title!r})" if entry.title else f"entry {entry.index}"
        if not (entry.title or entry.link or entry.html.strip()):
            warn(f"{where}: {label} is empty (no title, link or text); not imported")
            continue
        path = _choose_path(into, _slug(entry), entry.id, taken)
        if path.exists() and not force:
            report.skipped.append(path)
            log(f"skipped {path} (exists; use --force to overwrite)")
            continue
        entry_msgs: list[str] = []
        html = entry.html
        if feed.media is not None:  # a WordPress export: its shortcodes and paragraphs as WordPress showed them
            html = wordpress.expand(html, entry.wordpress_id, feed.media, entry_msgs.append)
        body = html_to_markdown(html, entry.base, entry_msgs.append)
        if downloader is not None:
            body, fetched = downloader.localize(body, path.parent / path.stem, path.stem)
            entry_msgs += fetched
        body = checked_markdown(body, entry_msgs.append)
        for msg in entry_msgs + _entry_notes(entry, body, feed, today):
            warn(f"{where}: {label} -> {path.name}: {msg}")
        text = re.sub(r"(?ms)^(`{3,}|~{3,}).*?^\1", " ", body)  # language of the prose, not the code
        summary = _shorten(plain_text(entry.summary_html)) if entry.summary_html else ""
        meta = _front_matter(entry, text, feed, summary)
        _write_atomic(path, render_post_file(meta, body))
        report.written.append(path)
        log(f"wrote {path}")
    return report
