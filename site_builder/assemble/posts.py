"""Posts as views: newest first, grouped with their translations, linked to their neighbours; each one's page."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import markupsafe

from site_builder.assemble.model import PostView, link, out_path, page_key, reading_minutes
from site_builder.config import Language, SiteConfig
from site_builder.errors import SiteError
from site_builder.excerpt import summary_html
from site_builder.models import Page, Post, Rendered
from site_builder.toc import shown_toc

Group = dict[str, PostView]  # one post's versions, by language


def make_views(
    config: SiteConfig, posts: list[Post], rendered: dict[str, Rendered], old: dict[int, PostView]
) -> list[PostView]:
    """Every post's view, newest first; the view `old` holds for a post is reused when its record and fragment are
    the same objects as then (views do not change once made, only their prev/next/translations links)."""
    views = []
    macros = tuple(config.math_macros.items())
    for p in sorted(posts, key=lambda p: (p.date, p.permalink), reverse=True):
        r = rendered[p.permalink]
        view = old.get(id(p))
        if view is None or view.post is not p or view.rendered is not r or view.key != r.key:
            lang = config.lang(p.lang)
            name = lang.name if p.lang == lang.code else Language.default_for(p.lang, False).name
            view = PostView(
                p,
                r,
                reading_minutes(r),
                r.key,
                shown_toc(p, r.toc),
                html_lang=config.html_lang(p.lang),
                lang_name=name,
                home_lang=lang.code,
            )
            math_summary(view, macros)
        view.prev = view.next = None
        views.append(view)
    return views


def math_summary(view: PostView, macros: tuple[tuple[str, str], ...]) -> None:
    """A front matter summary with formulas: cards show them rendered (`view.summary_html`)."""
    if view.post.summary and "$" in view.post.summary:
        view.summary_html = markupsafe.Markup(summary_html(view.post.summary, macros))


def link_translations(config: SiteConfig, views: list[PostView]) -> dict[str, Group]:
    """Group the views by translation key; each view lists its versions in the site's other languages."""
    groups = translation_groups(views)
    for view in views:
        group = groups[view.post.translation_key]
        view.translations = (
            [group[c] for c in config.languages if c in group and group[c] is not view] if len(group) > 1 else []
        )
    return groups


def translation_groups(views: list[PostView]) -> dict[str, Group]:
    """translation_key -> {language: view}; two posts in one language for one key is an error."""
    groups: dict[str, Group] = defaultdict(dict)
    for view in views:
        group = groups[view.post.translation_key]
        other = group.get(view.post.lang)
        if other is not None:
            first, second = sorted((other, view), key=lambda v: v.post.rel)
            # name the file whose front matter made the clash: its translation_key, else its lang line
            blamed, key = next(
                ((v, k) for k in ("translation_key", "lang") for v in (second, first) if k in v.post.meta),
                (second, None),
            )
            raise SiteError(
                f"{first.post.rel} and {second.post.rel} are both the {view.post.lang!r} version of "
                f"{view.post.translation_key!r} (give one another lang or translation_key)",
                blamed.post.rel,
                (blamed.post.lines.get(key) if key else None) or 1,
            )
        group[view.post.lang] = view
    return groups


def pick(config: SiteConfig, group: Group, code: str) -> PostView:
    """The version of a post a language's lists show: its own, else the default language's, else the first."""
    if len(group) == 1:
        return next(iter(group.values()))
    if code in group:
        return group[code]
    if config.language in group:
        return group[config.language]
    order = list(config.languages)
    return min(group.values(), key=lambda v: (order.index(v.home_lang), v.post.rel))


def alternates(config: SiteConfig, current: str, urls: dict[str, str]) -> list[dict[str, Any]]:
    """Every language with this page's URL in it (its home page when the page has no version there)."""
    if len(config.languages) < 2:
        return []
    return [
        {
            "code": c,
            "name": lang.name,
            "html_lang": lang.html_lang,
            "url": urls.get(c, lang.prefix),
            "exists": c in urls,
            "current": c == current,
        }
        for c, lang in config.languages.items()
    ]


def post_page(config: SiteConfig, view: PostView, site_key: str) -> Page:
    """A post's page (with its neighbours and related posts), or a page of the pages folder (`page.html`)."""
    neighbours = tuple(link(v) if v else None for v in (view.prev, view.next, *view.related))
    others = alternates(config, view.home_lang, {v.home_lang: v.url for v in [view, *view.translations]})
    context = {"post": view, "page_title": view.post.title, "ui": config.lang(view.home_lang), "alternates": others}
    if view.post.page:
        context["kind"] = "page"
    return Page(
        out_path(view.url),
        "page.html" if view.post.page else "post.html",
        context,
        key=page_key(
            site_key, "post", view.post.digest, view.key, neighbours, others, [link(v) for v in view.translations]
        ),
    )
