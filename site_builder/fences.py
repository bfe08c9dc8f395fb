"""Code fences as the parse stage reads them: a fence's language and options, which fences run, and a warning at a
token's line. Shared by `parse` and its rule modules (`traps`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from typing import Any

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.errors import SiteWarning

EXEC_LANGS = ("python", "py", "python3", "py3", "pycon")  # the fences an `execute: true` post runs
_FENCE_OPTIONS = re.compile(r"\{([^}]*)\}")
_OPTION = re.compile(r"""([^\s,=]+)(?:=("[^"]*"|'[^']*'|[^\s,]*))?""")  # name, name=value, name="a value"
_LINE_SPAN = re.compile(r"(\d+)(?:-(\d+))?")


def fence_info(info: str) -> tuple[str, dict[str, str]]:
    """Split a fence's info string `python {skip raises=IndexError}` into (lang, options); options are separated by
    spaces or commas, a value may be quoted (`hl_lines="2 4-6" title='a file.py'`)."""
    options: dict[str, str] = {}
    for group in _FENCE_OPTIONS.findall(info):
        for key, value in _OPTION.findall(group):
            if value[:1] in ("'", '"'):
                value = value[1:-1]
            options[key.lstrip(".")] = value
    lang = _FENCE_OPTIONS.sub(" ", info).strip().split()
    return (lang[0] if lang else ""), options


def info_string(lang: str, options: dict[str, str]) -> str:
    """A fence's info string from its language and options, as `fence_info` reads it back: `python {skip
    title="a file.py"}` (a value with a space or a quote is quoted)."""
    words = []
    for name, value in options.items():
        if not value:
            words.append(name)
        elif not any(c in value for c in " ,'\"}"):
            words.append(f"{name}={value}")
        else:
            quote = "'" if '"' in value else '"'
            words.append(f"{name}={quote}{value.replace(quote, '').replace('}', '')}{quote}")
    return lang + (" {" + " ".join(words) + "}" if words else "")


def shows_code(options: Mapping[str, str]) -> bool:
    """Whether a block's code is shown: not under `{hide}` or `{hide=code}` (nor an unknown `hide=`: hidden whole)."""
    return options.get("hide", "output") == "output"


def shows_outputs(options: Mapping[str, str]) -> bool:
    """Whether what a block printed, ended with and drew is shown: not under `{hide}` or `{hide=output}`."""
    return options.get("hide", "code") == "code"


def env_line(env: MutableMapping[str, Any], tok: Token) -> int | None:
    return env.get("line_offset", 1) + tok.map[0] if tok.map else None


def warn(state: StateCore, tok: Token, message: str, consequence: str = "", hint: str = "") -> None:
    """A problem of this post alone: shown at its line, the site still builds (an error with --strict); see
    SiteWarning for `consequence` and `hint`."""
    where = state.env.get("rel"), env_line(state.env, tok)
    state.env.setdefault("warnings", []).append(SiteWarning(message, *where, consequence, hint))


def block_is_doctest(tok: Token, lang: str) -> bool:
    """A ```pycon block, or a python block whose first line is a `>>> ` prompt: its examples are doctests."""
    return lang == "pycon" or tok.content.lstrip().startswith(">>> ")


def hl_lines(value: str, count: int) -> tuple[set[int], list[str]]:
    """The lines (1-based) of `hl_lines="2 4-6"` in a block of `count` lines, and what is wrong with the rest."""
    lines: set[int] = set()
    bad: list[str] = []
    for item in value.replace(",", " ").split():
        m = _LINE_SPAN.fullmatch(item)
        first, last = (int(m[1]), int(m[2] or m[1])) if m else (0, 0)
        if not m:
            bad.append(f"{item!r} is not a line number or a range such as 4-6")
        elif first > last:
            bad.append(f"{item!r} runs backwards (write {last}-{first})")
        elif not 1 <= first <= last <= count:
            bad.append(f"{item!r} is outside the block's lines 1-{count}")
        else:
            lines.update(range(first, last + 1))
    if not value.strip():
        bad.append('it names no line (write hl_lines="2 4-6")')
    return lines, bad
