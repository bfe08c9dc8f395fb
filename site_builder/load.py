"""Stage 1, load: Markdown files with YAML front matter -> Post records."""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from datetime import date, datetime, timezone
from functools import lru_cache
from pathlib import Path

import yaml

from site_builder.config import SafeLoader as _Loader  # the C loader when available: ~10x faster
from site_builder.config import SiteConfig, yaml_error_line
from site_builder.errors import SiteError
from site_builder.models import Post

_FENCE = "---"


@lru_cache(maxsize=4096)  # pages link every tag they show: a site has few tags and many links to them
def slugify(text: str) -> str:
    """A URL slug that keeps CJK characters readable and drops punctuation."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"[\s_-]+", "-", text).strip("-") or "post"


def split_front_matter(text: str, rel: str) -> tuple[dict, str, int]:
    """Split `---` YAML front matter from the body; returns (meta, body, body_line)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != _FENCE:
        raise SiteError("missing front matter (the file must start with a '---' line)", rel, 1)
    for i in range(1, len(lines)):
        if lines[i].rstrip() in (_FENCE, "..."):
            break
    else:
        raise SiteError("front matter is not closed by a '---' line", rel, 1)
    raw = "\n".join(lines[1:i])
    try:
        meta = yaml.load(raw, Loader=_Loader) or {}
    except yaml.YAMLError as exc:
        line = yaml_error_line(exc, raw)
        line = line + 1 if line else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SiteError(f"invalid YAML front matter: {problem}", rel, line) from None
    if not isinstance(meta, dict):
        raise SiteError("front matter must be a mapping of keys to values", rel, 2)
    return meta, "\n".join(lines[i + 1 :]), i + 2


def _key_line(text: str, key: str) -> int | None:
    for n, line in enumerate(text.split("\n")[:200], 1):
        if line.startswith(f"{key}:"):
            return n
    return None


def front_matter_line(path: Path, key: str) -> int | None:
    """Line of `key:` in a post file's front matter, for messages about a post already loaded."""
    try:
        return _key_line(path.read_text(encoding="utf-8"), key)
    except OSError:
        return None


def parse_date(meta: dict, key: str, rel: str, text: str) -> datetime:
    """A front matter date (`meta[key]`): a YAML date/datetime or an ISO string; naive means UTC. The key's line
    in `text` is looked up only for an error."""
    value = meta[key]
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    else:
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))  # a str, or not a date at all
        except (ValueError, AttributeError):
            hint = " (use YYYY-MM-DD or ISO 8601)" if isinstance(value, str) else ""
            raise SiteError(f"{key!r} is not a date: {value!r}{hint}", rel, _key_line(text, key)) from None
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


def unsafe_permalink(permalink: str) -> str | None:
    """Why a site path cannot be a page's address (it would leave the output directory, or alias another), or None."""
    if any(ord(c) < 32 for c in permalink) or "\\" in permalink:
        return "it contains a backslash or a control character"
    if any(part in (".", "..") for part in permalink.split("/")):
        return "'.' and '..' segments are not allowed (pages must stay inside the output directory)"
    return None


def load_post(path: Path, cfg: SiteConfig) -> Post:
    """Read one post file; any problem is a SiteError naming the file and line."""
    rel = _rel(path, cfg.root)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SiteError(f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x})", rel, line) from None
    text = text.replace("\r\n", "\n")
    meta, body, body_line = split_front_matter(text, rel)
    title = meta.get("title")
    if title is None or not str(title).strip():
        raise SiteError("front matter has no 'title'", rel, _key_line(text, "title") or 1)
    if "date" not in meta or meta["date"] in (None, ""):
        raise SiteError("front matter has no 'date'", rel, _key_line(text, "date") or 1)
    dt = parse_date(meta, "date", rel, text)
    updated = parse_date(meta, "updated", rel, text) if meta.get("updated") else dt
    tags = meta.get("tags") or []
    if isinstance(tags, str):
        tags = [t.strip() for t in re.split(r"[,\s]+", tags) if t.strip()]
    if not isinstance(tags, list):
        raise SiteError("'tags' must be a list", rel, _key_line(text, "tags"))
    stem, suffix_lang = split_lang_suffix(path.stem, cfg)
    lang = str(meta.get("lang") or suffix_lang or cfg.language)
    if suffix_lang and meta.get("lang") and str(meta["lang"]) != suffix_lang:
        raise SiteError(
            f"the file name says language {suffix_lang!r} but the front matter says lang: {meta['lang']}",
            rel,
            _key_line(text, "lang"),
        )
    slug = str(meta.get("slug") or slugify(stem))
    permalink = meta.get("permalink")
    if permalink:
        permalink = normalise_permalink(str(permalink))
    else:
        pattern = cfg.permalink
        prefix = cfg.languages[lang].prefix if lang in cfg.languages else "/"
        if ":lang" not in pattern and prefix != "/":  # other languages live under their prefix: /zh/blog/...
            pattern = prefix + pattern.lstrip("/")
        permalink = make_permalink(pattern, dt, slug, lang)
    problem = unsafe_permalink(permalink)
    if problem:
        key = "permalink" if meta.get("permalink") else "slug" if meta.get("slug") else None
        raise SiteError(f"bad permalink {permalink!r}: {problem}", rel, (_key_line(text, key) if key else None) or 1)
    post_id = str(meta.get("id") or cfg.absolute(permalink))
    return Post(
        source=path,
        rel=rel,
        title=str(title),
        date=dt,
        updated=updated,
        tags=[str(t) for t in tags],
        lang=lang,
        slug=slug,
        permalink=permalink,
        id=post_id,
        summary=str(meta.get("summary") or ""),
        body=body,
        body_line=body_line,
        meta=meta,
        digest=hashlib.sha1(data).hexdigest(),
        translation_key=str(meta.get("translation_key") or _translation_key(path, stem, cfg)),
    )


