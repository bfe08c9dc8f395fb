"""`site-builder check`: run the code in posts without building, for CI."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from site_builder.commands.common import Subparsers, count, err, exec_arguments, exec_options, site_root
from site_builder.errors import problem_count, strict_count, warning_line


def run(args: argparse.Namespace) -> int:
    from site_builder.check import UpdateReport, check_site, nothing_ran, update_site, write_json
    from site_builder.execute.report import cached_line, failure_lines

    site_root(args.source, "build")
    report = check_site(Path(args.source), exec_options(args))
    update = update_site(report) if args.update else UpdateReport()
    for run in sorted(report.runs.values(), key=lambda r: r.rel):
        how = "cached" if run.cached else f"ran ({run.reason})"
        counts = f"{run.count('passed')} passed, {len(run.failures)} failed, {run.count('skipped')} skipped"
        if run.rel in update.files:
            counts += f", {len(update.files[run.rel].updated)} updated"
        counts += f"; {counted}" if (counted := report.tally(run)) else ""
        print(f"{run.rel}: {how}: {counts}" + ("" if run.cached else f" in {run.seconds:.2f}s"))
        for line in failure_lines(run):
            print(line)
        if run.rel in update.files:
            print(update.files[run.rel].diff())
    if args.json:
        write_json(report, Path(args.json))
    for warning in report.warnings:
        err(warning_line(warning, args.strict))
    for note in update.notes:
        err(note)
    for refused in update.refused:
        err(f"error: {refused}")
    if idle := nothing_ran(report):
        err(idle)
    if cached := cached_line(report.runs.values()):
        print(cached)
    if args.update:
        print(f"updated {count(update.blocks, 'block')} in {count(len(update.files), 'file')}")
    strict = args.strict and report.warnings  # they are errors: said on a line of their own, last
    problems = f", {problem_count(0, len(report.warnings))}" if report.warnings and not strict else ""
    print(f"{report.total('passed')} passed, {report.failed} failed{problems}")
    if strict:
        sys.stdout.flush()  # the summary before the line that says why the run failed, in a terminal as in a pipe
        err(f"error: {strict_count(len(report.warnings))}")
    return 1 if report.failed or update.refused or strict else 0


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "check",
        help="run the code in posts and verify its output, without building",
        description="Run every `execute: true` post's code blocks; exit 1 if any fails. "
        "Ends with the line 'N passed, M failed' (blocks).",
    )
    p.add_argument("--source", default=".", help="site root (default: .)")
    p.add_argument("--json", metavar="FILE", help="also write a per-post report as JSON")
    p.add_argument("--strict", action="store_true", help="treat warnings (unknown keys, fence options) as errors")
    p.add_argument(
        "--update",
        action="store_true",
        help="rewrite the output blocks and doctest outputs that no longer match with what the code prints now "
        "(a diff of each file is shown; a block that raised what it did not expect is left alone)",
    )
    exec_arguments(p)
    p.set_defaults(func=run)
