"""A post's excerpt, for the lists and link previews of a post without a `summary`: what comes before a
`<!--more-->` line (Hugo's and Jekyll's summary divider; MkDocs Material writes `<!-- more -->`), else the start of
its first paragraphs, as plain text, its formulas as their TeX (`$L$`); and, for an excerpt with formulas or inline
code, the same as HTML with them as MathML and `<code>` (escaped), which cards show (`excerpt_html`). Part of the
render stage: a fragment carries them (`Rendered.excerpt`, `Rendered.excerpt_html`). `summary_html` is a front
matter summary's HTML, its `$..$` rendered.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import markupsafe

from site_builder.util.cjk import cjk

MORE = re.compile(r"<!--\s*more\s*-->", re.I)
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
_CAPTION = re.compile(r"<figcaption>(.*?)</figcaption>", re.S)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
DESCRIPTION_CHARS = 200
_MATH = re.compile(r"<math\b.*?</math>", re.S)
_TEX = re.compile(r'<annotation encoding="application/x-tex">(.*?)</annotation>', re.S)
_HELD = 0xE000  # a formula stands as one private-use character (U+E000 + its index) while the text is cut
_HOLDS = 0x1900  # as many as the private use area has
_CODE = re.compile(r"<code\b[^>]*>(.*?)</code>", re.S)
# inline code's text stands between these two (Unicode's annotation marks, never in a post's text) while the text
# is cut: it counts as its characters, and a cut inside it still closes it
_OPEN, _CLOSE = "\ufff9", "\ufffb"


def excerpt_parts(fragment: str) -> tuple[str, str]:
    """(the excerpt as plain text, its formulas as `$TeX$`; the same as HTML with them as MathML and its inline
    code as `<code>`, "" when it holds neither). Only the paragraphs read are looked into (a long post has
    hundreds of formulas)."""
    formulas: list[str] = []

    def hold(m: re.Match[str]) -> str:
        if len(formulas) >= _HOLDS:
            return m[0]
        formulas.append(m[0])
        return chr(_HELD + len(formulas) - 1)

    def keep(inner: str) -> str:
        inner = _MATH.sub(hold, inner) if "<math" in inner else inner
        return _CODE.sub(lambda m: f"{_OPEN}{m[1]}{_CLOSE}", inner) if "<code" in inner else inner

    text = excerpt(fragment, keep)
    held = [chr(_HELD + i) for i in range(len(formulas)) if chr(_HELD + i) in text]
    if _OPEN in text:
        text, shown = _code_spans(text)
    elif not held:
        return text, ""
    else:
        shown = str(markupsafe.escape(text))
    for ch in held:
        mathml = formulas[ord(ch) - _HELD]
        tex = _TEX.search(mathml)
        text = text.replace(ch, f"${html.unescape(tex[1]).strip()}$" if tex else "")
        shown = shown.replace(ch, mathml.replace(' display="block"', "", 1))
    return text, shown


def _code_spans(text: str) -> tuple[str, str]:
    """The excerpt's text with its code spans' marks taken out, and its HTML (escaped) with them as `<code>`: one
    the cut left open is closed before the ellipsis."""
    text = text.replace(_OPEN + "…", "…").removesuffix(_OPEN)  # cut right where a span began: none
    shown = str(markupsafe.escape(text)).replace(_OPEN, "<code>").replace(_CLOSE, "</code>")
    if shown.count("<code>") > shown.count("</code>"):
        shown = shown.removesuffix("…") + "</code>" + ("…" if shown.endswith("…") else "")
    return text.replace(_OPEN, "").replace(_CLOSE, ""), shown


def excerpt(fragment: str, keep: Callable[[str], str] = str) -> str:
    """The plain text of a post's HTML that stands for it in a list: every paragraph before `<!--more-->`, else
    the first paragraphs up to about DESCRIPTION_CHARS characters, a CJK one counting two (cut at a word or a CJK
    comma, with an ellipsis); a post with no paragraph, its figures' captions. `keep` is given each paragraph's
    HTML before its tags are stripped."""
    more = MORE.search(fragment)
    if more is not None:  # the author's own cut, kept whole
        return " ".join(filter(None, (_plain(keep(m[1])) for m in _PARAGRAPH.finditer(fragment, 0, more.start()))))
    text = ""
    for m in _PARAGRAPH.finditer(fragment):  # a short first paragraph ("Background") says little: read on
        text = f"{text} {_plain(keep(m[1]))}".strip()
        if len(text) >= DESCRIPTION_CHARS // 2:
            break
    if not text and "<figcaption>" in fragment:  # a post of figures alone: their captions say what it shows
        text = " ".join(filter(None, (_plain(keep(m[1])) for m in _CAPTION.finditer(fragment))))
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


@lru_cache(maxsize=4096)
def summary_html(summary: str, macros: tuple[tuple[str, str], ...] = ()) -> str:
    """A front matter summary as cards show it: its formulas (`$L$`, `$$x$$`, read as in a post) as inline MathML,
    the rest its text, escaped; "" when it holds no formula (cards then show the text itself)."""
    if "$" not in summary:
        return ""
    from site_builder.mathtex import render_math  # for a summary with dollars only

    tokens = _summary_parser().parseInline(summary, {})
    children = tokens[0].children or [] if tokens else []
    if not any(t.type.startswith("math") for t in children):
        return ""
    for tok in children:
        tok.type = "math_inline" if tok.type.startswith("math") else tok.type
    env: dict[str, Any] = {"math_macros": macros}
    render_math(tokens, env)
    return "".join(
        env["math"][id(t)] if t.type == "math_inline" else str(markupsafe.escape(t.content)) for t in children
    )


@lru_cache(maxsize=1)
def _summary_parser() -> Any:
    """markdown-it with nothing but text and dollar math: a summary's other characters stay as written."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    from site_builder.mathsyntax import inline_braced

    md = MarkdownIt("zero").use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
    md.inline.ruler.before("math_inline", "math_inline_braced", inline_braced)
    return md
