"""Math: every formula of a post to MathML Core by math-core (no script in the page), after a small pre-pass
for what real blogs write and math-core does not read; a formula it cannot render is a warning, not an error."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from html import escape
from typing import Any

from markdown_it.token import Token
from math_core import LatexError, LatexToMathML

from site_builder.errors import SiteWarning

_MATH_TOKENS = ("math_inline", "math_inline_double", "math_block", "math_block_label")
_MATH_ERROR = re.compile(r"input(\d+):\d+: (.*)", re.S)


@cache
def _math_converter(macros: tuple[tuple[str, str], ...] = ()) -> LatexToMathML:
    """math-core's converter (MathML Core, which browsers render without scripts), TeX kept as an annotation;
    `macros`: site.yml's `math_macros`."""
    return LatexToMathML(
        annotation=True, fancy_error=False, allow_unreliable_rendering=True, macros=dict(macros) or None
    )  # allow_unreliable_rendering: \\widetilde, ...


def render_math(tokens: list[Token], env: dict[str, Any]) -> None:
    """MathML for every formula of a post at once, in `env["math"]` by token: equations are numbered through
    the post (as MathJax numbers AMS environments) and `\\eqref` may point forward. A formula math-core cannot
    render is shown as its TeX in a marked box, with the reason, and is a warning (`env["warnings"]`)."""
    found = [t for tok in tokens for t in (tok.children or (tok,)) if t.type in _MATH_TOKENS]
    if not found:
        return
    failed: dict[int, str] = {}  # index in `found` -> why math-core refused it
    while True:
        todo = [i for i in range(len(found)) if i not in failed]
        try:
            mathml = _math_converter(env.get("math_macros", ())).convert_all(
                [(prepare_tex(found[i].content.strip()), found[i].type != "math_inline") for i in todo]
            )
            break
        except LatexError as exc:
            match = _MATH_ERROR.match(str(exc))
            if match is None:  # not said which: none of them can be trusted
                failed.update(dict.fromkeys(todo, str(exc).strip()))
                todo, mathml = [], []
                break
            failed[todo[int(match[1])]] = match[2].strip()
    html = {
        id(found[i]): breakable(out) if found[i].type == "math_inline" else out
        for i, out in zip(todo, mathml, strict=True)
    }
    warnings = env.setdefault("warnings", [])
    for i, out in zip(todo, mathml, strict=True):
        for label in _UNKNOWN_REF.findall(out):  # math-core shows (??), as MathJax shows (???)
            message = f"\\eqref{{{label}}}: no equation of this post has \\label{{{label}}}"
            warnings.append(SiteWarning(message, env.get("rel"), math_line(env, found[i])))
    for i, reason in sorted(failed.items()):
        tok, tex = found[i], found[i].content.strip()
        html[id(tok)] = (
            f'<span class="math-error" role="note"><code>{escape(tex)}</code>'
            f'<span class="math-error-reason">not rendered: {escape(reason)}</span></span>'
        )
        warnings.append(SiteWarning(f"cannot render math ${tex}$: {reason}", env.get("rel"), math_line(env, tok)))
    env["math"] = html
    env["math_count"] = len(found) - len(failed)


_UNKNOWN_REF = re.compile(r'<a href="#([^"]*)">\(\?\?\)</a>')
_TAG = re.compile(r"<(/?)[a-z]+[^>]*?(/?)>")
_BREAK_AFTER = re.compile(r"<mo[^>]*>(?:[=≠<>≤≥≦≧≪≫≈≡≅≃∼∝≺≻∈∉⊂⊃⊆⊇←→↔⇐⇒⇔⟵⟶⟸⟹⟺↦+−±∓×⋅·∗∘⊕⊗∪∩∧∨÷,]|&lt;|&gt;)</mo>")
_OPENING = re.compile(r"<mo[^>]*>[(\[{⟨|‖]</mo>")


