"""Jekyll pages as `SourceDoc`s, and the header's pages.

A page is a Markdown file with YAML front matter in `_pages/`, in a collection Jekyll writes (`collections:` with
`output: true`: al-folio's `_projects/`, `_news/`, Chirpy's `_tabs/`), or in any folder not starting with `_` or
`.`. Its URL is its `permalink:` (or its `defaults:`, or its collection's `permalink`), else Jekyll's
`/:collection/:path.html` or `/path/name.html`. Left out, and named
in the report's notes: the 404 page, the home page (`/`), pages with no text of their own (a layout shows them:
archives, tags), and pages made from the posts by Liquid loops (`for post in site.posts`, `paginator`); the new
site makes those itself.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from html import unescape
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from site_builder.importer.source.front import Front
from site_builder.importer.source.jekyll_posts import JekyllSite
from site_builder.importer.source.jekyll_urls import UrlParts, finish, post_url, slugify
from site_builder.importer.source.model import SourceDoc
from site_builder.importer.source.unread import FrontMatter

_LISTING = re.compile(
    r"\{%-?\s*for\s+\w+\s+in\b|\{%-?\s*bibliography\b|\{%-?\s*include\s+(?:news|projects|repository|bib)"
)


def _collections(site: JekyllSite) -> dict[str, dict[str, Any]]:
    """The collections Jekyll writes pages for (`collections: NAME: {output: true}`): name -> settings."""
    found = site.config.get("collections")
    if isinstance(found, list):
        found = {str(name): {} for name in found}
    if not isinstance(found, dict):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, dict) and v.get("output") and k != "posts"}


def _page_url(site: JekyllSite, meta: dict[str, Any], inner: str, collection: str, pattern: str) -> str:
    """A page's URL: its `permalink:` (or its defaults' or collection's pattern), else Jekyll's default: the
    collection's `/:collection/:path:output_ext`, a page's `/path/name.html`."""
    link = meta.get("permalink") or pattern
    stem = PurePosixPath(inner).stem
    if isinstance(link, str) and link.strip():
        if ":" not in link:
            return finish(link) if not link.endswith("/") else "/" + (link.strip("/") + "/").lstrip("/")
        path = str(PurePosixPath(inner).with_suffix(""))
        parts = UrlParts(datetime(2000, 1, 1, tzinfo=timezone.utc), stem, stem, (), collection, path)
        return post_url(link.replace(":basename", ":name"), parts)
    if collection:
        return finish(f"/{collection}/{PurePosixPath(inner).with_suffix('')}")
    return "/" + str(PurePosixPath(inner).with_suffix(".html")).lstrip("/")


def page_doc(site: JekyllSite, path: Path, rel: str, front: Front) -> SourceDoc | str | None:
    """The page at `rel`; its name when it is left out (module docstring); None when it is not a page."""
    top = rel.split("/", 1)[0]
    collections = _collections(site)
    collection = top[1:] if top.startswith("_") and top[1:] in collections else ""
    if any(part.startswith(("_", ".")) for part in rel.split("/")[:-1]) and not (collection or top == "_pages"):
        return None
    inner = rel.split("/", 1)[1] if collection or top == "_pages" else rel
    meta = FrontMatter({**site.defaults(rel, collection or "pages"), **front.meta}, front.meta)
    pattern = str(collections.get(collection, {}).get("permalink") or "") if collection else ""
    url = _page_url(site, meta, inner, collection, pattern)
    body = front.body.strip()
    if path.stem == "404" or url in ("/", "/index.html", "/404.html") or not body or _LISTING.search(body):
        return rel
    if meta.get("published") is False:
        return rel
    title = unescape(str(meta.get("title") or path.stem.replace("-", " ").title()))  # HTML, as Liquid prints it
    ours: dict[str, Any] = {"title": title, "permalink": url}
    if site.languages and isinstance(meta.get("lang"), str):
        ours["lang"] = meta["lang"]
    summary = meta.get("description")
    if isinstance(summary, str) and summary.strip():
        ours["summary"] = " ".join(summary.split())
    name = slugify(url.strip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]) or slugify(path.stem) or "page"
    folder = f"{collection}/" if collection and collection != "tabs" else ""
    doc = SourceDoc(path, rel, "page", f"{folder}{name}.md", ours, front.body, front.body_line, meta)
    return doc


def page_nav(site: JekyllSite, root: Path, pages: list[SourceDoc]) -> list[str]:
    """The header's pages, by the theme's own settings (module docstring of jekyll.py), as our page names."""
    by_url = {str(p.meta["permalink"]).rstrip("/"): p for p in pages}
    chosen: list[tuple[float, SourceDoc]] = []
    for doc in pages:
        m = doc.source_meta
        if m.get("nav") is True:
            chosen.append((float(m.get("nav_order") or 99), doc))
        elif doc.rel.startswith("_tabs/"):
            chosen.append((float(m.get("order") or 99), doc))
    header = site.config.get("header_pages")
    if isinstance(header, list):
        for i, name in enumerate(header):
            chosen += [(i, d) for d in pages if d.rel == str(name)]
    navigation = root / "_data" / "navigation.yml"
    if navigation.is_file():
        try:
            data = yaml.safe_load(navigation.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError):
            data = None
        main = data.get("main") if isinstance(data, dict) else None
        for i, item in enumerate(main if isinstance(main, list) else []):
            found = by_url.get(str(item.get("url") or "").rstrip("/")) if isinstance(item, dict) else None
            if found is not None:
                chosen.append((i, found))
    names = [d.dest.removesuffix(".md") for _, d in sorted(chosen, key=lambda c: c[0])]
    return list(dict.fromkeys(names))
