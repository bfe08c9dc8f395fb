"""The Jekyll reader: `_config.yml`, `_posts/` (with category folders above it and any folders below it),
`_drafts/`, and pages (`_pages/`, collections Jekyll writes, and any Markdown file with front matter outside `_`
folders: jekyll_pages.py)
into a `SourceSite` (model.py). Posts: jekyll_posts.py; URLs: jekyll_urls.py; Liquid: liquid.py; kramdown:
kramdown.py.

site.yml: `title` (al-folio's `blank` -> the author's name), `url` + `baseurl`, `author`, `tagline`/`subtitle`/
`description` -> `subtitle`, polyglot's `default_lang` and `languages` (those that have posts), the `permalink`
when ours can say it (`:title` -> `:slug`), and the header's pages (al-folio `nav: true` by `nav_order`, Chirpy
tabs by `order`, minima's `header_pages`, Minimal Mistakes' `_data/navigation.yml` `main`).
"""

from __future__ import annotations

import fnmatch
import os
import re
from datetime import timezone, tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml

from site_builder.errors import SiteError
from site_builder.importer.source import assets, common, kramdown, liquid
from site_builder.importer.source.bibtex import read_bib, scholar_rules
from site_builder.importer.source.comments import jekyll_comments, setting
from site_builder.importer.source.front import split
from site_builder.importer.source.jekyll_pages import page_doc, page_nav
from site_builder.importer.source.jekyll_posts import MARKDOWN, JekyllSite, post_doc
from site_builder.importer.source.jekyll_urls import polyglot_links
from site_builder.importer.source.liquid_values import assigns, captures, literal_dates, octopress_quotes
from site_builder.importer.source.model import (
    IMAGE_SUFFIXES,
    ImportProblem,
    MissingFile,
    SiteSettings,
    SourceDoc,
    SourceFile,
    SourceSite,
)
from site_builder.importer.source.rules import Rule, UrlIndex, apply_rules

RULES: tuple[Rule, ...] = (
    liquid.raw,
    captures,
    assigns,
    literal_dates,
    octopress_quotes,
    *liquid.RULES[1:],
    *kramdown.RULES,
    *common.RULES,
    liquid.leftovers,
    liquid.unhide,
)
SKIP_DIRS = {"_site", "node_modules", "vendor", ".git", ".github", ".jekyll-cache", ".sass-cache", "built"}


