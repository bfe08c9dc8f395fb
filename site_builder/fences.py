"""Code fences as the parse stage reads them: a fence's language and options, which fences run, and a warning at a
token's line. Shared by `parse` and its rule modules (`traps`)."""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.errors import SiteWarning

EXEC_LANGS = ("python", "py", "python3", "py3", "pycon")  # the fences an `execute: true` post runs
_FENCE_OPTIONS = re.compile(r"\{([^}]*)\}")


def fence_info(info: str) -> tuple[str, dict[str, str]]:
    """Split a fence's info string `python {skip raises=IndexError}` into (lang, options)."""
    options: dict[str, str] = {}
    for group in _FENCE_OPTIONS.findall(info):
        for item in group.replace(",", " ").split():
            key, _, value = item.partition("=")
            options[key.lstrip(".")] = value
    lang = _FENCE_OPTIONS.sub(" ", info).strip().split()
    return (lang[0] if lang else ""), options


def env_line(env: MutableMapping[str, Any], tok: Token) -> int | None:
    return env.get("line_offset", 1) + tok.map[0] if tok.map else None


def warn(state: StateCore, tok: Token, message: str) -> None:
    """A problem of this post alone: shown at its line, the site still builds (an error with --strict)."""
    state.env.setdefault("warnings", []).append(SiteWarning(message, state.env.get("rel"), env_line(state.env, tok)))


def block_is_doctest(tok: Token, lang: str) -> bool:
    """A ```pycon block, or a python block whose first line is a `>>> ` prompt: its examples are doctests."""
    return lang == "pycon" or tok.content.lstrip().startswith(">>> ")
