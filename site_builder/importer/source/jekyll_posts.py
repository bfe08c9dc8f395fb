"""A Jekyll post or draft as a `SourceDoc`: its front matter in our keys and its URL by Jekyll's rules.

Front matter carried over: `title` (else the file name's words, as Jekyll titles it), `date` (else the file
name's; a date without a zone is in the site's `timezone`), `tags` and `categories` (categories join the tags
unless the permalink uses them), `published: false` -> `draft: true`, `description`/`excerpt` -> `summary`,
`last_modified_at`/`lastmod`/`modified` -> `updated`, `image`/`thumbnail`/`cover`/`og_image`/`header.teaser` ->
`image`, `redirect_from` -> `aliases`, al-folio's `hidden`, and `lang` (a polyglot site's language folder).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from html import unescape
from pathlib import Path
from typing import Any

from site_builder.importer.source.front import Front, author_of, parse_date
from site_builder.importer.source.jekyll_urls import UrlParts, finish, pattern_of, post_url
from site_builder.importer.source.model import ImportProblem, SourceDoc
from site_builder.importer.source.unread import FrontMatter

POST_NAME = re.compile(r"^(\d{2,4}-\d{1,2}-\d{1,2})-(.+?)(\.[^.]+)$")
MARKDOWN = (".md", ".markdown", ".mkd", ".mkdn", ".mkdown", ".text")


@dataclass
class JekyllSite:
    """What every post's conversion needs of `_config.yml`."""

    config: dict[str, Any]
    zone: tzinfo
    default_lang: str
    languages: tuple[str, ...]  # polyglot's languages ((): one language)
    comments_opt_in: bool = False  # al-folio's giscus: a post shows comments only with `giscus_comments: true`
    comments: dict[str, Any] = field(default_factory=dict)  # site.yml's `comments` (importer/source/comments.py)

    def defaults(self, rel: str, kind: str) -> dict[str, Any]:
        """The `defaults:` values for a file at `rel` of type `kind` (posts, pages, drafts, tabs...), later scopes
        winning as in Jekyll."""
        merged: dict[str, Any] = {}
        for entry in self.config.get("defaults") or []:
            if not isinstance(entry, dict) or not isinstance(entry.get("values"), dict):
                continue
            scope = entry.get("scope") or {}
            path = str(scope.get("path") or "").strip("/")
            if scope.get("type") and scope.get("type") != kind:
                continue
            if path and not (rel == path or rel.startswith(path + "/")):
                continue
            merged.update(entry["values"])
        return merged


def _words(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [str(v) for v in value if v is not None and str(v).strip()]
    return []


def _image(meta: dict[str, Any]) -> str:
    for key in ("image", "thumbnail", "cover", "og_image", "header"):
        value = meta.get(key)
        if isinstance(value, dict):
            value = value.get("path") or value.get("teaser") or value.get("og_image") or value.get("image")
        if isinstance(value, str) and value.strip():
            value = value.strip()
            return value if value.startswith(("/", "http://", "https://", "//")) else "/" + value
    return ""


def titleize(slug: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in slug.split("-") if w)


def categories_of(meta: dict[str, Any], rel: str) -> list[str]:
    """Jekyll's categories: the folders above `_posts` (or `_drafts`), then `categories` and `category`."""
    above = rel.split("/_posts/")[0].split("/_drafts/")[0] if "/_posts/" in rel or "/_drafts/" in rel else ""
    folders = [p for p in above.split("/") if p] if above else []
    return list(dict.fromkeys([*folders, *_words(meta.get("categories")), *_words(meta.get("category"))]))


def post_doc(site: JekyllSite, path: Path, rel: str, front: Front, draft_folder: bool) -> SourceDoc | ImportProblem:
    """The post at `path` (`rel` from the site root), or the problem that keeps it out."""
    name = POST_NAME.match(path.name)
    if name is None and not draft_folder:
        return ImportProblem(rel, None, "not read: a post's file name is YYYY-MM-DD-title.md")
    meta = FrontMatter({**site.defaults(rel, "drafts" if draft_folder else "posts"), **front.meta}, front.meta)
    slug = str(meta.get("slug") or (name.group(2) if name else path.stem))
    dt = parse_date(meta.get("date"), site.zone) or (parse_date(name.group(1), site.zone) if name else None)
    if dt is None:
        dt = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    lang = _lang(site, meta, rel)
    categories = categories_of(meta, rel)
    pattern = pattern_of(str(meta.get("permalink") or site.config.get("permalink") or "date"))
    parts = UrlParts(dt.astimezone(site.zone), slug, path.stem, tuple(categories))
    url = post_url(pattern, parts) if meta.get("permalink") is None or ":" in pattern else finish(pattern)
    if site.languages and lang != site.default_lang:
        url = f"/{lang}{url}"
    # Liquid prints a title as HTML: `Connect-4&#58; First Steps` (a colon YAML would not take) was shown `:`
    ours: dict[str, Any] = {"title": unescape(str(meta.get("title") or titleize(slug))), "date": dt}
    updated = parse_date(
        meta.get("last_modified_at") or meta.get("lastmod") or meta.get("modified") or meta.get("updated"), site.zone
    )
    if updated is not None and updated != dt:
        ours["updated"] = updated
    tags = _words(meta.get("tags")) + _words(meta.get("tag"))
    if ":categories" not in pattern:
        tags += categories
    ours["tags"] = list(dict.fromkeys(tags))
    if site.languages:
        ours["lang"] = lang
        ours["translation_key"] = slug
    ours["permalink"] = url
    summary = meta.get("description") or meta.get("excerpt") or meta.get("summary")
    if isinstance(summary, str) and summary.strip():
        ours["summary"] = " ".join(summary.split())
    image = _image(meta)
    if image:
        ours["image"] = image
    if author_of(meta):  # a post's own (jekyll-seo-tag, jekyll-feed): the feed's author of it
        ours["author"] = author_of(meta)
    aliases = meta.get("redirect_from")
    if aliases:
        ours["aliases"] = [aliases] if isinstance(aliases, str) else [str(a) for a in aliases]
        if site.languages and lang != site.default_lang:  # polyglot writes a language's redirect pages under /LANG/
            ours["aliases"] = [f"/{lang}{a}" if a.startswith("/") else a for a in ours["aliases"]]
    if meta.get("hidden") is True:
        ours["hidden"] = True
    if meta.get("related_posts") is False:  # al-folio's: no related posts under it
        ours["related_posts"] = False
    if site.comments_opt_in and meta.get("giscus_comments") is not True:
        ours["comments"] = False
    if draft_folder or meta.get("published") is False:
        ours["draft"] = True
    folder = rel.split("_posts/", 1)[-1] if "_posts/" in rel else rel.split("_drafts/", 1)[-1]
    prefix = rel.split("/_posts/")[0] + "/" if "/_posts/" in rel else "drafts/" if draft_folder else ""
    dest = prefix + str(Path(folder).with_suffix(".md"))
    return SourceDoc(path, rel, "post", dest, ours, front.body, front.body_line, meta)


def _lang(site: JekyllSite, meta: dict[str, Any], rel: str) -> str:
    declared = meta.get("lang")
    if isinstance(declared, str) and declared in site.languages:
        return declared
    for part in rel.split("/"):
        if part in site.languages:
            return part
    return site.default_lang