def _config(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise SiteError(f"cannot read the Jekyll config: {exc}", path) from None
    return data if isinstance(data, dict) else {}


def _zone(config: dict[str, Any]) -> tzinfo:
    try:
        return ZoneInfo(str(config["timezone"])) if config.get("timezone") else timezone.utc
    except (ZoneInfoNotFoundError, ValueError):
        return timezone.utc


def _site(config: dict[str, Any], root: Path) -> JekyllSite:
    langs = config.get("languages")
    default = str(config.get("default_lang") or config.get("lang") or config.get("locale") or "en")
    languages: tuple[str, ...] = ()
    if isinstance(langs, list) and len(langs) > 1:
        present = {p.name for p in root.glob("_posts/*") if p.is_dir()}
        languages = tuple(str(code) for code in langs if str(code) == default or str(code) in present)
    if not languages and "-" in default:
        default = default.split("-")[0]  # a locale (`en-US`) names the language
    found, opt_in = jekyll_comments(config)  # al-folio: a post has comments with `giscus_comments: true` only
    return JekyllSite(config, _zone(config), default, languages if len(languages) > 1 else (), opt_in, found)


def _walk(root: Path, exclude: object = None) -> list[Path]:
    """The site's files, without what its `exclude:` leaves out (Jekyll's EntryFilter: a path from the site's
    root, `/docs` or `docs`, or a glob, `*.sublime-project`; a folder with everything in it)."""
    patterns = [str(p).strip().strip("/") for p in exclude if str(p).strip("/ ")] if isinstance(exclude, list) else []

    def excluded(rel: str) -> bool:
        return any(rel == p or fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel.rsplit("/", 1)[-1], p) for p in patterns)

    out = []
    for folder, dirs, files in os.walk(root):
        base = Path(folder).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".") and not excluded(prefix + d))
        out += [Path(folder) / f for f in sorted(files) if not excluded(prefix + f)]
    return out


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _read(path: Path, rel: str, problems: list[ImportProblem]) -> Any:
    try:
        front = split(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(ImportProblem(rel, None, f"not read: {exc}"))
        return None
    if front.error:
        problems.append(ImportProblem(rel, front.error_line, f"not read: {front.error}"))
        return None
    return front


def _docs(site: JekyllSite, root: Path, files: list[Path], problems: list[ImportProblem]) -> list[SourceDoc]:
    docs: list[SourceDoc] = []
    for path in files:
        rel = _rel(path, root)
        in_posts = "_posts/" in rel
        in_drafts = rel.startswith("_drafts/") or "/_drafts/" in rel
        if not (in_posts or in_drafts):
            continue
        if path.suffix.lower() not in MARKDOWN:
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                problems.append(ImportProblem(rel, None, "not read: not a Markdown post"))
            continue
        front = _read(path, rel, problems)
        if front is None:
            continue
        doc = post_doc(site, path, rel, front, in_drafts)
        if isinstance(doc, ImportProblem):
            problems.append(doc)
        else:
            docs.append(doc)
    return docs


def _settings(site: JekyllSite, root: Path, pages: list[SourceDoc]) -> tuple[SiteSettings, list[str]]:
    c = site.config
    notes: list[str] = []
    name = " ".join(str(c.get(k) or "") for k in ("first_name", "middle_name", "last_name")).split()
    author = c.get("author")
    author_name = str(author.get("name") or "") if isinstance(author, dict) else str(author or "")
    author_name = author_name or " ".join(name)
    title = str(c.get("title") or "").strip()
    if title.lower() in ("", "blank"):
        title = " ".join(name) or author_name or "My Blog"
    url = str(c.get("url") or "").rstrip("/")
    baseurl = str(c.get("baseurl") or "").strip("/")
    if url:
        url += "/" + (baseurl + "/" if baseurl else "")
    subtitle = next((str(c[k]).strip() for k in ("tagline", "subtitle", "description") if c.get(k)), "")
    permalink = str(c.get("permalink") or "date")
    ours = re.sub(r":title\b", ":slug", permalink)
    if re.search(r":(?!year\b|month\b|day\b|slug\b)\w+", ours) or not ours.startswith("/"):
        notes.append(f"the Jekyll permalink {permalink!r} has no equivalent here: new posts use /blog/:year/:slug/")
        ours = ""
    settings = SiteSettings(
        title=title,
        subtitle=" ".join(subtitle.split()),
        url=url,
        author=author_name,
        language=site.default_lang,
        languages=[code for code in site.languages if code != site.default_lang],
        permalink=ours if ours.endswith("/") or not ours else ours + "/",
        nav=page_nav(site, root, pages),
        extra={"future": True} if c.get("future") is True else {},
    )
    settings.extra |= setting(site.comments)
    return settings, notes


_VARIANT = re.compile(r"(?P<name>.+)-(?P<width>\d+)\.webp", re.I)


def _responsive(config: dict[str, Any]) -> tuple[set[int], tuple[str, ...]]:
    """The widths and input formats of jekyll-imagemagick (al-folio's responsive images: `x.jpg` becomes
    `x-480.webp`, `x-800.webp`, `x-1400.webp` when the site is built): the config's `imagemagick:`, else al-folio's."""
    found = config.get("imagemagick")
    magick: dict[str, Any] = found if isinstance(found, dict) else {}
    widths, formats = magick.get("widths"), magick.get("input_formats")
    if not isinstance(widths, list):
        widths = [480, 800, 1400]
    if not isinstance(formats, list):
        formats = [".jpg", ".jpeg", ".png", ".tiff", ".gif"]
    return {int(w) for w in widths if str(w).isdigit()}, tuple(str(f) for f in formats)


def _resolver(root: Path, baseurl: str, config: dict[str, Any]) -> assets.Resolver:
    """A reference's file in the source: a site path (under `baseurl` too) from the root, another from the doc's
    folder; a responsive size the old build made (`x-480.webp`) that is not there is its original (`x.JPG`)."""
    widths, formats = _responsive(config)

    def resolve(ref: str, doc: SourceDoc) -> Path | None:
        path = unquote(urlsplit(ref).path)
        if path.startswith("/"):
            if baseurl and path.startswith(f"/{baseurl}/"):
                path = path[len(baseurl) + 1 :]
            found = root / path.lstrip("/")
        else:
            found = doc.origin.parent / path
        there = assets.file_inside(found, root)
        variant = _VARIANT.fullmatch(found.name) if there is None else None
        if variant is None or int(variant["width"]) not in widths:
            return there
        originals = (assets.file_inside(found.with_name(variant["name"] + suffix), root) for suffix in formats)
        return next((original for original in originals if original is not None), None)

    return resolve


def _rules(site: JekyllSite, root: Path) -> tuple[Rule, ...]:
    """RULES, with jekyll-scholar's `{% cite %}` and `{% bibliography %}` reading the site's `.bib` files."""
    found = site.config.get("scholar")
    scholar: dict[str, Any] = found if isinstance(found, dict) else {}
    folder = root / str(scholar.get("source") or "_bibliography").strip("/")
    cite, bibliography = scholar_rules(
        read_bib(folder), str(scholar.get("bibliography") or "references.bib").removesuffix(".bib")
    )
    rules = tuple(r for rule in RULES for r in ((bibliography, cite) if rule is liquid.cite else (rule,)))
    return (*rules, polyglot_links(site.default_lang)) if site.languages else rules  # last: links are plain by then


def _redirect_pages(
    redirects: list[tuple[str, str, str]], docs: list[SourceDoc], problems: list[ImportProblem]
) -> None:
    """A `redirect_to:` page (jekyll-redirect-from) becomes an alias of the post or page it sends to; one that sends
    elsewhere (a category page of the old theme, another site) is a problem."""
    by_url = {str(d.meta["permalink"]).rstrip("/"): d for d in docs}
    by_lower = {url.lower(): d for url, d in by_url.items()}
    for rel, url, target in redirects:
        key = target.split("#")[0].rstrip("/")
        doc = by_url.get(key) or by_lower.get(key.lower())
        if doc is None:
            problems.append(ImportProblem(rel, None, f"redirect {url} -> {target} not kept: no post or page is there"))
            continue
        doc.meta["aliases"] = [*doc.meta.get("aliases", []), url]


def read(old: Path, config: Path) -> SourceSite:
    """The Jekyll site at `old` as a SourceSite (module docstring). A `source:` folder (Octopress's `source/`)
    holds the site: paths are read from it, as Jekyll does."""
    settings_data = _config(config)
    source = old / str(settings_data.get("source") or ".")
    root = source if source.is_dir() and source.resolve().is_relative_to(old.resolve()) else old
    site = _site(settings_data, root)
    rules = _rules(site, root)
    problems: list[ImportProblem] = []
    files = _walk(root, settings_data.get("exclude"))
    docs = _docs(site, root, files, problems)
    pages: list[SourceDoc] = []
    skipped: list[str] = []
    redirects: list[tuple[str, str, str]] = []  # jekyll-redirect-from pages: (file, their URL, the target)
    for path in files:
        rel = _rel(path, root)
        if path.suffix.lower() in MARKDOWN and "_posts/" not in rel and "_drafts/" not in rel:
            front = split(path.read_text(encoding="utf-8", errors="replace"))
            if isinstance(front.meta.get("redirect_to"), str) and isinstance(front.meta.get("permalink"), str):
                redirects.append((rel, str(front.meta["permalink"]), str(front.meta["redirect_to"])))
                continue
            doc = page_doc(site, path, rel, front) if front.kind == "yaml" and not front.error else None
            if isinstance(doc, SourceDoc):
                pages.append(doc)
            elif isinstance(doc, str):
                skipped.append(doc)
    urls = UrlIndex()
    for doc in docs + pages:
        url = str(doc.meta["permalink"])
        urls.add(doc.rel, url)
        urls.add(doc.origin.stem, url)
        urls.add(doc.rel.split("_posts/", 1)[-1].rsplit(".", 1)[0], url)
    for path in files:  # `{% link %}` names any file of the site: a static file is published at its path
        rel = _rel(path, root)
        if path.suffix.lower() not in MARKDOWN and not any(p.startswith("_") for p in rel.split("/")):
            urls.add(rel, "/" + rel)
    values = {f"site.{k}": str(v) for k, v in site.config.items() if isinstance(v, str | int | float)}
    found: list[SourceFile] = []
    resolve = _resolver(root, str(site.config.get("baseurl") or "").strip("/"), site.config)
    absent: list[MissingFile] = []
    for doc in docs + pages:
        problems += apply_rules(doc, rules, urls, values)
        found += assets.collect(doc, resolve, absent, problems)
        image = doc.meta.get("image")
        if isinstance(image, str) and image.startswith("/") and (origin := resolve(image, doc)) is not None:
            doc.meta["image"] = image = assets.other_name(image, origin)
            found.append(SourceFile(origin, "static", unquote(urlsplit(image).path).lstrip("/")))
    _redirect_pages(redirects, docs + pages, problems)
    settings, notes = _settings(site, root, pages)
    if skipped:
        notes.append("pages not imported (made by the old theme from the posts, or empty): " + ", ".join(skipped))
    return SourceSite("jekyll", old, settings, docs + pages, assets.merge(found), problems, notes, absent)
