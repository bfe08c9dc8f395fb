"""`site-builder serve`: build, serve on 127.0.0.1, rebuild on every save."""

from __future__ import annotations

import argparse

from site_builder.commands.common import Subparsers, include, include_arguments, site_root
from site_builder.errors import SiteError


def run(args: argparse.Namespace) -> int:
    from site_builder.server import serve

    root = site_root(args.source, "build")
    try:
        return serve(
            root,
            host=args.host,
            port=args.port,
            open_browser=args.open,
            log=lambda m: print(m, flush=True),
            include=include(args),
        )
    except OSError as exc:
        raise SiteError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from None


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the site locally and rebuild it on every save (live reload)",
        description="Build once into a temporary directory, serve it, and rebuild what a save changes; "
        "open pages reload (CSS edits swap in place) and show build errors as an overlay.",
    )
    p.add_argument("--source", default=".", help="site root (default: .)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)")
    p.add_argument("--open", action="store_true", help="open the site in the default browser")
    include_arguments(p)
    p.set_defaults(func=run)
