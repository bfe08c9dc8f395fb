"""Pygments' `HtmlFormatter(nowrap=True)` HTML, written in one loop over the tokens instead of through its chain of
generators (`highlight` -> `format_unencoded` -> `_format_lines`, one string per line).

What that formatter writes, for the options the site uses, is fixed by its `_format_lines`: the text, HTML-escaped
(`html.escape(value, quote=False)`), cut at each newline; on each line, the pieces of consecutive tokens with the same
CSS class in one `<span class="…">` (no span for the classless `Text`, none for an empty piece), every span closed
before the newline, and a newline after a last line that had none. `matches_pygments` checks the result against
Pygments itself, so that a Pygments whose escaping or spans differ is noticed and the site keeps Pygments' own
formatter (`codeblocks._span_formatter`)."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer


class SpanFormatter:
    """The HTML of a token stream as `HtmlFormatter(nowrap=True)` writes it; its span openers are the formatter's
    (`_get_css_classes`: class, with those of its parents for a type Pygments does not name)."""

    def __init__(self, formatter: HtmlFormatter) -> None:  # type: ignore[type-arg]
        self.formatter = formatter
        self.spans: dict[Any, str] = {}

    def _span(self, ttype: Any) -> str:
        css: str = self.formatter._get_css_classes(ttype)  # type: ignore[attr-defined]
        span = self.spans[ttype] = f'<span class="{css}">' if css else ""
        return span

    def format(self, tokens: Iterable[tuple[int, Any, str]]) -> str:
        """What `pygments.format(tokens, formatter)` returns, for tokens as `get_tokens_unprocessed` gives them
        (index, type, value): `lexer_tokens` below."""
        spans = self.spans
        out: list[str] = []
        add = out.append
        cur = ""  # the span open on the current line, if any
        for _, ttype, value in tokens:
            span = spans.get(ttype)
            if span is None:
                span = self._span(ttype)
            if "\n" in value:
                if value == "\n":  # the commonest line end: it closes the open span
                    add("</span>\n" if cur else "\n")
                    cur = ""
                else:
                    cur = _lines(add, cur, span, escape(value, quote=False))
            elif value:  # an empty token writes nothing, and does not close the span
                if span != cur:
                    if cur:
                        add("</span>")
                    if span:
                        add(span)
                    cur = span
                add(escape(value, quote=False) if "&" in value or "<" in value or ">" in value else value)
        if out and not out[-1].endswith("\n"):  # a last line without its newline gets one, as in Pygments
            add("</span>\n" if cur else "\n")
        return "".join(out)


def _lines(add: Any, cur: str, span: str, text: str) -> str:
    """Write a token's escaped `text` that has newlines: each piece in its `span`, spans closed at each line end.
    `cur` is the span open before it; the span open after it is returned."""
    close = "</span>" if span else ""
    pieces = text.split("\n")
    last = pieces.pop()
    first = pieces[0]
    if first and span != cur:  # the first piece ends the current line
        add(f"{'</span>' if cur else ''}{span}{first}{close}\n")
    elif first:
        add(f"{first}{close}\n")
    else:
        add("</span>\n" if cur else "\n")
    for piece in pieces[1:]:
        add(f"{span}{piece}{close}\n" if piece else "\n")
    if last:
        add(f"{span}{last}")
        return span
    return ""


def lexer_tokens(lexer: Any, text: str) -> Iterable[tuple[int, Any, str]]:
    """`lexer.get_tokens(text)` as (index, type, value): for a lexer without filters, straight from
    `get_tokens_unprocessed` of the text `get_tokens` would lex (one generator less on the way)."""
    prepare = getattr(lexer, "_preprocess_lexer_input", None)  # Pygments >= 2.18
    if prepare is not None and not lexer.filters and type(lexer).get_tokens is Lexer.get_tokens:
        tokens: Iterable[tuple[int, Any, str]] = lexer.get_tokens_unprocessed(prepare(text))
        return tokens
    return ((0, ttype, value) for ttype, value in lexer.get_tokens(text))


# Text that exercises every part of the formatting: classes, merged runs, escaping, empty and blank lines.
PROBE = 'def f(a, b):\n\t"""<doc> & \'q\'"""\n\n  \r\n  return a<b and "x&y" # é 中\r\nx = 1  '


def matches_pygments(fast: SpanFormatter, lexer: Any) -> bool:
    """Whether `fast` writes what Pygments' own formatter writes, on `PROBE` lexed by `lexer`."""
    try:
        return bool(fast.format(lexer_tokens(lexer, PROBE)) == highlight(PROBE, lexer, fast.formatter))
    except Exception:  # pragma: no cover (a Pygments without the formatter's `_get_css_classes`)
        return False
