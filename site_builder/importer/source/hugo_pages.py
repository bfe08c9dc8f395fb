"""A Hugo content file as a `SourceDoc`: its front matter (YAML `---` or TOML `+++`) in our keys, whether it is a
post or a page, its URL by Hugo's rules (hugo_urls.py) and where it is written.

- A post is a page of a main section (`params.mainSections`, else the section with the most pages, as Hugo
  chooses) or one with `type: post|posts|blog`; any other page (`type: page`, a file at the content root or in
  another section) is a page.
- Front matter carried over: `title`, `date` (else `publishDate`, else `lastmod`, else the file's time; each of
  the four dates in the order of the config's `[frontmatter]` list for it, `:filename` giving the date and the slug),
  `lastmod`/`modified` -> `updated`, `tags`, `categories` and `series` (tags), `draft`, `summary` (else `description`),
  `images[0]`/`image`/`featured_image`/`cover.image`/`thumbnail` -> `image`, `aliases` (a relative one made
  absolute from the page's folder, as Hugo does), `slug`, the language (a `.CODE.md` suffix or the language's
  content folder) and `translationKey`; `_build.list: never` -> `hidden`.
- Held back as Hugo holds them back (unless the config's `buildFuture`/`buildExpired`): a `publishDate` (else
  `pubDate`, `published`) in the future makes that the post's `date` when `date` is not (the build then publishes
  it from that day, and `build --future` before, as Hugo's `--buildFuture`); an `expiryDate` (or `unpublishDate`)
  in the past makes it a draft (`--drafts` shows it, as Hugo's `--buildExpired`). `source_meta["_held"]` says
  which, for the report.
"""

from __future__ import annotations

import json
import posixpath
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from site_builder.importer.source.front import Front, author_of, parse_date, split
from site_builder.importer.source.hugo_config import HugoSite, TomlError, read_toml
from site_builder.importer.source.hugo_urls import PagePath, page_url, sanitize
from site_builder.importer.source.model import ImportProblem, SourceDoc
from site_builder.importer.source.unread import FrontMatter

POST_TYPES = ("post", "posts", "blog", "article", "articles")


def read_front(path: Path, rel: str) -> Front | ImportProblem:
    """The file's front matter (keys lower-cased, as Hugo reads them) and body, or why it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8").lstrip("\ufeff")
    except (OSError, UnicodeDecodeError) as exc:
        return ImportProblem(rel, None, f"not read: {exc}")
    front = _json_front(text) if text.startswith("{") else split(text)
    if front.kind == "toml":
        try:
            front.meta = read_toml(front.raw)
        except TomlError as exc:
            return ImportProblem(rel, 2, f"not read: cannot read the TOML front matter: {exc}")
    if front.error:
        return ImportProblem(rel, front.error_line, f"not read: {front.error}")
    front.meta = FrontMatter({str(k).lower(): v for k, v in front.meta.items()})
    return front


def _json_front(text: str) -> Front:
    """Hugo's JSON front matter: the JSON object the file starts with."""
    try:
        data, end = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError as exc:
        return Front(error=f"cannot read the JSON front matter: {exc.msg}", error_line=exc.lineno)
    if not isinstance(data, dict):
        return Front(error="the front matter is not a mapping of keys to values", error_line=1)
    body = text[end:].lstrip(" \t").removeprefix("\n")
    return Front(meta=data, body=body, body_line=text.count("\n", 0, len(text) - len(body)) + 1, kind="json")


def _words(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return []


def _image(meta: dict[str, Any]) -> str:
    for key in ("images", "image", "featured_image", "featuredimage", "cover", "thumbnail", "feature"):
        value = meta.get(key)
        if isinstance(value, list):
            value = value[0] if value else None
        if isinstance(value, dict):
            value = value.get("image") or value.get("src")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _aliases(meta: dict[str, Any], url: str) -> list[str]:
    value = meta.get("aliases")
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    folder = posixpath.dirname(url.rstrip("/")) or "/"
    paths = [str(a) if str(a).startswith("/") else posixpath.join(folder, str(a)) for a in items if a]
    return [a for a in paths if a.rstrip("/") != url.rstrip("/")]  # Hugo's alias of a page's own URL: no redirect


_FILENAME_DATE = re.compile(r"(\d{4}-\d\d-\d\d)-?(.*)")


def _dated(meta: dict[str, Any], site: HugoSite, path: Path, which: str) -> tuple[datetime | None, str]:
    """The page's date `which` (`date`, `lastmod`, `publishdate`, `expirydate`) as the config's `[frontmatter]`
    list for it finds it (Hugo's `:default` list without one; None when nothing does), and the slug `:filename`
    gives (a `2019-05-01-first-steps.md` file's `first-steps`, when it gave the date; "" otherwise). `:git` is the
    last commit's author date of the file, with `enableGitInfo` (gitdates.py)."""
    for key in site.dates[which]:
        if key == ":filename":
            name = path.parent.name if path.stem.split(".")[0] in ("index", "_index") else path.stem.split(".")[0]
            match = _FILENAME_DATE.fullmatch(name)
            if match and (dt := parse_date(match.group(1), site.zone)) is not None:
                return dt, match.group(2)
        elif key == ":git" and (dt := site.git_dates.get(path.resolve())) is not None:
            return dt, ""
        elif key == ":filemodtime":
            return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc), ""
        elif not key.startswith(":") and (dt := parse_date(meta.get(key), site.zone)) is not None:
            return dt, ""
    return None, ""


