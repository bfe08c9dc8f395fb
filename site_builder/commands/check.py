"""`site-builder check`: run the code in posts without building, for CI."""

from __future__ import annotations

import argparse
from pathlib import Path

from site_builder.commands.common import Subparsers, err, exec_arguments, exec_options, site_root
from site_builder.errors import problem_count


def run(args: argparse.Namespace) -> int:
    from site_builder.check import check_site, write_json
    from site_builder.execute.report import failure_lines

    site_root(args.source, "build")
    report = check_site(Path(args.source), exec_options(args))
    for run in sorted(report.runs.values(), key=lambda r: r.rel):
        how = "cached" if run.cached else f"ran ({run.reason})"
        counts = f"{run.count('passed')} passed, {len(run.failures)} failed, {run.count('skipped')} skipped"
        print(f"{run.rel}: {how}: {counts}" + ("" if run.cached else f" in {run.seconds:.2f}s"))
        for line in failure_lines(run):
            print(line)
    if args.json:
        write_json(report, Path(args.json))
    for warning in report.warnings:
        err(f"{'error' if args.strict else 'warning'}: {warning}")
    problems = f", {problem_count(0, len(report.warnings))}" if report.warnings else ""
    print(f"{report.total('passed')} passed, {report.failed} failed{problems}")
    return 1 if report.failed or (args.strict and report.warnings) else 0


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
    exec_arguments(p)
    p.set_defaults(func=run)
