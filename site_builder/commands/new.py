"""`site-builder new`: a post with its front matter filled in, from a title or a path."""

from __future__ import annotations

import argparse
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from site_builder.commands.common import Subparsers, site_root
from site_builder.errors import SiteError

if TYPE_CHECKING:
    from site_builder.config import SiteConfig


def run(args: argparse.Namespace) -> int:
    from site_builder.config import load_config
    from site_builder.load import dump_post, load_post, slugify, split_lang_suffix

    config = load_config(site_root(args.source, "new").resolve())
    if not args.title.strip():
        raise SiteError("the title is empty")
    if args.title.strip().endswith(".md"):  # a path, as `hugo new posts/x.md`: the title comes from its name
        return _new_at_path(args, config)
    lang = args.lang or config.language
    now = datetime.now(timezone.utc).astimezone().replace(microsecond=0)
    meta = {"title": args.title, "date": now.isoformat(), "tags": [], "lang": lang}
    if args.translation_of:  # the same post in another language: hello.md -> hello.zh.md, same date and tags
        original_path = Path(args.translation_of)
        if not original_path.is_file():
            raise SiteError(f"--translation-of: no such post {args.translation_of}")
        original = load_post(original_path.resolve(), config)
        if not args.lang or args.lang == original.lang:
            raise SiteError(
                f"--translation-of needs --lang with another language than the original's ({original.lang})"
            )
        if lang not in config.languages:
            raise SiteError(
                f"language {lang!r} is not in site.yml 'languages' ({', '.join(config.languages)})", "site.yml"
            )
        stem = split_lang_suffix(original_path.stem, config)[0]
        path = original_path.resolve().parent / f"{stem}.{lang}.md"
        meta.update(date=original.date.isoformat(), tags=list(original.tags))
        if original.meta.get("translation_key"):
            meta["translation_key"] = original.meta["translation_key"]
    else:
        slug = args.slug if args.slug is not None else slugify(args.title)
        if not slug or slug.startswith(".") or any(c in slug for c in "/\\\0"):
            raise SiteError(f"--slug {slug!r} must be a plain file name (no '/', not starting with '.')")
        path = config.root / config.posts_dir / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as fh:  # never overwrite a post, even one made a moment ago
            fh.write(dump_post(meta, "Write here.\n"))
    except FileExistsError:
        raise SiteError(
            f"this post already has a {lang!r} version"
            if args.translation_of
            else "a post with this name already exists; choose another --slug",
            path,
        ) from None
    print(f"created {os.path.relpath(path)}")
    return 0


def _new_at_path(args: argparse.Namespace, config: SiteConfig) -> int:
    """`new content/posts/my-post.md` (or `my-post.zh.md`): that file, titled from its name."""
    from site_builder.load import dump_post, split_lang_suffix

    given = Path(args.title.strip())
    posts = (config.root / config.posts_dir).resolve()
    path = (posts / given.name) if given.parent == Path(".") else (Path.cwd() / given).resolve()
    if posts not in path.parents:
        raise SiteError(f"{args.title}: a new post goes under {config.posts_dir}/ (where the build looks for posts)")
    stem, suffix_lang = split_lang_suffix(path.stem, config)
    lang = args.lang or suffix_lang or config.language
    title = stem.replace("-", " ").replace("_", " ").strip().capitalize() or "Untitled"
    now = datetime.now(timezone.utc).astimezone().replace(microsecond=0)
    meta: dict[str, object] = {"title": title, "date": now.isoformat(), "tags": [], "lang": lang}
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as fh:  # never overwrite a post
            fh.write(dump_post(meta, "Write here.\n"))
    except FileExistsError:
        raise SiteError("a post with this name already exists", path) from None
    print(f"created {os.path.relpath(path)}")
    return 0


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "new",
        help="start a new post with its front matter filled in",
        description="Create content/posts/SLUG.md with title, date, tags and lang.",
    )
    p.add_argument("title", help="the post's title, or the path of the new file (content/posts/my-post.md)")
    p.add_argument("--lang", help="language code, e.g. zh (default: the site's language)")
    p.add_argument("--slug", help="file name and URL slug (default: from the title)")
    p.add_argument(
        "--translation-of",
        metavar="POST",
        help="start a translation of this post file (with --lang): hello.md -> hello.zh.md, same date and tags",
    )
    p.add_argument("--source", default=".", help="site root (default: .)")
    p.set_defaults(func=run)
