"""Machine-readable outputs: the Atom feed (shaped like jekyll-feed's), sitemap.xml, robots.txt."""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from datetime import datetime, timezone
from typing import Any

from site_builder import __version__
from site_builder.config import SiteConfig
from site_builder.config.authors import author_names
from site_builder.util.urls import rebase
from site_builder.write.titles import title_text

GENERATOR_URI = "https://pypi.org/project/site-builder/"
# Not xml.sax.saxutils: importing it loads urllib.request and the HTTP client (~20 ms of every build).


# characters XML 1.0 has no place for, not even as a reference (a feed reader would refuse the whole feed)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


EMPTY_FEED_UPDATED = datetime(1970, 1, 1, tzinfo=timezone.utc)


def escape(text: str) -> str:
    """Text as XML character data (chained replaces: many times faster than str.translate on a long text)."""
    if _NOT_XML.search(text):
        text = _NOT_XML.sub("", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_html(text: str) -> str:
    """Plain text in a `type="html"` element: escaped as HTML, then as XML (a title `</title><script>` is text to
    a feed reader, not markup)."""
    return escape(escape(text))


def quoteattr(text: str) -> str:
    """Text as a double-quoted XML attribute value."""
    value = escape(text).replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    return f'"{value}"'


def iso_date(dt: datetime) -> str:
    return dt.isoformat(timespec="seconds")


def atom_feed(
    config: SiteConfig,
    views: list[Any],
    feed_path: str | None = None,
    lang: str | None = None,
    title: str | None = None,
    home: str = "/",
    entry_cache: MutableMapping[tuple[str, ...], str] | None = None,
) -> str:
    """Atom 1.0: feed title, subtitle, id, updated, self/alternate links; entries with full HTML.

    With no `feed_path` it is the site's main feed (its id is `feed_id` from site.yml); a language's own feed
    passes its path, language, title and home page.
    """
    main = feed_path is None
    feed_path = feed_path or config.feed_path
    lang = lang or config.language
    self_url = config.absolute("/" + feed_path.lstrip("/"))
    home = config.absolute(home)
    feed_id = (config.feed_id or self_url) if main else self_url
    chosen = views[: config.feed_limit] if config.feed_limit else views
    # A feed with no entries (a language with no posts yet) still needs <updated>; the clock would make two
    # builds of the same content differ, so it is the epoch, as reproducible builds use.
    updated = max((v.post.updated for v in chosen), default=EMPTY_FEED_UPDATED)
    out = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<feed xmlns="http://www.w3.org/2005/Atom" xml:lang={quoteattr(lang)}>',
        f'<generator uri="{GENERATOR_URI}" version="{__version__}">site_builder</generator>',
        f'<link href={quoteattr(self_url)} rel="self" type="application/atom+xml"/>',
        f'<link href={quoteattr(home)} rel="alternate" type="text/html" hreflang={quoteattr(lang)}/>',
        f"<updated>{iso_date(updated)}</updated>",
        f"<id>{escape(feed_id)}</id>",
        f'<title type="html">{escape_html(title or config.title)}</title>',
    ]
    if config.subtitle:
        out.append(f"<subtitle>{escape(config.subtitle)}</subtitle>")
    if config.author:
        out.append(f"<author><name>{escape(config.author)}</name></author>")
    entry_cache = {} if entry_cache is None else entry_cache
    base_url, author = config.base_url, config.author
    for view in chosen:
        key = (view.post.digest, view.key, lang or "", base_url, author, view.post.lang)  # its lang: site.yml's
        entry = entry_cache.get(key)
        if entry is None:
            entry = entry_cache[key] = _entry(config, view, lang)
        out.append(entry)
    out.append("</feed>")
    return "\n".join(out) + "\n"


def _entry(config: SiteConfig, view: Any, lang: str) -> str:
    post = view.post
    link = config.absolute(post.permalink)
    out = [
        "<entry" + (f" xml:lang={quoteattr(post.lang)}" if post.lang != lang else "") + ">",
        f'<title type="html">{escape_html(title_text(post.title))}</title>',
        f'<link href={quoteattr(link)} rel="alternate" type="text/html" title={quoteattr(title_text(post.title))}/>',
        f"<published>{iso_date(post.date)}</published>",
        f"<updated>{iso_date(post.updated)}</updated>",
        f"<id>{escape(post.id)}</id>",
        f'<content type="html" xml:base={quoteattr(link)}>{escape(rebase(view.html, config.base_path))}</content>',
        f"<author><name>{escape(author_names(post.meta.get('author')) or config.author)}</name></author>",
    ]
    out += [f"<category term={quoteattr(tag)}/>" for tag in post.tags]
    if post.summary:
        out.append(f'<summary type="html">{escape_html(post.summary)}</summary>')
    out.append("</entry>")
    return "\n".join(out)
