"""HTML -> Markdown for one post: BeautifulSoup preprocessing, then a markdownify converter."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from bs4 import BeautifulSoup, Tag
from bs4.element import NavigableString
from markdownify import (  # type: ignore[attr-defined]  # markdownify's stubs lack these helpers
    ATX,
    MarkdownConverter,
    chomp,
    should_remove_whitespace_inside,
    should_remove_whitespace_outside,
)

from site_builder.importer.text import (
    escape_alt,
    escape_text,
    is_punct,
    is_space,
    md_title,
    md_url,
    table_cell,
    useful_alt,
)


def _names(text: str) -> set[str]:
    return set(text.split())


_BLOCK_TOKEN = "\x00B{}\x00"
_BLOCK_LINE = re.compile(r"^(?P<prefix>.*?)\x00B(?P<n>\d+)\x00[ \t]*$", re.M)
_INLINE_PARENTS = _names("a em i strong b span code sup sub small mark u s del ins abbr cite q label font time")
_BLOCK_NAMES = _names(
    "p div li ul ol blockquote h1 h2 h3 h4 h5 h6 pre table tr td th section article figure figcaption dl dt dd hr "
    "header footer aside main nav details"
)
_LOOSE_CHILDREN = {"p", "div", "blockquote", "pre", "table", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "figure"}


class Doc:
    """State shared by the preprocessing steps and the converter for one HTML fragment."""

    def __init__(self, html: str, base: str, warn: Callable[[str], None]):
        self.html = html
        self.base = base
        self.warn = warn
        self.soup = BeautifulSoup(html, "html.parser")
        for el in self.soup.find_all(True):  # the placeholders' attributes: a feed cannot forge one
            for name in [name for name in el.attrs if name.startswith("data-md-")]:
                del el[name]
        self.blocks: list[tuple[str, str]] = []  # (Markdown block, inline fallback)
        self.inlines: list[str] = []
        self.footnotes: list[tuple[str, str]] = []  # (label, Markdown text)
        self.converter = PostConverter(self)

    def block(self, markdown: str, inline: str | None = None) -> Tag:
        """A placeholder element that becomes `markdown` as a block of its own lines."""
        tag = self.soup.new_tag("div")
        tag["data-md-block"] = str(len(self.blocks))
        self.blocks.append((markdown.strip("\n"), inline if inline is not None else markdown))
        return tag

    def inline(self, markdown: str, math: bool = False) -> Tag:
        """A placeholder element that becomes `markdown` verbatim inside a paragraph."""
        tag = self.soup.new_tag("span")
        tag["data-md-inline"] = str(len(self.inlines))
        if math:
            tag["data-md-math"] = "1"
        self.inlines.append(markdown)
        return tag

    def add_footnote(self, label: str, text: str) -> None:
        """A footnote definition `[^label]: text`, its later lines indented under it."""
        lines = text.split("\n")
        self.footnotes.append((label, "\n".join([lines[0]] + [("    " + line) if line else "" for line in lines[1:]])))

    def fragment(self, el: Tag) -> str:
        """Markdown for the children of `el` (which may be detached from the tree)."""
        wrapper = self.soup.new_tag("div")
        for child in list(el.children):
            wrapper.append(child.extract())
        text: str = self.converter.process_tag(wrapper, parent_tags=set())  # type: ignore[attr-defined]
        return self.finish(text)

    def inline_fragment(self, el: Tag) -> str:
        """One-line inline Markdown for the children of `el` (captions)."""
        wrapper = self.soup.new_tag("span")
        for child in list(el.children):
            wrapper.append(child.extract())
        text: str = self.converter.process_tag(wrapper, parent_tags={"_inline"})  # type: ignore[attr-defined]
        return " ".join(text.split()).replace("\x00", "")

    def finish(self, text: str) -> str:
        text = substitute_blocks(tidy(text), self.blocks)
        # a block that ended up inside a line (say, a figure inside a link) falls back to its inline form
        return re.sub(r"\x00B(\d+)\x00", lambda m: self.blocks[int(m.group(1))][1], text)


def attr(el: Tag, name: str) -> str:
    """An attribute's value as text: "" when absent, a multi-valued one (class) joined by spaces."""
    value = el.get(name)
    if value is None:
        return ""
    return value if isinstance(value, str) else " ".join(value)


def tidy(text: str) -> str:
    """No trailing spaces, no runs of blank lines, no blank lines at either end."""
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n")


def substitute_blocks(text: str, blocks: list[tuple[str, str]]) -> str:
    """Put each block's lines where its placeholder line is, with the same indent or `>` prefix. After a list
    marker the block starts on the marker's line and its other lines go under the item's content (the marker
    alone, then a blank line, would be an empty item with the block outside the list)."""

    def repl(m: re.Match[str]) -> str:
        prefix = m.group("prefix")
        indent = re.match(r"[ >]*", prefix).group()  # type: ignore[union-attr]  # always matches
        lead = prefix if prefix == indent or prefix[-1:] in (" ", "\t") else prefix + " "
        under = indent + " " * (len(lead) - len(indent))
        first, *rest = substitute_blocks(blocks[int(m.group("n"))][0], blocks).split("\n")
        return "\n".join([lead + first, *((under + line) if line else under.rstrip() for line in rest)])

    return _BLOCK_LINE.sub(repl, text)


