"""A post's excerpt, for the lists and link previews of a post without a `summary`: what comes before a
`<!--more-->` line (Hugo's and Jekyll's summary divider; MkDocs Material writes `<!-- more -->`), else the start of
its first paragraphs, as plain text. Part of the render stage: a fragment carries it (`Rendered.excerpt`)."""

from __future__ import annotations

import html
import re

MORE = re.compile(r"<!--\s*more\s*-->", re.I)
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
DESCRIPTION_CHARS = 200


def excerpt(fragment: str) -> str:
    """The plain text of a post's HTML that stands for it in a list: every paragraph before `<!--more-->`, else
    the first paragraphs up to about DESCRIPTION_CHARS characters (cut at a word, with an ellipsis)."""
    more = MORE.search(fragment)
    if more is not None:  # the author's own cut, kept whole
        return " ".join(filter(None, (_plain(m[1]) for m in _PARAGRAPH.finditer(fragment, 0, more.start()))))
    text = ""
    for m in _PARAGRAPH.finditer(fragment):  # a short first paragraph ("Background") says little: read on
        text = f"{text} {_plain(m[1])}".strip()
        if len(text) >= DESCRIPTION_CHARS // 2:
            break
    if len(text) > DESCRIPTION_CHARS:
        cut = (
            text[:DESCRIPTION_CHARS].rsplit(" ", 1)[0] if " " in text[:DESCRIPTION_CHARS] else text[:DESCRIPTION_CHARS]
        )
        text = cut.rstrip(",;:.") + "…"
    return text


def _plain(inner: str) -> str:
    return _SPACE.sub(" ", html.unescape(_TAG.sub("", inner))).strip()
