"""MyST's code directives as the plain fences they stand for, in every post.

- ```` ```{code-block} python ```` (and `{code}`, `{sourcecode}`) is a python block: its option lines leave the code,
  `:linenos:`, `:emphasize-lines:` and `:caption:` become this site's `linenos`, `hl_lines` and `title`, and any
  other option is named in one warning a post (nothing a MyST page shows is dropped without a word). In a post
  that executes, it runs as any python block does (Sybil runs it too).
- ```` ```{doctest} ```` is a doctest session, a ```` ```pycon ```` block: run and checked in a post that executes,
  as Sybil checks it; in one that does not, one warning a post says so.
- ```` ```{eval-rst} ```` is reStructuredText, which MyST renders: shown as its text, with one warning a post.

They showed as code with "unknown code block option 'code-block'", the option lines inside the code. Under
`exec: {conventions: [sybil]}` in a post that executes, sybil_convention reads them instead, as Sybil does.
A step of the parse stage's `other_tools` rule (traps.py), before it pairs outputs with their code."""

from __future__ import annotations

from collections.abc import Callable

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.conventions import drop_options
from site_builder.fences import fence_info, info_string, warn
from site_builder.sybil_convention import SYBIL_DIRECTIVES

# MyST's code-block options this site shows, by the fence option that shows them
_READ = {"linenos": "linenos", "emphasize-lines": "hl_lines", "caption": "title"}
DOCTEST_NOT_RUN = (
    "a ```{doctest} block is checked by Sybil; here it is shown, not run: add `execute: true` to the front matter "
    "(it then runs as a doctest)"
)
EVAL_RST = "a ```{eval-rst} block holds reStructuredText, which MyST renders; here it is shown as its text"


def plain_fences(state: StateCore, executes: bool, once: Callable[[str, Token, str], None]) -> None:
    """Each MyST code directive of the post as the fence it stands for (module docstring); `once` warns once a kind
    a post."""
    unread: list[str] = []
    first: Token | None = None
    for tok in state.tokens:
        if tok.type != "fence" or "{" not in tok.info:
            continue
        lang, options = fence_info(tok.info)
        if lang and any(name in options for name in SYBIL_DIRECTIVES):
            for name in SYBIL_DIRECTIVES:
                options.pop(name, None)
            at = Token("fence", "", 0, map=tok.map)  # the fence's line, before its option lines leave the code
            settings = drop_options(tok)
            for key, value in settings.items():
                if key in _READ:
                    options[_READ[key]] = _value(key, value)
                else:
                    unread.append(f":{key}:")
                    first = first or at
            tok.info = info_string(lang, options)
        elif not lang and "doctest" in options:
            del options["doctest"]
            tok.info = info_string("pycon", options)
            if not executes:
                once("doctest", tok, DOCTEST_NOT_RUN)
        elif not lang and "eval-rst" in options:
            tok.info = ""
            once("eval-rst", tok, EVAL_RST)
    if first is not None:
        names = ", ".join(dict.fromkeys(unread))
        warn(state, first, f"MyST code-block options not read here: {names}", "ignored", "read: " + ", ".join(_READ))


def _value(key: str, value: str) -> str:
    if key == "emphasize-lines":  # MyST's `2,4-6` is `2 4-6` here
        return " ".join(part for part in value.replace(",", " ").split())
    return value.strip()