def breakable(mathml: str) -> str:
    """Inline math that can wrap, as TeX breaks a formula in a paragraph: after a relation, a binary operator or a
    comma of its top row. Browsers do not break a `<math>`, so the pieces of that row between those points become
    rows of their own (`<mrow>`, which changes nothing drawn) and the element is marked `class="breaks"`, which the
    theme lays out inline: a line may end after any piece. A sign (`-x`, `(+1`, `= -1`) is not a break."""
    head, sep, rest = mathml.partition("<semantics><mrow>")
    body, end, tail = rest.rpartition("</mrow><annotation")
    if head != "<math>" or not sep or not end or not _BREAK_AFTER.search(body):  # (no operator: nothing to break)
        return mathml
    children, depth, start = [], 0, 0
    for tag in _TAG.finditer(body):
        depth += 0 if tag[2] else -1 if tag[1] else 1
        if depth == 0:
            children.append(body[start : tag.end()])
            start = tag.end()
    if start != len(body) or depth != 0:
        return mathml
    groups: list[list[str]] = [[]]
    for i, child in enumerate(children):
        groups[-1].append(child)
        sign = i == 0 or _BREAK_AFTER.fullmatch(children[i - 1]) or _OPENING.fullmatch(children[i - 1])
        if _BREAK_AFTER.fullmatch(child) and not sign and i < len(children) - 1:
            groups.append([])
    if len(groups) < 2:
        return mathml
    rows = "".join(f"<mrow>{''.join(group)}</mrow>" for group in groups)
    return f'<math class="breaks"><semantics><mrow>{rows}</mrow><annotation{tail}'


def math_line(env: dict[str, Any], token: Token) -> int | None:
    """The line of a formula's token in the post file."""
    if not token.map:
        line: int | None = env.get("_line")
        return line
    return int(env.get("line_offset", 1)) + token.map[0]


_TEXT = re.compile(r"\\(?:text|textrm|textit|textbf|textsf|texttt|mbox)\s*\{")
_REF = re.compile(r"\\(label|eqref|ref)\s*\{([^{}]*)\}")
_SUBSTACK = re.compile(r"\\substack\s*\{")
_SIZE = re.compile(r"\\(?:tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge)(?![A-Za-z])\s*")
_TEXT_SPECIAL = re.compile(r"(?<!\\)([_&]|#(?!\d))")  # literal in MathJax's text mode, commands in math-core's
# what MathJax reads and math-core does not, as the same layout in what it reads
_MATHJAX = {
    r"\begin{split}": r"\begin{aligned}",
    r"\end{split}": r"\end{aligned}",
    r"\mbox{": r"\text{",
    r"\thicksim": r"\sim",
    r"\TeX": r"\text{TeX}",
    r"\LaTeX": r"\text{LaTeX}",
}
_MATHJAX_USE = re.compile("|".join(re.escape(k) + (r"(?![A-Za-z])" if k[-1].isalpha() else "") for k in _MATHJAX))
_EQNARRAY = re.compile(r"\\begin\{eqnarray(\*?)\}(.*?)\\end\{eqnarray\1\}", re.S)
_ROWS = re.compile(r"(\\\\(?:\[[^\]]*\])?)")  # `\\` ending a row, with its optional `[2pt]`
_AMP = re.compile(r"(?<!\\)&")
_PRIME_SCRIPT = re.compile(r"([\^_])[ \t]*([′″‴⁗]+)")  # `x^′`: MathJax reads the prime as the script's body


