"""Stage 5, assemble: posts + fragments -> the site's pages, per language (posts, lists, tags, archives)."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from site_builder.config import Language, SiteConfig
from site_builder.errors import SiteError
from site_builder.load import slugify
from site_builder.models import Page, Post, Rendered
from site_builder.util.hashing import content_key


@dataclass(eq=False)
class PostView:
    """What templates see of a post: its record's fields, its HTML and derived facts."""

    post: Post
    html: str
    reading_minutes: int
    key: str = ""
    toc: list = field(default_factory=list)
    prev: PostView | None = None
    next: PostView | None = None
    translations: list = field(default_factory=list)  # the same post in the site's other languages (PostViews)
    html_lang: str = ""  # lang attribute value: zh-Hans for zh
    lang_name: str = ""  # the language's display name: 中文
    home_lang: str = ""  # which language's lists it belongs to (its own, or the default for an unlisted language)

    def __post_init__(self) -> None:  # plain attributes: templates read them thousands of times
        p = self.post
        self.title, self.date, self.updated, self.tags = p.title, p.date, p.updated, p.tags
        self.lang, self.summary, self.url, self.id, self.meta = p.lang, p.summary, p.permalink, p.id, p.meta


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
    post_pages: dict[str, Page] = field(default_factory=dict)  # permalink -> the post's page


def tag_url(tag: str, prefix: str = "/") -> str:
    return f"{prefix}blog/tag/{slugify(tag)}/"


def year_url(year: int, prefix: str = "/") -> str:
    return f"{prefix}blog/{year}/"


def page_url(n: int, prefix: str = "/") -> str:
    return prefix if n == 1 else f"{prefix}page/{n}/"


def feed_path(config: SiteConfig, lang: Language) -> str:
    """Output path of a language's feed: the main feed for the default language, `zh/feed.xml` for the others."""
    return config.feed_path if lang.prefix == "/" else lang.prefix.lstrip("/") + config.feed_path.lstrip("/")


def reading_minutes(rendered: Rendered) -> int:
    """About 230 English words or 400 CJK characters a minute."""
    return max(1, round(rendered.words / 230 + rendered.text_chars / 400))


def _out(url: str) -> str:
    """Output file for a site path: directory URLs get index.html."""
    path = url.lstrip("/")
    return path + "index.html" if (not path or path.endswith("/")) else path


def _key(*parts: object) -> str:
    return content_key(*map(repr, parts))


def _card(view: PostView) -> str:
    """What a list shows of a post, as one string for page keys (computed once per post)."""
    card = view.__dict__.get("_card")
    if card is None:
        p = view.post
        card = view.__dict__["_card"] = repr(
            (p.permalink, p.title, p.date.isoformat(), p.summary, tuple(p.tags), p.lang, view.reading_minutes)
        )
    return card


def feed_part(view: PostView) -> str:
    """What a feed entry is made of, as one string for feed keys (computed once per view): the post's file,
    fragment and URL."""
    part = view.__dict__.get("_feed")
    if part is None:
        part = view.__dict__["_feed"] = f"{view.post.digest}|{view.key}|{view.url}"
    return part


def _translation_groups(config: SiteConfig, views: list[PostView]) -> dict[str, dict[str, PostView]]:
    """translation_key -> {language: view}; two posts in one language for one key is an error."""
    groups: dict[str, dict[str, PostView]] = defaultdict(dict)
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


def _pick(config: SiteConfig, group: dict[str, PostView], code: str) -> PostView:
    """The version of a post a language's lists show: its own, else the default language's, else the first."""
    if code in group:
        return group[code]
    if config.language in group:
        return group[config.language]
    order = list(config.languages)
    return min(group.values(), key=lambda v: (order.index(v.home_lang), v.post.rel))


def _index(views: list[PostView]) -> tuple[dict[str, list[PostView]], dict[int, list[PostView]]]:
    tags: dict[str, list[PostView]] = defaultdict(list)
    years: dict[int, list[PostView]] = defaultdict(list)
    for view in views:
        for tag in view.post.tags:
            tags[tag].append(view)
        years[view.post.date.year].append(view)
    return dict(sorted(tags.items(), key=lambda kv: kv[0].lower())), dict(sorted(years.items(), reverse=True))


