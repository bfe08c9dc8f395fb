"""The whole site: views, each language's side, and every page with its reuse key."""

from __future__ import annotations

from site_builder.assemble.lists import ListPages, index
from site_builder.assemble.memo import AssembleMemo, PageMemo
from site_builder.assemble.model import LanguageSite, PostView, SiteModel, feed_path, out_path, page_key, tag_feed_url
from site_builder.assemble.posts import Group, link_translations, make_views, pick, post_page
from site_builder.assemble.related import link_related, nav_links
from site_builder.assemble.tags import tag_spellings
from site_builder.config import SiteConfig
from site_builder.errors import SiteError, SiteErrors
from site_builder.models import Page, Post, Rendered
from site_builder.util.hashing import content_key

RESERVED = ("sitemap.xml", "robots.txt", "css/pygments.css", "css/site.css")
SEARCH_DIR = "pagefind/"  # write.search.SEARCH_DIR, Pagefind's index (assemble imports nothing of write)
REDIRECT = "redirect.html"  # the template of a page at an old address of a post


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
    same = memo is not None and memo.site_key == site_key
    page_views = make_views(config, [p for p in posts if p.page], rendered, memo.views if memo and same else {})
    navs, warnings = nav_links(config, link_translations(config, page_views))
    pages_key = content_key(site_key, repr(navs)) if config.nav else site_key  # the header shows pages' titles
    old = memo if memo is not None and same and memo.pages_key == pages_key else AssembleMemo()
    posts = [p for p in posts if not p.page]
    views = make_views(config, posts, rendered, old.views)
    listed = [v for v in views if not v.post.hidden]  # `hidden: true`: built, in no list, tag page or feed
    spellings = tag_spellings([p for p in posts if not p.hidden])
    sites = language_sites(config, listed, link_translations(config, views), spellings.shown)
    link_related(listed, spellings.shown)
    new_pages: dict[str, PageMemo] = {}
    shown = views + page_views
    pages = [_post_page(config, view, pages_key, old.pages, new_pages) for view in shown]
    for lsite in sites.values():
        pages += ListPages(config, lsite, sites, pages_key, old.pages, new_pages).all()
    context: dict[str, object] = {
        "page_title": None,
        "kind": "404",
        "ui": config.lang(config.language),
        "alternates": [],
    }
    pages.append(Page("404.html", "404.html", context, key=page_key(pages_key, "404")))
    owners = _check_collisions(config, pages, sites)
    pages += redirect_pages(config, shown, owners, pages_key)
    for page in pages:
        page.context["nav"] = navs[page.context["ui"].code]
    post_pages = {p.context["post"].url: p for p in pages[: len(shown)]}
    unlisted = page_views + [v for v in views if v.post.hidden]
    model = SiteModel(config, listed, sites, pages, post_pages, unlisted, spellings.warnings + warnings)
    if memo is not None:
        memo.site_key, memo.pages_key, memo.views = site_key, pages_key, {id(v.post): v for v in shown}
        memo.pages, memo.model = new_pages, model
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
    inputs = (view, view.prev, view.next, *view.translations, None, *view.related)
    hit = old.get(path)
    if hit is not None and hit.inputs == inputs:  # views compare by identity
        new[path] = hit
        return hit.page
    page = post_page(config, view, site_key)
    new[path] = PageMemo(
        inputs, page, {v for v in inputs[1:] if isinstance(v, PostView)}, lambda: post_page(config, view, site_key).key
    )
    return page


def _check_collisions(config: SiteConfig, pages: list[Page], sites: dict[str, LanguageSite]) -> dict[str, Page | None]:
    """A page on another's output file, on a file of the site's own (its feeds, sitemap, styles, the search index's
    folder) or on a name a web server reads (`.htaccess`, `.nojekyll`, `.well-known/`: a name starting with a
    dot) is an error naming its post: all of them, together. Returns each output path's page (None for the feeds
    and the site's own files)."""
    feeds = [feed_path(config, lang) for lang in config.languages.values()]
    feeds += [tag_feed_url(t, s.lang.prefix).lstrip("/") for s in sites.values() for t in s.tags]
    owners: dict[str, Page | None] = {path: None for path in (*feeds, *RESERVED)}
    errors: list[SiteError] = []
    for page in pages:
        posts = [p.context["post"] for p in (page, owners.get(page.path)) if p is not None and "post" in p.context]
        problem = _not_a_page(page.path)
        if page.path in owners or problem:
            what = (
                problem
                or " and ".join(v.post.rel for v in posts[1:])
                or f"the site's own /{page.path.removesuffix('index.html')}"
            )
            errors.append(
                SiteError(
                    f"permalink {posts[0].url} {'' if problem else 'collides with '}{what}",
                    posts[0].post.rel,
                    posts[0].post.lines.get("permalink"),
                )
                if posts
                else SiteError(
                    f"page /{page.path} {problem}" if problem else f"two pages would be written to /{page.path}"
                )
            )
        owners.setdefault(page.path, page)
    if errors:
        raise SiteErrors(errors)
    return owners


def _not_a_page(path: str) -> str:
    """Why a page cannot be written to `path`, "" when it can."""
    if any(part.startswith(".") for part in path.split("/")):
        return "names a file a web server reads (a name starting with a dot): it cannot be a page"
    if path.startswith(SEARCH_DIR):
        return f"is in /{SEARCH_DIR}, the search index's folder, which each build replaces"
    return ""


def redirect_pages(config: SiteConfig, views: list[PostView], owners: dict[str, Page | None], key: str) -> list[Page]:
    """A page at each old address of a post (`aliases`, `redirect_from`) sending readers to it, as Hugo writes one:
    a meta refresh and a canonical link. One on a page of the site, or on another redirect, is an error at its
    line."""
    pages: list[Page] = []
    errors: list[SiteError] = []
    taken = dict(owners)
    for view in views:
        for alias in view.post.aliases:
            path = out_path(alias.path)
            problem = _not_a_page(path)
            if problem:
                errors.append(SiteError(f"redirect {alias.path} {problem}", view.post.rel, alias.line))
                continue
            if path in taken:
                other = taken[path]
                what = other.context["post"].post.rel if other is not None and "post" in other.context else ""
                if other is not None and other.template == REDIRECT:
                    what = f"a redirect of {other.context['redirect_of'].post.rel}"
                message = f"redirect {alias.path} collides with {what or 'a page of the site'} (/{path})"
                errors.append(SiteError(message, view.post.rel, alias.line))
                continue
            target = config.absolute(view.url)
            context = {"target": target, "redirect_of": view, "ui": config.lang(view.lang), "page_title": None}
            taken[path] = page = Page(path, REDIRECT, context, key=page_key(key, REDIRECT, target))
            pages.append(page)
    if errors:
        raise SiteErrors(errors)
    return pages
