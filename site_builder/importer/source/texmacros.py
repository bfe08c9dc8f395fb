"""TeX macros a post defines for itself (`\\newcommand`, `\\renewcommand`, `\\def`, `\\DeclareMathOperator` in a
formula, as MathJax reads them for the whole page) expanded where the post uses them, and the definitions taken
out: the new site renders each formula on its own, so a formula cannot see another's definitions. A rule
(rules.py) for any reader whose source renders math with MathJax or KaTeX."""

from __future__ import annotations

import re
from dataclasses import dataclass

from site_builder.importer.source.rules import RuleContext, outside_code

_DEF = re.compile(
    r"\\(?:re)?newcommand\*?\s*\{?\\([A-Za-z]+)\}?\s*(?:\[(\d)\])?\s*(?=\{)"
    r"|\\def\s*\\([A-Za-z]+)((?:#\d)*)\s*(?=\{)"
    r"|\\DeclareMathOperator\*?\s*\{\\([A-Za-z]+)\}\s*(?=\{)"
)
_MAX_ROUNDS = 8


@dataclass(frozen=True)
class Macro:
    name: str
    args: int
    body: str


def _group(text: str, start: int) -> int | None:
    """The index after the brace group that opens at `start`, or None when it does not close."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == "\\":
            continue
        if c == "{" and (i == 0 or text[i - 1] != "\\"):
            depth += 1
        elif c == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def definitions(text: str) -> tuple[dict[str, Macro], list[tuple[int, int]]]:
    """The macros `text` defines, and the spans of their definitions."""
    macros: dict[str, Macro] = {}
    spans = []
    for m in _DEF.finditer(text):
        end = _group(text, m.end())
        if end is None:
            continue
        body = text[m.end() + 1 : end - 1]
        if m.group(1):
            macros[m.group(1)] = Macro(m.group(1), int(m.group(2) or 0), body)
        elif m.group(3):
            macros[m.group(3)] = Macro(m.group(3), len(m.group(4) or "") // 2, body)
        else:
            word = re.fullmatch(r"[A-Za-z]+", body.strip())
            macros[m.group(5)] = Macro(m.group(5), 0, f"\\operatorname{{{body}}}" if word else f"\\mathop{{{body}}}")
        spans.append((m.start(), end))
    return macros, spans


def _arguments(text: str, pos: int, n: int) -> tuple[list[str], int] | None:
    args = []
    for _ in range(n):
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if pos >= len(text):
            return None
        if text[pos] == "{":
            end = _group(text, pos)
            if end is None:
                return None
            args.append(text[pos + 1 : end - 1])
            pos = end
        else:  # one token: a control word (`\\Delta`), a control symbol, or a character
            token = re.match(r"\\[A-Za-z]+|\\.|.", text[pos:], re.S)
            assert token is not None
            args.append(token.group(0))
            pos += len(token.group(0))
    return args, pos


def expand(text: str, macros: dict[str, Macro]) -> str:
    if not macros:
        return text
    use = re.compile(r"\\(" + "|".join(sorted(map(re.escape, macros), key=len, reverse=True)) + r")(?![A-Za-z])")
    for _ in range(_MAX_ROUNDS):
        out, pos, changed = [], 0, False
        for m in use.finditer(text):
            if m.start() < pos:
                continue
            macro = macros[m.group(1)]
            got = _arguments(text, m.end(), macro.args)
            if got is None:
                continue
            body = macro.body
            for i, arg in enumerate(got[0], 1):
                body = body.replace(f"#{i}", arg)
            out += [text[pos : m.start()], "{" + body + "}" if macro.args else body + " "]
            pos, changed = got[1], True
        text = "".join(out) + text[pos:]
        if not changed:
            break
    return text


# a formula left empty once its definitions are out: \( \), \\( \\) (Markdown's escaped form), $$ $$, \[ \]
_EMPTY_MATH = re.compile(
    r"\\\\?\((?:\s|\x00K\d+\x00)*\\\\?\)|\$\$(?:\s|\x00K\d+\x00)*\$\$|\\\\?\[(?:\s|\x00K\d+\x00)*\\\\?\]"
)


def tex_macros(text: str, ctx: RuleContext) -> str:
    """The rule: definitions out (an emptied formula with them), uses expanded, outside code."""
    macros, _ = definitions(text)
    if not macros:
        return text

    def part(chunk: str, _start: int) -> str:
        _, local = definitions(chunk)
        for start, end in reversed(local):
            removed = chunk[start:end]
            chunk = chunk[:start] + ctx.keep("", removed) + chunk[end:]
        chunk = _EMPTY_MATH.sub(lambda m: ctx.keep("", m.group(0)), chunk)
        return expand(chunk, macros)

    return outside_code(text, part)