def _edge_char(node: Any, forward: bool) -> str:
    """The first (or last) character of the text next to an inline element, '' at a boundary."""
    while node is not None:
        sib = node.next_sibling if forward else node.previous_sibling
        while sib is not None:
            text = (
                sib
                if isinstance(sib, NavigableString)
                else ("" if sib.name in ("br",) else ("x" if sib.has_attr("data-md-inline") else sib.get_text()))
            )
            if isinstance(sib, Tag) and sib.name in _BLOCK_NAMES:
                return ""
            if text:
                return text[0] if forward else text[-1]
            sib = sib.next_sibling if forward else sib.previous_sibling
        node = node.parent
        if node is None or node.name not in _INLINE_PARENTS:
            return ""
    return ""


_SAME = {
    "em": "em",
    "i": "em",
    "cite": "em",
    "strong": "strong",
    "b": "strong",
    "del": "del",
    "s": "del",
    "strike": "del",
}


def _touches_same(el: Tag) -> bool:
    """An emphasis element right next to another of the same kind (no text between)."""
    for sib in (el.previous_sibling, el.next_sibling):
        if isinstance(sib, Tag) and _SAME.get(sib.name) == _SAME.get(el.name):
            return True
    return False


def _is_loose(list_el: Tag | None) -> bool:
    """Whether markdown-it will render this list with <p> in its items (blank lines inside an item)."""
    if list_el is None:
        return False
    for li in list_el.find_all("li", recursive=False):
        kids = [c for c in li.children if not (isinstance(c, NavigableString) and not c.strip())]
        if len(kids) > 1 and any(isinstance(c, Tag) and c.name in _LOOSE_CHILDREN for c in kids):
            return True
    return False


def _raw_inline(tag: str) -> Callable[[Any, Tag, str, set[str]], str]:
    """A converter method writing `<tag>text</tag>` (inline HTML CommonMark keeps)."""

    def convert(self: Any, el: Tag, text: str, parent_tags: set[str]) -> str:
        if "_noformat" in parent_tags or not text.strip():
            return text
        return f"<{tag}>{text}</{tag}>"

    return convert


def drawing_src(src: str) -> bool:
    """Whether an image source is a drawing (`images.drawing_image`): Markdown takes no SVG `data:` URL."""
    return src.startswith("data:image/svg+xml;base64,")


def drawing_html(el: Tag, src: str, alt: str) -> str:
    """A drawing's `<img>` as raw HTML, its size kept, in one line and one table cell."""
    size = "".join(f' {k}="{html.escape(str(el[k]))}"' for k in ("width", "height") if el.get(k))
    alt = html.escape(" ".join(alt.split())).replace("|", "&#124;")
    return f'<img src="{html.escape(src)}" alt="{alt}"{size}>'


