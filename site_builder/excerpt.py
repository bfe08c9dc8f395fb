"""A post's excerpt, for the lists and link previews of a post without a `summary`: what comes before a
`<!--more-->` line (Hugo's and Jekyll's summary divider; MkDocs Material writes `<!-- more -->`), else the start of
its first paragraphs, as plain text. Part of the render stage: a fragment carries it (`Rendered.excerpt`)."""

from __future__ import annotations

import html
import re

from site_builder.util.cjk import cjk

MORE = re.compile(r"<!--\s*more\s*-->", re.I)
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
DESCRIPTION_CHARS = 200


def excerpt(fragment: str) -> str:
    """The plain text of a post's HTML that stands for it in a list: every paragraph before `<!--more-->`, else
    the first paragraphs up to about DESCRIPTION_CHARS characters, a CJK one counting two (cut at a word or a CJK
    comma, with an ellipsis)."""
    more = MORE.search(fragment)
    if more is not None:  # the author's own cut, kept whole
        return " ".join(filter(None, (_plain(m[1]) for m in _PARAGRAPH.finditer(fragment, 0, more.start()))))
    text = ""
    for m in _PARAGRAPH.finditer(fragment):  # a short first paragraph ("Background") says little: read on
        text = f"{text} {_plain(m[1])}".strip()
        if len(text) >= DESCRIPTION_CHARS // 2:
            break
    if _width(text) > DESCRIPTION_CHARS:
        text = _cut(text).rstrip(",;:.，；：、。") + "…"
    return text


def _width(text: str) -> int:
    """Latin characters count one, CJK characters two: they are twice as wide, and say about as much as a word."""
    return len(text) + len(cjk().findall(text))


def _cut(text: str) -> str:
    """The start of `text` that is at most DESCRIPTION_CHARS wide, ended at a space or a CJK comma or stop in its
    second half."""
    end, width = 0, 0
    for end, ch in enumerate(text):  # noqa: B007 (end is used after the loop)
        width += 2 if cjk().match(ch) else 1
        if width > DESCRIPTION_CHARS:
            break
    head = text[:end]
    breaks = [head.rfind(mark) + (mark != " ") for mark in (" ", "，", "。", "；", "、", "？", "！")]
    at = max(breaks)
    return head[:at] if at > len(head) // 2 else head


def _plain(inner: str) -> str:
    return _SPACE.sub(" ", html.unescape(_TAG.sub("", inner))).strip()
