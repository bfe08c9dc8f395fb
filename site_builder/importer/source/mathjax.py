"""Math as MathJax (or KaTeX) read it in a source whose pages they rendered, where our TeX reading differs.

- `escaped_dollars` (a rule, rules.py): `$\\$$`, a formula that is only an escaped dollar (how MathJax sites write
  a price next to inline math), is the dollar sign MathJax showed: `\\$` in Markdown. Left as it is, `$\\$$40`
  reads as `$$` here.
- `site_macros`: commands MathJax and KaTeX know in math and math-core does not (`\\textup`, `\\hbox`...:
  jeremykun's posts hold 554 `\\textup`), as site.yml `math_macros` of what they mean, for those the posts use
  (the author's text keeps them; notebooks' Markdown cells, which no rule rewrites, too).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from site_builder.importer.source.model import SourceDoc
from site_builder.importer.source.rules import RuleContext, sub_outside_code

_DOLLAR_ONLY = re.compile(r"(?<![\\$])\$\\\$\$(?!\$)")

# command -> what it means in math-core's TeX (each checked: math-core 0.9 does not know the command, reads this)
KNOWN_ELSEWHERE = {
    "textup": "\\textrm{#1}",
    "textmd": "\\textrm{#1}",
    "textnormal": "\\textrm{#1}",
    "textsl": "\\textit{#1}",
    "hbox": "\\text{#1}",
    "mathbbm": "\\mathbb{#1}",
}  # \mbox, \TeX, \LaTeX: the build reads them (mathtex.prepare_tex)
_USED = re.compile(r"\\(" + "|".join(KNOWN_ELSEWHERE) + r")(?![A-Za-z])")


def escaped_dollars(text: str, ctx: RuleContext) -> str:
    return sub_outside_code(_DOLLAR_ONLY, lambda m, _o: ctx.keep("\\$"), text)


def _texts(doc: SourceDoc) -> Iterable[str]:
    yield doc.body
    for cell in (doc.notebook or {}).get("cells", []):
        if cell.get("cell_type") == "markdown":
            source = cell.get("source", "")
            yield source if isinstance(source, str) else "".join(source)


def site_macros(docs: Iterable[SourceDoc]) -> dict[str, str]:
    """The `math_macros` the docs need (module docstring)."""
    used = {m.group(1) for doc in docs for text in _texts(doc) for m in _USED.finditer(text)}
    return {name: KNOWN_ELSEWHERE[name] for name in sorted(used)}


# math as the page's text holds it (MathJax read the page after Markdown): `$$...$$`, then `$...$` on one line
_MATH = re.compile(r"(?<![\\$])\$\$(?!\$)(.+?)\$\$|(?<![\\$])\$(?![\s$])([^$\n]+?)(?<![\s\\])\$", re.S)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark's backslash escapes: ASCII punctuation
_DOUBLED = re.compile(r"\\\\[{},;!]|\\\\\\\\")  # `\\{`, `\\,`, `\\\\`: TeX's `\{`, `\,`, `\\` escaped for Markdown
_SINGLE = re.compile(r"(?<!\\)\\[{},;!](?!\\)")


def written_for_markdown(bodies: Iterable[str]) -> bool:
    """Whether a site's math was written to go through Markdown before MathJax (Hugo's Goldmark unescapes `\\\\{`
    to `\\{` when no passthrough extension keeps math apart): its formulas spell TeX's `\\{`, `\\,` and `\\\\` as
    `\\\\{`, `\\\\,` and `\\\\\\\\` more often than as they are."""
    doubled = single = 0
    for body in bodies:
        for m in _MATH.finditer(body):
            tex = m.group(1) or m.group(2) or ""
            doubled += len(_DOUBLED.findall(tex))
            single += len(_SINGLE.findall(tex))
    return doubled > single


def markdown_unescaped(text: str, ctx: RuleContext) -> str:
    """Each formula as MathJax saw it, after Markdown's backslash escapes (`\\\\{` -> `\\{`, `\\_` -> `_`): for a
    site `written_for_markdown`."""

    def one(m: re.Match[str], _offset: int) -> str:
        if m.group(1) is not None:
            return "$$" + _ESCAPE.sub(r"\1", m.group(1)) + "$$"
        return "$" + _ESCAPE.sub(r"\1", m.group(2)) + "$"

    return sub_outside_code(_MATH, one, text)
