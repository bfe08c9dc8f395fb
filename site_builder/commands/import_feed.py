"""`site-builder import`: a blog's source folder into a new site (`import OLD_SITE NEW_SITE`: Jekyll, Hugo,
Pelican; importer/source/), or posts from an Atom/RSS feed or a WordPress export (`import FEED --into DIR`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from site_builder.commands.common import Subparsers, err
from site_builder.errors import SiteError


def _run_source(args: argparse.Namespace) -> int:
    from site_builder.importer.source import import_source

    if args.new_site is None:
        raise SiteError(f"{args.feed} is a folder: name the new site's folder too (site-builder import OLD NEW)")
    report = import_source(Path(args.feed), Path(args.new_site))
    for line in report.problem_lines():
        err(line)
    for line in report.closing_lines():
        print(line)
    return 0


def run(args: argparse.Namespace) -> int:
    if Path(args.feed).is_dir():
        return _run_source(args)
    if args.new_site is not None:
        raise SiteError(
            f"{args.feed} is not a folder: a feed is imported with --into DIR, a site's source folder with OLD NEW"
        )
    from site_builder.importer import import_feed

    report = import_feed(
        Path(args.feed), Path(args.into), force=args.force, log=print, download_images=args.download_images
    )
    for warning in report.warnings:
        err(f"warning: {warning}")
    print(
        f"imported {len(report.written)} posts into {args.into}"
        + (f", skipped {len(report.skipped)} existing (use --force to overwrite)" if report.skipped else "")
    )
    return 0


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "import",
        help="import a Jekyll, Hugo or Pelican site (OLD NEW), or posts from an Atom or RSS feed (FEED --into DIR)",
        description="OLD_SITE NEW_SITE: a blog's source folder (Jekyll, Hugo, Pelican) written as a new site, its "
        "URLs kept. FEED: one Markdown post per feed entry (front matter + Markdown body).",
    )
    p.add_argument(
        "feed", metavar="FEED|OLD_SITE", help="a feed file (Atom, RSS, WordPress export), or a site's source folder"
    )
    p.add_argument(
        "new_site", metavar="NEW_SITE", nargs="?", help="with a source folder: the new site's folder (new or empty)"
    )
    p.add_argument("--into", default="content/posts", help="feed: directory for the posts (default: content/posts)")
    p.add_argument("--force", action="store_true", help="feed: overwrite existing post files")
    p.add_argument(
        "--download-images",
        action="store_true",
        help="feed: save the images on the blog's own host next to each post (content-addressed names, 20 MiB cap)",
    )
    p.set_defaults(func=run)
