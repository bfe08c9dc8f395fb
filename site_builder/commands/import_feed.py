"""`site-builder import FEED`: posts from an Atom/RSS feed or a WordPress export."""

from __future__ import annotations

import argparse
from pathlib import Path

from site_builder.commands.common import Subparsers, err


def run(args: argparse.Namespace) -> int:
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
        help="import posts from an Atom or RSS feed",
        description="Write one Markdown post per feed entry (front matter + Markdown body).",
    )
    p.add_argument("feed", help="path of the feed file (Atom, RSS or a WordPress export)")
    p.add_argument("--into", default="content/posts", help="directory for the posts (default: content/posts)")
    p.add_argument("--force", action="store_true", help="overwrite existing post files")
    p.add_argument(
        "--download-images",
        action="store_true",
        help="save the images on the blog's own host next to each post (content-addressed names, 20 MiB cap)",
    )
    p.set_defaults(func=run)
