"""A title's inline code, as Jekyll themes show it (``Liquid Tag `{% raw %}` in Jekyll``): a `<code>` in the pages
(the rest of the title escaped, never read as HTML or other Markdown); in text-only places (`<title>`, feeds,
social cards) the code's text without its backticks."""

from __future__ import annotations

import re
from html import escape

import markupsafe

# a CommonMark code span: a run of backticks, then the same run (no longer one) closing it
_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)


def _inner(code: str) -> str:
    """A code span's text: one space stripped from each end when both have one (CommonMark)."""
    return code[1:-1] if len(code) > 2 and code[0] == code[-1] == " " and code.strip() else code


def title_html(title: object) -> markupsafe.Markup:
    """The title as HTML: its code spans as `<code>`, everything escaped."""
    text = str(title) if title is not None else ""
    out, pos = [], 0
    for m in _CODE.finditer(text):
        out.append(escape(text[pos : m.start()], quote=False) + f"<code>{escape(_inner(m[2]), quote=False)}</code>")
        pos = m.end()
    return markupsafe.Markup("".join(out) + escape(text[pos:], quote=False))


def title_text(title: str) -> str:
    """The title as plain text: its code spans' text without the backticks."""
    return _CODE.sub(lambda m: _inner(m[2]), title) if "`" in title else title
