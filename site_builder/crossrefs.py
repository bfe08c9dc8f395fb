"""Quarto's (and Pandoc-crossref's) references in a post's text: `@sec-method` is a link to the heading whose id is
`sec-method` (`## Method {#sec-method}`, heading_attrs.py), its text the heading's. A reference to a figure, a table,
an equation or a listing (`@fig-x`, `@tbl-x`, `@eq-x`, `@lst-x`), which this site does not number, or to a section
the post does not have, stays as its text, with a warning at its line: it was shown as `@fig-x` without a word. So
does a Pandoc citation (`[@knuth1984, p. 3]`), which needs a bibliography this site does not read.

A core rule after the headings have their ids, before the anchors plugin reads them."""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.fences import warn

_REF = re.compile(r"(?<![\w@.])@((sec|fig|tbl|eq|lst|thm|lem|cor|prp|def|exm|exr)-[\w-]*\w)")
# Pandoc's citations: `[@knuth84, p. 3]`, `[-@knuth84]`; `[see @knuth84]` in a post with a `bibliography`
_CITATION = re.compile(r"\[-?@\w[\w:.#$%&+?<>~/-]*[^\[\]]*\]")
_CITATION_ANYWHERE = re.compile(r"\[[^\[\]]*?(?<![\w.])-?@\w[\w:.#$%&+?<>~/-]*[^\[\]]*\]")


def crossrefs(state: StateCore) -> None:
    """The core rule: each `@sec-...` a link to its heading; the others named in a warning."""
    if "@" not in state.src:
        return  # no reference (fast path)
    tokens = state.tokens
    titles = {
        str(tok.attrGet("id")): _text(tokens[i + 1])
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open" and tok.attrGet("id")
    }
    unresolved: dict[str, Token] = {}
    cited: dict[str, Token] = {}
    pattern = _CITATION_ANYWHERE if "bibliography" in getattr(state.env.get("post"), "meta", {}) else _CITATION
    for tok in tokens:
        if tok.type != "inline" or "@" not in tok.content or not tok.children:
            continue
        for child in tok.children:
            if child.type == "text" and "[" in child.content:
                for m in pattern.finditer(child.content):
                    cited.setdefault(m.group(0), tok)
        out: list[Token] = []
        depth = 0  # inside a link: its text stays text
        for child in tok.children:
            depth += {"link_open": 1, "link_close": -1}.get(child.type, 0)
            if child.type == "text" and "@" in child.content and not depth:
                out += _linked(child, titles, unresolved, tok)
            else:
                out.append(child)
        tok.children = out
    if cited:
        first = next(iter(cited.values()))
        names = ", ".join(cited)
        hint = "write the reference in the text or in a footnote (`[^1]`)"
        warn(state, first, f"Pandoc citations are not rendered here: {names}", "shown as their text", hint)
    if unresolved:
        names = ", ".join(f"@{name}" for name in unresolved)
        first = next(iter(unresolved.values()))
        hint = "a section's: write `{#sec-name}` after its heading; figures, tables and equations are not numbered here"
        warn(state, first, f"cross-references with nothing to refer to here: {names}", "shown as their text", hint)


def _linked(child: Token, titles: dict[str, str], unresolved: dict[str, Token], where: Token) -> list[Token]:
    """A text token as text and links: each `@sec-x` of a heading of the post a link to it."""
    out: list[Token] = []
    pos = 0
    for m in _REF.finditer(child.content):
        name, kind = m.group(1), m.group(2)
        if kind != "sec" or name not in titles:
            unresolved.setdefault(name, where)
            continue
        if m.start() > pos:
            out.append(_piece("text", child.content[pos : m.start()]))
        opening = _piece("link_open", "")
        opening.attrSet("href", f"#{name}")
        opening.nesting = 1
        closing = _piece("link_close", "")
        closing.nesting = -1
        out += [opening, _piece("text", titles[name]), closing]
        pos = m.end()
    if pos < len(child.content):
        out.append(_piece("text", child.content[pos:]))
    return out


def _piece(kind: str, content: str) -> Token:
    tok = Token(kind, "a" if kind.startswith("link") else "", 0)
    tok.content = content
    return tok


def _text(inline: Token) -> str:
    """A heading's text as a reader sees it (its code's and its text's)."""
    return "".join(k.content for k in inline.children or [] if k.type in ("text", "code_inline")).strip()
