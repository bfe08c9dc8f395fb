"""The whole site: views, each language's side, and every page with its reuse key."""

from __future__ import annotations

from site_builder.assemble.lists import ListPages, index
from site_builder.assemble.memo import AssembleMemo, PageMemo
from site_builder.assemble.model import LanguageSite, PostView, SiteModel, feed_path, out_path, page_key
from site_builder.assemble.posts import Group, link_translations, make_views, pick, post_page
from site_builder.assemble.tags import tag_spellings
from site_builder.config import SiteConfig
from site_builder.errors import SiteError
from site_builder.models import Page, Post, Rendered

RESERVED = ("sitemap.xml", "robots.txt", "css/pygments.css", "css/site.css")


def assemble(
    config: SiteConfig,
    posts: list[Post],
    rendered: dict[str, Rendered],
    site_key: str,
    memo: AssembleMemo | None = None,
) -> SiteModel:
    """Order posts, group translations, build each language's lists, and list every page with its reuse key.

    `memo` (kept by a long-running caller between builds; this function fills it) lets a rebuild reuse what cannot
    have changed: the view of a post whose record and fragment are the same objects as last time, and the Page
    (with its key) of a page whose inputs are the same views, in the same order, as last time.
    """
    old = memo if memo is not None and memo.site_key == site_key else AssembleMemo()
    views = make_views(config, posts, rendered, old.views)
    spellings = tag_spellings(posts)
    sites = language_sites(config, views, link_translations(config, views), spellings.shown)
    new_pages: dict[str, PageMemo] = {}
    pages = [_post_page(config, view, site_key, old.pages, new_pages) for view in views]
    for lsite in sites.values():
        pages += ListPages(config, lsite, sites, site_key, old.pages, new_pages).all()
    context: dict[str, object] = {
        "page_title": None,
        "kind": "404",
        "ui": config.lang(config.language),
        "alternates": [],
    }
    pages.append(Page("404.html", "404.html", context, key=page_key(site_key, "404")))
    _check_collisions(config, pages)
    post_pages = {p.context["post"].url: p for p in pages[: len(views)]}
    model = SiteModel(config, views, sites, pages, post_pages, spellings.warnings)
    if memo is not None:
        memo.site_key, memo.views, memo.pages, memo.model = site_key, {id(v.post): v for v in views}, new_pages, model
    return model


def language_sites(
    config: SiteConfig, views: list[PostView], groups: dict[str, Group], shown: dict[str, str]
) -> dict[str, LanguageSite]:
    """Each language's lists (its posts, plus the others' untranslated ones), and each post's neighbours in them."""
    sites: dict[str, LanguageSite] = {}
    for code, lang in config.languages.items():
        chosen = {id(pick(config, g, code)) for g in groups.values()}
        listed = [v for v in views if id(v) in chosen]
        tags, years = index(listed, shown)
        sites[code] = LanguageSite(lang, listed, tags, years, [v for v in views if v.post.lang == code])
    for lsite in sites.values():  # neighbours: the posts around a post in its own language's list, as its home shows
        listed = lsite.posts
        for i, view in enumerate(listed):
            if view.home_lang == lsite.lang.code:  # prev = newer post, next = older post
                view.prev = listed[i - 1] if i > 0 else None
                view.next = listed[i + 1] if i + 1 < len(listed) else None
    return sites


def _post_page(
    config: SiteConfig, view: PostView, site_key: str, old: dict[str, PageMemo], new: dict[str, PageMemo]
) -> Page:
    path = out_path(view.url)
    inputs = (view, view.prev, view.next, *view.translations)
    hit = old.get(path)
    if hit is not None and hit.inputs == inputs:  # views compare by identity
        new[path] = hit
        return hit.page
    page = post_page(config, view, site_key)
    new[path] = PageMemo(
        inputs, page, {v for v in inputs[1:] if isinstance(v, PostView)}, lambda: post_page(config, view, site_key).key
    )
    return page


def _check_collisions(config: SiteConfig, pages: list[Page]) -> None:
    """Two pages for one output file is an error naming the post(s) involved."""
    feeds = [feed_path(config, lang) for lang in config.languages.values()]
    owners: dict[str, Page | None] = {path: None for path in (*feeds, *RESERVED)}
    for page in pages:
        if page.path in owners:
            other = owners[page.path]
            posts = [p.context["post"] for p in (page, other) if p is not None and "post" in p.context]
            what = (
                " and ".join(v.post.rel for v in posts[1:]) or f"the site's own /{page.path.removesuffix('index.html')}"
            )
            raise (
                SiteError(f"permalink {posts[0].url} collides with {what}", posts[0].post.rel)
                if posts
                else SiteError(f"two pages would be written to /{page.path}")
            )
        owners[page.path] = page
