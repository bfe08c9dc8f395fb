"""Read an Atom/RSS feed (or a WordPress WXR export) into plain entry records with feedparser."""

from __future__ import annotations

import io
import re
import xml.parsers.expat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import feedparser  # type: ignore[import-untyped]
from bs4 import BeautifulSoup

from site_builder.errors import SiteError
from site_builder.importer.wordpress import Media
from site_builder.load import tag_is_path

_XML_NS = "http://www.w3.org/XML/1998/namespace"
_ATOM = "http://www.w3.org/2005/Atom"
_WP_NS = "http://wordpress.org/export/"


@dataclass
class Entry:
    """One post as the feed describes it, before any conversion."""

    index: int  # 1-based position in the feed
    title: str
    link: str  # as written (may be relative or empty)
    id: str | None
    published: datetime | None
    updated: datetime | None
    tags: list[str]
    html: str  # the body: content, else the summary
    summary_html: str  # the feed's own summary ("" if none)
    summary_only: bool  # True when the feed had no content, only a summary
    base: str  # base URL for relative links in `html`
    lang: str | None  # xml:lang written on the entry or its content
    line: int | None = None  # line of the entry in the feed file, when known
    slug_hint: str = ""  # e.g. WordPress post_name
    zero_date: str | None = None  # the published date as written when it was empty ("") or zero (0000-00-00)
    wordpress_id: str = ""  # a WordPress export's post id (its attachments name it as their parent)


