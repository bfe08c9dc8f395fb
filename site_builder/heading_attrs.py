"""A heading's attributes written after its text, as Pandoc, Quarto, kramdown, Hugo (goldmark) and MkDocs (attr_list)
read them: `## Method {#sec-method}` is the heading "Method" with the id `sec-method` (a link to `#sec-method`
reaches it); `{#id .class}`, `{: #id}` (kramdown) and Pandoc's `{-}` / `{.unnumbered}` are read the same way, the
classes and other attributes left out (they style the old theme's heading). Before, the braces were shown as part
of the heading and its id was made from them.

A core rule, before `parse._heading_ids` (which keeps an id written in the source); an id two headings give is a
warning at the second, which gets the id made from its text."""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore

from site_builder.fences import warn

_ATTRS = re.compile(r"""\s*\{:?\s*((?:(?:[#.][\w:.-]+|-|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s}]+))\s*)+)\}\s*$""")
_ID = re.compile(r"(?:^|\s)#([\w:.-]+)")


def heading_attributes(state: StateCore) -> None:
    """The core rule: each heading's trailing `{...}` out of its text, its `#id` its id."""
    if "{" not in state.src:
        return  # no attributes (fast path)
    tokens = state.tokens
    given: set[str] = set()
    for i, tok in enumerate(tokens):
        if tok.type != "heading_open" or i + 1 >= len(tokens):
            continue
        inline = tokens[i + 1]
        kids = inline.children or []
        if not kids or kids[-1].type != "text" or not (m := _ATTRS.search(kids[-1].content)):
            continue
        kids[-1].content = kids[-1].content[: m.start()]
        inline.content = _ATTRS.sub("", inline.content)
        if not kids[-1].content:
            kids.pop()
        found = _ID.search(m.group(1))
        if found is None:
            continue
        ident = found.group(1)
        if ident in given:
            warn(
                state, tok, f"heading id {ident!r} is given to an earlier heading too", "this one's made from its text"
            )
            continue
        given.add(ident)
        tok.attrSet("id", ident)
