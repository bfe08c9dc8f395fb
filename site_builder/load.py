"""Stage 1, load: Markdown files with YAML front matter (and Jupyter notebooks: notebook.py) -> Post records."""

from __future__ import annotations

import difflib
import os
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from site_builder.config import SiteConfig
from site_builder.config.frontmatter import FrontMatter, read_front_matter, split_front_matter
from site_builder.config.site import has_scheme, is_language_tag, path_problem
from site_builder.config.siteexec import conventions
from site_builder.config.status import executes, visibility
from site_builder.config.yamlfile import read_limited, utf8_text
from site_builder.errors import SiteError, SiteErrors, SiteWarning
from site_builder.models import Alias, Post
from site_builder.postfiles import NOTEBOOK, find_post_files, find_post_names, is_post_path
from site_builder.util.hashing import bytes_digest
from site_builder.util.paths import relative, relative_text, under
from site_builder.util.urls import climbs_out

if TYPE_CHECKING:
    from site_builder.notebook import CellMap


# re-exported: importers read posts' front matter from here, the build finds post files through here
__all__ = ["find_post_files", "find_post_names", "is_post_path", "split_front_matter"]


PAGE_DATE = datetime(1970, 1, 1, tzinfo=timezone.utc)  # an undated page's date (pages are in no dated list)