def prepare_tex(tex: str) -> str:
    """What real blogs write that math-core does not read, in the TeX it does (MathJax reads both alike):
    `$..$` inside `\\text{}` (math in text mode) is closed and reopened around the math; labels and references
    keep only characters math-core accepts (`eq:one_two` -> `eq:one-two`, the same in both); `\\ref` is
    shown as `\\eqref` (the number, in parentheses); `\\substack{a \\\\ b}` becomes a `subarray`; `_`, `&` and
    `#` in `\\text{}` are the characters themselves; size switches (`\\small`) are left out; MathJax's `split`
    is an `aligned`, `eqnarray` an `align` (its rows numbered, `a &=& b` as `a &= b`), `\\mbox` a `\\text`,
    `\\thicksim` a `\\sim`, `\\TeX` and `\\LaTeX` their names; a Unicode prime as a script (`x^′`) in braces."""
    if not tex.isascii():
        tex = _PRIME_SCRIPT.sub(r"\1{\2}", tex)
    if "\\" not in tex:
        return tex
    if "eqnarray" in tex:
        tex = _EQNARRAY.sub(_eqnarray, tex)
    tex = _MATHJAX_USE.sub(lambda m: _MATHJAX[m.group(0)], tex)
    if "$" in tex:
        tex = _rewrite_groups(tex, _TEXT, _math_in_text)
    if "\\label" in tex or "ref" in tex:
        tex = _REF.sub(_clean_ref, tex)
    if "\\substack" in tex:
        tex = _rewrite_groups(tex, _SUBSTACK, lambda _, body: f"\\begin{{subarray}}{{c}}{body}\\end{{subarray}}")
    if "\\text" in tex or "\\mbox" in tex:
        tex = _rewrite_groups(tex, _TEXT, lambda opening, body: opening + _TEXT_SPECIAL.sub(r"\\\1", body) + "}")
    return _SIZE.sub("", tex)


def _eqnarray(m: re.Match[str]) -> str:
    """`eqnarray` as `align` (numbered the same, row by row): its three columns `a &=& b` are align's two, the
    relation starting the second (`a &= b`); a row with other than two `&` is left as it is."""
    rows = _ROWS.split(m[2])
    for i in range(0, len(rows), 2):
        amps = list(_AMP.finditer(rows[i]))
        if len(amps) == 2:
            rows[i] = rows[i][: amps[1].start()] + rows[i][amps[1].end() :]
    return f"\\begin{{align{m[1]}}}{''.join(rows)}\\end{{align{m[1]}}}"


def _rewrite_groups(tex: str, opening: re.Pattern[str], rewrite: Callable[[str, str], str]) -> str:
    """Each group `opening` starts (`\\substack{...}`) replaced by `rewrite(the opening, the group's body)`."""
    out, pos = [], 0
    for m in opening.finditer(tex):
        if m.start() < pos:
            continue
        end = _closing_brace(tex, m.end())
        if end is None:
            break
        out.append(tex[pos : m.start()] + rewrite(m.group(), tex[m.end() : end]))
        pos = end + 1
    return "".join(out) + tex[pos:]


def _clean_ref(m: re.Match[str]) -> str:
    command = "eqref" if m[1] == "ref" else m[1]
    return f"\\{command}{{{re.sub(r'[^A-Za-z0-9 :.+/-]', '-', m[2])}}}"


def _math_in_text(opening: str, body: str) -> str:
    """`\\text{a $x$ b}` as `\\text{a }{x}\\text{ b}`; a group whose `$` are not in pairs is left as it is."""
    parts = re.split(r"(?<!\\)\$", body)
    if len(parts) == 1 or len(parts) % 2 == 0:
        return f"{opening}{body}}}"
    command = opening.rstrip("{").rstrip()
    pieces = [f"{command}{{{p}}}" if i % 2 == 0 else f"{{{p}}}" for i, p in enumerate(parts)]
    return "".join(p for p in pieces if p != f"{command}{{}}")


def _closing_brace(tex: str, start: int) -> int | None:
    """The index of the `}` that closes the group opened just before `start`."""
    depth = 1
    i = start
    while i < len(tex):
        ch = tex[i]
        if ch == "\\":
            i += 2
            continue
        depth += (ch == "{") - (ch == "}")
        if depth == 0:
            return i
        i += 1
    return None
