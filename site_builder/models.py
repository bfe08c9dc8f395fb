"""Plain dataclasses passed between the pipeline's stages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from site_builder.errors import SiteWarning

if TYPE_CHECKING:
    from markdown_it.token import Token

    from site_builder.notebook import CellMap


@dataclass(frozen=True)
class Alias:
    """An old address of a post (`aliases`, `redirect_from`): a page there sends the reader to the post."""

    path: str  # a site path, e.g. "/old/address/" or "/2015/05/x.html"
    line: int | None  # its key's line in the post file


@dataclass
class Post:
    """One Markdown post as loaded from disk (stage: load)."""

    source: Path  # path of the .md file
    rel: str  # path relative to the site root, for messages
    title: str
    date: datetime
    updated: datetime
    tags: list[str]
    lang: str
    slug: str
    permalink: str  # site path, e.g. "/blog/2025/ray-oom/"
    id: str  # Atom entry id, kept from an imported feed
    summary: str
    body: str  # Markdown after the front matter
    body_line: int  # 1-based line of the body's first line in the file
    meta: dict[str, Any] = field(default_factory=dict)
    digest: str = ""  # hash of the file's bytes
    translation_key: str = ""  # posts sharing it are one post in several languages (`x.md` + `x.zh.md`)
    lines: dict[str, int] = field(default_factory=dict)  # front matter key (nested: `exec.timeout`) -> line
    warnings: list[SiteWarning] = field(default_factory=list)  # problems that do not stop the build
    draft: bool = False  # `draft: true`: not built
    execute: bool = False  # `execute: true`: its Python blocks run
    conventions: tuple[str, ...] = ()  # `exec: conventions` (or site.yml's): other tools' conventions it is read with
    page: bool = False  # from the pages folder (`about.md` -> /about/): in no list or feed, dated or not
    cells: CellMap | None = None  # a notebook's: the cell and line of each of its lines (notebook.py)
    hidden: bool = False  # `hidden: true` (al-folio): built at its address, in no list, tag page or feed
    image: str = ""  # the picture of its link previews from front matter (`image`, `cover`, ...); "": its first
    aliases: list[Alias] = field(default_factory=list)  # old addresses, each a page sending readers to this one


@dataclass
class ParsedPost:
    """A post's Markdown as markdown-it tokens (stage: parse), read by the execute and render stages alike.

    `env` is markdown-it's environment: the post, its path for messages, the line of its body, footnotes."""

    post: Post
    tokens: list[Token]
    env: dict[str, Any]

    def warnings(self) -> list[SiteWarning]:
        """What parsing (and rendering, once done) found wrong, each at its place: a notebook's at its cell
        (`nb.ipynb:cell 2:line 5`), not at a line of the body made from its cells."""
        found: list[SiteWarning] = self.env.get("warnings", [])
        cells = self.post.cells
        return [cells.warning(w) for w in found] if cells is not None else found


@dataclass(frozen=True)
class RawLink:
    """A local file or page a post names in its raw HTML (`<img src>`, `<a href>`) or with a Markdown link: checked
    against the output once the build knows its files (rawlinks.py)."""

    attr: str  # the tag and attribute, as a message names it: "<img src>", or "link" for a Markdown link
    src: str  # as written
    out: str  # the output path it names, e.g. "assets/img/x.png"; a page's site path, e.g. "blog/2024/a/"
    rel: str  # the post, for messages
    line: int | None  # its line in the post
    page: bool = False  # a page (`/blog/2024/a/`, `/about`, `x.html`): any of the files a server shows for it
    fragment: str = ""  # a page link's `#section` (decoded): an element of the page has that id


@dataclass
class ImageUse:
    """A local image a post shows: where it is, where it goes in the output, and which WebP widths it gets."""

    source: Path  # the image file
    stamp: tuple[Any, ...]  # (st_mtime_ns, st_size) when it was probed
    out: str  # output path of the published original, e.g. "blog/2025/trip/p1.jpg"
    widths: tuple[Any, ...]  # WebP variant widths
    rel: str  # the post, for messages
    line: int | None  # the line of the image in the post


# The renderer's version (render.py and the modules it calls): bump it when their output changes, to drop cached
# fragments. Declared here, not in render.py, so a build with nothing to do keys its posts without importing the
# renderer (markdown-it, Pygments).
# 22: bare TeX; 23: warnings in parts; 24: task lists; 25: bare-output; 26: CJK emphasis; 27: zh-TW, ko titles;
# 28: a task list's role; 29: code in excerpts; 30: raw HTML's local files (raw_links); 31: MyST directives
# 33: MyST figure captions; 34: links to pages and Markdown links to files (raw_links); 35: their fragments,
# 36: heading ids as GitHub's and kramdown's; 37: excerpts of figures alone
RENDER_VERSION = "49"
DIAGRAM = '<pre class="mermaid"'  # a Mermaid diagram's element (render.py): a page with one loads Mermaid (post.html)


@dataclass
class Rendered:
    """A post's HTML fragment (stage: render)."""

    html: str
    text_chars: int = 0  # characters of readable text, for reading time
    words: int = 0
    math_count: int = 0
    toc: list[Any] = field(default_factory=list)  # toc.TocEntry of each h2 and h3 of the text
    key: str = ""  # hash of the Markdown it was rendered from
    images: list[Any] = field(default_factory=list)  # ImageUse of every local image, to process and publish
    warnings: list[SiteWarning] = field(default_factory=list)  # problems shown in the page, not stopping the build
    unshown: list[Any] = field(default_factory=list)  # (path, stamp or None) of each local image it could not show
    raw_links: list[RawLink] = field(default_factory=list)  # local files its raw HTML names, checked at write
    excerpt: str = ""  # what lists show of a post without a `summary` (excerpt.py)
    excerpt_html: str = ""  # the excerpt as HTML, formulas MathML, code `<code>`; "" with neither (cards: `excerpt`)


@dataclass
class Page:
    """One page the write stage renders: a template and its context."""

    path: str  # relative output path, e.g. "blog/2025/x/index.html"
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    key: str = ""  # hash of everything the page depends on, for reuse
