"""The files a post's raw HTML names: `<img src>`, `<source src|srcset>`, `<video|audio src|poster>`, `<track src>`,
`<embed src>` and `<a href>` to a file (not to a page). A Markdown image is checked when it is rendered
(render.local_image: a missing file is its alt text and a warning); raw HTML goes into the page as written, and
whether the file it names is there is known only once the build knows every file of its output (pages, feeds,
published images and their WebP sizes, `static/` and the themes' files). So:

- `raw_links` (render stage): each local name (root-relative `/x.png` or relative `img/x.png`, read against the
  post's URL as a browser reads it) with its line, in `Rendered.raw_links`; a post without `src=`/`href=` costs one
  search;
- `missing_links` (write stage, after every file is staged): those that are no file of the output, one warning per
  line of the post (`file:line`), so nothing broken is published silently.

Comments and code are not looked into; URLs with a scheme or a host, `#x`, `data:`, `mailto:` are not local."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from site_builder.errors import SiteWarning
from site_builder.models import RawLink
from site_builder.util.urls import folder_of

if TYPE_CHECKING:
    from markdown_it.token import Token

_TAG = re.compile(r"<(img|source|video|audio|track|embed|a)\b([^>]*)>", re.I)
_ATTR = re.compile(r"""\s(src|srcset|href|poster)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_PAGE_SUFFIXES = ("", ".html", ".htm", ".php", ".asp", ".aspx")  # a link to a page: not a file of ours to check


def raw_links(tokens: list[Token], env: dict[str, Any]) -> list[RawLink]:
    """The local files the raw HTML of a post's tokens names, each with its line."""
    post = env.get("post")
    if post is None or ("src" not in post.body and "href" not in post.body):
        return []
    base = folder_of(post.permalink)
    offset = int(env.get("line_offset", 1))
    found: list[RawLink] = []
    for tok in tokens:
        if tok.type == "html_block" and tok.map:
            found += _in_html(tok.content, offset + tok.map[0], base, post.rel)
        elif tok.type == "inline" and tok.map and tok.children:
            line = tok.map[0]
            for child in tok.children:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type == "html_inline":
                    found += _in_html(child.content, offset + line, base, post.rel)
    return found


def _in_html(html: str, first: int, base: str, rel: str) -> list[RawLink]:
    if "=" not in html:
        return []
    html = _COMMENT.sub(lambda m: "\n" * m[0].count("\n"), html)
    out = []
    for tag in _TAG.finditer(html):
        line = first + html.count("\n", 0, tag.start())
        name = tag[1].lower()
        for attr in _ATTR.finditer(tag[2]):
            value = attr[2] if attr[2] is not None else attr[3] if attr[3] is not None else attr[4]
            srcset = attr[1].lower() == "srcset"  # "a.png 1x, b.png 2x"
            urls = [part.split()[0] for part in value.split(",") if part.split()] if srcset else [value]
            for url in urls:
                path = _output_path(url, base, page_ok=name == "a")
                if path is not None:
                    out.append(RawLink(f"<{name} {attr[1].lower()}>", url, path, rel, line))
    return out


def _output_path(url: str, base: str, page_ok: bool) -> str | None:
    """The output file a local URL names (`assets/x.png`); None for another site's, a page's (`page_ok`: `<a>`), a
    fragment's, or one that leaves the site."""
    url = url.strip()
    parts = urlsplit(url)
    if not url or parts.scheme or parts.netloc or not parts.path or url.startswith("#") or "{" in url:
        return None
    path = unquote(parts.path)
    if path.endswith("/") or (page_ok and posixpath.splitext(path)[1].lower() in _PAGE_SUFFIXES):
        return None
    full = posixpath.normpath(path if path.startswith("/") else base + path)  # `..` above the root stays at it
    return full.lstrip("/") or None


def missing_links(links: Iterable[RawLink], outputs: dict[str, Any] | set[str]) -> list[SiteWarning]:
    """A warning for each line of a post whose raw HTML names files that are not among `outputs` (the output's
    relative paths), listing them."""
    by_line: dict[tuple[str, int | None], list[RawLink]] = {}
    for link in links:
        if link.out not in outputs:
            by_line.setdefault((link.rel, link.line), []).append(link)
    warnings = []
    for (rel, line), gone in by_line.items():
        names = ", ".join(
            f"{link.attr} {link.src!r}" + ("" if link.src.startswith("/") else f" (/{link.out})") for link in gone
        )
        warnings.append(
            SiteWarning(
                f"raw HTML names a file the site does not have: {names}",
                rel,
                line,
                "broken in the page",
                "put the file in static/, which is published at the site's root, or fix the path",
            )
        )
    return warnings
