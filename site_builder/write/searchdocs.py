"""What Pagefind reads of a post's page: a search document with only what its index takes from the page.

A post's page is ~11 KB, of which the index keeps the text of `data-pagefind-body` (the article): the head, header,
navigation, related posts and footer are only parsed to be skipped. Inside the article, each Pygments token is a
`<span>` and each formula is MathML with its TeX in an `<annotation>` (the only part indexed, write/search.py's
MATH_SYMBOLS); Pagefind's time goes with the elements it parses. So the document is the page's `<html lang>`, its
`<title>`, and its article element, with the code's token spans taken off (their text stays, in the same place) and
each formula as its TeX in a `<span>`. Pagefind then gives each page the same fragment (its URL, text, title and
anchors, byte for byte) as from the page itself, in 0.6 of the time (bench/README.md, "Search").

Only spans that are nothing but a class (Pygments' own) are taken off, and only inside a `<pre>`: a span with
another attribute (`data-pagefind-ignore`) stays, and so does every `<pre>` holding one. A formula without a TeX
annotation stays as it is.
"""

from __future__ import annotations

import re

_BODY = b"data-pagefind-body"
_LANG = re.compile(rb'<html[^>]*\blang="[^"]*"')
_TITLE = re.compile(rb"<title>.*?</title>", re.S)
_SPAN = re.compile(rb'<span class="[^"<>]*">|</span>')
_TEX = b'<annotation encoding="application/x-tex">'
_MATH_END = b"</annotation></semantics></math>"
_END = b"</math>"


def search_document(page: bytes) -> bytes | None:
    """The search document of a page's HTML (None when the page has no `data-pagefind-body` element)."""
    at = page.find(_BODY)
    while at >= 0 and page.rfind(b"<", 0, at) < page.rfind(b">", 0, at):  # in text (a title), not in a tag
        at = page.find(_BODY, at + 1)
    start = page.rfind(b"<", 0, at)
    end = page.rfind(b"</article>")
    if at < 0 or end < at or not page.startswith(b"<article", start):
        return None  # the page as it is
    lang = _LANG.search(page, 0, start)
    title = _TITLE.search(page, 0, start)
    body = _code(_formulas(page[start : end + len(b"</article>")]))
    return b"".join(
        [
            b"<!DOCTYPE html>\n",
            lang.group(0) if lang else b"<html",
            b'>\n<head><meta charset="utf-8">',
            title.group(0) if title else b"",
            b"</head>\n<body>",
            body,
            b"</body>\n</html>\n",
        ]
    )


def _code(html: bytes) -> bytes:
    """Each `<pre>` without its token spans, when they are all spans of a class alone."""
    out: list[bytes] = []
    pos = 0
    while (start := html.find(b"<pre", pos)) >= 0:
        close = html.find(b"</pre>", start)
        if close < 0:
            break
        block = html[start:close]
        plain = _SPAN.sub(b"", block) if b"<span" in block else block
        out += [html[pos:start], block if b"<span" in plain else plain]
        pos = close
    out.append(html[pos:])
    return b"".join(out)


def _formulas(html: bytes) -> bytes:
    """Each `<math>` with a TeX annotation as `<span>TeX</span>` (what the index holds of it)."""
    out: list[bytes] = []
    pos = 0
    while (start := html.find(b"<math", pos)) >= 0:
        close = html.find(_END, start) + len(_END)
        if close < len(_END):
            break
        tex = html.find(_TEX, start, close)
        if tex < 0 or not html.startswith(_MATH_END, close - len(_MATH_END)):
            out.append(html[pos:close])
        else:
            out += [html[pos:start], b"<span>", html[tex + len(_TEX) : close - len(_MATH_END)], b"</span>"]
        pos = close
    out.append(html[pos:])
    return b"".join(out)