@lru_cache(maxsize=4096)  # pages link every tag they show: a site has few tags and many links to them
def slugify(text: str) -> str:
    """A URL slug that keeps CJK characters readable and drops punctuation."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"[\s_-]+", "-", text).strip("-") or "post"


def parse_date(front: FrontMatter, key: str, rel: str) -> datetime:
    """A front matter date (`front.meta[key]`): a YAML date/datetime or an ISO string; naive means UTC."""
    value = front.meta[key]
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    else:
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))  # a str, or not a date at all
        except (ValueError, AttributeError):
            hint = " (use YYYY-MM-DD or ISO 8601)" if isinstance(value, str) else ""
            raise SiteError(f"{key!r} is not a date: {value!r}{hint}", rel, front.line(key)) from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt


def make_permalink(pattern: str, dt: datetime, slug: str, lang: str, categories: tuple[str, ...] = ()) -> str:
    """A post's URL from a pattern; `:categories` is its categories, lowercased, one folder each (as Jekyll's)."""
    if ":categories" in pattern:
        pattern = pattern.replace(":categories", "/".join(c.lower() for c in categories))
        pattern = re.sub(r"/{2,}", "/", pattern)
    path = (
        pattern.replace(":year", f"{dt.year:04d}")
        .replace(":month", f"{dt.month:02d}")
        .replace(":day", f"{dt.day:02d}")
        .replace(":slug", slug)
        .replace(":lang", lang)
    )
    return normalise_permalink(path)


def normalise_permalink(path: str) -> str:
    path = "/" + path.strip().lstrip("/")
    if not path.endswith("/") and not path.rsplit("/", 1)[-1].count("."):
        path += "/"
    return path


def load_post(path: Path, cfg: SiteConfig) -> Post:
    """Read one post file, Markdown or a Jupyter notebook (`notebook.py`); any problem is a SiteError naming the
    file and line (a notebook's cell and line: `nb.ipynb:cell 1:line 3`)."""
    rel = relative_text(path, cfg.root)
    data = read_limited(path, rel, "a post")
    if path.name.endswith(NOTEBOOK):
        from site_builder.notebook import read_notebook

        front, cells = read_notebook(data, rel)
        try:
            return _post(path, cfg, rel, data, front, cells)
        except SiteError as exc:
            raise cells.error(exc) from None
    text = utf8_text(data, rel)
    if "\0" in text:
        raise SiteError("a NUL byte: a post is text (a binary file?)", rel, text.count("\n", 0, text.index("\0")) + 1)
    return _post(path, cfg, rel, data, read_front_matter(text.replace("\r\n", "\n"), rel))


def _post(path: Path, cfg: SiteConfig, rel: str, data: bytes, front: FrontMatter, cells: CellMap | None = None) -> Post:
    meta = front.meta
    title = meta.get("title")
    if title is None or not str(title).strip():
        raise SiteError("front matter has no 'title'", rel, front.line("title", 1))
    page = _is_page(path, cfg)
    undated = "date" not in meta or meta["date"] in (None, "")
    if undated and not page:
        raise SiteError("front matter has no 'date'", rel, front.line("date", 1))
    dt = PAGE_DATE if undated else parse_date(front, "date", rel)
    stem, lang = _language(path, cfg, front, rel)
    slug = str(meta.get("slug") or slugify(stem))
    pattern = _page_pattern(path, cfg) if page else ""
    categories = list(dict.fromkeys(_tags(front, rel, "categories") + _tags(front, rel, "category")))
    in_url = ":categories" in (pattern or cfg.permalink) and not meta.get("permalink")
    updated = next((k for k in UPDATED_KEYS if meta.get(k)), None)
    permalink = _permalink(cfg, front, rel, dt, slug, lang, pattern, tuple(categories))
    image = preview_image(meta)
    shown = visibility(front, rel)
    one = meta.get("series")  # Hugo's series: a name, or a list of them (not words, as `tags: a b` are)
    series = [one.strip()] if isinstance(one, str) and one.strip() else _tags(front, rel, "series")
    if image and climbs_out(permalink, image.strip()):  # write.social leaves it out
        key = next((k for k in IMAGE_KEYS if meta.get(k)), "image")
        message = f"image {image!r} climbs out of the site (above its root); the post's previews show no picture"
        front.warnings.append(SiteWarning(message, rel, front.line(key)))
    return Post(
        source=path,
        rel=rel,
        title=str(title),
        date=dt,
        updated=parse_date(front, updated, rel) if updated else dt,
        tags=(tags := _tags(front, rel))
        + [c for c in dict.fromkeys([*([] if in_url else categories), *series]) if c not in tags],
        lang=lang,
        slug=slug,
        permalink=permalink,
        id=str(meta.get("id") or cfg.absolute(permalink)),
        summary=str(next((meta[k] for k in SUMMARY_KEYS if meta.get(k)), "")),
        body=front.body,
        body_line=front.body_line,
        meta=meta,
        digest=bytes_digest(data),
        translation_key=str(meta.get("translation_key") or _translation_key(path, stem, cfg, page)),
        lines=front.lines,
        warnings=front.warnings,
        draft=shown.draft,
        execute=executes(meta.get("execute")),
        conventions=_conventions(front, cfg, rel),
        cells=cells,
        page=page,
        hidden=shown.hidden,
        image=image,
        aliases=aliases(front, rel, permalink),
    )


SUMMARY_KEYS = ("summary", "description", "excerpt")  # the first one given is the summary (Jekyll's, Hugo's keys)
UPDATED_KEYS = ("updated", "lastmod", "last_modified_at", "modified", "date-modified")  # and the update's date
IMAGE_KEYS = ("image", "cover", "thumbnail", "og_image")  # and the picture of link previews


def preview_image(meta: dict[str, Any]) -> str:
    """The picture front matter gives link previews: `image` (Chirpy's `image: {path: ...}` too), Hugo's `cover`
    (`cover: {image: ...}`), al-folio's `thumbnail`, `og_image`; "" for none."""
    for key in IMAGE_KEYS:
        value = meta.get(key)
        if isinstance(value, dict):
            value = value.get("image") or value.get("path") or value.get("src")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def aliases(front: FrontMatter, rel: str, permalink: str) -> list[Alias]:
    """The post's old addresses (`aliases`, Hugo; `redirect_from`, jekyll-redirect-from), each a site path with the
    line it was given on; one that leaves the site, or is the home page, is an error at that line; one that is the
    post's own address is a warning (no redirect made)."""
    found = []
    for key in ("aliases", "redirect_from"):
        value = front.meta.get(key)
        line = front.line(key)
        for item in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            text = str(item).strip()
            problem = (
                "it leaves the site (a redirect page is a path on this site, such as /old/address/)"
                if has_scheme(text) or text.startswith(("//", "\\"))
                else "a page cannot answer an address with ?query or #fragment"
                if "?" in text or "#" in text
                else path_problem(text)
            )
            path = normalise_permalink(text) if text and not problem else ""
            if path == "/":
                problem = "it is the address of a page of its own"
            if problem or not text:
                raise SiteError(f"bad {key} {text!r}: {problem or 'empty'}", rel, line)
            if path == permalink:  # an old address that is the post's own (`/a` for `/a/`): nothing to redirect
                message = f"{key} {text!r} is the post's own address"
                front.warnings.append(SiteWarning(message, rel, line, consequence="no redirect made"))
                continue
            found.append(Alias(path, line))
    return found


def _conventions(front: FrontMatter, cfg: SiteConfig, rel: str) -> tuple[str, ...]:
    """The post's `exec: conventions`, else site.yml's."""
    raw = front.meta.get("exec")
    if isinstance(raw, dict) and "conventions" in raw:
        return conventions(raw["conventions"], rel, front.line("exec.conventions"))
    return cfg.exec.conventions


def tag_is_path(tag: str) -> bool:
    """A tag spelled as a path (`..`, `../etc`, `/x`): refused, a name cannot be one; `CI/CD` is a name."""
    return ".." in tag.replace("\\", "/").split("/") or tag.startswith(("/", "\\"))


def _tags(front: FrontMatter, rel: str, key: str = "tags") -> list[str]:
    """The tags (or categories) under `key`: a list, or words separated by commas or spaces."""
    tags = front.meta.get(key) or []
    if isinstance(tags, str):
        tags = [t.strip() for t in re.split(r"[,\s]+", tags) if t.strip()]
    if not isinstance(tags, list):
        raise SiteError(f"{key!r} must be a list", rel, front.line(key))
    for tag in map(str, tags):
        if tag_is_path(tag):
            message = f"tag {tag!r} is a path, not a name (a tag's page is /blog/tag/NAME/; 'CI/CD' is fine)"
            raise SiteError(message, rel, front.line(key))
    return [str(t) for t in tags]


def _language(path: Path, cfg: SiteConfig, front: FrontMatter, rel: str) -> tuple[str, str]:
    """(file name without its language suffix, the post's language); a page bundle's `index.md` is named by its
    folder (`trip/index.md` is `trip`, as in Hugo)."""
    stem, suffix_lang = split_lang_suffix(path.stem, cfg)
    if stem == "index" and path.parent not in (cfg.posts_path, cfg.pages_path):
        stem = path.parent.name
    declared = _declared_language(cfg, front, rel)
    if suffix_lang and declared and str(declared) != suffix_lang:
        raise SiteError(
            f"the file name says language {suffix_lang!r} but the front matter says lang: {declared}",
            rel,
            front.line("lang"),
        )
    return stem, str(declared or suffix_lang or cfg.language)


def _declared_language(cfg: SiteConfig, front: FrontMatter, rel: str) -> Any:
    """The front matter's `lang`; one that is not a language tag (`../../x`, `zh_TW`) is a warning, and none: it
    would be the page's `<html lang>`, a URL's segment and the name of the search index's files."""
    declared = front.meta.get("lang")
    if declared in (None, "") or is_language_tag(declared):
        return declared
    close = difflib.get_close_matches(str(declared).lower(), [c.lower() for c in cfg.languages], n=1, cutoff=0.6)
    codes = {c.lower(): c for c in cfg.languages}
    hint = f"did you mean {codes[close[0]]!r}?" if close else f"the site's languages: {', '.join(cfg.languages)}"
    message = f"lang {str(declared)!r} is not a language tag"
    front.warnings.append(
        SiteWarning(message, rel, front.line("lang"), f"built in the site's language, {cfg.language}", hint)
    )
    return None


def _page_pattern(path: Path, cfg: SiteConfig) -> str:
    """A page's permalink pattern: its folder in the pages folder, then its slug (`pages/a/b.md` -> /a/b/)."""
    folder = relative(path.parent, cfg.pages_path)
    return "/" + "".join(f"{part}/" for part in (folder.parts if folder else ())) + ":slug/"


def _permalink(
    cfg: SiteConfig,
    front: FrontMatter,
    rel: str,
    dt: datetime,
    slug: str,
    lang: str,
    page_pattern: str = "",
    categories: tuple[str, ...] = (),
) -> str:
    meta = front.meta
    if meta.get("permalink"):
        if has_scheme(str(meta["permalink"])) or str(meta["permalink"]).strip().startswith(("//", "\\\\")):
            message = f"bad permalink {meta['permalink']!r}: a permalink is a path on this site, not an address"
            raise SiteError(message, rel, front.line("permalink"))
        permalink = normalise_permalink(str(meta["permalink"]))
    else:
        pattern = page_pattern or cfg.permalink
        prefix = cfg.languages[lang].prefix if lang in cfg.languages else "/"
        if ":lang" not in pattern and prefix != "/":  # other languages live under their prefix: /zh/blog/...
            pattern = prefix + pattern.lstrip("/")
        permalink = make_permalink(pattern, dt, slug, lang, categories)
    problem = path_problem(permalink)  # it would leave the output directory, or alias another
    if problem:
        key = "permalink" if meta.get("permalink") else "slug" if meta.get("slug") else None
        raise SiteError(f"bad permalink {permalink!r}: {problem}", rel, front.line(key, 1))
    return permalink


def split_lang_suffix(stem: str, cfg: SiteConfig) -> tuple[str, str | None]:
    """`hello.zh` -> ("hello", "zh") when zh is one of the site's languages; else (stem, None)."""
    base, dot, code = stem.rpartition(".")
    if dot and base and code in cfg.languages:
        return base, code
    return stem, None


def _translation_key(path: Path, stem: str, cfg: SiteConfig, page: bool = False) -> str:
    """Files named alike but for the language suffix are translations of each other: key = their shared path."""
    folder_path = cfg.pages_path if page else cfg.posts_path
    name = under(path, folder_path)
    if name:  # `sub/a.zh.md` -> `sub/a`, as text
        folder_name = name.rpartition(os.sep)[0]
        return f"{folder_name}/{stem}".replace(os.sep, "/") if folder_name else stem
    folder = relative(path.parent, folder_path)
    return ((folder if folder is not None else path.parent) / stem).as_posix()


def _is_page(path: Path, cfg: SiteConfig) -> bool:
    """Whether a post file is in the pages folder; one named in the posts folder (and not in the pages folder) as
    written is not, without resolving its path (file system calls: a quarter of loading a post)."""
    if under(path, cfg.posts_path) and under(path, cfg.pages_path) is None:
        return False
    return relative(path, cfg.pages_path) is not None


@dataclass(frozen=True)
class Include:
    """Which posts a build publishes besides the finished ones, as Hugo's --buildDrafts and --buildFuture."""

    drafts: bool = False  # `draft: true` posts
    future: bool = False  # posts dated after `now`
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    def publishes(self, post: Post) -> bool:
        return (self.drafts or not post.draft) and (self.future or post.date <= self.now)


@dataclass
class Selection:
    """The posts a build publishes, and how many it left out."""

    posts: list[Post]
    drafts: int = 0
    future: int = 0


def load_posts(cfg: SiteConfig, include: Include | None = None) -> list[Post]:
    """Load every post; every file that cannot be read, and every two posts on one permalink, is in one SiteErrors."""
    posts: list[Post] = []
    errors: list[SiteError] = []
    for path in find_post_files(cfg):
        try:
            posts.append(load_post(path, cfg))
        except SiteError as exc:
            errors.append(exc)
    if errors:
        raise SiteErrors(errors, [w for p in posts for w in p.warnings])
    return select_posts(posts, include or Include(future=cfg.future)).posts  # site.yml's `future: true` too


def select_posts(posts: list[Post], include: Include) -> Selection:
    """The posts to publish (drafts and posts dated in the future left out unless `include` says otherwise).
    Two published posts on one permalink: a SiteErrors naming every clash."""
    seen: dict[str, Post] = {}
    chosen = Selection([])
    errors = []
    for post in posts:
        if not include.publishes(post):
            chosen.drafts += post.draft
            chosen.future += not post.draft
            continue
        other = seen.get(post.permalink)
        if other is not None:  # blamed: the later file, unless only the other one asks for this permalink
            blamed, first = (other, post) if "permalink" in other.lines.keys() - post.lines.keys() else (post, other)
            line = blamed.lines.get("permalink", 1)
            clash = SiteError(f"permalink {post.permalink} is also used by {first.rel}", blamed.rel, line)
            errors.append(blamed.cells.error(clash) if blamed.cells is not None else clash)
            continue
        seen[post.permalink] = post
        chosen.posts.append(post)
    if errors:
        raise SiteErrors(errors)
    return chosen


def dump_post(meta: dict[str, Any], body: str) -> str:
    """The text of a post file: YAML front matter between `---` lines, then the Markdown body."""
    head = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{head}---\n\n{body.lstrip(chr(10))}"