def assemble(
    config: SiteConfig, posts: list[Post], rendered: dict[str, Rendered], site_key: str, memo: dict | None = None
) -> SiteModel:
    """Order posts, group translations, build each language's lists, and list every page with its reuse key.

    `memo` (a dict a long-running caller keeps between builds; this function fills it) lets a rebuild reuse what
    cannot have changed: the view of a post whose record and fragment are the same objects as last time, and the
    Page (with its key) of a page whose inputs are the same views, in the same order, as last time. Views do not
    change once made (only their prev/next/translations links, which are inputs of the post pages).
    """
    old = memo if memo is not None and memo.get("site_key") == site_key else {}
    old_views, old_pages = old.get("views", {}), old.get("pages", {})
    new_views: dict[int, PostView] = {}
    new_pages: dict[str, tuple] = {}
    views = []
    for p in sorted(posts, key=lambda p: (p.date, p.permalink), reverse=True):
        r = rendered[p.permalink]
        view = old_views.get(id(p))
        if view is None or view.post is not p or view.html is not r.html or view.key != r.key:
            lang = config.lang(p.lang)
            name = lang.name if p.lang == lang.code else Language.default_for(p.lang, False).name
            view = PostView(
                p,
                r.html,
                reading_minutes(r),
                r.key,
                r.toc,
                html_lang=config.html_lang(p.lang),
                lang_name=name,
                home_lang=lang.code,
            )
        view.prev = view.next = None
        new_views[id(p)] = view
        views.append(view)
    groups = _translation_groups(config, views)
    for view in views:
        group = groups[view.post.translation_key]
        view.translations = (
            [group[c] for c in config.languages if c in group and group[c] is not view] if len(group) > 1 else []
        )
    sites: dict[str, LanguageSite] = {}
    for code, lang in config.languages.items():
        chosen = {id(_pick(config, g, code) if len(g) > 1 else next(iter(g.values()))) for g in groups.values()}
        listed = [v for v in views if id(v) in chosen]
        tags, years = _index(listed)
        sites[code] = LanguageSite(lang, listed, tags, years, [v for v in views if v.post.lang == code])
    for lsite in sites.values():  # neighbours: the posts around a post in its own language's list, as its home shows
        listed = lsite.posts
        for i, view in enumerate(listed):
            if view.home_lang == lsite.lang.code:  # prev = newer post, next = older post
                view.prev = listed[i - 1] if i > 0 else None
                view.next = listed[i + 1] if i + 1 < len(listed) else None
    pages: list[Page] = []
    for view in views:
        path = _out(view.url)
        inputs = (view, view.prev, view.next, *view.translations)
        hit = old_pages.get(path)
        if hit is not None and hit[0] == inputs:  # views compare by identity
            pages.append(hit[1])
            new_pages[path] = hit
            continue
        pages.append(_post_page(config, view, site_key))
        new_pages[path] = (
            inputs,
            pages[-1],
            {v for v in inputs[1:] if v is not None},
            lambda view=view: _post_page(config, view, site_key).key,
        )
    for lsite in sites.values():
        pages += _language_pages(config, lsite, sites, site_key, old_pages, new_pages)
    pages.append(
        Page(
            "404.html",
            "404.html",
            {"page_title": None, "kind": "404", "ui": config.lang(config.language), "alternates": []},
            key=_key(site_key, "404"),
        )
    )
    _check_collisions(config, pages)
    model = SiteModel(config, views, sites, pages, {p.context["post"].url: p for p in pages[: len(views)]})
    if memo is not None:
        memo.clear()
        memo.update(site_key=site_key, views=new_views, pages=new_pages, model=model)
    return model


def _post_page(config: SiteConfig, view: PostView, site_key: str) -> Page:
    neighbours = tuple(_card(v) if v else None for v in (view.prev, view.next))
    alternates = _alternates(config, view.home_lang, {v.home_lang: v.url for v in [view, *view.translations]})
    return Page(
        _out(view.url),
        "post.html",
        {"post": view, "page_title": view.post.title, "ui": config.lang(view.home_lang), "alternates": alternates},
        key=_key(
            site_key, "post", view.post.digest, view.key, neighbours, alternates, [_card(v) for v in view.translations]
        ),
    )


def _place(post: Post) -> tuple:
    """What of a post decides which lists show it, where, and beside which posts and translations."""
    return (post.permalink, post.date, tuple(post.tags), post.lang, post.translation_key, post.draft)