def _when(meta: dict[str, Any], site: HugoSite, path: Path) -> tuple[datetime, str]:
    """The page's date (`_dated`; the file's time when nothing gives one) and the slug `:filename` gives."""
    dt, named = _dated(meta, site, path, "date")
    return (dt or datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)), named


def _schedule(meta: dict[str, Any], site: HugoSite, path: Path, dt: datetime, ours: dict[str, Any]) -> None:
    """Hugo's publishDate and expiryDate as our `date` and `draft` (module docstring); `meta["_held"]` set to
    "future" or "expired" for a page Hugo did not publish when imported."""
    now = datetime.now(timezone.utc)
    publish = _dated(meta, site, path, "publishdate")[0] or dt
    if publish != dt and (publish > now) != (dt > now) and not site.config.get("buildfuture"):
        ours["date"] = publish  # held back until its publishDate (or published by it although dated later)
    if ours["date"] > now and not site.config.get("buildfuture"):
        meta["_held"] = "future"
    expiry = _dated(meta, site, path, "expirydate")[0]
    if expiry is not None and expiry <= now and not site.config.get("buildexpired"):
        ours["draft"] = True
        meta["_held"] = "expired"


def is_post(meta: dict[str, Any], rel: str, main_sections: list[str]) -> bool:
    kind = str(meta.get("type") or "").lower()
    if kind:
        return kind in POST_TYPES
    section = rel.split("/")[0] if "/" in rel else ""
    return section in main_sections


def lang_of(site: HugoSite, rel: str, folder_lang: str | None) -> tuple[str, str]:
    """The page's language and its path without a `.CODE` suffix (the translation key)."""
    stem, _, _ext = rel.rpartition(".")
    base, dot, code = stem.rpartition(".")
    if dot and site.languages and code.lower() in site.languages:
        return code.lower(), base
    return folder_lang or site.default_lang, stem


def hugo_doc(
    site: HugoSite, path: Path, rel: str, inner: str, front: Front, post: bool, folder_lang: str | None
) -> SourceDoc:  # long: one record of many keys
    """The doc of the content file at `rel` (from OLD_SITE) / `inner` (below its content folder)."""
    meta = front.meta
    lang, key = lang_of(site, inner, folder_lang)
    clean = re.sub(r"\.[\w-]+(\.\w+)$", r"\1", inner) if key != inner.rpartition(".")[0] else inner
    dt, named = _when(meta, site, path)
    title = str(meta.get("title") or "").strip() or PagePath(clean, "", "", dt, lang).base_name.replace("-", " ")
    slug = str(meta.get("slug") or "").strip() or named
    url = page_url(PagePath(clean, title, slug, dt, lang, str(meta.get("url") or "")), site)
    ours: dict[str, Any] = {"title": title, "date": dt}
    updated = _dated(meta, site, path, "lastmod")[0]
    if updated is None or updated == dt:  # some themes' `updated:`
        updated = parse_date(meta.get("updated"), site.zone)
    if updated is not None and updated != dt:
        ours["updated"] = updated
    ours["tags"] = list(
        dict.fromkeys(_words(meta.get("tags")) + _words(meta.get("categories")) + _words(meta.get("series")))
    )
    if site.languages:
        ours["lang"] = lang
        ours["translation_key"] = str(meta.get("translationkey") or key)
    ours["permalink"] = url
    _schedule(meta, site, path, dt, ours)
    summary = meta.get("summary") or meta.get("description")
    if isinstance(summary, str) and summary.strip():
        ours["summary"] = " ".join(summary.split())
    if _image(meta):
        ours["image"] = _image(meta)
    if author_of(meta):
        ours["author"] = author_of(meta)
    aliases = _aliases(meta, url)
    if aliases:
        ours["aliases"] = aliases
    build = meta.get("_build") or meta.get("build")
    if isinstance(build, dict) and str(build.get("list")).lower() in ("never", "false"):
        ours["hidden"] = True
    if meta.get("draft") is True or str(meta.get("draft")).lower() == "true":
        ours["draft"] = True
    meta["_inner"] = clean  # its path below its content folder: how `ref` names it
    return SourceDoc(
        path,
        rel,
        "post" if post else "page",
        _dest(site, clean, lang, url, post),
        ours,
        front.body,
        front.body_line,
        meta,
    )


def _dest(site: HugoSite, inner: str, lang: str, url: str, post: bool) -> str:
    """Where the doc is written below content/posts or content/pages: a post at its path without its section (a
    bundle keeps its folder, for its files), a page by its URL's last part; `.CODE` before `.md` for a language
    other than the default."""
    suffix = f".{lang}" if site.languages and lang != site.default_lang else ""
    if post:
        parts = inner.split("/")
        path = "/".join(parts[1:] if len(parts) > 1 and len(site.main_sections) == 1 else parts)
        return re.sub(r"\.[^./]+$", "", path) + suffix + ".md"
    name = sanitize(url.strip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]) or "index"
    return f"{name}{suffix}.md"


def read_doc(
    site: HugoSite, path: Path, rel: str, inner: str, folder_lang: str | None
) -> SourceDoc | ImportProblem | None:
    """The doc at `rel`, the problem that keeps it out, or None for a file Hugo does not publish (headless)."""
    front = read_front(path, rel)
    if isinstance(front, ImportProblem):
        return front
    meta = front.meta
    build = meta.get("_build") or meta.get("build")
    if meta.get("headless") is True or (
        isinstance(build, dict) and str(build.get("render")).lower() in ("never", "false")
    ):
        return None
    return hugo_doc(site, path, rel, inner, front, is_post(meta, inner, site.main_sections), folder_lang)
