"""What a source reader gives the one writer: named records, nothing generator-specific.

A reader (`jekyll.py`, `hugo.py`, `pelican.py`) turns OLD_SITE into a `SourceSite`:
- `SiteSettings`: what becomes NEW_SITE/site.yml, in OUR keys (config/schema.py `SITE_KEYS`);
- one `SourceDoc` per post or page: where it came from, where it goes (`dest`, relative to content/posts or
  content/pages), its front matter in OUR keys (`FRONT_MATTER_KEYS`: title, date, updated, tags, lang, permalink,
  draft, summary, image, aliases, ...) and its body converted to our Markdown;
- one `SourceFile` per image or file the docs use (or the site serves): copied, never rewritten;
- `ImportProblem`s: each construct not converted (or converted with a loss), at the source file and line.

The writer (`writer.py`) and the report (`report.py`) read only these records, so a new reader (or the feed
importer, later) needs nothing else of the writer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

DocKind = Literal["post", "page"]
FileArea = Literal["content", "static"]  # content/<dest> (images publish at their path below content/), static/<dest>


@dataclass(frozen=True, order=True)
class ImportProblem:
    """One construct the import could not convert (kept as an HTML comment), or converted with a loss.

    `file` is the source path relative to OLD_SITE (as a person would open it); `line` is 1-based, None for the
    file as a whole. Ordered by (file, line, message), as the report lists them."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}" if self.line else f"{self.file}: {self.message}"

    def sort_key(self) -> tuple[str, int, str]:
        return (self.file, self.line or 0, self.message)


@dataclass
class SiteSettings:
    """NEW_SITE/site.yml: only keys of config/schema.py SITE_KEYS; an empty value is left out of the file."""

    title: str = ""
    subtitle: str = ""
    url: str = ""  # absolute, with the source's base path (Jekyll url + baseurl): links are rebased under it
    author: str = ""
    language: str = "en"
    languages: list[str] = field(default_factory=list)  # other languages after `language`; empty: one language
    permalink: str = ""  # our pattern (:year :month :day :slug :lang) when it says the same as the source's, else ""
    nav: list[str] = field(default_factory=list)  # page names (dest without .md) in header order
    math_macros: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # any other SITE_KEYS key a reader sets (checked by writer)


@dataclass
class SourceDoc:
    """A post or a page as it will be written: `content/posts/<dest>` or `content/pages/<dest>`.

    `meta` holds front matter in OUR keys only, in the order it is written (title first). `body` is our Markdown,
    template code already converted by rules (rules.py). `line_offset` is the source line of the body's first
    line (problems found in the body are at `line_offset + n`)."""

    origin: Path  # the source file, absolute
    rel: str  # the source file relative to OLD_SITE (what problems name)
    kind: DocKind
    dest: str  # relative path under content/posts or content/pages, with `.md`
    meta: dict[str, Any]
    body: str
    line_offset: int = 1
    source_meta: dict[str, Any] = field(default_factory=dict)  # the source's own front matter, as read (for rules)
    # an nbformat 4 notebook (a Pelican `{% notebook %}` post): written as `dest` (.ipynb), `meta` in a first raw
    # cell, as the build reads notebook posts (notebook.py); `body` is then its Markdown cells, for the report
    notebook: dict[str, Any] | None = None

    @property
    def draft(self) -> bool:
        return bool(self.meta.get("draft"))


@dataclass(frozen=True)
class SourceFile:
    """A file copied as it is: `origin` (absolute, in OLD_SITE) to NEW_SITE/<area>/<dest>."""

    origin: Path
    area: FileArea
    dest: str  # relative, with `/` separators

    @property
    def is_image(self) -> bool:
        return self.origin.suffix.lower() in IMAGE_SUFFIXES


@dataclass(frozen=True)
class MissingFile:
    """A file a doc uses (an image, a sound, a PDF) that OLD_SITE does not have: the old site's build made it, or it
    was never committed."""

    ref: str  # as the doc names it: "/assets/img/x-480.webp"
    dest: str  # where NEW_SITE needs it, from its root: "static/assets/img/x-480.webp", "content/assets/img/y.png"
    image: bool = True


IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".avif", ".bmp", ".tif", ".tiff"})


@dataclass
class SourceSite:
    """Everything a reader read from OLD_SITE: what the writer writes and the report tells."""

    generator: str  # "jekyll", "hugo", "pelican"
    root: Path
    settings: SiteSettings
    docs: list[SourceDoc] = field(default_factory=list)
    files: list[SourceFile] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the report says once (settings not carried over, ...)
    missing: list[MissingFile] = field(default_factory=list)  # images the docs show that OLD_SITE does not have
