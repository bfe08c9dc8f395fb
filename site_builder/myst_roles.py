"""MyST's inline roles (`` {math}`x^2` ``), as a MyST page shows them, for every post.

mdit-py-plugins' `myst_role` reads `` {name}`content` ``; this core rule then makes each role what it shows:
- `{math}`: inline math, as `$...$` (rendered with the post's other formulas);
- `{sub}`, `{sup}`, `{kbd}`: the element; `{abbr}` `` `CSS (Cascading Style Sheets)` ``: `<abbr title=...>`;
- `{code}`, `{literal}`, `{samp}`, `{file}`, `{command}`, `{envvar}`, `{option}`, `{program}` and every domain role
  (`{py:func}`, `{py:class}`, `{cpp:type}`): inline code, as Sphinx shows them (without the link to an API page);
- `{ref}`, `{numref}`, `{doc}`, `{eq}`, `{term}`, `{download}`, `{cite}` and the like point into a documentation
  project: their text is shown (`Title <target>` shows `Title`), with one warning a post naming them.
Any other `{name}` (not a role MyST or Sphinx has) stays as the text it was: `{name}` then the code.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markupsafe import escape
from mdit_py_plugins.myst_role import myst_role_plugin

from site_builder.fences import warn

_ELEMENTS = frozenset(["sub", "sup", "kbd"])
_LITERAL = frozenset(["code", "literal", "samp", "file", "command", "envvar", "option", "program", "mimetype"])
_REFERENCES = frozenset(
    ["ref", "numref", "doc", "eq", "term", "download", "cite", "cite:p", "cite:t", "any", "keyword", "token"]
)
_TITLED = re.compile(r"(.*?)\s*<([^<>]*)>\s*")  # `Title <target>`
_ABBR = re.compile(r"(.*?)\s*\(([^()]*)\)\s*")  # `CSS (Cascading Style Sheets)`


def myst_roles_plugin(md: MarkdownIt) -> None:
    myst_role_plugin(md)
    md.core.ruler.after("inline", "myst_roles", _roles)  # the rules after it see what the roles show


def _roles(state: StateCore) -> None:
    if "}`" not in state.src:  # no role (fast path)
        return
    unread: dict[str, Token] = {}
    for tok in state.tokens:
        if tok.type != "inline" or not tok.children:
            continue
        children: list[Token] = []
        for child in tok.children:
            if child.type == "myst_role":
                children += _role(child, tok, unread)
            else:
                children.append(child)
        tok.children = children
    if unread:
        names = ", ".join(f"{{{name}}}" for name in unread)
        warn(state, next(iter(unread.values())), f"MyST roles with no meaning here: {names}", "shown as their text")


def _role(child: Token, line: Token, unread: dict[str, Token]) -> list[Token]:
    """What one role shows, as tokens; `line` (its inline token) gives a warning's line."""
    name, content = child.meta.get("name", ""), child.content
    if name == "math":
        return [_token("math_inline", content, "math", "$")]
    if name in _ELEMENTS:
        return [_token("html_inline", f"<{name}>{escape(content)}</{name}>")]
    if name == "abbr":
        m = _ABBR.fullmatch(content)
        if m is None:
            return [_token("html_inline", f"<abbr>{escape(content)}</abbr>")]
        return [_token("html_inline", f'<abbr title="{escape(m[2])}">{escape(m[1])}</abbr>')]
    if name in _LITERAL or (":" in name and name not in _REFERENCES):
        return [_token("code_inline", content, "code", "`")]
    if name in _REFERENCES:
        unread.setdefault(name, line)
        m = _TITLED.fullmatch(content)
        return [_token("text", m[1] if m and m[1] else content)]
    ticks = "`" * (max((len(run) for run in re.findall("`+", content)), default=0) + 1)
    return [_token("text", f"{{{name}}}"), _token("code_inline", content, "code", ticks)]  # not a role: as it was


def _token(kind: str, content: str, tag: str = "", markup: str = "") -> Token:
    tok = Token(kind, tag, 0)
    tok.content, tok.markup = content, markup
    return tok
