"""The Hugo reader: the config (hugo_config.py), `content/` (each language's content folder, or `.CODE.md`
files), posts and pages (hugo_pages.py) with their URLs (hugo_urls.py), shortcodes (shortcodes.py,
hugo_shortcodes.py, the site's own templates: hugo_templates.py), and the files the pages use, found in their
page bundle, in `static/` or in `content/`.

Not read, and named in the report: list pages (`_index.md`: a section's or the home page's, which the new site
makes itself), content in other formats than Markdown (HTML, Org, AsciiDoc, reST, Pandoc), headless bundles.

site.yml: `title`, `baseURL` (its path kept: links are rebased under it), the author, `params.description`
(or `params.subtitle`) as the subtitle, the default language and the others, the main section's permalink when
ours can say it, and the header's pages from the `main` menu (or a page's own `menu: main`).

Math: a site whose formulas were written for Goldmark's backslash escapes (`\\\\{` for TeX's `\\{`, when no
passthrough extension keeps math apart) has each formula unescaped as MathJax saw it (mathjax.py).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from site_builder.importer.source import assets, comments, common, mathjax
from site_builder.importer.source.gitdates import last_commit_dates
from site_builder.importer.source.hugo_config import HugoSite, hugo_site, read_config
from site_builder.importer.source.hugo_pages import read_doc
from site_builder.importer.source.hugo_shortcodes import rules
from site_builder.importer.source.kramdown import span_attributes
from site_builder.importer.source.model import (
    ImportProblem,
    MissingFile,
    SiteSettings,
    SourceDoc,
    SourceFile,
    SourceSite,
)
from site_builder.importer.source.rules import UrlIndex, apply_rules

MARKDOWN = (".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mkdown")
OTHER_FORMATS = (".html", ".htm", ".org", ".adoc", ".asciidoc", ".ad", ".rst", ".pandoc", ".pdc", ".mmark")
_PATTERN_TOKENS = {
    ":year": ":year",
    ":month": ":month",
    ":day": ":day",
    ":slug": ":slug",
    ":filename": ":slug",
    ":slugorfilename": ":slug",
    ":contentbasename": ":slug",
    ":slugorcontentbasename": ":slug",
}


def _content_roots(site: HugoSite, root: Path) -> list[tuple[Path, str | None]]:
    """Each content folder and the language its files are in (None: by their `.CODE` suffix); the main one only
    when a language has none of its own."""
    own: list[tuple[Path, str | None]] = [
        (root / lang.content_dir, lang.code) for lang in site.languages.values() if lang.content_dir
    ]
    roots = own
    if len(own) < max(1, len(site.languages)):
        roots = [(root / site.content_dir, None), *own]
    return [(folder, lang) for folder, lang in roots if folder.is_dir()]


def _files(folder: Path, skip: frozenset[Path] = frozenset()) -> list[Path]:
    """Content files below `folder` (not in the folders `skip`: other languages'), in order; a leaf bundle's other
    files are its resources, not pages."""
    out = []
    for path, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and Path(path) / d not in skip)
        leaf = any(f.split(".")[0] == "index" and f.endswith(MARKDOWN) for f in files)
        if leaf:
            dirs[:] = []
            files = [f for f in files if f.split(".")[0] == "index" and f.endswith(MARKDOWN)]
        out += [Path(path) / f for f in sorted(files) if not f.startswith((".", "#")) and not f.endswith("~")]
    return out


def _main_sections(site: HugoSite, walked: dict[Path, list[Path]]) -> list[str]:
    """The configured main sections, else the content folder holding the most pages (`walked`: each content
    folder's files)."""
    if site.main_sections:
        return site.main_sections
    counts: Counter[str] = Counter()
    for folder, paths in walked.items():
        for path in paths:
            inner = path.relative_to(folder).as_posix()
            if "/" in inner and path.suffix in MARKDOWN and not path.name.startswith("_index."):
                counts[inner.split("/")[0]] += 1
    return [counts.most_common(1)[0][0]] if counts else []


def _docs(site: HugoSite, root: Path, problems: list[ImportProblem], notes: list[str]) -> list[SourceDoc]:
    docs: list[SourceDoc] = []
    lists: list[str] = []
    roots = _content_roots(site, root)
    skip = frozenset(folder for folder, lang in roots if lang)
    walked = {folder: _files(folder, skip) for folder, _lang in roots}  # each content folder walked once
    site.main_sections = _main_sections(site, walked)
    for folder, lang in roots:
        for path in walked[folder]:
            rel = path.relative_to(root).as_posix()
            inner = path.relative_to(folder).as_posix()
            suffix = path.suffix.lower()
            if path.name.startswith("_index.") and suffix in MARKDOWN:
                lists.append(rel)
            elif suffix in OTHER_FORMATS:
                problems.append(ImportProblem(rel, None, f"not read: Hugo content in {suffix} is not converted"))
            elif suffix in MARKDOWN:
                doc = read_doc(site, path, rel, inner, lang)
                if isinstance(doc, ImportProblem):
                    problems.append(doc)
                elif doc is not None and doc.kind == "page" and not doc.body.strip():
                    lists.append(rel)  # a page a layout of the old theme makes (search, archives)
                elif doc is not None:
                    docs.append(doc)
    held = {
        "future": [d.rel for d in docs if d.source_meta.get("_held") == "future" and not d.draft],
        "expired": [d.rel for d in docs if d.source_meta.get("_held") == "expired"],
    }
    if held["future"]:
        notes.append(
            "held back as Hugo held them (a date or publishDate in the future): dated then, the build publishes"
            " them from that day (`build --future` shows them before, as Hugo's --buildFuture): "
            + ", ".join(held["future"])
        )
    if held["expired"]:
        notes.append(
            "held back as Hugo held them (an expiryDate in the past): written as drafts (`build --drafts` shows"
            " them, as Hugo's --buildExpired): " + ", ".join(held["expired"])
        )
    if lists:
        notes.append(
            "list pages and pages with no text of their own not imported (the new site makes its own"
            " lists and search): " + ", ".join(lists)
        )
    return docs


def _url_index(docs: list[SourceDoc]) -> UrlIndex:
    """Each doc's URL by the names `ref`/`relref` use: its path below content (with and without extension), its
    bundle folder, its file name; each also as `LANG|name`, which a page of that language finds first."""
    urls = UrlIndex()
    for doc in docs:
        url = str(doc.meta["permalink"])
        inner = str(doc.source_meta.get("_inner") or doc.rel)
        stem = inner.rsplit(".", 1)[0]
        for key in (inner, stem, stem.removesuffix("/index"), doc.origin.stem, doc.origin.parent.name):
            if key and key not in ("index", "content"):
                urls.add(key, url)
                urls.add(f"{doc.meta.get('lang')}|{key}", url)
    return urls


def _resolver(site: HugoSite, root: Path) -> assets.Resolver:
    base = urlsplit(site.base_url).path.strip("/")
    folders = [root / s for s in site.static_dirs] + [folder for folder, _ in _content_roots(site, root)]

    def resolve(ref: str, doc: SourceDoc) -> Path | None:
        path = unquote(urlsplit(ref).path)
        if path.startswith("/"):
            if base and path.startswith(f"/{base}/"):
                path = path[len(base) + 1 :]
            candidates = [folder / path.lstrip("/") for folder in folders]
        else:
            candidates = [doc.origin.parent / path]
        exact = (f for c in candidates if (f := assets.file_inside(c, root, any_case=False)) is not None)
        return next(exact, None) or next((f for c in candidates if (f := assets.file_inside(c, root))), None)

    return resolve


def _templates(site: HugoSite, root: Path) -> dict[str, str]:
    """The site's own shortcode templates (then its themes'), name -> text."""
    themes = site.config.get("theme") or []
    folders = [root / "layouts" / "shortcodes"]
    folders += [
        root / "themes" / str(t) / "layouts" / "shortcodes" for t in ([themes] if isinstance(themes, str) else themes)
    ]
    found: dict[str, str] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.html")) if folder.is_dir() else []:
            found.setdefault(path.stem, path.read_text(encoding="utf-8", errors="replace"))
    return found


def _author(config: dict[str, Any]) -> str:
    params = config.get("params") if isinstance(config.get("params"), dict) else {}
    for value in (config.get("author"), (params or {}).get("author")):
        if isinstance(value, dict):
            value = value.get("name")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _permalink(site: HugoSite, notes: list[str]) -> str:
    if not site.main_sections:
        return ""
    section = site.main_sections[0]
    pattern = site.permalinks.get(section) or f"/{section}/:slugorfilename/"
    ours = pattern
    for token in sorted(_PATTERN_TOKENS, key=len, reverse=True):
        ours = ours.replace(token, _PATTERN_TOKENS[token])
    if ":" in ours.replace(":year", "").replace(":month", "").replace(":day", "").replace(":slug", ""):
        notes.append(f"the Hugo permalink {pattern!r} has no equivalent here: new posts use /blog/:year/:slug/")
        return ""
    return "/" + ours.strip("/") + "/"


def _nav(site: HugoSite, pages: list[SourceDoc]) -> list[str]:
    by_url = {str(p.meta["permalink"]).rstrip("/"): p for p in pages}
    by_ref = {p.rel.split("/", 1)[-1].rsplit(".", 1)[0].removesuffix("/index"): p for p in pages}
    chosen: list[tuple[float, SourceDoc]] = []
    for item in site.menu:
        target = str(item.get("url") or "").rstrip("/")
        ref = str(item.get("pageref") or "").strip("/").rsplit(".", 1)[0]
        doc = by_url.get(target) or by_ref.get(ref)
        if doc is not None:
            chosen.append((float(item.get("weight") or 0), doc))
    for doc in pages:
        menu = doc.source_meta.get("menu")
        if menu == "main" or (isinstance(menu, list) and "main" in menu):
            chosen.append((float(doc.source_meta.get("weight") or 0), doc))
        elif isinstance(menu, dict) and "main" in menu:
            entry = menu["main"] if isinstance(menu["main"], dict) else {}
            chosen.append((float(entry.get("weight") or doc.source_meta.get("weight") or 0), doc))
    names = [d.dest.removesuffix(".md") for _, d in sorted(chosen, key=lambda c: c[0])]
    return list(dict.fromkeys(names))


def _settings(site: HugoSite, pages: list[SourceDoc], notes: list[str]) -> SiteSettings:
    c, params = site.config, site.params
    subtitle = next(
        (str(v) for v in (params.get("description"), params.get("subtitle"), c.get("description")) if v), ""
    )
    default = site.default_lang if site.languages else site.default_lang.split("-")[0]
    url = site.base_url.rstrip("/") + "/" if site.base_url.startswith("http") else ""
    return SiteSettings(
        title=str(c.get("title") or "").strip() or _author(c) or "My Blog",
        subtitle=" ".join(subtitle.split()),
        url=url,
        author=_author(c),
        language=default,
        languages=[code for code in site.languages if code != site.default_lang],
        permalink=_permalink(site, notes),
        nav=_nav(site, pages),
        extra=({"future": True} if c.get("buildfuture") is True else {}) | comments.setting(comments.hugo_comments(c)),
    )


def _passthrough(site: HugoSite) -> bool:
    """Whether Goldmark's passthrough extension keeps math apart from Markdown (its escapes then stay in it)."""
    found: Any = site.config
    for key in ("markup", "goldmark", "extensions", "passthrough", "enable"):
        found = found.get(key) if isinstance(found, dict) else None
    return found is True


def read(root: Path, config: Path) -> SourceSite:
    """The Hugo site at `root` as a SourceSite (module docstring)."""
    site = hugo_site(read_config(root, config))
    problems: list[ImportProblem] = []
    notes: list[str] = []
    if site.config.get("enablegitinfo") is True and ":git" in site.dates["lastmod"]:
        dates = last_commit_dates(root / site.content_dir)
        if dates is None:
            notes.append(
                "enableGitInfo: the source is not in a git repository, so a page's updated date is its front"
                " matter's lastmod (Hugo took it from the page's last commit); import from a clone to keep them"
            )
        site.git_dates = dates or {}
    docs = _docs(site, root, problems, notes)
    urls = _url_index(docs)
    resolve = _resolver(site, root)
    unescape = not _passthrough(site) and mathjax.written_for_markdown(d.body for d in docs)
    hugo_rules = (
        *rules(_templates(site, root)),
        span_attributes,
        mathjax.escaped_dollars,
        *((mathjax.markdown_unescaped,) if unescape else ()),
        *common.RULES,
    )
    found: list[SourceFile] = []
    missing: list[MissingFile] = []  # images the docs show that the source lacks: the report counts them
    for doc in docs:
        problems += apply_rules(doc, hugo_rules, urls)
        found += assets.collect(doc, resolve, missing, problems)
        image = doc.meta.get("image")
        origin = resolve(image, doc) if isinstance(image, str) and not urlsplit(image).scheme else None
        if isinstance(image, str) and origin is not None:
            if image.startswith("/"):
                found.append(SourceFile(origin, "static", image.lstrip("/")))
            else:
                folder = "posts" if doc.kind == "post" else "pages"
                found.append(
                    SourceFile(
                        origin, "content", f"{folder}/{Path(doc.dest).parent.as_posix()}/{image}".replace("/./", "/")
                    )
                )
    settings = _settings(site, [d for d in docs if d.kind == "page"], notes)
    return SourceSite("hugo", root, settings, docs, assets.merge(found), problems, notes, missing)