class PostConverter(MarkdownConverter):
    """markdownify with the site's dialect: ATX headings, `-` bullets, `\\` hard breaks, `$` escaped."""

    class Options:
        heading_style = ATX
        bullets = "-"
        newline_style = "backslash"
        strong_em_symbol = "*"
        escape_asterisks = False
        escape_underscores = False
        escape_misc = False
        autolinks = True
        strip_document = "strip"

    def __init__(self, doc: Doc, **options: Any) -> None:
        super().__init__(**options)
        self.doc = doc

    # --- text -------------------------------------------------------------------------------
    def process_text(self, el: NavigableString, parent_tags: set[str] | None = None) -> str:
        parent_tags = parent_tags or set()
        text = str(el) or ""
        if "pre" not in parent_tags:
            text = re.sub(r"[\t \r\n]*[\r\n][\t \r\n]*", "\n", text)
            text = re.sub(r"[\t ]+", " ", text)
        if should_remove_whitespace_outside(el.previous_sibling) or (
            should_remove_whitespace_inside(el.parent) and not el.previous_sibling
        ):
            text = text.lstrip(" \t\r\n")
        if should_remove_whitespace_outside(el.next_sibling) or (
            should_remove_whitespace_inside(el.parent) and not el.next_sibling
        ):
            text = text.rstrip()
        if "_noformat" not in parent_tags:
            prev = el.previous_sibling
            starts_line = prev is None or (isinstance(prev, Tag) and (prev.name == "br" or prev.name in _BLOCK_NAMES))
            if "_inline" in parent_tags:
                starts_line = False  # heading text and table cells cannot start a block
            text = escape_text(text, line_start=starts_line)
        return text

    # --- placeholders -----------------------------------------------------------------------
    def convert_div(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        key = el.get("data-md-block")
        if key is not None:
            _markdown, inline = self.doc.blocks[int(str(key))]
            if "_inline" in parent_tags:
                return inline
            return "\n\n" + _BLOCK_TOKEN.format(key) + "\n\n"
        return str(super().convert_div(el, text, parent_tags))  # type: ignore[misc]

    convert_section = convert_div
    convert_article = convert_div

    def convert_span(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        key = el.get("data-md-inline")
        if key is not None:
            markdown = self.doc.inlines[int(str(key))]
            if el.has_attr("data-md-math") and "_noformat" not in parent_tags:
                # `2$x$` or `$x$2` is not math to the builder (currency rule): an empty comment separates
                if _edge_char(el, forward=False).isdigit():
                    markdown = "<!-- -->" + markdown
                if _edge_char(el, forward=True).isdigit():
                    markdown += "<!-- -->"
            return markdown
        return text

    # --- inline markup ----------------------------------------------------------------------
    def _emphasis(self, el: Tag, text: str, parent_tags: set[str], marker: str, tag: str) -> str:
        if "_noformat" in parent_tags:
            return text
        prefix, suffix, inner = chomp(text)
        if not inner:
            return text if text.strip() == "" and text else ""
        if _touches_same(el):
            return f"{prefix}<{tag}>{inner}</{tag}>{suffix}"  # `**a****b**` would not parse
        before = prefix or _edge_char(el, forward=False)
        after = suffix or _edge_char(el, forward=True)
        opens = not is_space(inner[0]) and (not is_punct(inner[0]) or is_space(before) or is_punct(before))
        closes = not is_space(inner[-1]) and (not is_punct(inner[-1]) or is_space(after) or is_punct(after))
        if opens and closes and "\n\n" not in inner:
            return f"{prefix}{marker}{inner}{marker}{suffix}"
        return f"{prefix}<{tag}>{inner}</{tag}>{suffix}"  # CommonMark would not see `*` here

    def convert_em(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        return self._emphasis(el, text, parent_tags, "*", "em")

    convert_i = convert_em
    convert_cite = convert_em

    def convert_strong(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        return self._emphasis(el, text, parent_tags, "**", "strong")

    convert_b = convert_strong

    def convert_del(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        return self._emphasis(el, text, parent_tags, "~~", "del")

    convert_s = convert_del
    convert_strike = convert_del

    convert_sub = _raw_inline("sub")
    convert_sup = _raw_inline("sup")
    convert_mark = _raw_inline("mark")
    convert_ins = _raw_inline("ins")
    convert_u = _raw_inline("u")

    def convert_kbd(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        # its text comes unescaped (markdownify reads <kbd> as code), and <kbd> here is HTML, not a code span
        if "_noformat" in parent_tags or not text.strip():
            return text
        return f"<kbd>{escape_text(text, line_start=False)}</kbd>"

    def convert_td(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        return str(super().convert_td(el, table_cell(text), parent_tags))  # type: ignore[misc]

    def convert_th(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        return str(super().convert_th(el, table_cell(text), parent_tags))  # type: ignore[misc]

    def convert_a(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        if "_noformat" in parent_tags:
            return text
        prefix, suffix, inner = chomp(text)
        href = str(el.get("href") or "")
        if not inner:
            return ""
        if not href:
            return text
        title = str(el.get("title") or "")
        if inner.replace("\\_", "_") == href and not title and re.match(r"^[a-z][a-z0-9+.-]*:[^\s<>]*$", href, re.I):
            return f"{prefix}<{href}>{suffix}"
        title_part = f' "{md_title(title)}"' if title else ""
        return f"{prefix}[{inner}]({md_url(href)}{title_part}){suffix}"

    def convert_img(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        src = str(el.get("src") or el.get("data-src") or "")
        if not src:
            return ""
        if drawing_src(src):
            return drawing_html(el, src, str(el.get("alt") or ""))
        alt = escape_alt(useful_alt(str(el.get("alt") or ""), src))
        title = str(el.get("title") or "")
        title_part = f' "{md_title(title)}"' if title else ""
        return f"![{alt}]({md_url(src)}{title_part})"

    convert_tt = MarkdownConverter.convert_code  # type: ignore[attr-defined]

    def convert_br(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        if "_inline" in parent_tags:
            return " "
        return "\\\n"

    def convert_hN(self, n: int, el: Tag, text: str, parent_tags: set[str]) -> str:
        if "_inline" in parent_tags:
            return text
        text = " ".join(text.split())
        if not text:
            return ""
        if re.search(r"(?:^|\s)#+$", text):
            text = text[:-1] + "\\#"  # not a closing sequence
        return f"\n\n{'#' * max(1, min(6, n))} {text}\n\n"

    def convert_list(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        li = el.parent
        if "li" in parent_tags and li is not None and li.name == "li" and _is_loose(li.parent):
            # the outer list renders with paragraphs, so keep its nested list a block of its own
            return "\n\n" + text.rstrip()
        return str(super().convert_list(el, text, parent_tags))  # type: ignore[misc]

    convert_ul = convert_list
    convert_ol = convert_list

    def convert_figcaption(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        return "\n\n" + text.strip() + "\n\n"

    def convert_q(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        return "“" + text + "”"
