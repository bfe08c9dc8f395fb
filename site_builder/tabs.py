"""Tabs: consecutive `::: tab Label` blocks are one set, of which a reader sees one panel at a time (the same code in
two languages, pip and conda):

    ::: tab Python
    ```python
    print(1)
    ```
    :::

    ::: tab Java
    ...
    :::

Their bodies are Markdown like any other (code in them runs and is checked). Written `:::: tab` (four colons), a tab
holds `:::` blocks (an admonition). Quarto's `::: {.panel-tabset}`, whose headings of its first heading's level are
its tabs, and MyST's `{tab-set}` of `{tab-item} Label` (myst_directives.py) are made these.

Rendered without a script: each tab a radio input and its label, then its panel, all in `<div class="tabs">`; the
theme's CSS shows the checked tab's panel, and arrow keys move between the labels as between radio buttons. Where
there is no CSS (a feed reader), each label is followed by its panel."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.container import container_plugin

_TAB = re.compile(r"\s*tab(?:\s+(.*?))?\s*$")
_TABSET = re.compile(r"\s*\{[^{}]*\.panel-tabset\b[^{}]*\}\s*$")  # Quarto's `{.panel-tabset}`


def _tokens(kind: str, nesting: Literal[-1, 1], level: int, source: Token, **meta: object) -> Token:
    tok = Token(kind, "div", nesting)
    tok.block, tok.level, tok.map, tok.meta = True, level, source.map, dict(meta)
    return tok


def _label(tok: Token, n: int, m: int) -> list[Token]:
    """A tab's label tokens (its text parsed inline later), for the tab opening at `tok`."""
    named = _TAB.match(tok.info)
    text = (named[1] if named else "") or f"Tab {m}"
    inline = Token("inline", "", 0)
    inline.content, inline.children, inline.map, inline.level = text, [], tok.map, tok.level + 1
    return [
        _tokens("tab_label_open", 1, tok.level, tok, set=n, tab=m),
        inline,
        _tokens("tab_label_close", -1, tok.level, tok),
    ]


def _tabsets(tokens: list[Token]) -> list[Token]:
    """Quarto's `{.panel-tabset}`: each heading of its first heading's level (directly in it) opens a tab."""
    out: list[Token] = []
    stack: list[str | None] = []  # per open tabset: the tag of its tabs' headings (None before the first)
    skip = 0
    for i, tok in enumerate(tokens):
        if skip:
            skip -= 1
            continue
        if tok.type == "container_tabset_open":
            stack.append(None)
            continue
        if tok.type == "container_tabset_close":
            if stack.pop() is not None:  # the set ends here, even if tabs follow
                out.append(_tokens("container_tab_close", -1, tok.level, tok, last=True))
            continue
        if stack and tok.type == "heading_open" and stack[-1] in (None, tok.tag) and i + 2 < len(tokens):
            if stack[-1] is not None:
                out.append(_tokens("container_tab_close", -1, tok.level, tok))
            opener = _tokens("container_tab_open", 1, tok.level, tok, first=stack[-1] is None)
            stack[-1] = tok.tag
            opener.info = f"tab {tokens[i + 1].content}"
            out.append(opener)
            skip = 2
            continue
        out.append(tok)
    return out


def tab_sets(state: StateCore) -> None:
    """The core rule (before the inline rule): runs of `::: tab` blocks as sets of tabs."""
    if ":::" not in state.src and "tab-item" not in state.src:
        return  # no `:::` block, no MyST tab (fast path)
    tokens = _tabsets(state.tokens) if "panel-tabset" in state.src else state.tokens
    out: list[Token] = []
    m = 0
    for i, tok in enumerate(tokens):
        if tok.type == "container_tab_open":
            if m and tok.meta.get("first"):  # a set of its own (Quarto's, MyST's) after other tabs
                out.append(_tokens("tabs_close", -1, tok.level, tok))
                m = 0
            if m == 0:  # the first of a run
                n = state.env["tab_sets"] = state.env.get("tab_sets", 0) + 1
                out.append(_tokens("tabs_open", 1, tok.level, tok))
            m += 1
            out += [*_label(tok, n, m), _tokens("tab_panel_open", 1, tok.level, tok)]
        elif tok.type == "container_tab_close":
            out.append(_tokens("tab_panel_close", -1, tok.level, tok))
            after = tokens[i + 1] if i + 1 < len(tokens) else None
            if tok.meta.get("last") or after is None or after.type != "container_tab_open" or after.level != tok.level:
                out.append(_tokens("tabs_close", -1, tok.level, tok))
                m = 0
        else:
            out.append(tok)
    state.tokens = out


def _render(html: str) -> Any:
    def rule(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return html

    return rule


def _label_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    n, m = tokens[idx].meta["set"], tokens[idx].meta["tab"]
    checked = " checked" if m == 1 else ""
    return (
        f'<input type="radio" class="tab-input" name="tab.{n}" id="tab.{n}.{m}"{checked}>'
        f'<label class="tab-label" for="tab.{n}.{m}">'
    )


def tabs_plugin(md: MarkdownIt) -> None:
    """`::: tab Label` blocks (and Quarto's `{.panel-tabset}`) and their HTML; `tab_sets` is added by the parser,
    after the rules that make tabs of other syntaxes."""
    container_plugin(md, name="tab", validate=lambda params, markup: _TAB.match(params) is not None)
    container_plugin(md, name="tabset", validate=lambda params, markup: _TABSET.match(params) is not None)
    for name, html in (
        ("tabs_open", '<div class="tabs">\n'),
        ("tabs_close", "</div>\n"),
        ("tab_label_close", "</label>\n"),
        ("tab_panel_open", '<div class="tab-panel">\n'),
        ("tab_panel_close", "</div>\n"),
    ):
        md.add_render_rule(name, _render(html))
    md.add_render_rule("tab_label_open", _label_open)
