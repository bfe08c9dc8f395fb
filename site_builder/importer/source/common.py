"""Rules (rules.py) every reader can use, whatever the generator."""

from __future__ import annotations

import re

from site_builder.importer.source.rules import Rule, RuleContext, sub_outside_code
from site_builder.importer.source.texmacros import tex_macros

# an image at a path of the author's own computer (`C:\\Users\\...`, `file:///...`): on no web server
_LOCAL_FILE = re.compile(r"!\[([^\]\n]*)\]\(\s*<?((?:[A-Za-z]:[\\/]|file:/)[^)\n>]*)>?\s*\)")


def own_computer_images(text: str, ctx: RuleContext) -> str:
    """An image linked at a path of the author's computer (an editor's paste: Typora writes `C:\\Users\\...`)
    showed nothing on the old site either: its alt text is kept, with a warning naming the path."""

    def one(m: re.Match[str], offset: int) -> str:
        ctx.problem(
            text, offset + m.start(), f"image at a path of the author's computer, kept as its alt text: {m.group(2)}"
        )
        return m.group(1)

    return sub_outside_code(_LOCAL_FILE, one, text)


_DISPLAY = re.compile(r"(?<![\\$])\$\$(?!\$).+?(?<!\\)\$\$", re.S)  # in Markdown, `\` ending a line is a break
_CONTROL_SPACE = re.compile(r"(?<!\\)((?:\\\\)*)\\(?=\n)")  # a lone `\` ending a line: TeX's control space


def control_space(text: str, ctx: RuleContext) -> str:
    """A `\\` ending a line inside `$$...$$` is TeX's control space (`\\ `): in Markdown it would be a line break,
    so it is written `\\ `. (What else MathJax reads and math-core does not, bare `\\begin{align}` environments,
    `split`, `eqnarray`, `\\mbox`, `\\thicksim`, `\\TeX`, the build reads for every post: mathsyntax.py and
    mathtex.prepare_tex; the post keeps the source's TeX as written.)"""
    return sub_outside_code(_DISPLAY, lambda m, _o: _CONTROL_SPACE.sub(lambda c: c.group(1) + "\\ ", m.group(0)), text)


# every reader's rules after its own syntax is converted (and before its leftovers are flagged): a post's own TeX
# macros expanded, TeX's control space in display math, images at a path of the author's computer
RULES: tuple[Rule, ...] = (tex_macros, control_space, own_computer_images)
