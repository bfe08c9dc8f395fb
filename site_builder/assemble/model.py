"""What templates see: a post's view, each language's side of the site, the whole model; URLs of list pages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import markupsafe

from site_builder.config import Language, SiteConfig
from site_builder.errors import SiteWarning
from site_builder.load import slugify
from site_builder.models import Page, Post, Rendered
from site_builder.util.hashing import content_key


@dataclass(eq=False)
class PostView:
    """What templates see of a post: its record's fields, its HTML and derived facts."""

    post: Post
    rendered: Rendered  # its fragment: the HTML is read through it (a build may fill it in late, see BuildState)
    reading_minutes: int
    key: str = ""
    toc: list[Any] = field(default_factory=list)
    prev: PostView | None = None
    next: PostView | None = None
    translations: list[PostView] = field(default_factory=list)  # the same post in the site's other languages
    related: list[PostView] = field(default_factory=list)  # posts sharing its tags (assemble/related.py)
    html_lang: str = ""  # lang attribute value: zh-Hans for zh
    lang_name: str = ""  # the language's display name: 中文
    home_lang: str = ""  # which language's lists it belongs to (its own, or the default for an unlisted language)

    def __post_init__(self) -> None:  # plain attributes: templates read them thousands of times
        p = self.post
        self.title, self.date, self.updated, self.tags = p.title, p.date, p.updated, p.tags
        self.lang, self.url, self.id, self.meta = p.lang, p.permalink, p.id, p.meta
        self.summary = p.summary or self.rendered.excerpt  # without one, the start of the text (`excerpt.py`)
        # with formulas, its HTML, them as MathML (make_views sets a front matter summary's); else ""
        excerpt_html = "" if p.summary else self.rendered.excerpt_html
        self.summary_html = markupsafe.Markup(excerpt_html) if excerpt_html else ""

    @property
    def html(self) -> str:
        return self.rendered.html


@dataclass
class LanguageSite:
    """One language's side of the site: the posts its lists show (its own, plus untranslated others), tags, years."""

    lang: Language
    posts: list[PostView]
    tags: dict[str, list[PostView]]
    years: dict[int, list[PostView]]
    own: list[PostView]  # posts written in this language only: its feed


@dataclass
class SiteModel:
    """The assembled site: every post newest first, each language's lists, and every page to write."""

    config: SiteConfig
    posts: list[PostView]
    languages: dict[str, LanguageSite]
    pages: list[Page]
    post_pages: dict[str, Page] = field(default_factory=dict)  # permalink -> the post's (or page's) page
    site_pages: list[PostView] = field(default_factory=list)  # the pages folder's pages: in no list or feed
    warnings: list[SiteWarning] = field(default_factory=list)  # tags written in several ways


def tag_url(tag: str, prefix: str = "/") -> str:
    return f"{prefix}blog/tag/{slugify(tag)}/"


def year_url(year: int, prefix: str = "/") -> str:
    return f"{prefix}blog/{year}/"


def page_url(n: int, prefix: str = "/") -> str:
    return prefix if n == 1 else f"{prefix}page/{n}/"


def tag_feed_url(tag: str, prefix: str = "/") -> str:
    """A tag's own Atom feed, beside its page."""
    return tag_url(tag, prefix) + "feed.xml"


def feed_path(config: SiteConfig, lang: Language) -> str:
    """Output path of a language's feed: the main feed for the default language, `zh/feed.xml` for the others."""
    return config.feed_path if lang.prefix == "/" else lang.prefix.lstrip("/") + config.feed_path.lstrip("/")


def reading_minutes(rendered: Rendered) -> int:
    """About 230 English words or 400 CJK characters a minute."""
    return max(1, round(rendered.words / 230 + rendered.text_chars / 400))


def out_path(url: str) -> str:
    """Output file for a site path: directory URLs get index.html."""
    path = url.lstrip("/")
    return path + "index.html" if (not path or path.endswith("/")) else path


def page_key(*parts: object) -> str:
    return content_key(*map(repr, parts))


def card(view: PostView) -> str:
    """What a list shows of a post, as one string for page keys (computed once per post)."""
    card = view.__dict__.get("_card")
    if card is None:
        p = view.post
        card = view.__dict__["_card"] = repr(
            (p.permalink, p.title, p.date.isoformat(), view.summary, tuple(p.tags), p.lang, view.reading_minutes)
        )
    return card


def link(view: PostView) -> str:
    """What a post's page shows of another post it links to (its neighbours, related posts and translations: their
    address, title, date and language, not their summary), as one string for page keys (computed once per view)."""
    found = view.__dict__.get("_link")
    if found is None:
        p = view.post
        found = view.__dict__["_link"] = repr((p.permalink, p.title, p.date.isoformat(), p.lang))
    return found


def feed_part(view: PostView) -> str:
    """What a feed entry is made of, as one string for feed keys (computed once per view): the post's file,
    fragment and URL."""
    part = view.__dict__.get("_feed")
    if part is None:
        part = view.__dict__["_feed"] = f"{view.post.digest}|{view.key}|{view.url}"
    return part
