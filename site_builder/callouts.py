"""Admonitions as other tools write them, made this site's `:::` admonition tokens before the inline rule (so one
rule, admonitions.py's, names their kind and title and renders them):

- MkDocs and Python-Markdown: `!!! note "Title"` over an indented body, and Material's foldable `??? note` (folded)
  and `???+ note` (open), read by mdit-py-plugins' `admon` block rule;
- Quarto and Pandoc fenced divs: `::: {.callout-note}`, `::: {.callout-tip title="Title" collapse="true"}`, a
  first heading inside as the title, as Quarto takes it, and `::: {.warning}` (a class that names a kind).

A folded admonition (these, Obsidian's `> [!TIP]-`, MyST's `:class: dropdown` and `{dropdown}`) carries
`meta["fold"]`: "closed" or "open", and is rendered as a `<details>` whose `<summary>` is its title."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin

CLOSED, OPEN = "closed", "open"
_DIV = re.compile(r"\s*\{([^{}]*)\}\s*$")  # `{.callout-note title="A" collapse="true"}`
_DIV_PART = re.compile(r"""\.([\w-]+)|#[\w-]+|([\w-]+)=(?:"([^"]*)"|'([^']*)'|(\S+))""")
_QUOTED = re.compile(r'"(.*)"')  # MkDocs' title: `!!! note "Title"`


def div_callout(params: str, kinds: frozenset[str]) -> tuple[str, str, str] | None:
    """A fenced div's `{...}` as (kind, title, fold) when one of its classes is a callout (`.callout-note`,
    `.callout`) or names one of `kinds` (`.warning`); None for any other div (`{.column-margin}`)."""
    m = _DIV.match(params)
    if m is None:
        return None
    classes, attrs = [], {}
    for part in _DIV_PART.finditer(m[1]):
        if part[1]:
            classes.append(part[1].lower())
        elif part[2]:
            attrs[part[2].lower()] = next(v for v in part.group(3, 4, 5) if v is not None)
    kind = next((c.removeprefix("callout").lstrip("-") or "note" for c in classes if c.startswith("callout")), None)
    kind = kind or next((c for c in classes if c in kinds), None)
    if kind is None:
        return None
    fold = {"true": CLOSED, "false": OPEN}.get(attrs.get("collapse", "").lower(), "")
    return kind, attrs.get("title", ""), fold


def _mkdocs(tokens: list[Token], i: int) -> int:
    """mdit-py-plugins' `admonition_open` at `i` as a container's: how many of its tokens (its title's) to drop."""
    tok = tokens[i]
    params = tok.info.strip()
    title = _QUOTED.search(params)
    tok.type, tok.info = "container_admonition_open", f"{params.split()[0]} {title[1] if title else ''}".strip()
    if tok.markup.startswith("?"):
        tok.meta["fold"] = OPEN if tok.markup.endswith("+") else CLOSED
    return 3 if i + 3 < len(tokens) and tokens[i + 1].type == "admonition_title_open" else 0


def _quarto(tokens: list[Token], i: int, kinds: frozenset[str]) -> int:
    """A `::: {.callout-note}` container at `i` as `::: note Title` (its first element, a heading, is its title
    when it has no `title=`, as Quarto takes it): how many tokens to drop (the heading's)."""
    tok = tokens[i]
    callout = div_callout(tok.info, kinds)
    if callout is None:
        return 0
    kind, title, fold = callout
    drop = 0
    if not title and len(tokens) > i + 3 and tokens[i + 1].type == "heading_open" and tokens[i + 2].type == "inline":
        title, drop = tokens[i + 2].content.strip(), 3
    tok.info = f"{kind} {title}".strip()
    if fold:
        tok.meta["fold"] = fold
    return drop


def callouts(state: StateCore, kinds: frozenset[str]) -> None:
    """The core rule (after the block rule): MkDocs' admonitions and Quarto's callouts as `:::` containers."""
    if "!!!" not in state.src and "???" not in state.src and "::: {" not in state.src and ":::{" not in state.src:
        return
    out: list[Token] = []
    drop = 0
    for i, tok in enumerate(state.tokens):
        if drop:
            drop -= 1
            continue
        if tok.type == "admonition_open":
            drop = _mkdocs(state.tokens, i)
        elif tok.type == "admonition_close":
            tok.type = "container_admonition_close"
        elif tok.type == "container_admonition_open" and tok.info.lstrip().startswith("{"):
            drop = _quarto(state.tokens, i, kinds)  # MyST's `:::{note}` is left to its rule
        out.append(tok)
    state.tokens = out


def callouts_plugin(md: MarkdownIt, kinds: frozenset[str]) -> None:
    """MkDocs' `!!!`/`???` block rule, and the core rule that makes these and Quarto's callouts containers (right
    after the block rule, before MyST's directives: they take any other `:::{...}`). `kinds`: the admonitions'
    kinds (`.warning` is a callout). Used before admonitions.py's plugin, whose render rules replace `admon`'s."""
    md.use(admon_plugin)
    md.core.ruler.after("block", "callouts", lambda state: callouts(state, kinds))
