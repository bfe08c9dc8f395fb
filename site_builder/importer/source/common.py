"""Rules (rules.py) every reader can use, whatever the generator."""

from __future__ import annotations

import re

from site_builder.importer.source.rules import RuleContext, outside_code, sub_outside_code

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


def mathjax_commands(text: str, ctx: RuleContext) -> str:
    """A `\\` ending a line inside `$$...$$` is TeX's control space (`\\ `): in Markdown it would be a line break.
    (What else MathJax reads and math-core does not, `split`, `eqnarray`, `\\mbox`, `\\thicksim`, `\\TeX`, the build
    reads for every post: mathtex.prepare_tex; the post keeps the source's letter.)"""
    return sub_outside_code(_DISPLAY, lambda m, _o: _CONTROL_SPACE.sub(lambda c: c.group(1) + "\\ ", m.group(0)), text)


_BARE_ENV = re.compile(r"^\s*\\begin\{(equation|align|gather|multline|eqnarray|alignat|flalign)(\*?)\}")


def bare_environments(text: str, ctx: RuleContext) -> str:
    """`\\begin{align}...\\end{align}` written in the text without dollars (MathJax renders it) set as display
    math: `$$` lines around it, set apart by blank lines (the lines added count for none)."""

    def part(chunk: str, _start: int) -> str:
        lines = chunk.split("\n")
        out: list[str] = []
        inside = False  # inside a $$ formula
        i = 0
        while i < len(lines):
            line = lines[i]
            m = None if inside else _BARE_ENV.match(line)
            if m is None:
                inside ^= line.count("$$") % 2 == 1
                out.append(line)
                i += 1
                continue
            end = f"\\end{{{m.group(1)}{m.group(2)}}}"
            j = next((k for k in range(i, len(lines)) if end in lines[k]), None)
            if j is None:
                out.append(line)
                i += 1
                continue
            out.append(ctx.keep("\n$$\n", "") + line)
            out += lines[i + 1 : j + 1]
            out[-1] += ctx.keep("\n$$\n", "")
            i = j + 1
        return "\n".join(out)

    return outside_code(text, part)
