"""Stage 1, load: Markdown files with YAML front matter (and Jupyter notebooks: notebook.py) -> Post records."""

from __future__ import annotations

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
from site_builder.config.site import has_scheme, path_problem
from site_builder.config.siteexec import conventions
from site_builder.config.yamlfile import read_limited, utf8_text
from site_builder.errors import SiteError, SiteErrors, SiteWarning
from site_builder.models import Post
from site_builder.util.hashing import bytes_digest
from site_builder.util.paths import relative, relative_text, under

if TYPE_CHECKING:
    from site_builder.notebook import CellMap

NOTEBOOK = ".ipynb"  # notebook.SUFFIX (that module is imported for notebooks only)

__all__ = ["split_front_matter"]  # re-exported: importers read posts' front matter from here


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


def make_permalink(pattern: str, dt: datetime, slug: str, lang: str) -> str:
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
    return Post(
        source=path,
        rel=rel,
        title=str(title),
        date=dt,
        updated=parse_date(front, "updated", rel) if meta.get("updated") else dt,
        tags=_tags(front, rel),
        lang=lang,
        slug=slug,
        permalink=(permalink := _permalink(cfg, front, rel, dt, slug, lang, _page_pattern(path, cfg) if page else "")),
        id=str(meta.get("id") or cfg.absolute(permalink)),
        summary=str(meta.get("summary") or ""),
        body=front.body,
        body_line=front.body_line,
        meta=meta,
        digest=bytes_digest(data),
        translation_key=str(meta.get("translation_key") or _translation_key(path, stem, cfg, page)),
        lines=front.lines,
        warnings=front.warnings,
        draft=bool(meta.get("draft")),
        execute=meta.get("execute") is True,
        conventions=_conventions(front, cfg, rel),
        cells=cells,
        page=page,
    )


def _conventions(front: FrontMatter, cfg: SiteConfig, rel: str) -> tuple[str, ...]:
    """The post's `exec: conventions`, else site.yml's."""
    raw = front.meta.get("exec")
    if isinstance(raw, dict) and "conventions" in raw:
        return conventions(raw["conventions"], rel, front.line("exec.conventions"))
    return cfg.exec.conventions


def tag_is_path(tag: str) -> bool:
    """A tag spelled as a path (`..`, `../etc`, `/x`): refused, a name cannot be one; `CI/CD` is a name."""
    return ".." in tag.replace("\\", "/").split("/") or tag.startswith(("/", "\\"))


def _tags(front: FrontMatter, rel: str) -> list[str]:
    tags = front.meta.get("tags") or []
    if isinstance(tags, str):
        tags = [t.strip() for t in re.split(r"[,\s]+", tags) if t.strip()]
    if not isinstance(tags, list):
        raise SiteError("'tags' must be a list", rel, front.line("tags"))
    for tag in map(str, tags):
        if tag_is_path(tag):
            message = f"tag {tag!r} is a path, not a name (a tag's page is /blog/tag/NAME/; 'CI/CD' is fine)"
            raise SiteError(message, rel, front.line("tags"))
    return [str(t) for t in tags]


def _language(path: Path, cfg: SiteConfig, front: FrontMatter, rel: str) -> tuple[str, str]:
    """(file name without its language suffix, the post's language)."""
    stem, suffix_lang = split_lang_suffix(path.stem, cfg)
    declared = front.meta.get("lang")
    if suffix_lang and declared and str(declared) != suffix_lang:
        raise SiteError(
            f"the file name says language {suffix_lang!r} but the front matter says lang: {declared}",
            rel,
            front.line("lang"),
        )
    return stem, str(declared or suffix_lang or cfg.language)


def _page_pattern(path: Path, cfg: SiteConfig) -> str:
    """A page's permalink pattern: its folder in the pages folder, then its slug (`pages/a/b.md` -> /a/b/)."""
    folder = relative(path.parent, cfg.pages_path)
    return "/" + "".join(f"{part}/" for part in (folder.parts if folder else ())) + ":slug/"


