"""The importer checks its own output before it writes a post: the Markdown is parsed with the site's own parser
(`site_builder.parse`), and every piece of raw HTML in it (markdown-it's `html_block` and `html_inline` tokens, the
only way a post's Markdown puts a tag of its own into a page) must come out of nh3, with the import's policy
(`sanitize.clean_html`), with the same tags and attributes. Whatever would not is written as text (its `<` as
`&lt;`), with a warning. The steps before are meant to leave nothing for this check to find (text is escaped,
kept HTML goes through nh3 already); it is here so that a way around them, a new one included, still puts no
handler or script URL into a page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

from markdown_it.token import Token

from site_builder.importer.sanitize import clean_html

_ROUNDS = 20  # a round escapes at least one `<`; after these, every `<` of the post is escaped
_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9:-]*)")


class _Tags(HTMLParser):
    """The start tags of an HTML fragment, with their attributes, as a browser's first look reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, sorted((name, value or "") for name, value in attrs)))

    handle_startendtag = handle_starttag


def _tags(html: str) -> list[tuple[str, list[tuple[str, str]]]]:
    parser = _Tags()
    parser.feed(html)
    parser.close()
    return parser.tags


def kept_as_is(html: str) -> bool:
    """Whether nh3 keeps every tag and attribute of this raw HTML (a comment is dropped, and harmless), and it
    holds no `<svg>`. A tag alone (an `html_inline` token) is judged in HTML, SVG and MathML, as nh3 keeps a
    drawing's `<path>` only in `<svg>`: kept in one of them, its name and every attribute are allowed, which is
    what keeps script out."""
    names = {name.lower() for name in _NAME.findall(html)}
    if "svg" in names:
        return False  # untrusted SVG is never inlined: the importer makes each drawing an image (images.drawing_image)
    for before, after in (("", ""), ("<svg>", "</svg>"), ("<math>", "</math>")):
        wrapped = before + html + after
        if _tags(wrapped) == _tags(clean_html(wrapped, names | {"svg", "math"})):
            return True
    return False


@dataclass(frozen=True)
class RawHtml:
    """A piece of raw HTML in a post body, and the lines of the body it is on (0-based, end excluded)."""

    html: str
    start: int
    end: int


def _raw_html(tokens: list[Token], lines: tuple[int, int] = (0, 0)) -> Iterator[RawHtml]:
    for tok in tokens:
        where = (tok.map[0], tok.map[1]) if tok.map else lines
        if tok.type in ("html_block", "html_inline"):
            yield RawHtml(tok.content, *where)
        if tok.children:
            yield from _raw_html(tok.children, where)


def unsafe_raw_html(body: str) -> list[RawHtml]:
    """The raw HTML of a post body that nh3 would change."""
    from site_builder.parse import parse

    tokens, _ = parse(body)
    return [raw for raw in _raw_html(tokens) if not kept_as_is(raw.html)]


def _escape(lines: list[str], raw: RawHtml) -> None:
    """`raw` written as text where it is: its first place in its lines, else every `<` of those lines."""
    end = max(raw.end, raw.start + 1)
    segment = "\n".join(lines[raw.start : end])
    if raw.html and raw.html in segment:
        segment = segment.replace(raw.html, raw.html.replace("<", "&lt;"), 1)
    else:
        segment = segment.replace("<", "&lt;")
    lines[raw.start : end] = segment.split("\n")


def checked_markdown(body: str, warn: Callable[[str], None]) -> str:
    """`body` with every piece of raw HTML nh3 would change written as text; one warning says how many."""
    found = unsafe_raw_html(body) if "<" in body else []  # raw HTML starts with one
    if not found:
        return body
    shown = " ".join(found[0].html.split())
    warn(
        f"wrote as text {len(found)} piece{'s' if len(found) > 1 else ''} of raw HTML the site would not keep as it "
        f"is (such as {shown[:60]!r})"
    )
    for _ in range(_ROUNDS):
        lines = body.split("\n")
        for raw in found:
            _escape(lines, raw)
        body = "\n".join(lines)
        found = unsafe_raw_html(body)
        if not found:
            return body
    return body.replace("<", "&lt;")
