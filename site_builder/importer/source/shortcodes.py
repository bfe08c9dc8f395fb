"""Hugo shortcodes in a post's text, one rule per construct (see rules.py for what a rule is).

A shortcode is `{{< name args >}}` or `{{% name args %}}` (its inner text is Markdown), paired with
`{{< /name >}}` or self-closed `{{< name />}}`; arguments are positional (`"a b"`, `` `raw` ``, `word`) or named
(`key="value"`). Hugo expands shortcodes in code blocks too, so these rules read the whole text.

Converted: `{{</* x */>}}` (Hugo's escape: the shortcode's text, as written), `highlight` (a fence; `linenos`,
`hl_lines`), `figure` (an image alone in its paragraph, its caption the alt text), `ref`/`relref` (the target's
URL), `youtube`/`vimeo`/`gist`/`tweet` (links), admonitions (`admonition TYPE "title"`, `notice`, `alert`,
`callout`, `hint`, and any paired shortcode named after a kind: `note`, `tip`, `warning`, `question`...: a
`::: kind title` block), `details`/`fold`/`spoiler` (an HTML `<details>`), `tabs`/`tabpane` and their `tab`s
(`:::: tab Label` blocks; hextra's `items=` names nameless tabs), KaTeX/MathJax shortcodes (`katex`,
`math`, `mathjax`, `latex`: `$...$`, `$$...$$` on lines of its own when displayed), `param` (its value),
`rawhtml`/`html` (the inner HTML). The site's own shortcodes (`layouts/shortcodes/NAME.html`) are expanded when
their template only prints arguments and page names (`hugo_templates.py`). Anything else becomes an HTML comment
with a warning (a paired one keeps its inner text between two comments).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from site_builder.importer.source.rules import RuleContext

_ESCAPED = re.compile(r"\{\{([<%])/\*(.*?)\*/([>%])\}\}", re.S)
_TAG = re.compile(r"\{\{([<%])-?\s*(/?)\s*([\w./-]+)(.*?)\s*(/?)\s*-?([>%])\}\}", re.S)
_ARG = re.compile(r"""([\w-]+)=("(?:[^"\\]|\\.)*"|`[^`]*`|[^\s"`]+)|("(?:[^"\\]|\\.)*"|`[^`]*`|[^\s"`=]+)""")


@dataclass
class Shortcode:
    """One shortcode call: its name, arguments, the inner text of a paired one and where it is in the text."""

    name: str
    markdown: bool  # `{{% %}}`
    args: list[str] = field(default_factory=list)
    named: dict[str, str] = field(default_factory=dict)
    inner: str | None = None  # None: not paired
    start: int = 0
    source: str = ""  # the call's whole text, closing tag included
    opener: str = ""  # the opening tag's text (a paired one's), and the closing tag's
    closer: str = ""

    def get(self, key: str, index: int | None = None, default: str = "") -> str:
        if key in self.named:
            return self.named[key]
        if index is not None and index < len(self.args):
            return self.args[index]
        return default


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in '"`':
        inner = value[1:-1]
        return inner if value[0] == "`" else re.sub(r"\\(.)", r"\1", inner)
    return value


def parse_args(text: str) -> tuple[list[str], dict[str, str]]:
    args, named = [], {}
    for m in _ARG.finditer(text):
        if m.group(1):
            named[m.group(1)] = _unquote(m.group(2))
        else:
            args.append(_unquote(m.group(3)))
    return args, named


Handler = Callable[[Shortcode, RuleContext, str], str]


def expand(text: str, ctx: RuleContext, handlers: Callable[[str], Handler | None]) -> str:
    """Replace each shortcode whose name has a handler: paired ones innermost first, then the single ones.
    A handler gets the call, the context and the text the call's `start` is in."""
    while True:
        pair = _innermost_pair(text, handlers)
        if pair is None:
            break
        opener, closer = pair
        call = _call(opener, text[opener.end() : closer.start()], text[opener.start() : closer.end()])
        call.opener, call.closer = opener.group(0), closer.group(0)
        handler = handlers(call.name)
        assert handler is not None
        text = text[: opener.start()] + handler(call, ctx, text) + text[closer.end() :]

    def single(m: re.Match[str]) -> str:
        handler = None if m.group(2) else handlers(m.group(3))
        return m.group(0) if handler is None else handler(_call(m, None, m.group(0)), ctx, text)

    return _TAG.sub(single, text)


def _innermost_pair(text: str, handlers: Callable[[str], Handler | None]) -> tuple[re.Match[str], re.Match[str]] | None:
    """The first closing tag of a handled shortcode with its opening tag (any handled tag between them is one
    that is not paired)."""
    stack: list[re.Match[str]] = []
    for m in _TAG.finditer(text):
        if handlers(m.group(3)) is None or m.group(5):
            continue
        if not m.group(2):
            stack.append(m)
            continue
        for i in range(len(stack) - 1, -1, -1):
            if stack[i].group(3) == m.group(3):
                return stack[i], m
    return None


def _call(m: re.Match[str], inner: str | None, source: str) -> Shortcode:
    args, named = parse_args(m.group(4))
    return Shortcode(m.group(3), m.group(1) == "%", args, named, inner, m.start(), source)


def escapes(text: str, ctx: RuleContext) -> str:
    """`{{</* name */>}}`: the shortcode's text as written, untouched by later rules."""
    return _ESCAPED.sub(lambda m: ctx.keep("{{" + m.group(1) + m.group(2) + m.group(3) + "}}"), text)


_LEFT = re.compile(r"\{\{[<%].*?[>%]\}\}", re.S)


def leftovers(text: str, ctx: RuleContext) -> str:
    """Any shortcode still in the text: an HTML comment with a warning (a paired one's inner text stays)."""

    def one(m: re.Match[str]) -> str:
        name = _TAG.match(m.group(0))
        why = f"the shortcode {name.group(3)!r} of the old site's theme" if name else "a shortcode"
        if name and name.group(2):
            return ctx.keep(f"<!-- /{name.group(3)} -->", m.group(0))
        return ctx.unconverted(text, m.start(), m.group(0), why)

    return _LEFT.sub(one, text)
