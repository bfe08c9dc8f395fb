"""Math in imported HTML: MathML (with its TeX annotation), MathJax script tags and TeX delimiters in text, turned
into math elements the Markdown converter writes as `$...$` and `$$...$$`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from bs4 import Tag
from bs4.element import Comment, NavigableString

from site_builder.importer.html2md import Doc, attr
from site_builder.importer.sanitize import raw_html
from site_builder.importer.text import tex_markdown

CODE_SKIP = {"pre", "code", "kbd", "samp", "tt", "script", "style", "textarea", "math"}


def classes(el: Tag) -> list[str]:
    return attr(el, "class").split()


def math_tag(doc: Doc, tex: str, display: bool, label: str = "") -> Tag:
    """A formula's placeholder: its TeX written by `tex_markdown`, the one way TeX taken from HTML becomes Markdown."""
    block, one_line = tex_markdown(tex, display, label)
    return doc.block(block, one_line) if display else doc.inline(one_line, math=True)


def convert_mathml(doc: Doc) -> None:
    """Our builder's MathML (with a TeX annotation) -> `$..$` / `$$..$$`."""
    for math in doc.soup.find_all("math"):
        if math.parent is None:
            continue
        ann = math.find("annotation", attrs={"encoding": "application/x-tex"})
        if ann is None:
            doc.warn("kept a MathML formula without a TeX annotation as raw MathML")
            math.replace_with(doc.inline(raw_html(math).replace("\n", " ")))
            continue
        tex = ann.get_text()
        display = math.get("display") == "block"
        parent = math.parent
        pcls = classes(parent) if isinstance(parent, Tag) else []
        if parent.name == "span" and "math" in pcls and "display" in pcls:
            parent.replace_with(doc.inline(tex_markdown(tex, True)[1]))
        elif parent.name == "div" and "math" in pcls:
            eqno = parent.find("span", class_="eqno")
            label = attr(parent, "id") or (eqno.get_text().strip("() ") if eqno else "")
            parent.replace_with(math_tag(doc, tex, True, label))
        else:
            math.replace_with(math_tag(doc, tex, display))


_DELIMS = re.compile(r"\\\(|\\\[|\$\$|(?<!\\)\$|\\begin\{|\\(?:eq)?ref\{")
_ENV = re.compile(r"\\begin\{((?:equation|align|alignat|gather|multline|eqnarray|flalign)\*?)\}")
_REF = re.compile(r"\\(?:eq)?ref\{[^{}\s]*\}")


def _find_math(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """Yield (start, end, tex, display) for each math span in a text node."""
    pos = 0
    while True:
        m = _DELIMS.search(text, pos)
        if not m:
            return
        d = m.group()
        start = m.start()
        if d.startswith(("\\begin", "\\ref", "\\eqref")):  # LaTeX written straight into the text, as MathJax reads it
            bare = _bare_latex(text, start)
            if bare is None:
                pos = m.end()
                continue
            yield bare
            pos = bare[1]
        elif d in ("\\(", "\\["):
            close = "\\)" if d == "\\(" else "\\]"
            end = text.find(close, m.end())
            if end < 0:
                pos = m.end()
                continue
            yield start, end + 2, text[m.end() : end], d == "\\["
            pos = end + 2
        elif d == "$$":
            end = text.find("$$", m.end())
            if end < 0 or not text[m.end() : end].strip():
                pos = m.end()
                continue
            yield start, end + 2, text[m.end() : end], True
            pos = end + 2
        else:
            # `$tex$`: no space just inside, no digit right after the closing `$`, one paragraph
            nxt = text[m.end() : m.end() + 1]
            if not nxt or nxt.isspace():
                pos = m.end()
                continue
            found = None
            search = m.end()
            while True:
                end = text.find("$", search)
                if end < 0:
                    break
                if text[end - 1] == "\\" or text[end + 1 : end + 2] == "$":
                    search = end + 1 + (text[end + 1 : end + 2] == "$")
                    continue
                found = end
                break
            if found is None:
                pos = m.end()
                continue
            body = text[m.end() : found]
            after = text[found + 1 : found + 2]
            if body[-1:].isspace() or after.isdigit() or "\n\n" in body:
                pos = m.end()
                continue
            yield start, found + 1, body, False
            pos = found + 1


def _bare_latex(text: str, start: int) -> tuple[int, int, str, bool] | None:
    """A numbered environment (`\\begin{align}..\\end{align}`: display math) or a reference (`\\eqref{x}`:
    inline math) starting at `start`, outside any delimiters; None for anything else."""
    env = _ENV.match(text, start)
    if env is not None:
        close = text.find(f"\\end{{{env[1]}}}", env.end())
        if close < 0:
            return None
        end = close + len(f"\\end{{{env[1]}}}")
        return start, end, text[start:end], True
    ref = _REF.match(text, start)
    return (start, ref.end(), ref.group(), False) if ref is not None else None


def convert_text_math(doc: Doc) -> None:
    """`\\(..\\)`, `$..$` -> inline math; `\\[..\\]`, `$$..$$` -> display math blocks."""
    for node in list(doc.soup.find_all(string=True)):
        if isinstance(node, Comment) or node.parent is None:
            continue
        if any(p.name in CODE_SKIP for p in node.parents if isinstance(p, Tag)):
            continue
        text = str(node)
        if not _DELIMS.search(text):
            continue
        pieces: list[Any] = []
        pos = 0
        for start, end, tex, display in _find_math(text):
            if start > pos:
                pieces.append(NavigableString(text[pos:start]))
            pieces.append(math_tag(doc, tex, display))
            pos = end
        if not pieces:
            continue
        if pos < len(text):
            pieces.append(NavigableString(text[pos:]))
        for piece in pieces:
            node.insert_before(piece)
        node.extract()
    for node in doc.soup.find_all(string=re.compile(r"\\[(\[]")):
        if not any(p.name in CODE_SKIP for p in node.parents if isinstance(p, Tag)):
            doc.warn(f"unmatched math delimiter left as text near {str(node).strip()[:40]!r}")
