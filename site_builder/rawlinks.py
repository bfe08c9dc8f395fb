"""The files and pages a post links to: what its raw HTML names (`<img src>`, `<source src|srcset>`,
`<video|audio src|poster>`, `<track src>`, `<embed src>`, `<a href>`) and its Markdown links (`[text](/blog/x/)`,
`[slides](/files/a.pdf)`). A Markdown image is checked when it is rendered (render.local_image: a missing file is
its alt text and a warning); whether a link's file or page is there is known only once the build knows every file of
its output (pages, aliases, feeds, published images and their WebP sizes, `static/` and the themes' files). So:

- `raw_links` (render stage): each local name (root-relative `/x.png` or relative `img/x.png`, read against the
  post's URL as a browser reads it) with its line, in `Rendered.raw_links`; a post without `src=`/`href=`/`](`
  costs one search;
- `missing_links` (write stage, after every file is staged): those that are no file or page of the output, one
  warning per line of the post (`file:line`), a page's with the closest page the site has, so nothing broken is
  published silently (as Zola checks internal links).

A page is found as a server finds it: `/blog/a/` is `blog/a/index.html`; `/about` is `about`, `about.html` or
`about/index.html`. A link's section (`#x`, of the post itself or `/blog/a/#x` of another page) must be an id (or an
`<a name>`) of that page, read once from the staged or published file; `#top` is every page's top. Comments and code
are not looked into; URLs with a scheme or a host, `data:`, `mailto:` and server pages (`.php`, `.asp`) are not
local."""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from html import unescape
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
_SERVER_PAGES = (".php", ".asp", ".aspx")  # made by a server, not by a static site: not checked
# a relative link that is another site's address without `https://` (`github.com/j2kun`, `www.example.org`)
_HOST = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|dev|edu|gov|me|ai|co|uk|de|cn|jp)(?:/|$)", re.I)
# what a link names when it is a file, not a page: a suffix of letters and digits, with a letter, that is not a
# page's (`/posts/claude-3.5-sonnet/` and `/posts/v1.2` are pages)
_FILE_SUFFIX = re.compile(r"\.(?!(?:html?|php|aspx?)$)(?=[a-z0-9]*[a-z])[a-z0-9]{1,8}$", re.I)


def raw_links(tokens: list[Token], env: dict[str, Any]) -> list[RawLink]:
    """The local files and pages a post's tokens name (its raw HTML and its Markdown links), each with its line."""
    post = env.get("post")
    if post is None or ("src" not in post.body and "href" not in post.body and "](" not in post.body):
        return []
    base = folder_of(post.permalink)
    here = _Here(base, str(post.permalink).lstrip("/"), post.rel)
    offset = int(env.get("line_offset", 1))
    found: list[RawLink] = []
    for tok in tokens:
        if tok.type == "html_block" and tok.map:
            found += _in_html(tok.content, offset + tok.map[0], here)
        elif tok.type == "inline" and tok.map and tok.children:
            line = tok.map[0]
            for child in tok.children:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type == "html_inline":
                    found += _in_html(child.content, offset + line, here)
                elif child.type == "link_open" and child.markup != "autolink" and child.attrGet("class") is None:
                    found += _named("link", str(child.attrGet("href") or ""), here, offset + line)
    return found


@dataclass(frozen=True)
class _Here:
    """The post whose links are read: the folder its relative links are read against, its page, its file."""

    base: str  # "/blog/2024/a/"
    page: str  # its site path: "blog/2024/a/"
    rel: str  # "content/posts/a.md"


def _named(attr: str, url: str, here: _Here, line: int) -> list[RawLink]:
    """The file or page an `<a href>` or a Markdown link names, with its fragment (none when it is not local; a
    `#section` of the post itself is a link to its own page)."""
    fragment = unquote(urlsplit(url.strip()).fragment)
    fragment = "" if fragment.lower() == "top" else fragment  # `#top` is a page's top, with or without such an id
    if url.strip().startswith("#"):
        return [RawLink(attr, url, here.page, here.rel, line, page=True, fragment=fragment)] if fragment else []
    path = None if _HOST.match(url.strip()) else _output_path(url, here.base, page_ok=True)
    if path is not None:
        return [RawLink(attr, url, path, here.rel, line)]
    page = _page_path(url, here.base)
    return [RawLink(attr, url, page, here.rel, line, page=True, fragment=fragment)] if page is not None else []


def _in_html(html: str, first: int, here: _Here) -> list[RawLink]:
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
                if name == "a":
                    out += _named("<a href>", url, here, line) if attr[1].lower() == "href" else []
                elif (path := _output_path(url, here.base, page_ok=False)) is not None:
                    out.append(RawLink(f"<{name} {attr[1].lower()}>", url, path, here.rel, line))
    return out


def _output_path(url: str, base: str, page_ok: bool) -> str | None:
    """The output file a local URL names (`assets/x.png`); None for another site's, a page's (`page_ok`: `<a>`), a
    fragment's, or one that leaves the site."""
    local = _local(url, base)
    if local is None or local[0].endswith("/") or (page_ok and not _FILE_SUFFIX.search(local[0])):
        return None
    return local[1].lstrip("/") or None


def _page_path(url: str, base: str) -> str | None:
    """The site path of the page a local URL names, without its leading `/` (`blog/2024/a/`, `about`, "" for the
    home page); None for another site's, a fragment of this page, a server's page, or one that leaves the site."""
    local = _local(url, base)
    if local is None or posixpath.splitext(local[0])[1].lower() in _SERVER_PAGES:
        return None
    path, full = local
    return full.strip("/") + ("/" if path.endswith("/") and full.strip("/") else "")


