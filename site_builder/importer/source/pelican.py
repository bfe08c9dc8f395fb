"""The Pelican reader: `pelicanconf.py` (read as text: pelican_config.py; `SITEURL` from `publishconf.py` when
pelicanconf's is empty), the articles under ARTICLE_PATHS and pages under PAGE_PATHS of PATH (Markdown: `Key:
value` metadata lines, or YAML front matter), their URLs by ARTICLE_URL/PAGE_URL, liquid_tags and link syntax
(pelican_tags.py), and the files the posts use.

Metadata carried over: `Title`, `Date` (in TIMEZONE), `Modified` -> `updated`, `Tags` and `Category` (tags,
unless ARTICLE_URL uses `{category}`, or every article has the same one from its folder), `Slug` (else the title
slugified as Pelican does: NFKD, ASCII, lower case, `[^\\w\\s-]` dropped, spaces and dashes one `-`),
`Status: draft` (also through DEFAULT_METADATA) -> `draft`, `Status: hidden` -> `hidden`, `Summary`, `Lang`,
`Author`, `Image`/`Cover`.

`{% notebook path cells[i:j] %}` makes the article a notebook post (`.ipynb`): the notebook's cells i..j, with
the article's own text before and after as Markdown cells and its metadata as the front matter cell. Chosen over
converting the cells to Markdown because a notebook post is what the new site reads natively: its stored outputs
(plots, tables) are published under their cells, cleaned, as Pelican's plugin showed them, and the author can run
it again (`execute: true`) or edit it in Jupyter; nothing of the notebook is rewritten by hand.

Not read, and named in warnings: reStructuredText (`.rst`), HTML and notebook (`.ipynb`, the ipynb plugin's
markup) articles.
"""

from __future__ import annotations

import os
import posixpath
import re
import string
import unicodedata
from datetime import datetime, timezone
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from site_builder.importer.source import assets, comments, common, mathjax, pelican_tags
from site_builder.importer.source.front import author_of, parse_date, split
from site_builder.importer.source.model import (
    ImportProblem,
    MissingFile,
    SiteSettings,
    SourceDoc,
    SourceFile,
    SourceSite,
)
from site_builder.importer.source.pelican_config import PelicanSite, pelican_site, read_settings
from site_builder.importer.source.pelican_notebooks import notebook_doc
from site_builder.importer.source.rules import Rule, UrlIndex, apply_rules
from site_builder.importer.source.unread import FrontMatter

MARKDOWN = (".md", ".markdown", ".mkd", ".mdown")
OTHER_FORMATS = {".rst": "reStructuredText", ".html": "HTML", ".htm": "HTML", ".ipynb": "a notebook article"}
_META = re.compile(r"^([A-Za-z][\w-]*):\s*(.*)$")


def slugify(text: str) -> str:
    """Pelican's default slugify (SLUG_REGEX_SUBSTITUTIONS), with NFKD to ASCII for unidecode."""
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip()
    return re.sub(r"[-\s]+", "-", value).lower()


def read_meta(text: str) -> tuple[dict[str, Any], str, int]:
    """Python-Markdown's meta lines (`Key: value`, continued by indented lines, up to a blank line) or YAML front
    matter: (metadata with lower-cased keys, body, the body's first line)."""
    front = split(text)
    if front.kind == "yaml" and not front.error:
        return {k.lower(): v for k, v in front.meta.items()}, front.body, front.body_line
    lines = text.lstrip("\ufeff").split("\n")
    meta: dict[str, Any] = {}
    last = ""
    i = 0
    for i, line in enumerate(lines):
        m = _META.match(line)
        if m and (meta or i == 0):
            last = m.group(1).lower()
            meta[last] = m.group(2).strip()
        elif last and line.startswith(("    ", "\t")) and line.strip():
            meta[last] += " " + line.strip()
        else:
            break
    else:
        i = len(lines)
    return meta, "\n".join(lines[i:]), i + 1


