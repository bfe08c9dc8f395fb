"""Template code another generator would have run, left in a post's text: Liquid tags (`{% include ... %}`,
`{{ site.baseurl }}`), Hugo shortcodes (`{{< figure >}}`, `{{% notice %}}`) and kramdown attribute lists
(`{: .prompt-tip }`, `{:toc}`). Here they would be published as text: a warning at each line that holds one, so
nobody does so without knowing. Code (blocks, `inline code`) and math are not looked into: there they are meant.
A rule of the parse stage (`parse.make_parser`)."""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.fences import warn

KINDS = (  # in this order: `{{% notice %}}` holds `{% notice %}`
    ("Hugo shortcode", re.compile(r"\{\{([<%])\s*/?\s*[A-Za-z_][^\n]*?[>%]\}\}")),
    (
        "Liquid tag",
        re.compile(
            r"(?<!\{)\{%-?\s*[A-Za-z_][^\n]*?%\}"
            r"|\{\{-?\s*(?:site|page|post|include|paginator)\.[^{}\n]*\}\}"
            r"|\{\{[^{}\n]*\|\s*(?:relative_url|absolute_url)[^{}\n]*\}\}"
        ),
    ),
    ("kramdown attribute list", re.compile(r"\{::?\s*[.#A-Za-z_][^{}\n]*\}")),
)
SEE = "see the docs, Moving your blog: From Jekyll, Hugo or Pelican source"
_TEXT = ("text", "text_special")
_COMMENT = re.compile(r"<!--.*?-->", re.S)  # kept out of the page: where an importer leaves what it cannot convert


def template_code(state: StateCore) -> None:
    """The parse rule: a warning at each line of text holding template code (the first kind found there)."""
    src = state.src
    if "{%" not in src and "{{" not in src and "{:" not in src:  # none of them (fast path)
        return
    for tok in state.tokens:
        if tok.type == "inline" and tok.map and tok.children:
            for line, text in _lines(tok):
                _check(state, line, text)
        elif tok.type == "html_block" and tok.map and "{" in tok.content:
            shown = _COMMENT.sub(lambda m: "\n" * m[0].count("\n"), tok.content)
            for n, text in enumerate(shown.split("\n")):
                _check(state, tok.map[0] + n, text)


def _lines(tok: Token) -> list[tuple[int, str]]:
    """The text of an inline token, line by line (0-based lines of the body), code and math left out."""
    assert tok.map is not None and tok.children is not None
    line, out = tok.map[0], []
    parts: list[str] = []
    for child in tok.children:
        if child.type in ("softbreak", "hardbreak"):
            out.append((line, "".join(parts)))
            line, parts = line + 1, []
        elif child.type in _TEXT:
            parts.append(child.content)
        else:
            parts.append("\0")  # code, math, HTML tags and comments: no construct spans them
    out.append((line, "".join(parts)))
    return out


def _check(state: StateCore, line: int, text: str) -> None:
    if "{" not in text:
        return
    for kind, pattern in KINDS:
        found = pattern.search(text)
        if found is not None:
            shown = found[0] if len(found[0]) <= 60 else found[0][:57] + "..."
            place = Token("text", "", 0)
            place.map = [line, line + 1]
            warn(state, place, f"{kind} left as text: {shown} ({SEE})")
            return