def split_lang_suffix(stem: str, cfg: SiteConfig) -> tuple[str, str | None]:
    """`hello.zh` -> ("hello", "zh") when zh is one of the site's languages; else (stem, None)."""
    base, dot, code = stem.rpartition(".")
    if dot and base and code in cfg.languages:
        return base, code
    return stem, None


def _translation_key(path: Path, stem: str, cfg: SiteConfig) -> str:
    """Files named alike but for the language suffix are translations of each other: key = their shared path."""
    folder = _relative(path.parent, cfg.root / cfg.posts_dir)
    return ((folder if folder is not None else path.parent) / stem).as_posix()


def _relative(path: Path, folder: Path) -> Path | None:
    """`path` relative to `folder`: as written when it lies under it (no file system calls: a build names
    thousands of posts this way), else after resolving both (symlinks, `..`); None when it is outside."""
    try:
        rel = path.relative_to(folder)
        if ".." not in rel.parts:
            return rel
    except ValueError:
        pass
    try:
        return path.resolve().relative_to(folder.resolve())
    except ValueError:
        return None


def _rel(path: Path, root: Path) -> str:
    rel = _relative(path, root)
    return str(rel if rel is not None else path)


def find_post_files(cfg: SiteConfig) -> list[Path]:
    """Every `*.md` under the posts folder (not hidden, not `_draft`-style names), in path order."""
    posts = cfg.root / cfg.posts_dir
    found = []
    for folder, dirs, files in os.walk(posts):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [os.path.join(folder, f) for f in files if f.endswith(".md") and not f.startswith((".", "_"))]
    return [Path(p) for p in sorted(found)]


def is_post_path(path: Path, cfg: SiteConfig) -> bool:
    """Whether `find_post_files` would list `path` if it existed (it may have been deleted): False for folders."""
    posts = cfg.root / cfg.posts_dir
    try:
        parts = path.relative_to(posts).parts
    except ValueError:
        return False
    if not parts or any(d.startswith(".") for d in parts[:-1]) or os.path.isdir(path):
        return False
    if not parts[-1].endswith(".md") or parts[-1].startswith((".", "_")):
        return False
    folder = posts  # os.walk does not go into linked folders
    for d in parts[:-1]:
        folder = folder / d
        if os.path.islink(folder):
            return False
    return True


def load_posts(cfg: SiteConfig) -> list[Post]:
    """Load every post; two posts claiming one permalink is an error."""
    return check_posts([load_post(p, cfg) for p in find_post_files(cfg)])


def check_posts(posts: list[Post]) -> list[Post]:
    """The published posts; two posts claiming one permalink is an error."""
    seen: dict[str, Post] = {}
    for post in posts:
        if post.meta.get("draft"):
            continue
        other = seen.get(post.permalink)
        if other is not None:
            raise SiteError(
                f"permalink {post.permalink} is also used by {other.rel}",
                post.rel,
                _key_line(post.source.read_text(encoding="utf-8"), "permalink") or 1,
            )
        seen[post.permalink] = post
    return [p for p in posts if not p.meta.get("draft")]


def dump_post(meta: dict, body: str) -> str:
    """The text of a post file: YAML front matter between `---` lines, then the Markdown body."""
    head = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{head}---\n\n{body.lstrip(chr(10))}"