def _date(value: Any, site: PelicanSite) -> datetime | None:
    found = parse_date(value, site.zone)
    if found is None and isinstance(value, str):
        for fmt in ("%Y/%m/%d %H:%M", "%Y/%m/%d", "%d %b %Y", "%d %B %Y", "%Y-%m-%d %H:%M:%S%z"):
            try:
                found = datetime.strptime(value.strip(), fmt)
            except ValueError:
                continue
            found = found if found.tzinfo else found.replace(tzinfo=site.zone)
            break
    return found


def _url(pattern: str, values: dict[str, Any]) -> str | None:
    class Safe(dict[str, Any]):
        def __missing__(self, key: str) -> Any:
            raise KeyError(key)

    try:
        url = string.Formatter().vformat(pattern, (), Safe(values))
    except (KeyError, ValueError, IndexError, AttributeError):
        return None
    return "/" + url.lstrip("/")


def _words(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [w.strip() for w in re.split(r"[,;]", str(value or "")) if w.strip()]


def _doc(site: PelicanSite, path: Path, rel: str, content_rel: str, page: bool) -> SourceDoc | ImportProblem:
    # long: one record of many keys
    try:
        meta, body, body_line = read_meta(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return ImportProblem(rel, None, f"not read: {exc}")
    defaults = site.get("DEFAULT_METADATA") or {}
    own = list(meta)
    meta = FrontMatter(
        {**{str(k).lower(): v for k, v in defaults.items()}, **meta} if isinstance(defaults, dict) else meta, own
    )
    title = unescape(str(meta.get("title") or "")).strip()  # HTML, as Pelican's themes print it
    if not title:
        return ImportProblem(rel, 1, "not read: no Title (Pelican skips it too)")
    dt = _date(meta.get("date"), site) or datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    source = path.stem if site.get("SLUGIFY_SOURCE") == "basename" else title
    slug = str(meta.get("slug") or slugify(source))
    lang = str(meta.get("lang") or site.get("DEFAULT_LANG"))
    folder = posixpath.dirname(content_rel)
    category = str(
        meta.get("category")
        or (folder.split("/")[-1] if folder and site.get("USE_FOLDER_AS_CATEGORY") else "")
        or site.get("DEFAULT_CATEGORY")
    )
    setting = ("PAGE" if page else "ARTICLE") + ("" if lang == site.get("DEFAULT_LANG") else "_LANG")
    pattern = str(meta.get("url") or site.get(f"{setting}_URL"))
    save_as = meta.get("save_as") if isinstance(meta.get("save_as"), str) else site.get(f"{setting}_SAVE_AS")
    values = {
        **{k: v for k, v in meta.items() if isinstance(v, str)},
        "slug": slug,
        "date": dt,
        "lang": lang,
        "category": slugify(category),
        "author": slugify(str(meta.get("author") or site.get("AUTHOR") or "")),
    }
    url = _url(pattern, values) or f"/{slug}.html"
    saved = _url(str(save_as), values) if save_as else None
    url, old_url = served(url, saved) if saved else (url, "")
    ours: dict[str, Any] = {"title": title, "date": dt}
    updated = _date(meta.get("modified"), site)
    if updated is not None and updated != dt:
        ours["updated"] = updated
    tags = _words(meta.get("tags"))
    if not page and "{category}" not in pattern and category != site.get("DEFAULT_CATEGORY"):
        tags.append(category)
        if not meta.get("category"):
            meta["_folder_category"] = category
    ours["tags"] = list(dict.fromkeys(tags))
    ours["permalink"] = url
    if old_url:
        ours["aliases"] = [old_url]
    if isinstance(meta.get("summary"), str) and meta["summary"].strip():
        ours["summary"] = " ".join(meta["summary"].split())
    if author_of(meta):
        ours["author"] = author_of(meta)
    image = meta.get("image") or meta.get("cover") or meta.get("og_image")
    if isinstance(image, str) and image.strip():
        ours["image"] = image.strip()
    status = str(meta.get("status") or "").lower()
    if status == "hidden":
        ours["hidden"] = True
    if status == "draft":
        ours["draft"] = True
    if not save_as and status != "draft":  # an empty {setting}_SAVE_AS: Pelican wrote no page for it
        ours["draft"] = True
        meta["_unsaved"] = f"{setting}_SAVE_AS"
    dest = re.sub(r"\.[^./]+$", ".md", content_rel) if not page else f"{slugify(slug) or 'page'}.md"
    meta["_content_rel"] = content_rel
    return SourceDoc(path, rel, "page" if page else "post", dest, ours, body, body_line, meta)


def served(url: str, save_as: str) -> tuple[str, str]:
    """(the permalink, the old URL that redirects to it, or ""), from the URL Pelican linked (`*_URL`) and the file
    it wrote (`*_SAVE_AS`). The page was served at its file, and at the URL when that names the same file (`x/` for
    `x/index.html`, `x` for `x.html` on hosts that serve it, as GitHub Pages does); the site's own links, its feed
    and so readers' bookmarks used the URL. Where the two name different files, the page keeps the file's address
    (the one that answered) and the URL becomes a redirect to it, so both keep working."""
    page = save_as.removesuffix("index.html") if save_as.endswith("/index.html") else save_as
    same = url in (save_as, page) or url.rstrip("/") == page.rstrip("/") or url + ".html" == save_as
    return (page, "") if same else (page, url)


def _under(rel: str, folders: list[str]) -> bool:
    return any(not f or rel == f or rel.startswith(f + "/") for f in folders)


def _docs(site: PelicanSite, root: Path, problems: list[ImportProblem]) -> list[SourceDoc]:
    docs: list[SourceDoc] = []
    pages, articles = site.paths("PAGE_PATHS"), site.paths("ARTICLE_PATHS")
    static = [p for p in site.paths("STATIC_PATHS") if p]
    for folder, dirs, files in os.walk(site.content):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")) and d != ".ipynb_checkpoints")
        for name in sorted(files):
            path = Path(folder) / name
            content_rel = path.relative_to(site.content).as_posix()
            rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else content_rel
            suffix = path.suffix.lower()
            if _under(content_rel, static) or name.startswith("."):
                continue
            page = _under(content_rel, [p for p in pages if p])
            if suffix in OTHER_FORMATS:
                problems.append(ImportProblem(rel, None, f"not read: {OTHER_FORMATS[suffix]} is not converted"))
            elif suffix in MARKDOWN and (page or _under(content_rel, articles)):
                doc = _doc(site, path, rel, content_rel, page)
                if isinstance(doc, ImportProblem):
                    problems.append(doc)
                    continue
                docs.append(doc)
                if doc.source_meta.get("_unsaved"):
                    why = f"{doc.source_meta['_unsaved']} is empty: Pelican wrote no page for it; written as a draft"
                    problems.append(ImportProblem(rel, None, why))
    return docs


def _resolver(site: PelicanSite, root: Path) -> assets.Resolver:
    def resolve(ref: str, doc: SourceDoc) -> Path | None:
        path = unquote(urlsplit(ref).path)
        found = site.content / path.lstrip("/") if path.startswith("/") else doc.origin.parent / path
        return assets.file_inside(found, root)

    return resolve


def _rules(site: PelicanSite) -> tuple[Rule, ...]:
    code_dir = str(site.get("CODE_DIR")).strip("/")
    return (
        pelican_tags.literal,
        pelican_tags.notebook,
        pelican_tags.include_code(site.content / code_dir, code_dir),
        pelican_tags.img,
        pelican_tags.media,
        pelican_tags.links,
        pelican_tags.summary_marks,
        mathjax.escaped_dollars,
        *common.RULES,
        pelican_tags.leftovers,
    )


def _settings(site: PelicanSite, root: Path, pages: list[SourceDoc]) -> SiteSettings:
    publish = root / "publishconf.py"
    published = read_settings(publish) if publish.is_file() else {}  # what the published site added (Disqus)
    url = str(site.get("SITEURL") or published.get("SITEURL") or "")
    shown = site.get("DISPLAY_PAGES_ON_MENU") is not False
    disqus = comments.pelican_comments(site.get("DISQUS_SITENAME") or published.get("DISQUS_SITENAME"))
    return SiteSettings(
        title=str(site.get("SITENAME") or "My Blog"),
        subtitle=str(site.get("SITESUBTITLE") or ""),
        url=url.rstrip("/") + "/" if url.startswith("http") else "",
        author=str(site.get("AUTHOR") or ""),
        language=str(site.get("DEFAULT_LANG") or "en").split("_")[0],
        nav=[p.dest.removesuffix(".md") for p in pages if shown and not p.meta.get("hidden")],
        permalink=_permalink(str(site.get("ARTICLE_URL"))),
        extra=comments.setting(disqus),
    )


_FIELDS = {"{date:%Y}": ":year", "{date:%m}": ":month", "{date:%d}": ":day", "{slug}": ":slug"}


def _permalink(pattern: str) -> str:
    """ARTICLE_URL as our pattern, for new posts, when it uses only the date and the slug; else "" (the default)."""
    ours = pattern
    for field, token in _FIELDS.items():
        ours = ours.replace(field, token)
    if "{" in ours or not ours.endswith("/"):
        return ""
    return "/" + ours.lstrip("/")


def read(root: Path, config: Path) -> SourceSite:
    """The Pelican site at `root` as a SourceSite (module docstring)."""
    site = pelican_site(root, config)
    problems: list[ImportProblem] = []
    docs = _docs(site, root, problems)
    urls = UrlIndex()
    for doc in docs:
        urls.add(str(doc.source_meta["_content_rel"]), str(doc.meta["permalink"]))
    resolve = _resolver(site, root)
    found: list[SourceFile] = []
    missing: list[MissingFile] = []  # images the docs show that the source lacks: the report counts them
    rules = _rules(site)
    for doc in docs:
        problems += apply_rules(doc, rules, urls)
        if pelican_tags.NOTEBOOK_MARK.search(doc.body):
            problems += notebook_doc(doc, site.content / str(site.get("NOTEBOOK_DIR")).strip("/"), site.content)
        found += assets.collect(doc, resolve, missing, problems)
        for poster in re.findall(r'<video [^>]*\bposter="(/[^"]+)"', doc.body):  # {% video %}'s still image
            origin = resolve(poster, doc)
            found += [SourceFile(origin, "static", poster.lstrip("/"))] if origin is not None else []
    _drop_shared_folder_category(docs)
    pages = [d for d in docs if d.kind == "page"]
    settings = _settings(site, root, pages)
    if site.get("WITH_FUTURE_DATES") is not False and any(_later(d) for d in docs if d.kind == "post"):
        settings.extra["future"] = True  # Pelican publishes them (WITH_FUTURE_DATES, True unless set)
    return SourceSite("pelican", root, settings, docs, assets.merge(found), problems, [], missing)


def _later(doc: SourceDoc) -> bool:
    """A post dated after now (Pelican publishes it; the build here would hold it back without `future`)."""
    dt = doc.meta.get("date")
    if not isinstance(dt, datetime):
        return False
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)) > datetime.now(timezone.utc)


def _drop_shared_folder_category(docs: list[SourceDoc]) -> None:
    """A category every article has from its folder (`content/articles/`) says nothing: it is not made a tag."""
    posts = [d for d in docs if d.kind == "post"]
    folders = {d.source_meta.get("_folder_category") for d in posts}
    if len(folders) == 1 and None not in folders:
        for doc in posts:
            doc.meta["tags"] = [t for t in doc.meta["tags"] if t != doc.source_meta["_folder_category"]]
