"""What `assemble` keeps between the builds of a long-running process (serve), and the quick update it allows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from site_builder.assemble.model import PostView, SiteModel, card, out_path, reading_minutes
from site_builder.assemble.posts import math_summary, post_page
from site_builder.models import Page, Post, Rendered
from site_builder.toc import shown_toc


@dataclass
class PageMemo:
    """A page as the last build made it: what it was made from (views compare by identity), the page, the views
    whose cards it shows, and how to compute its key again."""

    inputs: tuple[object, ...]
    page: Page
    shows: set[PostView]
    rekey: Callable[[], str]


@dataclass
class AssembleMemo:
    """The last build's views (by id of their post record), pages (by output path) and model, for its settings."""

    site_key: str = ""
    pages_key: str = ""  # the site key with the header's links to pages: the key of every page
    views: dict[int, PostView] = field(default_factory=dict)
    pages: dict[str, PageMemo] = field(default_factory=dict)
    model: SiteModel | None = None

    def valid_for(self, site_key: str) -> bool:
        return self.model is not None and self.site_key == site_key


@dataclass
class PostChange:
    """A published post edited: its record before and after, and its new fragment."""

    old: Post
    new: Post
    rendered: Rendered


def _place(post: Post) -> tuple[object, ...]:
    """What of a post decides which lists show it, where, and beside which posts and translations."""
    nav = post.title if post.page else None  # a page's title may be in the header of every page
    return (
        post.permalink, post.date, tuple(post.tags), post.lang, post.translation_key, post.draft, post.page, nav,
        post.hidden, tuple(post.aliases),
    )  # fmt: skip


def update_posts(memo: AssembleMemo, site_key: str, changes: list[PostChange]) -> SiteModel | None:
    """The model `assemble` left in `memo`, updated in place for posts that stay where they are listed.

    When every new record has the old one's place (permalink, date, tags, language, translation key), the model's
    structure stands: each view takes its new record and HTML, its page a new key, and when what lists show of it
    changed (title, summary, reading time) so do the pages showing it (lists, neighbours, translations). Otherwise
    (or when the memo is not of the last build) nothing is changed and None is returned: assemble again.
    """
    model = memo.model
    if model is None or memo.site_key != site_key:
        return None
    todo: list[tuple[PostView, PostChange]] = []
    for change in changes:
        view = memo.views.get(id(change.old))
        if view is None or view.post is not change.old or _place(change.old) != _place(change.new):
            return None
        if out_path(view.url) not in memo.pages:
            return None
        todo.append((view, change))
    shown: set[PostView] = set()  # views whose card changed
    for view, change in todo:
        before = card(view)
        _refresh(memo, view, change)
        math_summary(view, tuple(model.config.math_macros.items()))
        if card(view) != before:
            shown.add(view)
        page = memo.pages[out_path(view.url)].page
        fresh = post_page(model.config, view, memo.pages_key)
        page.key = fresh.key
        page.context.update(fresh.context)
    if shown:
        for kept in memo.pages.values():
            if not shown.isdisjoint(kept.shows):
                kept.page.key = kept.rekey()
    return model


def _refresh(memo: AssembleMemo, view: PostView, change: PostChange) -> None:
    """The view takes the post's new record and fragment (and forgets what it derived from the old ones)."""
    del memo.views[id(view.post)]
    rendered = change.rendered
    view.post, view.rendered, view.key = change.new, rendered, rendered.key
    view.toc = shown_toc(change.new, rendered.toc)
    view.reading_minutes = reading_minutes(rendered)
    view.__post_init__()
    view.__dict__.pop("_feed", None)
    view.__dict__.pop("_card", None)
    view.__dict__.pop("_link", None)
    memo.views[id(change.new)] = view
