"""Quarto's code cells: a ```` ```{python} ```` block is a python block (it runs when the post executes), its
`#| key: value` lines Quarto's options for it, read as this site's fence options and taken out of the code:

    #| echo: false      {hide=code}   run, its outputs shown, not its code
    #| output: false    {hide=output} run, its code shown, not its outputs
    #| include: false   {hide}        run, nothing shown
    #| eval: false      {skip}        shown, not run
    #| error: true      {raises=Exception}  it must raise (Quarto shows the error and goes on)
    #| code-fold: true  {fold}        its code folded under a "Code" line (`show`: {fold=open})
    #| fig-cap: "..."   {caption=...} under the figures it draws; `fig-alt`: {alt=...}, their text

A post's `execute:` front matter in Quarto's form (`execute: {echo: false}`) gives every cell without its own
option those options. Options with no meaning here (`label`, `fig-cap`, `code-fold`...) are named in one warning
a post. Cells of Quarto's other engines (`{r}`, `{julia}`, `{ojs}`, `{bash}`) are shown as code of their language;
in a post that executes, a warning says they do not run (only Python does). A core rule, before MyST's directives
(which would take `{python}` for one)."""

from __future__ import annotations

import re
from typing import Any

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.fences import fence_info, info_string, warn

ENGINES = frozenset(["python", "r", "julia", "ojs", "bash", "sh", "sql", "octave", "stata", "sas", "matlab"])
READ = {  # (option, value) -> this site's fence option and its value
    ("echo", "false"): ("hide", "code"),
    ("output", "false"): ("hide", "output"),
    ("include", "false"): ("hide", ""),
    ("eval", "false"): ("skip", ""),
    ("error", "true"): ("raises", "Exception"),
    ("code-fold", "true"): ("fold", ""),
    ("code-fold", "show"): ("fold", "open"),
}
TEXTS = {"fig-cap": "caption", "fig-alt": "alt"}  # options whose value is the author's words
DEFAULTS = frozenset(
    [
        ("echo", "true"),
        ("output", "true"),
        ("include", "true"),
        ("eval", "true"),
        ("error", "false"),
        ("code-fold", "false"),
    ]
)
_DOCUMENT_KEYS = frozenset(key for key, _ in (*READ, *DEFAULTS))  # `execute:` options that are every cell's
_OPTION = re.compile(r"#\|\s*([\w.-]+)\s*:\s*(.*?)\s*")


def quarto_cells(state: StateCore) -> None:
    """The core rule: each ```` ```{engine} ```` fence as a fence of its language, its `#|` options read."""
    if "```{" not in state.src and "~~~{" not in state.src:
        return  # no cell (fast path)
    post = state.env.get("post")
    executes = bool(getattr(post, "execute", False))
    defaults = _document_options(getattr(post, "meta", {}))
    unread: dict[str, int] = {}  # option -> the line it is on (0-based, in the post's text)
    other: Token | None = None
    for tok in state.tokens:
        engine = _engine(tok)
        if engine is None:
            continue
        options = fence_info(tok.info)[1]
        del options[engine]
        start = tok.map[0] if tok.map else 0
        own = _drop_option_lines(tok)
        for key, value in {**defaults, **own}.items():
            if engine != "python":
                break
            if key in TEXTS:
                options.setdefault(TEXTS[key], value)
            elif (key, value.lower()) in READ:
                name, made = READ[key, value.lower()]
                options.setdefault(name, made)
            elif (key, value.lower()) not in DEFAULTS:
                unread.setdefault(f"{key}: {value}", start + 1 + list(own).index(key) if key in own else start)
        if engine != "python" and executes:
            other = other or tok
        tok.info = info_string(engine, options)
    if unread:
        line = min(unread.values())
        names = ", ".join(unread)
        read = ", ".join(f"{k}: {v}" for k, v in READ)
        at = Token("fence", "", 0, map=[line, line + 1])
        warn(state, at, f"Quarto cell options with no meaning here: {names}", "ignored", f"read: {read}")
    if other is not None:
        name = fence_info(other.info)[0]
        warn(state, other, f"a ```{{{name}}} cell is shown, not run (only Python cells run here)")


def _engine(tok: Token) -> str | None:
    """The engine of a Quarto cell (`{python}`, `{r echo=FALSE}`), or None: not a cell."""
    if tok.type != "fence" or not tok.info.lstrip().startswith("{"):
        return None
    lang, options = fence_info(tok.info)
    first = next(iter(options), "")
    return first if not lang and first in ENGINES else None


def _drop_option_lines(tok: Token) -> dict[str, str]:
    """The cell's `#| key: value` lines (at its top), out of its code: the first code line keeps its line number."""
    lines = tok.content.splitlines(keepends=True)
    settings: dict[str, str] = {}
    used = 0
    while used < len(lines) and (m := _OPTION.fullmatch(lines[used].rstrip("\n"))):
        settings[m[1]] = m[2].strip("'\"")
        used += 1
    if used and tok.map:
        tok.content = "".join(lines[used:])
        tok.map = [tok.map[0] + used, tok.map[1]]
    return settings


def _document_options(meta: dict[str, Any]) -> dict[str, str]:
    """Quarto's `execute:` front matter (`execute: {echo: false}`): every cell's options, unless it says otherwise."""
    found = meta.get("execute")
    if not isinstance(found, dict):
        return {}
    return {str(k): str(v).lower() for k, v in found.items() if str(k) in _DOCUMENT_KEYS}
