"""The site's machine-readable lists: the Atom feed of each language and the sitemap, as jobs with keys.

Each lists every post, so they are the biggest files: a job says where it goes, how to tell whether it changed
(its key, computed before anything is made) and how to make it from the feed entries cached so far.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime

from site_builder.assemble import LanguageSite, PostView, SiteModel, feed_part, feed_path, tag_feed_url, tag_url
from site_builder.config import SiteConfig
from site_builder.load import PAGE_DATE
from site_builder.util.hashing import content_key
from site_builder.write.feeds import atom_feed
from site_builder.write.sitemap import sitemap

EntryCache = MutableMapping[tuple[str, ...], str]


@dataclass
class FeedJob:
    """One output listing posts: its path, its key, and how to make its text with an entry cache."""

    rel: str
    key: Callable[[], str]
    make: Callable[[EntryCache], str]


@dataclass
class FeedText:
    """A feed made by a worker, and the entries it made anew (for the parent's cache)."""

    text: str
    new_entries: dict[tuple[str, ...], str] = field(default_factory=dict)


def make_with_entries(job: FeedJob, entries: EntryCache) -> FeedText:
    fresh: dict[tuple[str, ...], str] = {}
    return FeedText(job.make(ChainMap(fresh, entries)), fresh)


def _feed_key(site_key: str, views: list[PostView], limit: int) -> str:
    """Everything a feed shows of its posts (the newest `limit`, 0: all): their files (the digest), fragments and
    URLs."""
    return content_key(site_key, "\n".join([feed_part(v) for v in (views[:limit] if limit else views)]))


def feed_jobs(config: SiteConfig, model: SiteModel, site_key: str) -> list[FeedJob]:
    """The feeds (the main one, one per other language with the posts written in it, one per tag and language)
    and the sitemap."""
    limit = config.feed_limit
    jobs = [
        FeedJob(
            config.feed_path,
            lambda: _feed_key(site_key, model.posts, limit),
            lambda entries: atom_feed(config, model.posts, entry_cache=entries),
        )
    ]
    for code, lsite in model.languages.items():
        if code != config.language:
            jobs.append(_language_feed_job(config, lsite, site_key))
    for lsite in model.languages.values():
        jobs += [_tag_feed_job(config, lsite, tag, site_key) for tag in lsite.tags]
    jobs.append(_sitemap_job(config, model, site_key))
    return jobs


def _tag_feed_job(config: SiteConfig, lsite: LanguageSite, tag: str, site_key: str) -> FeedJob:
    """The feed of one tag's posts, beside its page (the posts its page lists; entry ids as in the main feed)."""
    lang, views = lsite.lang, lsite.tags[tag]
    path = tag_feed_url(tag, lang.prefix).lstrip("/")

    def make(entries: EntryCache) -> str:
        title = f"{lang.title or config.title} · #{tag}"
        home = tag_url(tag, lang.prefix)
        return atom_feed(config, views, feed_path=path, lang=lang.code, title=title, home=home, entry_cache=entries)

    return FeedJob(path, lambda: content_key(_feed_key(site_key, views, config.feed_limit), lang.code, tag), make)


def _language_feed_job(config: SiteConfig, lsite: LanguageSite, site_key: str) -> FeedJob:
    """The feed of the posts written in one of the site's other languages, under its prefix."""
    lang, path = lsite.lang, feed_path(config, lsite.lang)

    def make(entries: EntryCache) -> str:
        title = lang.title or f"{config.title} ({lang.name})"
        return atom_feed(
            config, lsite.own, feed_path=path, lang=lang.code, title=title, home=lang.prefix, entry_cache=entries
        )

    return FeedJob(path, lambda: content_key(_feed_key(site_key, lsite.own, config.feed_limit), lang.code), make)


def _sitemap_job(config: SiteConfig, model: SiteModel, site_key: str) -> FeedJob:
    urls: list[tuple[str, datetime | None]] = []

    def key() -> str:  # called before `make`: it gathers the URLs both need
        urls[:] = [("/", model.posts[0].post.updated if model.posts else None)]
        urls.extend((v.url, v.post.updated) for v in model.posts)
        urls.extend((v.url, None if v.post.date == PAGE_DATE else v.post.updated) for v in model.site_pages)
        urls.extend(
            ("/" + p.path.removesuffix("index.html"), None)
            for p in model.pages
            if p.template in ("list.html", "archive.html", "tags.html") and p.path != "index.html"
        )
        return content_key(site_key, "sitemap", "\n".join([f"{u} {m}" for u, m in urls]))

    return FeedJob("sitemap.xml", key, lambda entries: sitemap(config, urls))