def _permalink(
    cfg: SiteConfig, front: FrontMatter, rel: str, dt: datetime, slug: str, lang: str, page_pattern: str = ""
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
        permalink = make_permalink(pattern, dt, slug, lang)
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


def find_post_files(cfg: SiteConfig, warnings: list[SiteWarning] | None = None) -> list[Path]:
    """Every `*.md` and `*.ipynb` under the posts and pages folders (not hidden, not `_draft`-style names), in path
    order."""
    return [Path(p) for p in find_post_names(cfg, warnings)]


def find_post_names(cfg: SiteConfig, warnings: list[SiteWarning] | None = None) -> list[str]:
    """`find_post_files` as path strings (a warm build looks them up by name and makes a Path only for a few).

    A link to a post file inside the site is read as that file. Links to folders, links leaving the site, broken
    links and what is not a regular file (a FIFO would never end) are not read: a warning each in `warnings`."""
    found: list[str] = []
    site = os.path.realpath(cfg.root)
    tops = [os.path.join(cfg.root, cfg.posts_dir), os.path.join(cfg.root, cfg.pages_dir)]
    folders = tops[::-1]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    kind = _entry_kind(entry, site)
                    if kind == _POST:
                        found.append(entry.path)
                    elif kind == _FOLDER:
                        folders.append(entry.path)
                    elif kind and warnings is not None:
                        warnings.append(SiteWarning(kind, relative_text(Path(entry.path), cfg.root)))
        except OSError as exc:
            if warnings is not None and (folder not in tops or not isinstance(exc, FileNotFoundError)):  # none: none
                reason = (exc.strerror or str(exc)).lower()
                warnings.append(
                    SiteWarning(f"cannot read this folder ({reason})", relative_text(Path(folder), cfg.root))
                )
    return sorted(found)


_POST, _FOLDER = "post", "folder"


def _is_post_name(name: str) -> bool:
    return name.endswith((".md", NOTEBOOK)) and not name.startswith((".", "_"))


def _entry_kind(entry: os.DirEntry[str], site: str) -> str:
    """_POST, _FOLDER (to look into), why the entry is not read, or "" for what is no post (images, notes)."""
    if entry.name.startswith("."):
        return ""
    if entry.is_symlink():
        return _link_kind(entry.path, entry.name, site)
    if entry.is_dir():
        return _FOLDER
    if not _is_post_name(entry.name):
        return ""
    return _POST if entry.is_file() else "not a regular file, not read"


def _link_kind(path: str, name: str, site: str) -> str:
    """What a link in the posts folder is: a post when it leads to a post file inside the site `site` (resolved)."""
    target = os.path.realpath(path)
    inside = target.startswith(site + os.sep)
    if os.path.isdir(target):
        where = "" if inside else " outside the site"
        return f"a link to a folder{where}, not read (posts are not looked for in linked folders)"
    if not _is_post_name(name):
        return ""
    if not os.path.exists(target):
        return "a link to nothing, not read"
    if not inside:
        return "a link to a file outside the site, not read"
    return _POST if os.path.isfile(target) else "not a regular file, not read"


def is_post_path(path: Path, cfg: SiteConfig) -> bool:
    """Whether `find_post_files` would list `path` if it existed (it may have been deleted): False for folders."""
    posts = cfg.root / cfg.posts_dir
    try:
        parts = path.relative_to(posts).parts
    except ValueError:
        try:
            posts = cfg.root / cfg.pages_dir
            parts = path.relative_to(posts).parts
        except ValueError:
            return False
    if not parts or any(d.startswith(".") for d in parts[:-1]) or os.path.isdir(path):
        return False
    if not _is_post_name(parts[-1]):
        return False
    folder = posts  # linked folders are not looked into
    for d in parts[:-1]:
        folder = folder / d
        if os.path.islink(folder):
            return False
    if os.path.islink(path):
        return _link_kind(str(path), parts[-1], os.path.realpath(cfg.root)) == _POST
    return not os.path.exists(path) or os.path.isfile(path)


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
    return select_posts(posts, include or Include()).posts


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