def update_posts(memo: dict, site_key: str, changes: list[tuple[Post, Post, Rendered]]) -> SiteModel | None:
    """The model `assemble` left in `memo`, updated in place for posts that stay where they are listed.

    `changes` holds (old record, new record, new fragment) of published posts. When every new record has the
    old one's place (permalink, date, tags, language, translation key), the model's structure stands: each view
    takes its new record and HTML, its page a new key, and when what lists show of it changed (title, summary,
    reading time) so do the pages showing it (lists, neighbours, translations). Otherwise (or when the memo is
    not of the last build) nothing is changed and None is returned: assemble again.
    """
    views, pages, model = memo.get("views"), memo.get("pages"), memo.get("model")
    if memo.get("site_key") != site_key or model is None:
        return None
    todo = []
    for old, new, rendered in changes:
        view = views.get(id(old))
        if view is None or view.post is not old or _place(old) != _place(new) or _out(view.url) not in pages:
            return None
        todo.append((view, new, rendered))
    shown = set()  # views whose card changed
    for view, new, rendered in todo:
        card = _card(view)
        del views[id(view.post)]
        view.post, view.html, view.key, view.toc = new, rendered.html, rendered.key, rendered.toc
        view.reading_minutes = reading_minutes(rendered)
        view.__post_init__()
        view.__dict__.pop("_feed", None)
        view.__dict__.pop("_card", None)
        views[id(new)] = view
        if _card(view) != card:
            shown.add(view)
        page = pages[_out(view.url)][1]
        fresh = _post_page(model.config, view, site_key)
        page.key = fresh.key
        page.context.update(fresh.context)
    if shown:
        for _, page, shows, rekey in pages.values():
            if not shown.isdisjoint(shows):
                page.key = rekey()
    return model


def _alternates(config: SiteConfig, current: str, urls: dict[str, str]) -> list[dict]:
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


def _language_pages(
    config: SiteConfig,
    lsite: LanguageSite,
    sites: dict[str, LanguageSite],
    site_key: str,
    old_pages: dict,
    new_pages: dict,
) -> list[Page]:
    lang, prefix, code = lsite.lang, lsite.lang.prefix, lsite.lang.code

    def page(url: str, template: str, context: dict, *key_parts, views=None, others=None) -> Page:
        """A page whose key is made of `key_parts` and the cards of `views`; the previous one if all are the same."""
        if others is None:
            others = {c: url.replace(prefix, s.lang.prefix, 1) for c, s in sites.items()}
        path = _out(url)
        inputs = (template, code, url, key_parts, None if views is None else tuple(views), tuple(others.items()))
        hit = old_pages.get(path)
        if hit is not None and hit[0] == inputs:  # views compare by identity
            new_pages[path] = hit
            return hit[1]
        alternates = _alternates(config, code, others)
        context.update(ui=lang, alternates=alternates)

        def key() -> str:
            cards = () if views is None else ([_card(v) for v in views],)
            return _key(site_key, code, url, alternates, *key_parts, *cards)

        made = Page(path, template, context, key=key())
        new_pages[path] = (inputs, made, set(views or ()), key)
        return made

    pages = _paginate(config, lsite, sites, page)
    tag_index = [(t, tag_url(t, prefix), len(vs)) for t, vs in lsite.tags.items()]
    for tag, tviews in lsite.tags.items():
        others = {c: tag_url(tag, s.lang.prefix) for c, s in sites.items() if tag in s.tags}
        pages.append(
            page(
                tag_url(tag, prefix),
                "list.html",
                {"posts": tviews, "page_title": f"#{tag}", "heading": tag, "kind": "tag"},
                "tag",
                tag,
                views=tviews,
                others=others,
            )
        )
    for year, yviews in lsite.years.items():
        others = {c: year_url(year, s.lang.prefix) for c, s in sites.items() if year in s.years}
        pages.append(
            page(
                year_url(year, prefix),
                "archive.html",
                {"groups": [(year, yviews)], "page_title": str(year), "kind": "year"},
                "year",
                year,
                views=yviews,
                others=others,
            )
        )
    pages.append(
        page(
            f"{prefix}blog/",
            "archive.html",
            {"groups": list(lsite.years.items()), "page_title": None, "kind": "archive", "tag_index": tag_index},
            "archive",
            views=lsite.posts,
        )
    )
    pages.append(
        page(
            f"{prefix}blog/tag/",
            "tags.html",
            {"tag_index": tag_index, "page_title": None, "kind": "tags"},
            "tags",
            tag_index,
        )
    )
    return pages


RESERVED = ("sitemap.xml", "robots.txt", "css/pygments.css", "css/site.css")


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


def _paginate(config: SiteConfig, lsite: LanguageSite, sites: dict[str, LanguageSite], page) -> list[Page]:
    per, prefix, views = config.posts_per_page, lsite.lang.prefix, lsite.posts
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
        others = {c: page_url(n, s.lang.prefix) for c, s in sites.items() if n <= max(1, math.ceil(len(s.posts) / per))}
        pages.append(
            page(
                page_url(n, prefix),
                "list.html",
                {"posts": chunk, "pager": pager, "kind": "home", "page_title": None if n == 1 else n},
                "home",
                n,
                total,
                views=chunk,
                others=others,
            )
        )
    return pages
