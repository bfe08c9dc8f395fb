"""The `site-builder` command line: arguments in, one command of `site_builder.commands` run, problems printed."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

from site_builder import __version__
from site_builder.commands import COMMANDS
from site_builder.commands.common import count
from site_builder.commands.common import err as _err
from site_builder.errors import (
    ExecutionFailed,
    SiteError,
    SiteErrors,
    StrictFailure,
    problem_count,
    stopped,
    strict_count,
    warning_line,
)
from site_builder.util.private import keep_private


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="site-builder", description="Build a static blog whose posts' code keeps running."
    )
    parser.add_argument("--version", action="version", version=f"site-builder {__version__}")
    parser.add_argument("--debug", action="store_true", help="show a traceback on internal errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def _shown(exc: SiteError, args: argparse.Namespace) -> str:
    """The error as `file:line: message`, with the file relative to the site root (or the current directory)."""
    if exc.file is not None and Path(exc.file).is_absolute():
        path = Path(exc.file)
        for base in (Path(getattr(args, "source", ".")), Path.cwd()):
            for b in (base.absolute(), base.resolve()):
                try:
                    return str(dataclasses.replace(exc, file=path.relative_to(b)))
                except ValueError:
                    pass
    return str(exc)


def main(argv: list[str] | None = None) -> int:
    keep_private()  # the tokens in this process's environment stay out of reach of the posts' code
    args = make_parser().parse_args(argv)
    strict = bool(getattr(args, "strict", False))  # warnings are errors: printed as such, counted as such
    try:
        code: int = args.func(args)
        return code
    except ExecutionFailed as exc:
        for line in exc.lines:
            _err(line)
        for warning in exc.warnings:
            _err(warning_line(warning, strict))
        strict_warnings = len(exc.warnings) if strict else 0  # counted apart: they are why --strict fails too
        problems = problem_count(exc.count, len(exc.warnings) - strict_warnings)
        fix = "fix it, or build with --keep-going to show it in the pages"
        also = f"; {strict_count(strict_warnings)}" if strict_warnings else ""
        _err(f"error: code in posts failed, {problems} ({fix}){also}")
        return 1
    except SiteErrors as exc:
        for line in exc.lines(lambda e: _shown(e, args), strict):
            _err(line)
        return 1
    except StrictFailure as exc:
        for line in exc.failures:
            _err(line)
        for warning in exc.warnings:
            _err(warning_line(warning, strict=True))
        failed = f"code in posts failed, {count(exc.failed, 'error')}; " if exc.failed else ""
        _err(f"error: {failed}{exc.message}")
        return 1
    except SiteError as exc:
        _err(f"error: {_shown(exc, args)}")
        _err(stopped(1))
        return 1
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except Exception as exc:
        if args.debug or os.environ.get("SITE_BUILDER_DEBUG"):
            raise
        first = (str(exc).splitlines() or [""])[0]
        _err(f"internal error: {type(exc).__name__}: {first} (run with --debug for a traceback)")
        return 2


def run() -> None:
    """The `site-builder` command: `main`, then, after a build, exit at once. Tearing down the interpreter would
    free the whole heap of posts and pages object by object (0.2 s on a 4,000-post site) for nothing; the output,
    the cache and the printed lines are all written by then. A Ray cluster this process started is left to its
    normal shutdown."""
    argv = sys.argv[1:]
    code = main(argv)
    ray = sys.modules.get("ray")
    if argv[:1] == ["build"] and not (ray is not None and ray.is_initialized()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)
