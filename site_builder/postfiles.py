"""Which files of the posts and pages folders are posts (Markdown as Jekyll names it, notebooks), and a warning for
each other file there that is neither a post nor what sits beside posts (images, media, data, code): nothing in the
posts folder is skipped silently. Part of stage 1, load."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from site_builder.config import SiteConfig
from site_builder.errors import SiteWarning
from site_builder.util.paths import relative_text

NOTEBOOK = ".ipynb"  # notebook.SUFFIX (that module is imported for notebooks only)


def find_post_files(cfg: SiteConfig, warnings: list[SiteWarning] | None = None) -> list[Path]:
    """Every post file (`POST_SUFFIXES`) under the posts and pages folders (not hidden, not `_draft`-style names),
    in path order."""
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
                    elif isinstance(kind, SiteWarning) and warnings is not None:
                        warnings.append(replace(kind, file=relative_text(Path(entry.path), cfg.root)))
        except OSError as exc:
            if warnings is not None and (folder not in tops or not isinstance(exc, FileNotFoundError)):  # none: none
                reason = (exc.strerror or str(exc)).lower()
                warnings.append(
                    SiteWarning(f"cannot read this folder ({reason})", relative_text(Path(folder), cfg.root))
                )
    return sorted(found)


_POST, _FOLDER = "post", "folder"
POST_SUFFIXES = (".md", ".markdown", ".mkd", ".mkdn", ".qmd", NOTEBOOK)  # Markdown as Jekyll and Quarto name it
# what sits beside posts without being one, quietly: images and media they show, files they link, data and code
# their blocks read; any other file in the posts folder (.txt, .html, .rst, .org) is named in a warning
_BESIDE_POSTS = frozenset(
    (  # noqa: SIM905 (a list of words reads best as words)
        ".png .jpg .jpeg .gif .webp .avif .svg .bmp .ico .tif .tiff .heic .mp4 .webm .ogg .ogv .mov .mp3 .wav .m4a "
        ".pdf .csv .tsv .json .jsonl .geojson .yaml .yml .toml .xml .parquet .feather .arrow .npy .npz .h5 .hdf5 .nc "
        ".pkl .pickle .sqlite .db .xlsx .xls .zip .gz .tar .bz2 .xz .dat .bin .py .r .jl .js .mjs .css .c .h .cpp "
        ".hpp .rs .go .java .sh .sql .lua .bib"
    ).split()
)
NOT_A_POST = "not a post"
NOT_A_POST_HINT = "a post is a .md, .markdown, .mkd, .mkdn, .qmd or .ipynb file"


def _is_post_name(name: str) -> bool:
    return name.endswith(POST_SUFFIXES) and not name.startswith((".", "_"))


def _unread(why: str, hint: str = "") -> SiteWarning:
    """A post file (or a folder) not read: why, as a warning whose file the caller fills in."""
    return SiteWarning(why, consequence="not read", hint=hint)


def _unread_kind(name: str) -> str | SiteWarning:
    """Why a file in the posts folder that is no post is named in a warning, or "" for one that sits there well."""
    if name.startswith("_") or os.path.splitext(name)[1].lower() in _BESIDE_POSTS:
        return ""
    return _unread(NOT_A_POST, NOT_A_POST_HINT)


def _entry_kind(entry: os.DirEntry[str], site: str) -> str | SiteWarning:
    """_POST, _FOLDER (to look into), why the entry is not read, or "" for what is no post (images, notes)."""
    if entry.name.startswith("."):
        return ""
    if entry.is_symlink():
        return _link_kind(entry.path, entry.name, site)
    if entry.is_dir():
        return _FOLDER
    if not _is_post_name(entry.name):
        return _unread_kind(entry.name)
    return _POST if entry.is_file() else _unread("not a regular file")


def _link_kind(path: str, name: str, site: str) -> str | SiteWarning:
    """What a link in the posts folder is: a post when it leads to a post file inside the site `site` (resolved)."""
    target = os.path.realpath(path)
    inside = target.startswith(site + os.sep)
    if os.path.isdir(target):
        where = "" if inside else " outside the site"
        return _unread(f"a link to a folder{where}", "posts are not looked for in linked folders")
    if not _is_post_name(name):
        return ""
    if not os.path.exists(target):
        return _unread("a link to nothing")
    if not inside:
        return _unread("a link to a file outside the site")
    return _POST if os.path.isfile(target) else _unread("not a regular file")


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
