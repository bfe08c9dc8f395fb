"""The command reference of the docs (docs/reference/commands.md), made from the argparse parsers themselves, so
that it cannot drift from `--help`: `python -m site_builder.commands.reference` prints it."""

from __future__ import annotations

import argparse
import sys


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _flags(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The argument as `--help` shows it: `-D, --drafts`, `--executor {local,ray}`, `directory`."""
    return f"`{parser._get_formatter()._format_action_invocation(action)}`"


def _help(action: argparse.Action) -> str:
    text = (action.help or "").replace("%(default)s", str(action.default)).replace("%%", "%")
    return text.replace("|", "\\|").replace("\n", " ")


def _table(parser: argparse.ArgumentParser) -> list[str]:
    rows = ["| argument | what it does |", "|---|---|"]
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        rows.append(f"| {_flags(parser, action)} | {_help(action)} |")
    return rows


def _usage(parser: argparse.ArgumentParser) -> str:
    return " ".join(parser.format_usage().removeprefix("usage: ").split())


def markdown() -> str:
    """Every command, its usage, its description and each of its arguments with its `--help` text."""
    from site_builder.cli import make_parser

    top = make_parser()
    out = [f"`{_usage(top)}`", "", *_table(top)]
    for name, parser in _subcommands(top).items():
        out += ["", f"## `site-builder {name}`", "", "```", _usage(parser), "```", ""]
        if parser.description:
            out += [parser.description, ""]
        out += _table(parser)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
