"""Stage 2, parse: where a formula starts and ends, as MathJax reads the dollars real blogs write.

mdit-py-plugins' dollarmath finds the formulas; two small rules go before it for what MathJax reads and it does not:
- a `$` inside braces does not end an inline formula: `$F = \\{f : \\text{$f$ is smooth}\\}$` is one formula;
- a line that starts with `$$` and holds two formulas (`$$a$$ is the sum of $$b$$`, kramdown's inline math) is a
  paragraph, not a display block from the first `$$` to the last;
- a bare `\\begin{equation}...\\end{equation}` (`align`, `gather`, `multline`, starred or not) standing in the
  text, without dollars, is a display formula, as MathJax finds it (`processEnvironments`); on lines of its own, a
  block; inside a paragraph, a display formula there;
- `\\eqref{..}` and `\\ref{..}` in the text, outside any formula, are the equation's number, linked
  (`processRefs`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline

BlockRule = Callable[[StateBlock, int, int, bool], bool]


def math_syntax_plugin(md: MarkdownIt) -> None:
    """Add the rules, after dollarmath_plugin."""
    md.inline.ruler.before("math_inline", "math_inline_braced", inline_braced)
    block_rule = next(rule for rule in md.block.ruler.__rules__ if rule.name == "math_block")
    md.block.ruler.at("math_block", _not_two_formulas(block_rule.fn), {"alt": list(block_rule.alt)})
    md.block.ruler.after("math_block", "math_environment", _environment_block, {"alt": list(block_rule.alt)})
    md.inline.ruler.before("escape", "math_environment_inline", _environment_inline)


ENVIRONMENTS = ("equation", "align", "gather", "multline", "eqnarray", "flalign", "alignat")
_BEGIN = re.compile(r"\\begin\{(" + "|".join(ENVIRONMENTS) + r")(\*?)\}")
_TEXT_REF = re.compile(r"\\(?:eqref|ref)\{[^{}\n]+\}")


def _environment_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """`\\begin{align}` at the start of a line, to the line that ends with its `\\end{align}`: a display formula
    (a blank line before the end, or text after it on that line, leaves it to the paragraph and its inline rule)."""
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    start = state.bMarks[start_line] + state.tShift[start_line]
    begin = _BEGIN.match(state.src, start)
    if begin is None:
        return False
    end_marker = f"\\end{{{begin[1]}{begin[2]}}}"
    line, at = start_line, state.src.find(end_marker, begin.end(), state.eMarks[start_line])
    while at == -1:
        line += 1
        if line >= end_line or state.isEmpty(line):
            return False
        at = state.src.find(end_marker, state.bMarks[line], state.eMarks[line])
    close = at + len(end_marker)
    if state.src[close : state.eMarks[line]].strip():
        return False
    if not silent:
        token = state.push("math_block", "math", 0)
        token.block = True
        token.content = state.src[start:close]
        token.markup = "\\begin"
        token.map = [start_line, line + 1]
    state.line = line + 1
    return True


def _environment_inline(state: StateInline, silent: bool) -> bool:
    """In a paragraph: a bare `\\begin{equation}...\\end{equation}` as a display formula, `\\eqref{a}` and
    `\\ref{a}` as the number of equation `a`, linked."""
    src, pos = state.src, state.pos
    if src[pos] != "\\" or pos + 1 >= state.posMax or src[pos + 1] not in "bre":
        return False
    begin = _BEGIN.match(src, pos, state.posMax)
    if begin is not None:
        end = src.find(f"\\end{{{begin[1]}{begin[2]}}}", begin.end(), state.posMax)
        if end == -1:
            return False
        close, kind = end + len(begin[1]) + len(begin[2]) + 6, "math_inline_double"
    else:
        ref = _TEXT_REF.match(src, pos, state.posMax)
        if ref is None:
            return False
        close, kind = ref.end(), "math_inline"
    if not silent:
        token = state.push(kind, "math", 0)
        token.content = src[pos:close]
        token.markup = "\\begin" if kind == "math_inline_double" else "\\ref"
    state.pos = close
    return True


def _closing_dollar(src: str, start: int, end: int) -> tuple[int, bool]:
    """(where the formula opened before `start` closes, or -1; whether a `$` inside braces was passed on the way)."""
    depth, nested, i = 0, False, start
    while i < end:
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        elif ch == "$":
            if depth == 0:
                return i, nested
            if src.startswith("$$", i):  # kramdown's inline math inside braces: not this rule's formula
                return -1, nested
            nested = True
        i += 1
    return -1, nested


def inline_braced(state: StateInline, silent: bool) -> bool:
    """`$...$` holding a `$` inside braces (`\\text{$f$ is smooth}`): one inline formula. Anything else is left to
    dollarmath's rule, which comes next."""
    pos, src, end = state.pos, state.src, state.posMax
    if src[pos] != "$" or pos + 1 >= end or src[pos + 1] in "$ \t\n0123456789":
        return False
    if pos > 0 and src[pos - 1] in "\\$":
        return False
    close, nested = _closing_dollar(src, pos + 1, end)
    if close == -1 or not nested or src[close - 1] in " \t\n":
        return False
    if close + 1 < end and (src[close + 1].isdigit() or src[close + 1] == "$"):
        return False
    if not silent:
        token = state.push("math_inline", "math", 0)
        token.content = src[pos + 1 : close]
        token.markup = "$"
    state.pos = close + 1
    return True


def _not_two_formulas(block_rule: BlockRule) -> BlockRule:
    """dollarmath's block rule, except for a line like `$$a$$ and $$b$$`: two inline formulas in a paragraph."""

    def rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        start = state.bMarks[start_line] + state.tShift[start_line]
        line = state.src[start : state.eMarks[start_line]].strip()
        if line.startswith("$$") and line.endswith("$$") and len(line) > 4 and "$$" in line[2:-2]:
            return False
        return block_rule(state, start_line, end_line, silent)

    return rule
