"""What every command shares: the site root check, printing to stderr, counting nouns, the execution options."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from site_builder.errors import SiteError

if TYPE_CHECKING:
    from site_builder.execute.options import ExecOptions
    from site_builder.load import Include

Subparsers = Any  # argparse's _SubParsersAction, which typeshed marks private


def site_root(source: str, command: str) -> Path:
    """The --source directory; it must exist and look like a site, so a typo does not create a new tree."""
    root = Path(source)
    if not root.is_dir():
        raise SiteError(f"source directory {source} does not exist (pass the site root with --source)")
    if command == "build" and not (root / "site.yml").exists() and not (root / "content").is_dir():
        raise SiteError(f"{source} has neither site.yml nor content/: is it a site root? (pass it with --source)")
    return root


def err(msg: str) -> None:
    print(msg, file=sys.stderr)


def count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def exec_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rerun", action="store_true", help="run every executing post, ignoring cached results")
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="where posts run: local processes (default) or Ray tasks",
    )
    p.add_argument(
        "--ray-address", metavar="ADDR", help="Ray cluster to use with --executor ray (default: start a local one)"
    )


def exec_options(args: argparse.Namespace) -> ExecOptions:
    from site_builder.execute.options import ExecOptions

    return ExecOptions(rerun=args.rerun, executor=args.executor, ray_address=args.ray_address, progress=err)


def include_arguments(p: argparse.ArgumentParser) -> None:
    """--drafts and --future, as Hugo's --buildDrafts and --buildFuture."""
    p.add_argument("-D", "--drafts", action="store_true", help="also build posts with draft: true")
    p.add_argument("-F", "--future", action="store_true", help="also build posts dated in the future")


def include(args: argparse.Namespace) -> Include:
    from site_builder.load import Include

    return Include(drafts=args.drafts, future=args.future)


def left_out(drafts: int, future: int) -> str:
    """`left out: 1 draft (--drafts), 2 posts dated in the future (--future)`, or "" when none was."""
    parts = [f"{count(drafts, 'draft')} (--drafts)"] if drafts else []
    if future:
        parts.append(f"{count(future, 'post')} dated in the future (--future)")
    return "left out: " + ", ".join(parts) if parts else ""
