"""A language's list pages: home pages, one page per tag and per year, the archive and the tag index."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from site_builder.assemble.memo import PageMemo
from site_builder.assemble.model import (
    LanguageSite,
    PostView,
    card,
    out_path,
    page_key,
    page_url,
    tag_feed_url,
    tag_url,
    year_url,
)
from site_builder.assemble.posts import alternates
from site_builder.config import SiteConfig
from site_builder.models import Page


def index(views: list[PostView], shown: dict[str, str]) -> tuple[dict[str, list[PostView]], dict[int, list[PostView]]]:
    """The views by tag (tags in case-blind order; each spelling under the one `shown` maps it to) and by year
    (newest first)."""
    tags: dict[str, list[PostView]] = defaultdict(list)
    years: dict[int, list[PostView]] = defaultdict(list)
    for view in views:
        for tag in dict.fromkeys(shown.get(t, t) for t in view.post.tags):
            tags[tag].append(view)
        years[view.post.date.year].append(view)
    return dict(sorted(tags.items(), key=lambda kv: kv[0].lower())), dict(sorted(years.items(), reverse=True))


@dataclass
class ListPages:
    """Makes one language's list pages, reusing the last build's page when all it was made from is the same."""

    config: SiteConfig
    lsite: LanguageSite
    sites: dict[str, LanguageSite]
    site_key: str
    old: dict[str, PageMemo]
    new: dict[str, PageMemo]

    def page(
        self,
        url: str,
        template: str,
        context: dict[str, Any],
        key_parts: tuple[object, ...],
        views: Sequence[PostView] | None = None,
        others: dict[str, str] | None = None,
    ) -> Page:
        """A page whose key is made of `key_parts` and the cards of `views`; the previous one if all are the same."""
        prefix, code = self.lsite.lang.prefix, self.lsite.lang.code
        if others is None:
            others = {c: url.replace(prefix, s.lang.prefix, 1) for c, s in self.sites.items()}
        path = out_path(url)
        inputs = (template, code, url, key_parts, None if views is None else tuple(views), tuple(others.items()))
        hit = self.old.get(path)
        if hit is not None and hit.inputs == inputs:  # views compare by identity
            self.new[path] = hit
            return hit.page
        shown = alternates(self.config, code, others)
        context.update(ui=self.lsite.lang, alternates=shown)
        site_key = self.site_key

        def key() -> str:
            cards = () if views is None else ([card(v) for v in views],)
            return page_key(site_key, code, url, shown, *key_parts, *cards)

        made = Page(path, template, context, key=key())
        self.new[path] = PageMemo(inputs, made, set(views or ()), key)
        return made

    def all(self) -> list[Page]:
        return [*self.home_pages(), *self.tag_pages(), *self.year_pages(), *self.indexes()]

    def home_pages(self) -> list[Page]:
        per, prefix, views = self.config.posts_per_page, self.lsite.lang.prefix, self.lsite.posts
        total = max(1, math.ceil(len(views) / per))
        pages = []
        for n in range(1, total + 1):
            chunk = views[(n - 1) * per : n * per]
            pager = {
                "number": n,
                "total": total,
                "newer": page_url(n - 1, prefix) if n > 1 else None,
                "older": page_url(n + 1, prefix) if n < total else None,
            }
            others = {
                c: page_url(n, s.lang.prefix)
                for c, s in self.sites.items()
                if n <= max(1, math.ceil(len(s.posts) / per))
            }
            context = {"posts": chunk, "pager": pager, "kind": "home", "page_title": None if n == 1 else n}
            pages.append(self.page(page_url(n, prefix), "list.html", context, ("home", n, total), chunk, others))
        return pages

    def tag_pages(self) -> list[Page]:
        prefix, pages = self.lsite.lang.prefix, []
        for tag, views in self.lsite.tags.items():
            others = {c: tag_url(tag, s.lang.prefix) for c, s in self.sites.items() if tag in s.tags}
            context = {"posts": views, "page_title": f"#{tag}", "heading": tag, "kind": "tag"}
            context["tag_feed"] = tag_feed_url(tag, prefix)
            pages.append(self.page(tag_url(tag, prefix), "list.html", context, ("tag", tag), views, others))
        return pages

    def year_pages(self) -> list[Page]:
        prefix, pages = self.lsite.lang.prefix, []
        for year, views in self.lsite.years.items():
            others = {c: year_url(year, s.lang.prefix) for c, s in self.sites.items() if year in s.years}
            context = {"groups": [(year, views)], "page_title": str(year), "kind": "year"}
            pages.append(self.page(year_url(year, prefix), "archive.html", context, ("year", year), views, others))
        return pages

    def indexes(self) -> list[Page]:
        """The archive (every year) and the tag index."""
        prefix, lsite = self.lsite.lang.prefix, self.lsite
        tag_index = [(t, tag_url(t, prefix), len(vs)) for t, vs in lsite.tags.items()]
        archive = {"groups": list(lsite.years.items()), "page_title": None, "kind": "archive", "tag_index": tag_index}
        tags = {"tag_index": tag_index, "page_title": None, "kind": "tags"}
        made = [
            self.page(f"{prefix}blog/", "archive.html", archive, ("archive",), lsite.posts),
            self.page(f"{prefix}blog/tag/", "tags.html", tags, ("tags", tag_index)),
        ]
        if self.config.search:  # where the header's search box goes without JavaScript, and a page of results
            made.append(
                self.page(f"{prefix}search/", "search.html", {"page_title": None, "kind": "search"}, ("search",))
            )
        return made
