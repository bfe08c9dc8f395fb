"""`site-builder init DIR`: a new site that builds at once."""

from __future__ import annotations

import argparse
from pathlib import Path

from site_builder.commands.common import Subparsers


def run(args: argparse.Namespace) -> int:
    from site_builder.starter import init_site, parse_languages

    target = Path(args.directory)
    written = init_site(target, parse_languages(args.lang), args.title)
    for path in written:
        print(f"created {path}")
    where = "" if target.resolve() == Path.cwd() else f"cd {args.directory} && "
    print(f"next: {where}site-builder serve    (or: site-builder build, site-builder check)")
    return 0


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "init",
        help="start a new site in an empty directory",
        description="Write site.yml, a first post, a post whose code is checked, .gitignore and a GitHub Actions "
        "workflow (check, build --strict, publish to Pages) into DIRECTORY, which must be new or empty.",
    )
    p.add_argument("directory", help="where the site goes (created if missing; must be empty)")
    p.add_argument("--lang", default="en", help="the site's languages, default first: en, or en,zh (default: en)")
    p.add_argument("--title", help="the site's title (default: from the directory's name)")
    p.set_defaults(func=run)
