"""Stage 5, assemble: posts + fragments -> the site's pages (posts, lists, tags, archives)."""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from dataclasses import dataclass, field

from site_builder.config import SiteConfig
from site_builder.errors import SiteError
from site_builder.load import slugify
from site_builder.models import Page, Post, Rendered


@dataclass
class PostView:
    """What templates see of a post: its record's fields, its HTML and derived facts."""

    post: Post
    html: str
    reading_minutes: int
    key: str = ""
    toc: list = field(default_factory=list)
    prev: "PostView | None" = None
    next: "PostView | None" = None

    def __post_init__(self) -> None:  # plain attributes: templates read them thousands of times
        p = self.post
        self.title, self.date, self.updated, self.tags = p.title, p.date, p.updated, p.tags
        self.lang, self.summary, self.url, self.id, self.meta = p.lang, p.summary, p.permalink, p.id, p.meta


@dataclass
class SiteModel:
    """The assembled site: posts newest first, tag and year indexes, every page to write."""

    config: SiteConfig
    posts: list[PostView]
    tags: dict[str, list[PostView]]
    years: dict[int, list[PostView]]
    pages: list[Page]


def tag_url(tag: str) -> str:
    return f"/blog/tag/{slugify(tag)}/"


def year_url(year: int) -> str:
    return f"/blog/{year}/"


def page_url(n: int) -> str:
    return "/" if n == 1 else f"/page/{n}/"


def reading_minutes(rendered: Rendered) -> int:
    """About 230 English words or 400 CJK characters a minute."""
    return max(1, round(rendered.words / 230 + rendered.text_chars / 400))


def _out(url: str) -> str:
    """Output file for a site path: directory URLs get index.html."""
    path = url.lstrip("/")
    return path + "index.html" if (not path or path.endswith("/")) else path


def _key(*parts) -> str:
    h = hashlib.sha1()
    for part in parts:
        h.update(repr(part).encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def _card(view: PostView) -> str:
    """What a list shows of a post, as one string for page keys (computed once per post)."""
    card = view.__dict__.get("_card")
    if card is None:
        p = view.post
        card = view.__dict__["_card"] = repr((p.permalink, p.title, p.date.isoformat(), p.summary, tuple(p.tags),
                                                p.lang, view.reading_minutes))
    return card


def assemble(config: SiteConfig, posts: list[Post], rendered: dict[str, Rendered], site_key: str) -> SiteModel:
    """Order posts, link neighbours, index tags and years, and list every page with its reuse key."""
    views = [PostView(p, rendered[p.permalink].html, reading_minutes(rendered[p.permalink]), rendered[p.permalink].key,
                      rendered[p.permalink].toc)
             for p in sorted(posts, key=lambda p: (p.date, p.permalink), reverse=True)]
    for newer, older in zip(views, views[1:]):
        newer.next, older.prev = older, newer  # prev = newer post, next = older post
    tags: dict[str, list[PostView]] = defaultdict(list)
    years: dict[int, list[PostView]] = defaultdict(list)
    for view in views:
        for tag in view.post.tags:
            tags[tag].append(view)
        years[view.post.date.year].append(view)
    tags = dict(sorted(tags.items(), key=lambda kv: kv[0].lower()))
    years = dict(sorted(years.items(), reverse=True))
    pages: list[Page] = []
    for view in views:
        neighbours = tuple(_card(v) if v else None for v in (view.prev, view.next))
        pages.append(Page(_out(view.url), "post.html", {"post": view, "page_title": view.post.title},
                          key=_key(site_key, "post", view.post.digest, view.key, neighbours)))
    pages += _paginate(config, views, site_key)
    tag_index = [(t, tag_url(t), len(vs)) for t, vs in tags.items()]
    for tag, tviews in tags.items():
        pages.append(Page(_out(tag_url(tag)), "list.html",
                          {"posts": tviews, "page_title": f"#{tag}", "heading": tag, "kind": "tag"},
                          key=_key(site_key, "tag", tag, [_card(v) for v in tviews])))
    for year, yviews in years.items():
        pages.append(Page(_out(year_url(year)), "archive.html",
                          {"groups": [(year, yviews)], "page_title": str(year), "kind": "year"},
                          key=_key(site_key, "year", year, [_card(v) for v in yviews])))
    all_cards = [_card(v) for v in views]
    pages.append(Page(_out("/blog/"), "archive.html",
                      {"groups": list(years.items()), "page_title": "Archive", "kind": "archive", "tag_index": tag_index},
                      key=_key(site_key, "archive", all_cards)))
    pages.append(Page(_out("/blog/tag/"), "tags.html", {"tag_index": tag_index, "page_title": "Tags", "kind": "tags"},
                      key=_key(site_key, "tags", tag_index)))
    pages.append(Page("404.html", "404.html", {"page_title": "Not found", "kind": "404"}, key=_key(site_key, "404")))
    _check_collisions(config, pages)
    return SiteModel(config, views, tags, years, pages)


RESERVED = ("sitemap.xml", "robots.txt", "css/pygments.css", "css/site.css")


def _check_collisions(config: SiteConfig, pages: list[Page]) -> None:
    """Two pages for one output file is an error naming the post(s) involved."""
    owners: dict[str, Page | None] = {path: None for path in (config.feed_path, *RESERVED)}
    for page in pages:
        if page.path in owners:
            other = owners[page.path]
            posts = [p.context["post"] for p in (page, other) if p is not None and "post" in p.context]
            what = " and ".join(v.post.rel for v in posts[1:]) or f"the site's own /{page.path.removesuffix('index.html')}"
            raise SiteError(f"permalink {posts[0].url} collides with {what}", posts[0].post.rel) if posts else \
                SiteError(f"two pages would be written to /{page.path}")
        owners[page.path] = page


def _paginate(config: SiteConfig, views: list[PostView], site_key: str) -> list[Page]:
    per = config.posts_per_page
    total = max(1, math.ceil(len(views) / per))
    pages = []
    for n in range(1, total + 1):
        chunk = views[(n - 1) * per: n * per]
        pager = {"number": n, "total": total,
                 "newer": page_url(n - 1) if n > 1 else None,
                 "older": page_url(n + 1) if n < total else None}
        pages.append(Page(_out(page_url(n)), "list.html",
                          {"posts": chunk, "pager": pager, "kind": "home",
                           "page_title": None if n == 1 else f"Page {n}"},
                          key=_key(site_key, "home", n, total, [_card(v) for v in chunk])))
    return pages
