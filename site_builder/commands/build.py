"""`site-builder build`: the pipeline once, then a summary line."""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

from site_builder.commands.common import (
    Subparsers,
    count,
    err,
    exec_arguments,
    exec_options,
    include,
    include_arguments,
    left_out,
    site_root,
)
from site_builder.errors import problem_count, sorted_warnings, strict_count, warning_line


def run(args: argparse.Namespace) -> int:
    from site_builder.build import build_site

    site_root(args.source, "build")
    # One build, then exit: reference counting frees what the build drops, and the cycle collector would only
    # walk the big heap of loaded posts and fragments again and again (a fifth of a warm rebuild's time).
    gc.disable()
    result = build_site(
        Path(args.source),
        Path(args.output),
        log=err,
        exec_options=exec_options(args),
        keep_going=args.keep_going,
        strict=args.strict,
        include=include(args),
        base_url=args.base_url,
    )
    warnings = sorted_warnings(result.warnings)  # under --strict, only those found once the output was committed
    for warning in warnings:  # (the search index made again in an output that had none): errors too
        err(warning_line(warning, args.strict))
    failed = sum(len(r.failures) for r in result.runs.values())
    if result.runs:  # posts that execute: their failures, and a line about the code that ran
        from site_builder.execute.report import cached_count, failure_lines

        for post_run in result.runs.values():
            if not post_run.ok:
                for line in failure_lines(post_run):
                    err(line)
        blocks = sum(r.count("passed") for r in result.runs.values())
        print(
            f"ran code in {count(len(result.runs), 'post')}{cached_count(result.runs.values())}: "
            f"{blocks} blocks passed, {failed} failed" + (" (shown in the pages: --keep-going)" if failed else "")
        )
    if skipped := left_out(result.drafts_left_out, result.future_left_out):
        print(skipped)
    written = result.files_changed - result.files_removed
    problems = problem_count(failed, 0 if args.strict else len(warnings))
    print(
        f"built {count(result.posts, 'post')}"
        + (f" and {count(result.standalone, 'page')}" if result.standalone else "")
        + f" into {result.output} in {result.seconds:.2f}s: "
        f"{result.fragments_rendered} rendered, {count(result.pages_rendered, 'page')} rendered, "
        f"{count(written, 'file')} written, {result.files_removed} removed ({result.pages} files in all)"
        + (f", {count(result.images, 'image')} processed" if result.images else "")
        + (f", {problems}" if problems else "")
    )
    if args.verbose:
        print("  " + ", ".join(f"{name} {secs:.2f}s" for name, secs in result.timings.items()))
    if args.strict and warnings:  # said last, on a line of its own, as `check --strict` says it
        sys.stdout.flush()
        err(f"error: {strict_count(len(warnings))}")
        return 1
    return 1 if any(not r.ok for r in result.runs.values()) else 0  # --keep-going wrote the site, yet it failed


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "build",
        help="build the site into an output directory",
        description="Build the site from site.yml, content/ and the theme into --output.",
    )
    p.add_argument("--source", default=".", help="site root holding site.yml and content/ (default: .)")
    p.add_argument("--output", default="output", help="output directory, relative to --source (default: output)")
    p.add_argument("-v", "--verbose", action="store_true", help="print the time each stage took")
    p.add_argument(
        "--keep-going", action="store_true", help="on failing code, show the error in the page and finish the build"
    )
    p.add_argument(
        "--strict", action="store_true", help="treat warnings as errors: fail without touching the output (for CI)"
    )
    p.add_argument(
        "--base-url", metavar="URL", help="build for this address instead of site.yml's url (a preview, a mirror)"
    )
    include_arguments(p)
    exec_arguments(p)
    p.set_defaults(func=run)