@dataclass
class Feed:
    """A parsed feed: its entries plus what went wrong while reading it."""

    path: Path
    title: str
    link: str
    lang: str | None
    entries: list[Entry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # informational, not problems
    updated: datetime | None = None  # the feed's own date: the fallback for an entry without any
    media: Media | None = None  # a WordPress export's attachments (None: not one)


@dataclass
class _Scanned:
    """What feedparser does not report faithfully: per-entry xml:base/xml:lang and line numbers."""

    line: int
    base: str | None = None  # xml:base in effect on the entry's content
    lang: str | None = None  # xml:lang written on the entry or its content


def _scan_xml(data: bytes) -> tuple[list[_Scanned], str | None]:
    """Walk the raw XML with expat; returns ([] , None) when it is not well-formed."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    entries: list[_Scanned] = []
    stack: list[tuple[str, str | None, str | None]] = []  # (name, base, lang) in effect
    current: list[_Scanned | None] = [None]
    feed_lang: list[str | None] = [None]

    def start(name: str, attrs: dict[str, Any]) -> None:
        parent_base = stack[-1][1] if stack else None
        parent_lang = stack[-1][2] if stack else None
        own_base = attrs.get(f"{_XML_NS} base")
        own_lang = attrs.get(f"{_XML_NS} lang")
        base = urljoin(parent_base, own_base) if (parent_base and own_base) else (own_base or parent_base)
        lang = own_lang or parent_lang
        local = name.rsplit(" ", 1)[-1]
        if len(stack) <= 1 and own_lang and feed_lang[0] is None:
            feed_lang[0] = own_lang
        if local in ("entry", "item"):
            scanned = _Scanned(line=parser.CurrentLineNumber, lang=own_lang, base=base)
            current[0] = scanned
            entries.append(scanned)
        elif current[0] is not None and local in ("content", "encoded") and current[0] is entries[-1]:
            if own_lang:
                current[0].lang = own_lang
            current[0].base = base
        stack.append((name, base, lang))

    def end(name: str) -> None:
        stack.pop()
        if name.rsplit(" ", 1)[-1] in ("entry", "item"):
            current[0] = None

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)
    except (xml.parsers.expat.ExpatError, ValueError, LookupError):
        return [], None
    return entries, feed_lang[0]


def _zero_date(raw: str | None) -> bool:
    """ "", `0000-00-00`, `0001-01-01`, `Mon, 30 Nov -0001`: an empty date as WordPress and others write it (the
    email parser would read the year 0001 as 2001). ISO and RFC 822 forms."""
    return raw is not None and (not raw.strip() or re.search(r"^\s*-?000[01]-|\s-?000[01]\s", raw) is not None)


def _parse_date(raw: str | None, parsed: Any) -> datetime | None:
    """A timezone-aware datetime keeping the feed's own offset when it wrote one; None for a zero date."""
    if _zero_date(raw):
        return None
    if raw:
        text = raw.strip()
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
            return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
        except ValueError:
            pass
        try:
            dt = parsedate_to_datetime(text)
            return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
        except (TypeError, ValueError, IndexError):
            pass
    if parsed:
        year, month, day, hour, minute, second = parsed[:6]
        return datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    return None


def _updated(e: Any, wxr: bool) -> datetime | None:
    """The entry's own update time; feedparser's fallback to `published` is not asked for."""
    if wxr and e.get("wp_post_modified_gmt"):
        dt = _parse_date(e["wp_post_modified_gmt"].replace(" ", "T") + "+00:00", None)
        if dt is not None:
            return dt
    return _parse_date(dict.get(e, "updated"), dict.get(e, "updated_parsed"))


def _text_of(detail: dict[str, Any] | None, fallback: str = "") -> str:
    """Plain text of a title-like field, whatever type the feed declared."""
    if not detail:
        return fallback.strip()
    value = detail.get("value", "") or ""
    if "html" in (detail.get("type") or ""):
        value = BeautifulSoup(value, "html.parser").get_text()
    return re.sub(r"\s+", " ", value).strip()


def _as_html(detail: dict[str, Any]) -> str:
    value = detail.get("value", "") or ""
    if (detail.get("type") or "").startswith("text/plain"):
        paras = [p.strip() for p in re.split(r"\n\s*\n", value) if p.strip()]
        return "\n".join(f"<p>{escape(p)}</p>" for p in paras)
    return value


def _problem(exc: BaseException) -> tuple[str, int | None]:
    """A one-line description of feedparser's bozo exception, and its line if it has one."""
    line = None
    get_line = getattr(exc, "getLineNumber", None)
    if callable(get_line):
        try:
            line = int(get_line()) or None
        except (TypeError, ValueError):
            line = None
    name = type(exc).__name__
    if name == "CharacterEncodingOverride":
        msg = f"{exc}; text may be garbled (the feed is not UTF-8 and does not declare its encoding)"
    elif name == "CharacterEncodingUnknown":
        msg = f"unknown character encoding: {exc}"
    elif name == "NonXMLContentType":
        msg = f"not served as XML: {exc}"
    else:
        msg = f"not well-formed XML: {getattr(exc, 'getMessage', lambda: str(exc))()}"
    return " ".join(str(msg).split()), line


def _is_wxr(parsed: Any) -> bool:
    return any(str(uri).startswith(_WP_NS) for uri in (parsed.get("namespaces") or {}).values())


def _read_bytes(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SiteError("feed file not found", path) from None
    except IsADirectoryError:
        raise SiteError("is a directory, not a feed file", path) from None
    except OSError as exc:
        raise SiteError(f"cannot read feed: {exc.strerror or exc}", path) from None
    if not data.strip():
        raise SiteError("feed file is empty", path, 1)
    return data


def _parse(data: bytes, path: Path) -> tuple[Any, list[str]]:
    """feedparser's result and a warning when it had to recover; an error when nothing can be read."""
    try:
        parsed = feedparser.parse(io.BytesIO(data), sanitize_html=False, resolve_relative_uris=False)
    except Exception as exc:  # feedparser should not raise, but never show a traceback
        raise SiteError(f"cannot read feed: {type(exc).__name__}: {exc}", path) from None
    warnings: list[str] = []
    if parsed.get("bozo"):
        msg, line = _problem(parsed.get("bozo_exception"))
        usable = [e for e in parsed.entries if e.get("title") or e.get("link") or e.get("content") or e.get("summary")]
        if not usable:
            raise SiteError(f"cannot read feed: {msg}", path, line)
        where = f"{path}:{line}" if line else f"{path}"
        warnings.append(f"{where}: {msg}; imported the entries feedparser could recover, check them")
    elif not parsed.get("version") and not parsed.entries:
        raise SiteError("not an RSS or Atom feed (no feed or channel element found)", path, 1)
    return parsed, warnings


def read_feed(path: Path) -> Feed:
    """Parse `path`; raise SiteError when nothing can be read, else return entries and warnings."""
    data = _read_bytes(path)
    parsed, warnings = _parse(data, path)
    scanned, scanned_lang = _scan_xml(data)
    if len(scanned) != len(parsed.entries):
        scanned = []
    meta = parsed.get("feed", {})
    feed = Feed(
        path=path,
        title=_text_of(meta.get("title_detail"), meta.get("title", "")),
        link=meta.get("link", "") or "",
        lang=scanned_lang or meta.get("language") or None,
        warnings=warnings,
        updated=_parse_date(dict.get(meta, "updated"), dict.get(meta, "updated_parsed")),
    )
    wxr = _is_wxr(parsed)
    dropped: dict[str, int] = {}
    feed.media = Media() if wxr else None
    for i, e in enumerate(parsed.entries, 1):
        if wxr:
            kind, status = e.get("wp_post_type", "post"), e.get("wp_status", "publish")
            if kind == "attachment" and e.get("wp_attachment_url") and feed.media is not None:
                parent = str(e.get("wp_post_parent") or "")
                feed.media.add(str(e.get("wp_post_id") or ""), e["wp_attachment_url"], parent, _caption(e))
            if kind != "post" or status != "publish":
                key = f"{status} {kind}" if kind == "post" else kind
                dropped[key] = dropped.get(key, 0) + 1
                continue
        feed.entries.append(_entry(e, i, scanned[i - 1] if scanned else None, feed.link, wxr))
    if dropped:
        what = ", ".join(f"{n} {k}" for k, n in sorted(dropped.items()))
        feed.notes.append(f"{path}: WordPress export: imported published posts only; left out {what}")
    comments = len(re.findall(rb"<wp:comment>", data)) if wxr else 0
    if comments:
        feed.notes.append(
            f"{path}: WordPress export: its {comments} comments are not imported (site.yml's `comments:` adds"
            " giscus, utterances or Disqus under each post)"
        )
    return feed


def _entry(e: Any, i: int, scan: Any, feed_link: str, wxr: bool) -> Entry:
    """One feed entry: its content (HTML preferred), summary, base URL for relative links, and where it is."""
    contents = [c for c in e.get("content", []) if (c.get("value") or "").strip()]
    html_contents = [c for c in contents if "html" in (c.get("type") or "")] or contents
    content_html = _as_html(html_contents[0]) if html_contents else ""
    summary_detail = e.get("summary_detail")
    summary_html = _as_html(summary_detail) if summary_detail else ""
    if wxr and not summary_html.strip():
        summary_html = e.get("excerpt_encoded", "") or ""
    if content_html and summary_html.strip() == content_html.strip():
        summary_html = ""  # feedparser copies content into summary when there is none
    link = e.get("link", "") or ""
    if scan is not None and scan.base:
        base = urljoin(feed_link, scan.base) if feed_link else scan.base
    else:
        detail = html_contents[0] if html_contents else (summary_detail or {})
        base = detail.get("base") or ""
    if not base:
        base = urljoin(feed_link, link) if feed_link else link
    return Entry(
        index=i,
        title=_text_of(e.get("title_detail"), e.get("title", "")),
        link=link,
        id=e.get("id") or None,
        published=_parse_date(e.get("published"), e.get("published_parsed")),
        updated=_updated(e, wxr),
        tags=_tag_names(e.get("tags", [])),
        html=content_html or summary_html,
        summary_html=summary_html,
        summary_only=not content_html and bool(summary_html.strip()),
        base=base or feed_link,
        lang=scan.lang if scan is not None else None,
        line=scan.line if scan is not None else None,
        slug_hint=e.get("wp_post_name", "") if wxr else "",
        zero_date=e.get("published") if _zero_date(e.get("published")) else None,
        wordpress_id=str(e.get("wp_post_id") or "") if wxr else "",
    )


def _caption(e: Any) -> str:
    """An attachment's caption (its excerpt in the export), as text."""
    return " ".join(re.sub(r"<[^>]*>", " ", str(e.get("excerpt_encoded") or "")).split())


def _tag_names(terms: list[Any]) -> list[str]:
    """The entry's categories as tags; one spelled as a path (`../../etc`, which the build refuses) keeps its words
    (`etc`), and one of nothing but dots and slashes is dropped."""
    names = [str(t.get("term") or t.get("label") or "").strip() for t in terms]
    kept = ["/".join(p for p in re.split(r"[/\\]", n) if p not in ("", "..")) if tag_is_path(n) else n for n in names]
    return [n for n in kept if n]
