"""Poems whose lines alternate Chinese and English -> the builder's `::: bilingual` block.

Two sources: our own renderer's `<div class="bilingual">` (read back as it is), and a run of at least two
consecutive `<p>` stanzas whose `<br>`-separated lines alternate a Chinese and a Latin line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from bs4 import Tag
from bs4.element import Comment, NavigableString

from site_builder.importer.html2md import _BLOCK_NAMES, Doc, attr
from site_builder.importer.text import line_script

# elements a run of stanzas may sit in (not lists, tables, captions or footnotes)
_HOLDERS = {"[document]", "blockquote", "div", "section", "article", "main", "aside"}
_NOT_IN_A_LINE = _BLOCK_NAMES | {"img", "picture", "figure", "video", "audio", "iframe", "svg", "hr", "br"}


def _classes(el: Tag) -> list[str]:
    return attr(el, "class").split()


def _has_content(node: object) -> bool:
    if isinstance(node, Comment):
        return False
    if isinstance(node, NavigableString):
        return bool(str(node).strip())
    return True


def _text(nodes: list[Any]) -> str:
    return "".join(
        str(n) if isinstance(n, NavigableString) else n.get_text() for n in nodes if not isinstance(n, Comment)
    )


def _lines(p: Tag) -> list[list[Any]] | None:
    """The children of a paragraph split at its `<br>`s, or None when it holds more than inline text."""
    lines: list[list[Any]] = [[]]
    for child in p.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, Tag):
            if child.name == "br":
                lines.append([])
                continue
            if (
                child.name in _NOT_IN_A_LINE
                or child.has_attr("data-md-block")
                or child.find(lambda t: t.name in _NOT_IN_A_LINE or t.has_attr("data-md-block")) is not None
            ):
                return None
        lines[-1].append(child)
    if not all(any(_has_content(n) for n in line) for line in lines):
        return None  # an empty line (`<br><br>`) is not part of a stanza
    return lines


def _stanza(p: Tag) -> tuple[list[list[Any]], str] | None:
    """(lines, script of the first line) when `p` is two or more lines alternating Chinese and Latin."""
    lines = _lines(p)
    if lines is None or len(lines) < 2:
        return None
    texts = [_text(line).strip() for line in lines]
    if any(t.endswith((":", "：")) for t in texts):
        return None  # `She wrote:<br>“…”` introduces a quote; it is prose, not a stanza
    scripts = [line_script(t) for t in texts]
    first = scripts[0]
    if first is None or None in scripts or any(a == b for a, b in pairwise(scripts)):
        return None
    return lines, first


def _line_markdown(doc: Doc, nodes: list[Any]) -> str:
    """One line of inline Markdown (bold, italics, links... kept), its whitespace collapsed to single spaces."""
    holder = doc.soup.new_tag("span")
    for node in nodes:
        holder.append(node.extract())
    for s in list(holder.find_all(string=True)):
        if not isinstance(s, Comment) and re.search(r"[\t\r\n]|  ", str(s)):
            s.replace_with(re.sub(r"[ \t\r\n]+", " ", str(s)))
    return " ".join(doc.fragment(holder).split("\n")).strip()


def _block(doc: Doc, stanzas: list[list[list[Any]]]) -> Tag:
    rendered = [[_line_markdown(doc, line) for line in lines] for lines in stanzas]
    markdown = "::: bilingual\n" + "\n\n".join("\n".join(lines) for lines in rendered) + "\n:::"
    return doc.block(markdown, " ".join(line for lines in rendered for line in lines))


def _siblings_after(el: Tag) -> Iterator[Tag | None]:
    """The element siblings after `el`; stops (yields None) at text that is not blank."""
    sib = el.next_sibling
    while sib is not None:
        if isinstance(sib, Tag):
            yield sib
        elif _has_content(sib):
            yield None
            return
        sib = sib.next_sibling


def _in_holder(p: Tag) -> bool:
    return all(a.name in _HOLDERS and not a.has_attr("data-md-block") for a in p.parents)


def convert_bilingual(doc: Doc) -> None:
    """Our `<div class="bilingual">` and runs of alternating Chinese/English stanzas -> `::: bilingual`."""
    for div in doc.soup.find_all("div", class_="bilingual"):
        kids = [c for c in div.children if _has_content(c)]
        paragraphs = [c for c in kids if isinstance(c, Tag) and c.name == "p"]
        if not kids or len(paragraphs) != len(kids):
            continue
        found = [_lines(p) for p in paragraphs]
        stanzas = [lines for lines in found if lines is not None]
        if len(stanzas) != len(found):
            continue
        div.replace_with(_block(doc, stanzas))

    done: set[int] = set()
    for p in doc.soup.find_all("p"):
        if id(p) in done or p.parent is None or not _in_holder(p):
            continue
        first = _stanza(p)
        if first is None:
            continue
        run, script = [(p, first[0])], first[1]
        for sib in _siblings_after(p):
            stanza = _stanza(sib) if sib is not None and sib.name == "p" else None
            if sib is None or stanza is None or stanza[1] != script:
                break
            run.append((sib, stanza[0]))
        done.update(id(el) for el, _ in run)
        if len(run) < 2:
            continue
        block = _block(doc, [lines for _, lines in run])
        p.replace_with(block)
        for el, _ in run[1:]:
            el.decompose()
