"""A post's table of contents: its h2 and h3 headings (render stage), shown when there are enough of them and the
front matter does not say `toc: false` (assemble stage), as a tree of two levels for the template."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from site_builder.models import Post

if TYPE_CHECKING:  # TocEntry is in the build cache: loading it must not load markdown-it
    from markdown_it.token import Token

MIN_HEADINGS = 3  # fewer headings: no table of contents
# no link in a link, no footnote mark, no bold in a list of bold headings (`### **Static assignment**`)
_DROPPED = {"link_open", "link_close", "footnote_ref", "html_inline", "strong_open", "strong_close"}


@dataclass
class TocEntry:
    """One heading: its id, its text as HTML (code, italics, math kept; links, images, notes, bold not), its level."""

    id: str
    html: str
    level: int
    children: list[TocEntry] = field(default_factory=list)  # the h3s under an h2, in the tree `shown_toc` gives


def _title_tokens(children: list[Token]) -> list[Token]:
    """A heading's inline tokens for the contents: up to its permalink, images as their alt text."""
    from markdown_it.token import Token

    kept = []
    for child in children:
        if child.type == "link_open" and child.attrGet("class") == "header-anchor":
            break
        if child.type == "image":
            child = Token("text", "", 0, content=child.content)
        if child.type not in _DROPPED:
            kept.append(child)
    return kept


def toc_entries(tokens: list[Token], render_inline: Callable[[list[Token]], str]) -> list[TocEntry]:
    """The h2 and h3 headings of the post's own text (not those inside lists, quotes or blocks), in order."""
    return [
        TocEntry(
            str(tok.attrGet("id") or ""), render_inline(_title_tokens(tokens[i + 1].children or [])).strip(), level
        )
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open" and (level := int(tok.tag[1])) in (2, 3) and tok.level == 0 and tok.attrGet("id")
    ]


def shown_toc(post: Post, entries: list[TocEntry]) -> list[TocEntry]:
    """The contents a post's page shows: none with fewer than MIN_HEADINGS headings or `toc: false`; else the
    headings of the highest level there, each with the ones below it until the next."""
    if post.meta.get("toc") is False or len(entries) < MIN_HEADINGS:
        return []
    top = min(e.level for e in entries)
    tree: list[TocEntry] = []
    for entry in entries:
        if entry.level == top or not tree:
            tree.append(replace(entry, children=[]))
        else:
            tree[-1].children.append(replace(entry, children=[]))
    return tree