def _local(url: str, base: str) -> tuple[str, str] | None:
    """A local URL's path as written (decoded) and the site path it names, read against the folder `base` as a
    browser reads it (`..` above the root stays at it); None for another site's, this page's own `#x` or `?q`, or
    a template's placeholder (`{`)."""
    url = url.strip()
    parts = urlsplit(url)
    if not url or parts.scheme or parts.netloc or not parts.path or "{" in url:
        return None
    path = unquote(parts.path)
    return path, posixpath.normpath(path if path.startswith("/") else base + path)


def _file_of(link: RawLink, outputs: dict[str, Any] | set[str]) -> str | None:
    """The output file a server shows for the link (None when the output has none)."""
    if not link.page:
        return link.out if link.out in outputs else None
    if link.out in ("", "/") or link.out.endswith("/"):
        index = f"{link.out.strip('/')}/index.html".lstrip("/")
        return index if index in outputs else None
    return next((f for f in (link.out, f"{link.out}/index.html", f"{link.out}.html") if f in outputs), None)


def missing_links(
    links: Iterable[RawLink], outputs: dict[str, Any] | set[str], read: Callable[[str], str | None] | None = None
) -> list[SiteWarning]:
    """A warning for each line of a post that names files, pages or sections of pages (`#x`: an element's id, when
    `read` gives the page's HTML) that are not among `outputs` (the output's relative paths), listing them; a
    missing page with the site's page most like it, a missing section with the page's id most like it."""
    by_line: dict[tuple[str, int | None, str], list[RawLink]] = {}
    sections = _Sections(read)
    for link in links:
        found = _file_of(link, outputs)
        if found is None:
            kind = "page" if link.page else "raw" if link.attr.startswith("<") else "file"
            by_line.setdefault((link.rel, link.line, kind), []).append(link)
        elif link.fragment and not sections.has(link, found):
            by_line.setdefault((link.rel, link.line, "section"), []).append(link)
    pages = _Pages(outputs)
    warnings = []
    for (rel, line, kind), gone in sorted(by_line.items(), key=lambda item: (item[0][0], item[0][1] or 0)):
        names = ", ".join(
            f"{link.attr} {link.src!r}" + ("" if link.src.startswith(("/", "#")) else f" (/{link.out})")
            for link in gone
        )
        if kind in ("page", "section"):
            closest = pages.closest if kind == "page" else sections.closest
            guesses = [g for link in gone if (g := closest(link))]
            what = "a page the site" if kind == "page" else "a section the page"
            message, hint = f"links to {what} does not have: {names}", "fix the link"
            hint += f" (did you mean {', '.join(dict.fromkeys(guesses))}?)" if guesses else ""
        else:
            said = "raw HTML names" if kind == "raw" else "links to"
            message = f"{said} a file the site does not have: {names}"
            hint = "put the file in static/, which is published at the site's root, or fix the path"
        warnings.append(SiteWarning(message, rel, line, "broken in the page", hint))
    return warnings


_ID = re.compile(r"""<[a-zA-Z][^>]*?\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


class _Sections:
    """The ids of the pages links name a section of (each page read once, only when a link names one)."""

    def __init__(self, read: Callable[[str], str | None] | None) -> None:
        self.read, self.ids = read, dict[str, set[str] | None]()
        self.where = dict[str, str]()  # a link's page path -> the file read for it, for `closest`

    def has(self, link: RawLink, file: str) -> bool:
        """Whether the page in `file` (the one the link names) has an element of the link's fragment as its id (True
        when the page cannot be read)."""
        self.where[link.out] = file
        if file not in self.ids:
            text = self.read(file) if self.read is not None else None
            found = {unescape(next(g for g in m.groups() if g is not None)) for m in _ID.finditer(text or "")}
            self.ids[file] = found if text is not None else None
        ids = self.ids[file]
        return ids is None or link.fragment in ids

    def closest(self, link: RawLink) -> str | None:
        """`#id` of the page's id most like the link's fragment, in the link's own form (`page#id`)."""
        ids = self.ids.get(self.where.get(link.out, "")) or set()
        close = difflib.get_close_matches(link.fragment, sorted(ids), n=1, cutoff=0.6)
        return f"{link.src.split('#', 1)[0]}#{close[0]}" if close else None


class _Pages:
    """The site's pages by URL, to name the one a broken link most likely meant (read only when one is broken)."""

    GUESSES = 20  # broken page links given a guess at most: difflib reads every URL for each

    def __init__(self, outputs: dict[str, Any] | set[str]) -> None:
        self.outputs, self.urls, self.slugs, self.guessed = outputs, dict[str, str](), dict[str, list[str]](), 0

    def closest(self, link: RawLink) -> str | None:
        """The page whose URL is most like the link's, in any case (a link written in another case is a common
        break); another site's address written without its scheme (`github.com/x`) is that address."""
        if _HOST.match(link.src):
            return f"https://{link.src}"
        out = link.out
        if not self.urls:
            urls = sorted("/" + k.removesuffix("index.html") for k in self.outputs if k.endswith("index.html"))
            self.urls = {url.lower(): url for url in urls}
            for url in urls:
                self.slugs.setdefault(url.rstrip("/").rsplit("/", 1)[-1].lower(), []).append(url)
        folder, _, slug = out.rstrip("/").lower().rpartition("/")
        same = self.slugs.get(slug.removesuffix(".html"), [])
        if same:  # the page of that name in the link's folder, else the first
            return next((url for url in same if url.lower().startswith(f"/{folder}/")), same[0])
        self.guessed += 1
        if self.guessed > self.GUESSES:
            return None
        close = difflib.get_close_matches("/" + out.lower(), list(self.urls), n=1, cutoff=0.75)
        return self.urls[close[0]] if close else None
